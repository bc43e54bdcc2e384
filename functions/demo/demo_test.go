package demo

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/sla/terms"
)

func newBackend(t *testing.T) (*app.Service, store.Store, app.SecretBox, *apptest.Notifier) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	box, err := app.NewAESGCMBox(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	n := &apptest.Notifier{}
	svc, err := app.New(app.Config{Store: st, Notifier: n, Box: box, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), BackendID: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st, box, n
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestSetupModes(t *testing.T) {
	svc, st, box, _ := newBackend(t)
	ctx := t.Context()
	if d, err := Setup(ctx, Config{Mode: "off", Data: t.TempDir()}, svc, st, box, quiet); d != nil || err != nil {
		t.Fatalf("off: %v, %v", d, err)
	}
	data := t.TempDir()
	d, err := Setup(ctx, Config{Mode: "auto", Data: data}, svc, st, box, quiet)
	if err != nil || d == nil {
		t.Fatalf("auto with no node: %v, %v", d, err)
	}
	n, err := st.GetNode(ctx, NodeID)
	if err != nil || !n.Demo || n.HeartbeatInterval != Default.Heartbeat || n.PushInterval != Default.Push || n.GPUCount != 2 {
		t.Fatalf("demo node: %+v, %v", n, err)
	}
	// What Run writes is a config gpuprobe itself accepts, with the secret
	// the backend sealed for the node.
	if err := writeConfig(d, "http://127.0.0.1:1/v1/batches"); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(d.cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := box.Open(n.SealedSecret, NodeID)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Node != NodeID || string(cfg.Secret) != string(secret) || cfg.Schedules.HeartbeatInterval != Default.Heartbeat ||
		cfg.Schedules.PushEvery != Default.Push || cfg.Schedules.NetworkEvery != nil || cfg.Spool.Dir != filepath.Join(data, "demo-spool") {
		t.Fatalf("probe config: %+v", cfg)
	}
	// Set up again (serve restarted): the same node, its secret reopened.
	if d, err := Setup(ctx, Config{Mode: "auto", Data: data}, svc, st, box, quiet); err != nil || d == nil {
		t.Fatalf("auto with only the demo node: %v, %v", d, err)
	}
	if _, _, err := svc.AddNode(ctx, app.NewNode{ID: "gz-01", Provider: "acme", Contract: "c", OrderedAt: time.Now(), GPUCount: 8}); err != nil {
		t.Fatal(err)
	}
	if d, err := Setup(ctx, Config{Mode: "on", Data: data}, svc, st, box, quiet); d == nil || err != nil {
		t.Fatalf("on with a real node: %v, %v", d, err)
	}
	// The renter's own node is registered: the demo is over, and its node,
	// whose probe no longer runs, is released so that it never goes
	// unreachable, alerts, or stands on the status page as an outage.
	if d, err := Setup(ctx, Config{Mode: "auto", Data: data}, svc, st, box, quiet); d != nil || err != nil {
		t.Fatalf("auto with a real node: %v, %v (want off)", d, err)
	}
	if n, err := st.GetNode(ctx, NodeID); err != nil || n.ReleasedAt.IsZero() || n.ReleaseRecordedBy != "serve:demo" {
		t.Fatalf("the demo node left registered once a real node is: %+v, %v", n, err)
	}
	// Again (serve restarted): nothing more to do.
	if d, err := Setup(ctx, Config{Mode: "auto", Data: data}, svc, st, box, quiet); d != nil || err != nil {
		t.Fatalf("auto after the demo ended: %v, %v", d, err)
	}
	// Asked for explicitly, the demo cannot run on a released node (ingest
	// would ignore it): the refusal says so and where to run it.
	_, err = Setup(ctx, Config{Mode: "on", Data: data}, svc, st, box, quiet)
	if err == nil || !strings.Contains(err.Error(), "was released at") || !strings.Contains(err.Error(), "--data") {
		t.Fatalf("on with the demo node released: %v", err)
	}
}

// serve speaking https cannot run the demo probe (plain http to loopback):
// a demo node registered by an earlier plain run is released too.
func TestSetupOverHTTPSReleasesTheDemoNode(t *testing.T) {
	svc, st, box, _ := newBackend(t)
	ctx := t.Context()
	data := t.TempDir()
	if d, err := Setup(ctx, Config{Mode: "auto", Data: data}, svc, st, box, quiet); err != nil || d == nil {
		t.Fatalf("auto with no node: %v, %v", d, err)
	}
	if d, err := Setup(ctx, Config{Mode: "auto", Data: data, HTTPS: true}, svc, st, box, quiet); d != nil || err != nil {
		t.Fatalf("auto over https: %v, %v (want off)", d, err)
	}
	if n, err := st.GetNode(ctx, NodeID); err != nil || n.ReleasedAt.IsZero() {
		t.Fatalf("the demo node left registered under https: %+v, %v", n, err)
	}
	// With no demo node, https registers none.
	svc, st, box, _ = newBackend(t)
	if d, err := Setup(ctx, Config{Mode: "auto", Data: t.TempDir(), HTTPS: true}, svc, st, box, quiet); d != nil || err != nil {
		t.Fatalf("auto over https, fresh: %v, %v", d, err)
	}
	if _, err := st.GetNode(ctx, NodeID); err == nil {
		t.Fatal("a demo node was registered under https")
	}
}

// The demo on a compressed timeline, against the real API: the daemon's
// pushes fail for a while, its spool delivers what it saw late, and the
// recorded GPU fault opens and closes incidents with alerts.
func TestDemoRunsThroughTheDaemon(t *testing.T) {
	svc, st, box, notes := newBackend(t)
	srv := httptest.NewServer(httpapi.New(svc, quiet))
	defer srv.Close()
	// The backend takes heartbeats of 1 s at the fastest; the GPU checks
	// run four times a heartbeat, so that the fault window holds many
	// failing checks however loaded the machine is.
	tl := Timeline{Heartbeat: time.Second, Push: 2 * time.Second, Grace: 2 * time.Second,
		Health: 250 * time.Millisecond, HostEvery: time.Hour,
		PauseAt: time.Second, PauseFor: 4 * time.Second, FaultAt: 6 * time.Second, FaultFor: 4 * time.Second}
	d, err := Setup(t.Context(), Config{Mode: "on", Data: t.TempDir(), Timeline: tl}, svc, st, box, quiet)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go d.Run(ctx, srv.URL+httpapi.PathBatches)
	defer func() { cancel(); d.Wait() }()

	sent := func(kind notify.AlertKind, incident string) bool {
		notes := notes.Sent()
		return slices.ContainsFunc(notes, func(a notify.Alert) bool { return a.Kind == kind && a.IncidentKind == incident })
	}
	// The test is the demo's watchdog: each look runs it first.
	var seen string // what the last look found, for a failure
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("last look: " + seen)
		}
	})
	waitfor.True(t, "gpu_lost closed, a late batch, a failed push and gpu_lost's degraded and recovered alerts", func() bool {
		if _, err := svc.Watchdog(ctx); err != nil {
			t.Fatal(err)
		}
		incs, err := st.ListIncidents(ctx, NodeID, time.Time{}, time.Now().Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		gpuClosed := slices.ContainsFunc(incs, func(i store.Incident) bool { return i.Kind == "gpu_lost" && !i.Open() })
		batches, err := st.ListBatches(ctx, NodeID, 1, 1<<62)
		if err != nil {
			t.Fatal(err)
		}
		late := slices.ContainsFunc(batches, func(b store.BatchRecord) bool { return slices.Contains(b.Why, "late") })
		seen = fmt.Sprintf("gpu_lost closed %v, a late batch %v, failed pushes %d, alerts %+v", gpuClosed, late, d.flaky.Failures(), notes.Sent())
		return gpuClosed && late && d.flaky.Failures() > 0 && sent(notify.AlertDegraded, "gpu_lost") && sent(notify.AlertRecovered, "gpu_lost")
	})
}

// TestSetupWritesDemoTerms: the demo node's first registration writes its
// contract's terms into serve's terms folder — valid terms of contract
// demo whose nodes are on the public status page, with the demo's own
// grace — and never overwrites a file there, nor writes one when terms
// come from elsewhere.
func TestSetupWritesDemoTerms(t *testing.T) {
	svc, st, box, _ := newBackend(t)
	dir := filepath.Join(t.TempDir(), "terms")
	if _, err := Setup(t.Context(), Config{Mode: "on", Data: t.TempDir(), TermsDir: dir}, svc, st, box, quiet); err != nil {
		t.Fatal(err)
	}
	ts, err := terms.ReadFile(filepath.Join(dir, TermsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].Contract != "demo" || !ts[0].StatusPage.Public || ts[0].Detection.Grace != Default.Grace {
		t.Fatalf("demo terms: %+v", ts[0])
	}
	// The service judges the demo node by them at once (serve loads the
	// terms folder only after the demo is set up).
	if tm, ok := svc.TermsBook()["demo"]; !ok || tm.Detection.Grace != Default.Grace {
		t.Fatalf("the service does not judge the demo node by its terms: %v", svc.TermsBook().Contracts())
	}
	// The renter's own file is kept.
	mine := []byte("contract: demo\n# mine\n")
	if err := os.WriteFile(filepath.Join(dir, TermsFile), mine, 0o600); err != nil {
		t.Fatal(err)
	}
	svc, st, box, _ = newBackend(t)
	if _, err := Setup(t.Context(), Config{Mode: "on", Data: t.TempDir(), TermsDir: dir}, svc, st, box, quiet); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, TermsFile)); string(got) != string(mine) {
		t.Fatalf("the renter's demo.yaml was overwritten: %q", got)
	}
	// Terms from $GPUSLA_TERMS: nothing written.
	svc, st, box, _ = newBackend(t)
	if _, err := Setup(t.Context(), Config{Mode: "on", Data: t.TempDir()}, svc, st, box, quiet); err != nil {
		t.Fatal(err)
	}
}
