package nodeadd

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

func service(t *testing.T) (*app.Service, *bolt.Store) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st
}

func request() Request {
	return Request{
		Node: app.NewNode{ID: "gz-01", Provider: "acme", Contract: "cn-example", GPUModel: "H200", GPUCount: 8,
			Currency: "USD", HeartbeatInterval: app.DefaultHeartbeatInterval, PushInterval: app.DefaultPushInterval, Grace: app.DefaultGrace},
		OrderedAt: "2026-11-30T08:00:00+08:00",
		Probe:     Probe{BackendURL: "http://127.0.0.1:8080/v1/batches", SecretFile: "/etc/gpuprobe/secret", GPUMemoryGB: 141},
	}
}

// The node is stored as given (order time, memory in MiB) and the output
// holds its secret once.
func TestAdd(t *testing.T) {
	svc, st := service(t)
	var out bytes.Buffer
	if err := Add(t.Context(), svc, request(), &out); err != nil {
		t.Fatal(err)
	}
	n, err := st.GetNode(t.Context(), "gz-01")
	if err != nil {
		t.Fatal(err)
	}
	if !n.OrderedAt.Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)) || n.GPUMemoryMiB != 141*1024 {
		t.Fatalf("stored %+v", n)
	}
	if !strings.Contains(out.String(), "# Registered gz-01 (provider acme, contract cn-example).") ||
		!strings.Contains(out.String(), "sudo install -d -m 700 /etc/gpuprobe &&") {
		t.Fatalf("output:\n%s", out.String())
	}
}

// Refusals name the flag, not the application's field, and print nothing.
func TestAddErrorsNameTheFlag(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Request)
		want string
	}{
		{"ordered-at", func(r *Request) { r.OrderedAt = "tomorrow" }, `--ordered-at "tomorrow"`},
		{"memory", func(r *Request) { r.Probe.GPUMemoryGB = -1 }, "--gpu-memory-gb: must not be negative"},
		{"heartbeat", func(r *Request) { r.Node.HeartbeatInterval = -time.Second }, "--heartbeat: "},
		{"push", func(r *Request) { r.Node.PushInterval = time.Second }, "--push: "},
		{"id", func(r *Request) { r.Node.ID = "no spaces" }, "--id: "},
	} {
		svc, _ := service(t)
		r := request()
		c.edit(&r)
		var out bytes.Buffer
		if err := Add(t.Context(), svc, r, &out); err == nil || !strings.Contains(err.Error(), c.want) || out.Len() != 0 {
			t.Errorf("%s: got %v, want an error containing %q and no output (%q)", c.name, err, c.want, out.String())
		}
	}
	svc, _ := service(t)
	if err := Add(t.Context(), svc, request(), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := Add(t.Context(), svc, request(), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "gz-01") {
		t.Errorf("second registration of gz-01: %v", err)
	}
}

func TestDirOf(t *testing.T) {
	for p, want := range map[string]string{"/etc/gpuprobe/secret": "/etc/gpuprobe", "secret": ".", "keys/secret": "keys"} {
		if got := dirOf(p); got != want {
			t.Errorf("dirOf(%q) = %q, want %q", p, got, want)
		}
	}
}

// A contract the configured terms do not define is refused before anything
// is stored, naming the flag, the value and the contracts there are; with
// no terms configured at all any contract is taken, with a warning.
func TestAddChecksTheContract(t *testing.T) {
	book := app.TermsBook{"us-example": nil, "cn-example": nil}
	for _, c := range []struct {
		name     string
		terms    app.TermsBook
		contract string
		err      string // "" means accepted
		warn     string
	}{
		{"known", book, "cn-example", "", ""},
		{"unknown", book, "xyz", `--contract "xyz": unknown contract; known: cn-example, us-example`, ""},
		{"empty", book, "", `--contract "": unknown contract; known: cn-example, us-example`, ""},
		{"empty terms", app.TermsBook{}, "cn-example", `--contract "cn-example": unknown contract; known: (none`, ""},
		// The warning says where the terms go and where the examples are.
		{"no terms", nil, "anything", "", `warning: no contract terms configured, so --contract "anything" is not checked: put the contract's terms file (YAML, docs/terms.md) in <data>/terms, or set $GPUSLA_TERMS; the repository's examples are testdata/terms/cn-example.yaml`},
	} {
		svc, st := service(t)
		r := request()
		r.Node.Contract, r.Terms = c.contract, c.terms
		var out, warn bytes.Buffer
		r.Warn = &warn
		err := Add(t.Context(), svc, r, &out)
		if c.err == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		} else {
			if err == nil || !strings.HasPrefix(err.Error(), c.err) || out.Len() != 0 {
				t.Errorf("%s: got %v, want an error starting %q and no output (%q)", c.name, err, c.err, out.String())
			}
			if _, gerr := st.GetNode(t.Context(), "gz-01"); gerr == nil {
				t.Errorf("%s: the refused node was stored", c.name)
			}
		}
		if !strings.Contains(warn.String(), c.warn) || (c.warn == "" && warn.Len() != 0) {
			t.Errorf("%s: warning %q, want %q", c.name, warn.String(), c.warn)
		}
	}
}
