// Package nodeadd registers a rented node from the command line (`gpusla
// node add`) and prints what the node needs: its secret, this once, and a
// probe config (probe/config) the probe accepts as it is.
package nodeadd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/wire"
)

// Request is a node to register, as the flags give it.
type Request struct {
	Node app.NewNode // OrderedAt and GPUMemoryMiB are filled from the fields below
	// OrderedAt is RFC 3339; "" means now.
	OrderedAt string
	Probe     Probe
	// Terms is the contract terms `gpusla serve` would load from the same
	// place (functions/wiring's lookup); the contract must be one of them.
	// Nil means no terms are configured at all (a fresh demo folder): any
	// contract is accepted then, with a warning to Warn, since refusing would
	// leave nothing registrable before the terms are written.
	Terms app.TermsBook
	Warn  io.Writer
	// TermsDir is where serve looks for terms in this data folder, named in
	// the warning so a newcomer knows where the example terms go.
	TermsDir string
}

// Probe is what the printed probe config needs beyond the node.
type Probe struct {
	BackendURL  string  // ingest URL the probe pushes to
	SecretFile  string  // where the secret is kept on the node
	GPUMemoryGB float64 // memory per GPU as sold, in GB
	// CAFile is where, on the node, the PEM certificate of a backend
	// serving https with its own certificate is kept (backend.ca_file);
	// "" trusts the system's roots.
	CAFile string
}

// Add registers the node with svc and prints its secret and probe config
// to w. Refusals name the flag at fault; nothing is printed then.
func Add(ctx context.Context, svc *app.Service, r Request, w io.Writer) error {
	in := r.Node
	in.OrderedAt = svc.Now()
	if r.OrderedAt != "" {
		t, err := time.Parse(time.RFC3339, r.OrderedAt)
		if err != nil {
			return fmt.Errorf("--ordered-at %q: want an RFC 3339 time such as 2026-11-30T08:00:00Z", r.OrderedAt)
		}
		in.OrderedAt = t
	}
	if err := checkContract(r); err != nil {
		return err
	}
	if err := fromTerms(&in, r.Terms); err != nil {
		return err
	}
	if in.Provider == "" && r.Terms == nil && in.Contract != "" {
		// The README's node add gives no --provider: it comes from the
		// terms, which a wrong --data (or a run from another folder) lacks.
		dir := r.TermsDir
		if dir == "" {
			dir = "<data>/terms"
		}
		return fmt.Errorf("--provider: missing: it comes from contract %s's terms, and %s holds none (is --data the serve's data folder? run from the clone's top folder?): copy the terms there, or give --provider; nothing was registered", in.Contract, dir)
	}
	if err := checkBackendURL(r.Probe); err != nil {
		return err
	}
	if r.Probe.GPUMemoryGB < 0 {
		return fmt.Errorf("--gpu-memory-gb: must not be negative")
	}
	in.GPUMemoryMiB = int(r.Probe.GPUMemoryGB * 1024)
	err := in.Validate()
	if err == nil {
		// The probe config must be one the probe takes (a GPU model its spec
		// database knows) before anything is stored: a refusal after the
		// registration would leave the id taken by a node no probe can run.
		_, err = probeYAML(store.Node{ID: in.ID, GPUModel: in.GPUModel, GPUCount: in.GPUCount,
			HeartbeatInterval: in.HeartbeatInterval, PushInterval: in.PushInterval}, r.Probe)
	}
	var n store.Node
	var secret []byte
	if err == nil {
		n, secret, err = svc.AddNode(ctx, in)
	}
	var fe *app.Error
	if errors.As(err, &fe) && fe.Kind == app.EConflict && fe.Field == "id" {
		// Run again (the README twice), or the secret was lost: it was
		// printed once and is stored only sealed.
		return fmt.Errorf("--id: %s (gpusla node list); its secret was shown once, when it was registered: give another --id, "+
			"or replace the secret with a re-enrolment token (gpusla enrol again %s; docs/probe.md, \"Installing on a fleet\")", fe.Msg, in.ID)
	} else if errors.As(err, &fe) {
		return fmt.Errorf("--%s: %s", flagOf(fe.Field), fe.Msg)
	} else if err != nil {
		return err
	}
	return Print(w, n, secret, r.Probe)
}

