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
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/probe/config"
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
		// A model the probe's spec database does not know: refused before
		// the node is stored, so the id stays free for the corrected command.
		{"model", func(r *Request) { r.Node.GPUModel = "H201" }, `--gpu-model: model "H201" is not in the spec database`},
		{"secret file", func(r *Request) { r.Probe.SecretFile = "" }, "--secret-file: "},
	} {
		svc, st := service(t)
		r := request()
		c.edit(&r)
		var out bytes.Buffer
		if err := Add(t.Context(), svc, r, &out); err == nil || !strings.Contains(err.Error(), c.want) || out.Len() != 0 {
			t.Errorf("%s: got %v, want an error containing %q and no output (%q)", c.name, err, c.want, out.String())
		}
		if nodes, err := st.ListNodes(t.Context()); err != nil || len(nodes) != 0 {
			t.Errorf("%s: refused, yet stored %+v (%v)", c.name, nodes, err)
		}
	}
	svc, _ := service(t)
	if err := Add(t.Context(), svc, request(), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	// Again (the README run twice): what to do, since the secret is gone.
	if err := Add(t.Context(), svc, request(), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), `--id: node "gz-01" is already registered`) ||
		!strings.Contains(err.Error(), "gpusla enrol again gz-01") {
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
		// noProvider: the command gives no --provider (the README's).
		noProvider bool
	}{
		{"known", book, "cn-example", "", "", false},
		{"unknown", book, "xyz", `--contract "xyz": unknown contract; known: cn-example, us-example`, "", false},
		{"empty", book, "", `--contract "": unknown contract; known: cn-example, us-example`, "", false},
		{"empty terms", app.TermsBook{}, "cn-example", `--contract "cn-example": unknown contract; known: (none`, "", false},
		// The warning says where the terms go and where the examples are.
		{"no terms", nil, "anything", "", `warning: no contract terms configured, so --contract "anything" is not checked: put the contract's terms file (YAML, docs/terms.md) in <data>/terms, or set $GPUSLA_TERMS; the repository's examples are testdata/terms/cn-example.yaml`, false},
		// The README's command (no --provider) in a folder without the
		// terms — a wrong --data, or run from elsewhere: what is missing
		// is the terms, and the error says where it looked.
		{"no terms, no provider", nil, "cn-example", "--provider: missing: it comes from contract cn-example's terms, and <data>/terms holds none (is --data the serve's data folder?", `--contract "cn-example" is not checked`, true},
	} {
		svc, st := service(t)
		r := request()
		r.Node.Contract, r.Terms = c.contract, c.terms
		if c.noProvider {
			r.Node.Provider = ""
		}
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

// TestAddTakesTheTermsWord: the provider, the currency and the price come
// from the contract's terms, so alerts and the claim letter name the
// provider as the contract does; a flag that contradicts the terms is
// refused, naming the flag, the terms file and what they say.
func TestAddTakesTheTermsWord(t *testing.T) {
	book, err := wiring.LoadTerms("../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tm := book["cn-example"]
	svc, st := service(t)
	r := request()
	r.Terms, r.Node.Provider, r.Node.Currency = book, "", ""
	if err := Add(t.Context(), svc, r, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	n, err := st.GetNode(t.Context(), "gz-01")
	if err != nil {
		t.Fatal(err)
	}
	if n.Provider != tm.Provider || n.Currency != "CNY" || n.PricePerHour != tm.Billing.PricePerGPUHour*8 {
		t.Fatalf("stored provider %q currency %q price %v; want the terms' %q, CNY, %v", n.Provider, n.Currency, n.PricePerHour, tm.Provider, tm.Billing.PricePerGPUHour*8)
	}
	for _, c := range []struct {
		provider, currency, want string
	}{
		{"Example Compute", "", `--provider "Example Compute": contract cn-example's terms (../../testdata/terms/cn-example.yaml:`},
		{"", "USD", "--currency USD: contract cn-example's terms (../../testdata/terms/cn-example.yaml:"},
		{tm.Provider, "CNY", ""}, // the terms' own words are fine
	} {
		svc, _ := service(t)
		r := request()
		r.Terms, r.Node.Provider, r.Node.Currency = book, c.provider, c.currency
		var out bytes.Buffer
		err := Add(t.Context(), svc, r, &out)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || out.Len() != 0) {
			t.Errorf("--provider %q --currency %q: %v, want %q", c.provider, c.currency, err, c.want)
		}
	}
}

// TestAddBackendURL: a backend URL a probe on another machine refuses
// (plain http there) is refused at registration, naming the flag and how to
// serve https; an https URL with --ca-file gives a config the remote probe
// accepts, saved where the shipped unit reads it; a loopback URL says it
// reaches only this machine.
func TestAddBackendURL(t *testing.T) {
	for _, c := range []struct {
		url, ca, err, says string
	}{
		{"http://10.0.0.5:8080/v1/batches", "", `--backend-url "http://10.0.0.5:8080/v1/batches": a probe on another machine refuses plain http`, ""},
		{"ftp://x/v1/batches", "", `--backend-url "ftp://x/v1/batches": not an http(s) URL`, ""},
		// The backend's address, or the stack's IngestUrl as output: the
		// probe would be told 404 on every push.
		{"https://sla.example.com:8443", "", `--backend-url "https://sla.example.com:8443": the probe pushes to the backend's ingest path; give https://sla.example.com:8443/v1/batches`, ""},
		{"https://abc.lambda-url.us-east-1.on.aws/", "", "give https://abc.lambda-url.us-east-1.on.aws/v1/batches", ""},
		{"http://127.0.0.1:8080/v1/batches", "/etc/gpuprobe/ca.pem", "--ca-file: is for an https --backend-url", ""},
		{"https://sla.example.com:8443/v1/batches", "/etc/gpuprobe/ca.pem", "", "ca_file: /etc/gpuprobe/ca.pem"},
		{"http://127.0.0.1:8080/v1/batches", "", "", "only a probe on this\n# machine reaches it"},
	} {
		svc, _ := service(t)
		r := request()
		r.Probe.BackendURL, r.Probe.CAFile = c.url, c.ca
		var out bytes.Buffer
		err := Add(t.Context(), svc, r, &out)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || out.Len() != 0 {
				t.Errorf("%s: %v, want %q and nothing printed", c.url, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		if !strings.Contains(out.String(), c.says) || !strings.Contains(out.String(), "save the config below as "+config.DefaultPath) {
			t.Errorf("%s: output lacks %q or the config's path:\n%s", c.url, c.says, out.String())
		}
		_, doc, _ := strings.Cut(out.String(), "\n---\n")
		if _, err := config.Parse([]byte(doc), "printed"); err != nil {
			t.Errorf("%s: the printed config is refused: %v", c.url, err)
		}
	}
}
