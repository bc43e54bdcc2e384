// Package enroltoken is what `gpusla token` and `gpusla enrol` print: a new
// enrolment token once, with the probe config every node of the fleet can
// share (checked to be one the probe accepts), and the tables of tokens
// and enrolments.
package enroltoken

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
)

// Paths on a node, as the shipped systemd unit and the Helm chart use them.
const (
	ConfigPath = "/etc/gpuprobe/probe.yaml"
	TokenPath  = "/etc/gpuprobe/enrol-token"
)

// CheckModel refuses a GPU model the probe's spec database does not know:
// every probe enrolled with the token would be unable to judge its cards.
func CheckModel(model string) error {
	if model == "" {
		return nil
	}
	if _, err := specdb.Default().Resolve(model); err != nil {
		return fmt.Errorf("--gpu-model: %v", err)
	}
	return nil
}

// fleetConfig is the probe config every node enrolled with the token
// shares: the backend and the token file; the id, secret and order come
// from the enrolment.
type fleetConfig struct {
	Backend struct {
		URL string `yaml:"url"`
	} `yaml:"backend"`
	Enrol struct {
		TokenFile string `yaml:"token_file"`
	} `yaml:"enrol"`
}

// FleetConfig is that config as YAML, checked by the probe's own parser.
func FleetConfig(backendURL string) ([]byte, error) {
	if want, bare := wire.BareIngestURL(backendURL); bare {
		// It would enrol (beside it, at /v1/enrol), then be told 404 on
		// every push.
		return nil, fmt.Errorf("--backend-url %q: the probe pushes to the backend's ingest path; give %s", backendURL, want)
	}
	var c fleetConfig
	c.Backend.URL, c.Enrol.TokenFile = backendURL, TokenPath
	y, err := yaml.Marshal(c)
	if err != nil {
		return nil, err
	}
	if _, err := config.Parse(y, "probe config"); err != nil {
		return nil, fmt.Errorf("--backend-url: the probe would refuse its config: %w", err)
	}
	return y, nil
}

// Print writes a new token: what it is good for, the token this once, and
// how a node or a cluster uses it.
func Print(w io.Writer, v httpapi.TokenView, backendURL string) error {
	y, err := FleetConfig(backendURL)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%d × %s", v.GPUs, v.GPUModel)
	if v.GPUMemoryMiB > 0 {
		what += fmt.Sprintf(" (%g GB each)", float64(v.GPUMemoryMiB)/1024)
	}
	if v.GPUDriver != "" {
		what += ", driver " + v.GPUDriver
	}
	scope := fmt.Sprintf("good for %d enrolment(s)", v.MaxUses)
	if v.Reenrol != "" {
		scope = "good once, to re-enrol node " + v.Reenrol + " (its secret is replaced)"
	}
	_, err = fmt.Fprintf(w, `# Enrolment token %s: contract %s, provider %s, %s, ordered %s;
# %s until %s. Shown only this once (stored as a hash):
%s
#
# On each node: save it (mode 0600) as %s, and this config as %s;
# the probe enrols on its first start (id: the host name, or node: in the config)
# and keeps its id and secret in %s:
#   sudo install -d -m 700 /etc/gpuprobe && printf '%%s\n' '<token>' | sudo install -m 600 /dev/stdin %s
#   sudo systemctl enable --now gpuprobe
# Kubernetes (the chart's enrol.existingSecret; the id is the node name):
#   kubectl -n gpusla create secret generic gpuprobe-enrol --from-literal=token='<token>'
---
%s`, v.ID, v.Contract, v.Provider, what, v.OrderedAt.Format(time.RFC3339), scope, v.ExpiresAt.Format(time.RFC3339), v.Token,
		TokenPath, ConfigPath, config.DefaultEnrolState, TokenPath, y)
	return err
}

// Tokens writes the table of tokens.
func Tokens(w io.Writer, ts []httpapi.TokenView, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tCONTRACT\tORDER\tUSES\tEXPIRES\tSTATE\tCREATED BY")
	for _, t := range ts {
		state := "active"
		switch {
		case !t.RevokedAt.IsZero():
			state = "revoked " + t.RevokedAt.Format(time.RFC3339) + " by " + t.RevokedBy
		case !now.Before(t.ExpiresAt):
			state = "expired"
		case t.Uses >= t.MaxUses:
			state = "used up"
		}
		order := fmt.Sprintf("%d × %s", t.GPUs, t.GPUModel)
		if t.Reenrol != "" {
			order = "re-enrol " + t.Reenrol
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", t.ID, dash(t.Name), t.Contract, order, t.Uses, t.MaxUses,
			t.ExpiresAt.Format(time.RFC3339), state, t.CreatedBy)
	}
	return tw.Flush()
}

// Enrolments writes the table of enrolments: the books' record of who let
// each node in, when, and with which token.
func Enrolments(w io.Writer, es []store.Enrolment) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tAT\tTOKEN\tBY\tKIND\tHOST\tPROBE\tFROM")
	for _, e := range es {
		kind := "enrolment"
		if e.Reenrol {
			kind = "re-enrolment"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Node, e.At.Format(time.RFC3339), e.Token, e.By, kind,
			dash(e.Hostname), dash(e.ProbeVersion), dash(e.Remote))
	}
	return tw.Flush()
}

func dash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