// configFlags are the flags behind the probe config's fields.
var configFlags = []struct{ field, flag string }{
	{"expected.model", "gpu-model"}, {"expected.gpus", "gpus"}, {"expected.gpu_memory_gb", "gpu-memory-gb"},
	{"node", "id"}, {"backend.url", "backend-url"}, {"backend.ca_file", "ca-file"}, {"secret_file", "secret-file"},
	{"schedules.heartbeat", "heartbeat"}, {"schedules.push", "push"},
}

// probeYAML is the probe config for node n, checked with the probe's own
// parser; a refusal names the flag behind the field and says nothing was
// registered.
func probeYAML(n store.Node, p Probe) ([]byte, error) {
	pc := probeConfig{Node: n.ID, Backend: probeBackend{URL: p.BackendURL, CAFile: p.CAFile}, SecretFile: p.SecretFile,
		Schedules: map[string]string{"heartbeat": n.HeartbeatInterval.String(), "push": n.PushInterval.String()},
		Expected:  expect.Expected{Model: n.GPUModel, GPUs: n.GPUCount, GPUMemoryGB: p.GPUMemoryGB}}
	y, err := yaml.Marshal(pc)
	if err != nil {
		return nil, err
	}
	if _, err := config.Parse(y, "probe config"); err != nil {
		msg := err.Error()
		for _, c := range configFlags {
			if _, rest, ok := strings.Cut(msg, ": "+c.field+": "); ok {
				return nil, fmt.Errorf("--%s: %s; nothing was registered", c.flag, rest)
			}
		}
		return nil, fmt.Errorf("the probe would refuse its config: %w; nothing was registered", err)
	}
	return y, nil
}

// checkContract refuses a contract the configured terms do not define: a
// node under it could never be judged, and each monthly report would have
// to skip it.
func checkContract(r Request) error {
	c := r.Node.Contract
	if r.Terms == nil {
		if r.Warn != nil && c != "" {
			dir := r.TermsDir
			if dir == "" {
				dir = "<data>/terms"
			}
			fmt.Fprintf(r.Warn, "warning: no contract terms configured, so --contract %q is not checked: put the contract's terms file (YAML, docs/terms.md) in %s, "+
				"or set $GPUSLA_TERMS; the repository's examples are testdata/terms/cn-example.yaml and us-example.yaml (mkdir -p %s && cp testdata/terms/cn-example.yaml %s/)\n",
				c, dir, dir, dir)
		}
		return nil
	}
	if _, ok := r.Terms[c]; ok {
		return nil
	}
	known := slices.Sorted(maps.Keys(r.Terms))
	list := strings.Join(known, ", ")
	if len(known) == 0 {
		list = "(none: the terms hold no contract)"
	}
	return fmt.Errorf("--contract %q: unknown contract; known: %s", c, list)
}

// fromTerms takes the provider and the currency from the contract's terms,
// and the price (per GPU-hour, times the GPUs) when --price is not given:
// the alerts, the status page and the claim letter then name the provider
// as the contract does. A flag that contradicts the terms is refused, naming
// both; without terms (none configured) the flags stand alone.
func fromTerms(in *app.NewNode, book app.TermsBook) error {
	tm, ok := book[in.Contract]
	if !ok || tm == nil {
		if in.Currency == "" {
			in.Currency = "USD"
		}
		return nil
	}
	where := fmt.Sprintf("contract %s's terms (%s:%d)", tm.Contract, tm.File, tm.Line)
	switch {
	case in.Provider == "":
		in.Provider = tm.Provider
	case in.Provider != tm.Provider:
		return fmt.Errorf("--provider %q: %s name the provider %q; leave --provider out to take it from the terms", in.Provider, where, tm.Provider)
	}
	switch {
	case in.Currency == "":
		in.Currency = tm.Currency
	case in.Currency != tm.Currency:
		return fmt.Errorf("--currency %s: %s price in %s; leave --currency out to take it from the terms", in.Currency, where, tm.Currency)
	}
	if in.PricePerHour == 0 && tm.Billing.PricePerGPUHour > 0 && in.GPUCount > 0 {
		in.PricePerHour = tm.Billing.PricePerGPUHour * float64(in.GPUCount)
	}
	return nil
}

