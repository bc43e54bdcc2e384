// Package enrol registers a probe with the backend on its first start,
// with the renter's enrolment token (config `enrol:`), and keeps the
// answer — the node's id, its secret and the order — in the state file
// (mode 0600) from which every later start and reload reads them.
//
// The id and a random key are written to the state file before the first
// request, so a probe that crashed or lost the answer asks again for the
// same node with the same key, and the backend gives it the same secret
// instead of refusing the id as taken. Once enrolled the probe never
// enrols again on its own: re-enrolment is the renter's act (a token made
// for that node, and the state file removed).
package enrol

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/gpusla/gpusla/internal/ctxsleep"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/push"
	"github.com/gpusla/gpusla/probe/wire"
)

// Retry delays of an enrolment the backend could not answer.
const (
	MinBackoff = time.Second
	MaxBackoff = 30 * time.Second
)

// Refused is a refusal the backend gave for good (a 4xx other than 408
// and 429): the token is wrong, used up, expired or revoked, or the id is
// taken. Trying again with the same token would only be refused again.
type Refused struct {
	Status int
	Msg    string
}

func (e *Refused) Error() string {
	return fmt.Sprintf("the backend refused the enrolment (%d): %s", e.Status, e.Msg)
}

// Enroller enrols one probe.
type Enroller struct {
	Config    *config.Config // parsed (config.Parse), not loaded
	Version   string
	Log       *slog.Logger
	Transport http.RoundTripper // nil: net/http's default
}

// Ensure enrols the probe unless its state file says it is enrolled. It
// retries what may pass later (no connection, 5xx, 408, 429) until ctx
// ends, and returns a *Refused at once.
func (e *Enroller) Ensure(ctx context.Context) error {
	c := e.Config
	if !c.Enrol.Enabled() {
		return nil
	}
	path := c.StatePath()
	st, err := config.ReadEnrolState(path)
	switch {
	case err == nil && st.Done():
		return nil
	case err != nil && !errors.Is(err, config.ErrNotEnrolled):
		return fmt.Errorf("enrol: %w", err)
	}
	if st.Node == "" || st.Key == "" || st.Backend != c.Backend.URL {
		if st, err = e.begin(); err != nil {
			return err
		}
		if err := config.WriteEnrolState(path, st); err != nil {
			return fmt.Errorf("enrol: keep the state: %w", err)
		}
	}
	delay := MinBackoff
	for {
		ans, err := e.request(ctx, st)
		if err == nil {
			st.Answer, st.Enrolled, st.Key = ans, time.Now().UTC(), ""
			if err := config.WriteEnrolState(path, st); err != nil {
				return fmt.Errorf("enrol: keep the answer: %w", err)
			}
			e.log().Info("enrolled", "node", ans.Node, "contract", ans.Contract, "gpu_model", ans.GPUModel, "gpus", ans.GPUs,
				"reenrol", ans.Reenrol, "state", path)
			return nil
		}
		var (
			refused *Refused
			bad     *config.Error
		)
		if errors.As(err, &refused) || errors.As(err, &bad) {
			return err // the backend's refusal, or the token file: waiting changes neither
		}
		e.log().Warn("enrolment failed, trying again", "node", st.Node, "err", err, "in", delay)
		if err := ctxsleep.Sleep(ctx, delay); err != nil {
			return fmt.Errorf("enrol: %w", err)
		}
		delay = min(2*delay, MaxBackoff)
	}
}

func (e *Enroller) log() *slog.Logger {
	if e.Log == nil {
		return slog.Default()
	}
	return e.Log
}

// begin picks the id to propose and a fresh key.
func (e *Enroller) begin() (config.EnrolState, error) {
	node, err := e.Config.ProposedNode()
	if err != nil {
		return config.EnrolState{}, err
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return config.EnrolState{}, err
	}
	return config.EnrolState{Backend: e.Config.Backend.URL, Node: node, Key: hex.EncodeToString(k)}, nil
}

// token reads the token file, which must not be readable by others.
func (e *Enroller) token() (string, error) {
	p := e.Config.TokenPath()
	info, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", &config.Error{File: e.Config.Path, Field: "enrol.token_file", Msg: fmt.Sprintf("%s does not exist: put the renter's enrolment token (gpe_…) there", p)}
	}
	if err != nil {
		return "", &config.Error{File: e.Config.Path, Field: "enrol.token_file", Msg: err.Error()}
	}
	if info.Mode().Perm()&0o077 != 0 {
		return "", &config.Error{File: e.Config.Path, Field: "enrol.token_file",
			Msg: fmt.Sprintf("%s is readable by others (mode %04o); chmod 600 it", p, info.Mode().Perm())}
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		return "", &config.Error{File: e.Config.Path, Field: "enrol.token_file", Msg: err.Error()}
	}
	t := strings.TrimSpace(string(raw))
	if !strings.HasPrefix(t, "gpe_") {
		return "", &config.Error{File: e.Config.Path, Field: "enrol.token_file", Msg: fmt.Sprintf("%s does not hold an enrolment token (gpe_…)", p)}
	}
	return t, nil
}

// request sends one enrolment and reads the answer.
func (e *Enroller) request(ctx context.Context, st config.EnrolState) (wire.EnrolResponse, error) {
	var ans wire.EnrolResponse
	token, err := e.token()
	if err != nil {
		return ans, err
	}
	u, err := wire.EnrolURL(e.Config.Backend.URL)
	if err != nil {
		return ans, err
	}
	host, _ := os.Hostname()
	body, err := json.Marshal(wire.EnrolRequest{Node: st.Node, Key: st.Key, Hostname: host, ProbeVersion: e.Version})
	if err != nil {
		return ans, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return ans, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := push.Client(e.Config.Backend.Timeout, e.Config.Backend.RootCAs, e.Transport).Do(req)
	if err != nil {
		return ans, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return ans, err
	}
	if resp.StatusCode != http.StatusOK {
		var we wire.Error
		msg := resp.Status
		if json.Unmarshal(raw, &we) == nil && we.Error != "" {
			msg = we.Error
		}
		if resp.StatusCode/100 == 4 && resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests {
			return ans, &Refused{Status: resp.StatusCode, Msg: msg}
		}
		return ans, fmt.Errorf("%s: %s", u, msg)
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		return ans, fmt.Errorf("%s: the answer is not an enrolment: %w", u, err)
	}
	if ans.Node != st.Node || len(ans.Secret) < config.MinSecretBytes {
		return ans, fmt.Errorf("%s: the answer names node %q with a %d-byte secret; asked for %q", u, ans.Node, len(ans.Secret), st.Node)
	}
	return ans, nil
}
