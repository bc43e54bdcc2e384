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
	"path"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/expect"
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
	if r.Probe.GPUMemoryGB < 0 {
		return fmt.Errorf("--gpu-memory-gb: must not be negative")
	}
	in.GPUMemoryMiB = int(r.Probe.GPUMemoryGB * 1024)
	n, secret, err := svc.AddNode(ctx, in)
	var fe *app.Error
	if errors.As(err, &fe) {
		return fmt.Errorf("--%s: %s", flagOf(fe.Field), fe.Msg)
	} else if err != nil {
		return err
	}
	return Print(w, n, secret, r.Probe)
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
	URL string `yaml:"url"`
}

// Print writes the registration: the secret once, how to install it on
// the node, and the probe config, checked to be one the probe accepts.
func Print(w io.Writer, n store.Node, secret []byte, p Probe) error {
	pc := probeConfig{Node: n.ID, Backend: probeBackend{URL: p.BackendURL}, SecretFile: p.SecretFile,
		Schedules: map[string]string{"heartbeat": n.HeartbeatInterval.String(), "push": n.PushInterval.String()},
		Expected:  expect.Expected{Model: n.GPUModel, GPUs: n.GPUCount, GPUMemoryGB: p.GPUMemoryGB}}
	y, err := yaml.Marshal(pc)
	if err != nil {
		return err
	}
	if _, err := config.Parse(y, "probe config"); err != nil {
		return fmt.Errorf("internal: generated probe config is invalid: %w", err)
	}
	_, err = fmt.Fprintf(w, `# Registered %s (provider %s, contract %s).
# Its secret, shown only this once (stored here only encrypted):
%s
#
# On the node, save it (mode 0600) where the config below expects it:
#   sudo install -d -m 700 %s && printf '%%s\n' '<secret>' | sudo install -m 600 /dev/stdin %s
# and run the probe with this config (gpuprobe run --config /etc/gpuprobe/config.yaml):
---
%s`, n.ID, n.Provider, n.Contract, secret, dirOf(p.SecretFile), p.SecretFile, y)
	return err
}

// dirOf is the folder of the secret file; "." for a bare name.
func dirOf(p string) string {
	d := path.Dir(p)
	if d == "/" {
		return "."
	}
	return d
}