// checkBackendURL refuses a --backend-url the probe would refuse: not
// http(s), or plain http to another machine (the probe sends its signed
// batches only over https there).
func checkBackendURL(p Probe) error {
	u, err := url.Parse(p.BackendURL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("--backend-url %q: not an http(s) URL such as https://sla.example.com/v1/batches", p.BackendURL)
	}
	if want, bare := wire.BareIngestURL(p.BackendURL); bare {
		return fmt.Errorf("--backend-url %q: the probe pushes to the backend's ingest path; give %s", p.BackendURL, want)
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return fmt.Errorf("--backend-url %q: a probe on another machine refuses plain http; serve https (gpusla serve --tls-cert and --tls-key, "+
			"docs/backend.md \"Remote nodes: TLS\") and give its https URL, with --ca-file when the certificate is your own", p.BackendURL)
	}
	if p.CAFile != "" && u.Scheme != "https" {
		return fmt.Errorf("--ca-file: is for an https --backend-url; %q is plain http", p.BackendURL)
	}
	return nil
}

// loopback says whether host is this machine (the probe's own rule for
// plain http).
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// flagOf maps an application field name to the command's flag.
func flagOf(field string) string {
	switch field {
	case "heartbeat_interval":
		return "heartbeat"
	case "push_interval":
		return "push"
	case "ordered_at":
		return "ordered-at"
	}
	return field
}

// probeConfig is the part of the probe's config file (probe/config) that
// `node add` fills in; the probe's defaults cover the rest.
type probeConfig struct {
	Node       string            `yaml:"node"`
	Backend    probeBackend      `yaml:"backend"`
	SecretFile string            `yaml:"secret_file"`
	Schedules  map[string]string `yaml:"schedules"`
	Expected   expect.Expected   `yaml:"expected"`
}

type probeBackend struct {
	URL    string `yaml:"url"`
	CAFile string `yaml:"ca_file,omitempty"`
}

// Print writes the registration: the secret once, how to install it on
// the node, and the probe config, checked to be one the probe accepts.
func Print(w io.Writer, n store.Node, secret []byte, p Probe) error {
	y, err := probeYAML(n, p)
	if err != nil {
		return fmt.Errorf("internal: generated probe config is invalid: %w", err)
	}
	_, err = fmt.Fprintf(w, `# Registered %s (provider %s, contract %s).
# Its secret, shown only this once (stored here only encrypted):
%s
#
# On the node (docs/probe.md, "Install"), put the binary (bin/gpuprobe of the build) on the PATH:
#   sudo install -m 0755 gpuprobe /usr/local/bin/gpuprobe
# save the secret (mode 0600) where the config below expects it:
#   sudo install -d -m 700 %s && printf '%%s\n' '<secret>' | sudo install -m 600 /dev/stdin %s
# save the config below as %s (the path the shipped systemd unit,
# probe/deploy/gpuprobe.service, runs gpuprobe run --config with),
# judge the node against the order once (exit 0 pass, 2 warn, 3 fail):
#   sudo gpuprobe check --config %s
# then install the unit and start the probe:
#   sudo install -m 0644 gpuprobe.service /etc/systemd/system/ && sudo systemctl daemon-reload
#   sudo systemctl enable --now gpuprobe
%s---
%s`, n.ID, n.Provider, n.Contract, secret, dirOf(p.SecretFile), p.SecretFile, config.DefaultPath, config.DefaultPath, reach(p), y)
	return err
}

// reach says, for a backend URL on this machine's loopback, that only a
// probe on this machine reaches it and how to reach it from a node.
func reach(p Probe) string {
	u, err := url.Parse(p.BackendURL)
	if err != nil || !loopback(u.Hostname()) {
		return ""
	}
	return `#
# backend.url is this machine's loopback address: only a probe on this
# machine reaches it. For a node elsewhere, serve https (gpusla serve
# --tls-cert and --tls-key; docs/backend.md, "Remote nodes: TLS") and
# register with --backend-url https://HOST:PORT/v1/batches, and --ca-file
# where the node keeps the certificate when it is your own.
`
}

// dirOf is the folder of the secret file; "." for a bare name.
func dirOf(p string) string {
	d := path.Dir(p)
	if d == "/" {
		return "."
	}
	return d
}
