package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/probe/wire"
)

// remoteTimeout bounds one admin request to a running backend.
const remoteTimeout = 30 * time.Second

// remoteAdmin sends an admin command to a running backend (--server: the
// base URL of serve or of the tickets function) instead of opening the
// store, which serve holds locked: POST base+path with body as JSON and
// the API key from $GPUSLA_API_KEY. The answer is decoded into out; a
// refusal comes back as the flag its field names (at → --at), as the
// local command says it.
func remoteAdmin(ctx context.Context, base, path string, body, out any) error {
	return remoteCall(ctx, http.MethodPost, base, path, body, out)
}

// remoteCall is remoteAdmin with its method; a GET sends no body.
func remoteCall(ctx context.Context, method, base, path string, body, out any) error {
	return flagError(remoteScoped(ctx, method, base, path, "admin", body, out))
}

// remoteScoped is remoteCall with the scope the key needs (named when no
// key is set); out a *[]byte takes the answer as it is (a CSV, a letter),
// and a refusal naming a field is an *app.Error, for the command to word
// as its flags go.
func remoteScoped(ctx context.Context, method, base, path, scope string, body, out any) error {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--server: %q is not an http(s) URL such as http://127.0.0.1:8080", base)
	}
	key := strings.TrimSpace(os.Getenv(wiring.EnvAPIKey))
	if key == "" {
		return fmt.Errorf("--server needs an API key with the %s scope in $%s (create one with `gpusla apikey create --scope %s`)", scope, wiring.EnvAPIKey, scope)
	}
	var b []byte
	if method != http.MethodGet {
		if b, err = json.Marshal(body); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, remoteTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(u.String(), "/")+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("--server %s: %w", base, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("--server %s: reading the answer: %w", base, err)
	}
	if resp.StatusCode != http.StatusOK {
		var we wire.Error
		if json.Unmarshal(raw, &we) != nil || we.Error == "" {
			return fmt.Errorf("--server %s answered %s", base, resp.Status)
		}
		if msg, ok := strings.CutPrefix(we.Error, we.Field+": "); ok && we.Field != "" && we.Field != "node" {
			return &app.Error{Field: we.Field, Msg: msg}
		}
		return fmt.Errorf("server refused (%s): %s", resp.Status, we.Error)
	}
	if b, ok := out.(*[]byte); ok {
		*b = raw
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("--server %s: the answer is not what %s returns: %w", base, path, err)
	}
	return nil
}
