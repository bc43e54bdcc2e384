package enrol_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/enrol"
)

// backend is the real application behind its real HTTP API.
type backend struct {
	svc *app.Service
	srv *httptest.Server
	st  *bolt.Store
}

func newBackend(t *testing.T) *backend {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(svc, slog.New(slog.DiscardHandler)))
	t.Cleanup(srv.Close)
	return &backend{svc: svc, srv: srv, st: st}
}

func (b *backend) token(t *testing.T, uses int) (string, string) {
	t.Helper()
	return b.tokenFor(t, uses, app.NewNode{Provider: "acme", Contract: "cn", GPUModel: "H200", GPUCount: 8, GPUMemoryMiB: 141 * 1024})
}

func (b *backend) tokenFor(t *testing.T, uses int, order app.NewNode) (string, string) {
	t.Helper()
	tok, text, err := b.svc.CreateEnrolToken(t.Context(), app.NewEnrolToken{MaxUses: uses, By: "cli:test", Order: order})
	if err != nil {
		t.Fatal(err)
	}
	return tok.ID, text
}

// probeConfig writes a probe config that enrols with token and parses it
// as `gpuprobe run` does before its first start.
func probeConfig(t *testing.T, b *backend, token string, extra string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	y := "backend: {url: " + b.srv.URL + "/v1/batches}\nenrol: {token_file: token, state: state/enrolment.json}\nspool: {dir: spool}\n" + extra
	p := filepath.Join(dir, "probe.yaml")
	if err := os.WriteFile(p, []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.LoadForEnrol(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// loseFirstAnswer delivers the first request and drops its answer, as a
// connection cut after the backend acted.
type loseFirstAnswer struct{ n atomic.Int32 }

func (l *loseFirstAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && l.n.Add(1) == 1 {
		resp.Body.Close()
		return nil, errors.New("connection reset after the request was sent")
	}
	return resp, err
}

// The probe enrols once: its id from $NODE_NAME, the answer kept 0600
// with the order; a lost answer is asked for again with the same key and
// gets the same node and secret for the one use; the config then loads as
// that node, and a later start sends nothing.
func TestEnrolKeepsTheAnswerAndSurvivesALostOne(t *testing.T) {
	b := newBackend(t)
	id, token := b.token(t, 1)
	c := probeConfig(t, b, token, "")
	t.Setenv(config.EnvNodeName, "k8s-node-7")
	lose := &loseFirstAnswer{}
	e := &enrol.Enroller{Config: c, Version: "test", Log: slog.New(slog.DiscardHandler), Transport: lose}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := e.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	if lose.n.Load() != 2 {
		t.Fatalf("%d requests; want the lost one and its retry", lose.n.Load())
	}
	st, err := config.ReadEnrolState(c.StatePath())
	if err != nil || !st.Done() || st.Answer.Node != "k8s-node-7" || st.Key != "" || st.Answer.GPUModel != "H200" || st.Answer.GPUs != 8 {
		t.Fatalf("state %+v, %v", st, err)
	}
	info, _ := os.Stat(c.StatePath())
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("state mode %v", info.Mode())
	}
	tok, _ := b.st.GetEnrolToken(t.Context(), id)
	if tok.Uses != 1 {
		t.Fatalf("the retry took another use: %d", tok.Uses)
	}
	n, _ := b.st.GetNode(t.Context(), "k8s-node-7")
	if n.GPUModel != "H200" || n.EnrolToken != id || !strings.HasPrefix(n.RegisteredBy, "enrol:"+id) {
		t.Fatalf("node %+v", n)
	}
	loaded, err := config.Load(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Node != "k8s-node-7" || string(loaded.Secret) != st.Answer.Secret || loaded.Expected.Model != "H200" || loaded.Expected.GPUs != 8 ||
		loaded.Expected.GPUMemoryGB != 141 || loaded.Schedules.HeartbeatInterval != 30*time.Second || loaded.Schedules.PushEvery != time.Minute {
		t.Fatalf("loaded config: node %q, expected %+v, heartbeat %v, push %v", loaded.Node, loaded.Expected, loaded.Schedules.HeartbeatInterval, loaded.Schedules.PushEvery)
	}
	// Enrolled: nothing more is sent, even with the token used up.
	e.Transport = failing{}
	if err := e.Ensure(ctx); err != nil {
		t.Fatalf("a start after the enrolment asked again: %v", err)
	}
}

type failing struct{}

func (failing) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("no request expected")
}

// A refusal for good ends the enrolment at once, with the backend's words;
// a token file others can read, or that holds no token, is refused before
// anything is sent.
func TestEnrolRefusals(t *testing.T) {
	b := newBackend(t)
	_, token := b.token(t, 1)
	t.Setenv(config.EnvNodeName, "first")
	first := probeConfig(t, b, token, "")
	if err := (&enrol.Enroller{Config: first}).Ensure(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Setenv(config.EnvNodeName, "second")
	second := probeConfig(t, b, token, "")
	err := (&enrol.Enroller{Config: second}).Ensure(t.Context())
	var refused *enrol.Refused
	if !errors.As(err, &refused) || refused.Status != 403 || !strings.Contains(err.Error(), "used up: 1 of 1") {
		t.Fatalf("a used-up token: %v", err)
	}
	taken := probeConfig(t, b, token, "node: first\n")
	_, other := b.token(t, 1)
	if err := os.WriteFile(taken.TokenPath(), []byte(other), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := (&enrol.Enroller{Config: taken}).Ensure(t.Context()); !errors.As(err, &refused) || refused.Status != 409 {
		t.Fatalf("another token taking an enrolled id: %v", err)
	}
	open := probeConfig(t, b, token, "node: third\n")
	_ = os.Chmod(open.TokenPath(), 0o644)
	if err := (&enrol.Enroller{Config: open}).Ensure(t.Context()); err == nil || !strings.Contains(err.Error(), "enrol.token_file") || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("a token others can read: %v", err)
	}
	bad := probeConfig(t, b, "not-a-token", "node: third\n")
	if err := (&enrol.Enroller{Config: bad}).Ensure(t.Context()); err == nil || !strings.Contains(err.Error(), "does not hold an enrolment token") {
		t.Fatalf("a file without a token: %v", err)
	}
	badID := probeConfig(t, b, token, "")
	t.Setenv(config.EnvNodeName, "bad id!")
	if err := (&enrol.Enroller{Config: badID}).Ensure(t.Context()); err == nil || !strings.Contains(err.Error(), "$NODE_NAME") {
		t.Fatalf("a node name that is no node id: %v", err)
	}
}

// An enrolled machine's config cannot claim another id or backend, and
// cannot carry a secret_file beside enrol:.
func TestEnrolledConfigIsHeldToTheEnrolment(t *testing.T) {
	b := newBackend(t)
	_, token := b.token(t, 1)
	t.Setenv(config.EnvNodeName, "gpu-a")
	c := probeConfig(t, b, token, "")
	if err := (&enrol.Enroller{Config: c}).Ensure(t.Context()); err != nil {
		t.Fatal(err)
	}
	base, _ := os.ReadFile(c.Path)
	for _, tc := range []struct{ edit, want string }{
		{string(base) + "node: gpu-b\n", `node: "gpu-b", but this machine enrolled as "gpu-a"`},
		{strings.Replace(string(base), "/v1/batches", "/other/v1/batches", 1), "backend.url"},
		{string(base) + "secret_file: secret\n", "secret_file: not with enrol"},
	} {
		if err := os.WriteFile(c.Path, []byte(tc.edit), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := config.Load(c.Path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("config %q: %v; want %q", tc.edit, err, tc.want)
		}
	}
	if err := os.WriteFile(c.Path, base, 0o600); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(c.StatePath(), 0o644)
	if _, err := config.Load(c.Path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a state file others can read: %v", err)
	}
	_ = os.Remove(c.StatePath())
	if _, err := config.Load(c.Path); err == nil || !strings.Contains(err.Error(), "not enrolled yet") {
		t.Errorf("no state: %v", err)
	}
}

// What the hardware is judged against is the token's order — model,
// count, memory and the driver it names — whatever the node's config
// says: a config may add what the order leaves open (CPUs, a disk) and
// may repeat an ordered value, but one that restates an ordered field
// differently is refused, naming the field, on either side of each
// field's edge.
func TestOrderComesFromTheToken(t *testing.T) {
	b := newBackend(t)
	_, token := b.tokenFor(t, 1, app.NewNode{Provider: "acme", Contract: "cn", GPUModel: "H100", GPUCount: 4, GPUMemoryMiB: 80 * 1024,
		GPUDriver: "580.95"})
	t.Setenv(config.EnvNodeName, "gpu-order")
	c := probeConfig(t, b, token, "expected: {cpus: 96, disks: [{mount: /data, size_gb: 3840}]}\n")
	if err := (&enrol.Enroller{Config: c}).Ensure(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, err := config.Load(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	e := got.Expected
	if e.Model != "H100" || e.GPUs != 4 || e.GPUMemoryGB != 80 || e.Driver != "580.95" || e.CPUs != 96 || len(e.Disks) != 1 {
		t.Fatalf("expectations %+v; want the token's order and the config's CPUs and disk", e)
	}
	// gpuprobe check --config judges the same order.
	if ordered, enrolled, err := config.EnrolledOrder(c.Path); err != nil || !enrolled || ordered.Driver != "580.95" || ordered.Model != "H100" ||
		ordered.CPUs != 96 {
		t.Fatalf("EnrolledOrder: %+v, %v, %v", ordered, enrolled, err)
	}
	plain := filepath.Join(t.TempDir(), "probe.yaml")
	if err := os.WriteFile(plain, []byte("expected: {model: H200}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, enrolled, err := config.EnrolledOrder(plain); enrolled || err != nil {
		t.Fatalf("a config without enrol: %v, %v", enrolled, err)
	}
	base, _ := os.ReadFile(c.Path)
	for _, tc := range []struct{ expected, want string }{
		{"{model: h100, gpus: 4, gpu_memory_gb: 80, driver: '580.95'}", ""},
		{"{gpu_memory_gb: 80.0009}", ""}, // under a MiB apart: the same order
		{"{model: H200}", `expected.model: "H200", but the order`},
		{"{gpus: 8}", "expected.gpus: 8, but the order"},
		{"{gpus: 3}", "expected.gpus: 3, but the order"},
		{"{gpu_memory_gb: 81}", "expected.gpu_memory_gb: 81, but the order"},
		{"{gpu_memory_gb: 79.999}", "expected.gpu_memory_gb: 79.999, but the order"},
		{"{driver: '580'}", `expected.driver: "580", but the order`},
		{"{driver: '580.95.05'}", `expected.driver: "580.95.05", but the order`},
	} {
		edited := strings.Replace(string(base), "expected: {cpus: 96, disks: [{mount: /data, size_gb: 3840}]}", "expected: "+tc.expected, 1)
		if err := os.WriteFile(c.Path, []byte(edited), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := config.Load(c.Path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("expected: %s: %v; the order restated is accepted", tc.expected, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "enrolment token")):
			t.Errorf("expected: %s: %v; want %q", tc.expected, err, tc.want)
		}
	}
}
