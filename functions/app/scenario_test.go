package app_test

import (
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/incident"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// worldStore is a store the world can drive: the embedded one or DynamoDB
// (dynalite).
type worldStore interface {
	store.Store
	SetClock(now func() time.Time)
	Ops() store.OpCounts
}

type world struct {
	t     *testing.T
	store worldStore
	svc   *app.Service
	clock *apptest.Clock
	notif *apptest.Notifier
	p     *apptest.Probe
	book  app.TermsBook // the contracts the service runs under
}

func newWorld(t *testing.T) *world { return newWorldWith(t, apptest.Terms(t)) }

// newWorldWith is newWorld with the given contract terms.
func newWorldWith(t *testing.T, book app.TermsBook) *world {
	return newWorldConfig(t, func(c *app.Config) { c.Terms = book })
}

// newWorldConfig lets a test change the service's config (its terms, its
// channels).
func newWorldConfig(t *testing.T, config func(*app.Config)) *world {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newWorldOn(t, st, config, func(svc *app.Service) *apptest.Probe { return apptest.AddNode(t, svc, "gz-01") })
}

// newWorldOn is a world on the given store whose node gz-01 add registers.
func newWorldOn(t *testing.T, st worldStore, config func(*app.Config), add func(*app.Service) *apptest.Probe) *world {
	var err error
	w := &world{t: t, store: st, clock: apptest.NewClock(t0), notif: &apptest.Notifier{}}
	st.SetClock(w.clock.Now)
	c := app.Config{Store: st, Notifier: w.notif, Box: apptest.Box(t), Clock: w.clock, Terms: apptest.Terms(t)}
	config(&c)
	w.book = c.Terms
	w.svc, err = app.New(c)
	if err != nil {
		t.Fatal(err)
	}
	w.p = add(w.svc)
	if _, err := w.svc.BackendStart(t.Context()); err != nil {
		t.Fatal(err)
	}
	return w
}

// push ingests a batch created now with the given observations (two
// heartbeats ending now by default), received now.
func (w *world) push(obs ...wire.Observation) wire.Ack {
	w.t.Helper()
	now := w.clock.Now()
	if len(obs) == 0 {
		obs = apptest.Heartbeats(now, 30*time.Second, 2)
	}
	_, body := w.p.Batch(now, obs...)
	ack, err := w.svc.Ingest(w.t.Context(), w.p.Request(now, body))
	if err != nil {
		w.t.Fatalf("ingest at %s: %v", now, err)
	}
	return ack
}

// tickUntil runs the watchdog every minute until end.
func (w *world) tickUntil(end time.Time) {
	w.t.Helper()
	for w.clock.Now().Before(end) {
		w.clock.Advance(time.Minute)
		if _, err := w.svc.Watchdog(w.t.Context()); err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w *world) incidents() []store.Incident {
	w.t.Helper()
	incs, err := w.store.ListIncidents(w.t.Context(), "gz-01", t0.Add(-time.Hour), t0.Add(24*time.Hour))
	if err != nil {
		w.t.Fatal(err)
	}
	return incs
}

func (w *world) only(kind string) store.Incident {
	w.t.Helper()
	var out []store.Incident
	for _, i := range w.incidents() {
		if i.Kind == kind {
			out = append(out, i)
		}
	}
	if len(out) != 1 {
		w.t.Fatalf("%d %s incidents, want 1: %+v", len(out), kind, w.incidents())
	}
	return out[0]
}

func TestUnreachableBackdatedAfterGraceThenRecovery(t *testing.T) {
	w := newWorld(t)
	w.push()
	// No alert before the grace period: due t0+30s, confirmed t0+30s+90s.
	w.tickUntil(t0.Add(time.Minute))
	if len(w.notif.Sent()) != 0 || len(w.incidents()) != 0 {
		t.Fatalf("alerted inside the grace period: %+v", w.notif.Sent())
	}
	w.tickUntil(t0.Add(2 * time.Minute))
	inc := w.only("unreachable")
	if !inc.Start.Equal(t0.Add(30*time.Second)) || !inc.Open() || !inc.Counted || inc.Cause != incident.CauseNoData {
		t.Fatalf("unreachable incident %+v, want open, counted, backdated to t0+30s", inc)
	}
	if !inc.ConfirmedAt.Equal(t0.Add(2 * time.Minute)) {
		t.Fatalf("confirmed at %s, want the watchdog tick t0+2m", inc.ConfirmedAt)
	}
	sent := w.notif.Sent()
	if len(sent) != 1 || sent[0].Kind != notify.AlertUnreachable || !sent[0].Since.Equal(inc.Start) || sent[0].Provider != "acme" || sent[0].Thread != "" {
		t.Fatalf("alerts %+v, want one unreachable alert since t0+30s", sent)
	}
	// More ticks: no duplicate alert.
	w.tickUntil(t0.Add(5 * time.Minute))
	if n := len(w.notif.Sent()); n != 1 {
		t.Fatalf("%d alerts after more ticks, want 1", n)
	}
	// The node is back: the incident closes at the receive time, the
	// recovery states the duration and goes into the incident's thread.
	w.clock.Advance(10 * time.Second)
	w.push(wire.Observation{At: w.clock.Now(), Kind: wire.KindHeartbeat})
	inc = w.only("unreachable")
	if !inc.End.Equal(t0.Add(5*time.Minute + 10*time.Second)) {
		t.Fatalf("incident ends %s, want the first receive after the gap", inc.End)
	}
	sent = w.notif.Sent()
	if len(sent) != 2 || sent[1].Kind != notify.AlertRecovered || sent[1].Duration != 4*time.Minute+40*time.Second || sent[1].Thread != "thread-1" {
		t.Fatalf("recovery alert %+v, want duration 4m40s in thread-1", sent[len(sent)-1])
	}
	w.tickUntil(t0.Add(6 * time.Minute))
	if n := len(w.notif.Sent()); n != 2 {
		t.Fatalf("%d alerts after recovery ticks, want 2", n)
	}
}

// Late data: batches from the probe's spool show what the node saw during
// the gap, and the SLA engine reclassifies the incident (docs/contract.md, "Late data").
func TestLateDataReclassifies(t *testing.T) {
	conn := func(v string) wire.Check {
		return wire.Check{Name: "net.internet", Category: wire.CategoryConnectivity, Verdict: v, Value: "1.1.1.1"}
	}
	cases := []struct {
		name    string
		spooled func(at time.Time) []wire.Observation // what the node saw in the gap; nil: nothing (node dead)
		cause   string
		counted bool
		alert   bool
	}{
		{"node dead: no batch covers the gap", nil, incident.CauseNoData, true, false},
		{"node up, no external connectivity: outage cause network", func(at time.Time) []wire.Observation {
			return []wire.Observation{{At: at, Kind: wire.KindHeartbeat}, apptest.Check(at, conn(wire.Fail))}
		}, incident.CauseNetwork, true, true},
		// Its word that it reached the outside is contradicted by the
		// backend's own silence (docs/contract.md, "Evidence precedence").
		{"node up and saying it reached others, not the backend: counted", func(at time.Time) []wire.Observation {
			return []wire.Observation{{At: at, Kind: wire.KindHeartbeat}, apptest.Check(at, conn(wire.Pass))}
		}, incident.CauseNoConnectivityEvidence, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.push()
			w.tickUntil(t0.Add(4 * time.Minute))
			w.only("unreachable")
			// Reconnected: the spool delivers the gap's batches first (old
			// probe times, received now), then the current one.
			if tc.spooled != nil {
				for _, m := range []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute} {
					at := t0.Add(m)
					_, body := w.p.Batch(at, tc.spooled(at)...)
					if _, err := w.svc.Ingest(t.Context(), w.p.Request(w.clock.Now(), body)); err != nil {
						t.Fatal(err)
					}
					w.clock.Advance(time.Second)
				}
			}
			// The batch that reconnects carries one fresh heartbeat (a node
			// back from a reboot has nothing older to say).
			w.push(wire.Observation{At: w.clock.Now(), Kind: wire.KindHeartbeat})
			inc := w.only("unreachable")
			if inc.Open() || inc.Cause != tc.cause || inc.Counted != tc.counted {
				t.Fatalf("incident %+v: want closed, cause %s, counted %v", inc, tc.cause, tc.counted)
			}
			n := w.notif.Count(notify.AlertReclassified)
			if tc.alert != (n == 1) || n > 1 {
				t.Fatalf("%d reclassified alerts, want alert=%v: %+v", n, tc.alert, w.notif.Sent())
			}
			if tc.alert {
				for _, a := range w.notif.Sent() {
					// A correction of what the first alert said: no data.
					if a.Kind == notify.AlertReclassified && (a.Cause != tc.cause || a.PrevCause != incident.CauseNoData || a.Counted != tc.counted || a.Thread != "thread-1") {
						t.Fatalf("reclassified alert %+v", a)
					}
					if a.Kind == notify.AlertReclassified && !strings.Contains(chantext.AlertText(a), "(first said: no data (no observation from the node))") {
						t.Errorf("the correction does not say what it corrects: %s", chantext.AlertText(a))
					}
				}
			}
			if tc.spooled != nil {
				// Late batches are kept in full as evidence.
				for seq := uint64(2); seq <= 4; seq++ {
					b, err := w.store.GetBatch(t.Context(), "gz-01", seq)
					if err != nil {
						t.Fatalf("late batch %d not stored: %v", seq, err)
					}
					if !slices.Contains(b.Why, "late") {
						t.Fatalf("batch %d kept for %v, want late", seq, b.Why)
					}
				}
			}
		})
	}
}

// The backend itself down: no watchdog ran, nobody could hear the node, so
// the node is charged only from when the backend came back. The incident is
// dated as the report dates it (one interval after the last heartbeat);
// its part inside the backend's downtime is backend_outage, not counted.
func TestBackendDownChargesNoNode(t *testing.T) {
	w := newWorld(t)
	w.push()
	if err := w.svc.BackendStop(t.Context(), w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(20 * time.Minute) // backend down, node silent too
	up, err := w.svc.BackendStart(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	w.tickUntil(up.Add(time.Minute))
	if len(w.incidents()) != 0 {
		t.Fatalf("incident opened inside the grace after the backend came back: %+v", w.incidents())
	}
	w.tickUntil(up.Add(3 * time.Minute))
	inc := w.only("unreachable")
	if due := t0.Add(30 * time.Second); !inc.Start.Equal(due) {
		t.Fatalf("unreachable starts %s, want one interval after the last heartbeat, %s", inc.Start, due)
	}
	js, err := w.svc.JudgedIncidents(t.Context(), "gz-01", t0.Add(-time.Hour), w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != 2 || js[0].Cause != incident.CauseBackendOutage || js[0].Counted || js[0].CountedSeconds != 0 || !js[0].End.Equal(up) ||
		js[1].Cause != incident.CauseNoData || !js[1].Start.Equal(up) || !js[1].Counted || js[1].CountedSeconds != int64(w.clock.Now().Sub(up)/time.Second) {
		t.Fatalf("judged parts %+v; want the backend's downtime not counted, then no_data counted from its restart %s", js, up)
	}
	runs, err := w.store.ListBackendRuns(t.Context(), t0.Add(-time.Hour), up.Add(time.Hour))
	if err != nil || len(runs) != 2 || !runs[0].Stopped {
		t.Fatalf("backend runs %+v, %v: want the stopped one and the new one", runs, err)
	}
}

func TestDegradedAlertNamesMeasuredValues(t *testing.T) {
	w := newWorld(t)
	gpu := 3
	bad := func(at time.Time) wire.Observation {
		return apptest.Check(at, wire.Check{Name: "gpu.ecc.uncorrected", Category: wire.CategoryGPUDegraded, Verdict: wire.Fail,
			Value: "12", Criterion: "0", GPU: &gpu})
	}
	w.push(wire.Observation{At: t0, Kind: wire.KindHeartbeat}, bad(t0))
	if len(w.incidents()) != 0 {
		t.Fatal("one failure opened an incident; the default threshold is 2")
	}
	w.clock.Advance(time.Minute)
	w.push(wire.Observation{At: w.clock.Now(), Kind: wire.KindHeartbeat}, bad(w.clock.Now()))
	inc := w.only("gpu_degraded")
	if !inc.Start.Equal(t0) || len(inc.Failed) != 1 || inc.Failed[0].Value != "12" {
		t.Fatalf("incident %+v: want start at the first failure with the measured value", inc)
	}
	sent := w.notif.Sent()
	if len(sent) != 1 || sent[0].Kind != notify.AlertDegraded || len(sent[0].Failed) != 1 || *sent[0].Failed[0].GPU != 3 || sent[0].Failed[0].Criterion != "0" {
		t.Fatalf("alerts %+v", sent)
	}
	// Two passes close it with a recovery in the thread.
	for i := 0; i < 2; i++ {
		w.clock.Advance(time.Minute)
		now := w.clock.Now()
		w.push(apptest.Check(now, wire.Check{Name: "gpu.ecc.uncorrected", Category: wire.CategoryGPUDegraded, Verdict: wire.Pass, Value: "0", GPU: &gpu}))
	}
	inc = w.only("gpu_degraded")
	if inc.Open() || w.notif.Count(notify.AlertRecovered) != 1 {
		t.Fatalf("incident %+v, alerts %+v", inc, w.notif.Sent())
	}
}

func TestUndeliveredAlertIsRetriedOnce(t *testing.T) {
	w := newWorld(t)
	w.push()
	w.notif.Fail = errors.New("slack is down")
	w.tickUntil(t0.Add(2 * time.Minute))
	pend, _ := w.store.ListPendingAlerts(t.Context())
	if len(pend) != 1 || pend[0].LastErr == "" {
		t.Fatalf("pending alerts %+v, want the failed one", pend)
	}
	w.notif.Fail = nil
	w.tickUntil(t0.Add(5 * time.Minute))
	if n := w.notif.Count(notify.AlertUnreachable); n != 1 {
		t.Fatalf("%d unreachable alerts delivered after the retry, want 1", n)
	}
	if pend, _ := w.store.ListPendingAlerts(t.Context()); len(pend) != 0 {
		t.Fatalf("still pending: %+v", pend)
	}
}

func TestHeartbeatRunsCloseAtGaps(t *testing.T) {
	w := newWorld(t)
	for i := 0; i < 5; i++ {
		w.push()
		w.clock.Advance(time.Minute)
	}
	w.clock.Advance(10 * time.Minute)
	w.push()
	runs, err := w.store.ListRuns(t.Context(), "gz-01", t0.Add(-time.Hour), t0.Add(time.Hour))
	if err != nil || len(runs) != 1 {
		t.Fatalf("closed runs %+v, %v: want the one before the gap", runs, err)
	}
	if r := runs[0]; !r.From.Equal(t0.Add(-30*time.Second)) || !r.To.Equal(t0.Add(4*time.Minute)) || r.Count != 10 {
		t.Fatalf("run %+v: want t0-30s..t0+4m with 10 heartbeats", r)
	}
	st, _ := w.store.GetState(t.Context(), "gz-01")
	if st.Run.Count != 2 || !st.Run.To.Equal(w.clock.Now()) {
		t.Fatalf("current run %+v", st.Run)
	}
}

func TestAddNodeValidates(t *testing.T) {
	w := newWorld(t)
	cases := map[string]app.NewNode{
		"id":            {ID: "bad id", Provider: "p", Contract: "c", OrderedAt: t0},
		"provider":      {ID: "n", Contract: "c", OrderedAt: t0},
		"contract":      {ID: "n", Provider: "p", OrderedAt: t0},
		"ordered_at":    {ID: "n", Provider: "p", Contract: "c"},
		"push_interval": {ID: "n", Provider: "p", Contract: "c", OrderedAt: t0, HeartbeatInterval: time.Minute, PushInterval: 30 * time.Second},
		"grace":         {ID: "n", Provider: "p", Contract: "c", OrderedAt: t0, PushInterval: 5 * time.Minute},
	}
	for field, nn := range cases {
		_, _, err := w.svc.AddNode(t.Context(), nn)
		var fe *app.Error
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: got %v, want an app.Error naming %q", field, err, field)
		}
	}
	_, _, err := w.svc.AddNode(t.Context(), app.NewNode{ID: "gz-01", Provider: "p", Contract: "c", OrderedAt: t0})
	var fe *app.Error
	if !errors.As(err, &fe) || fe.Field != "id" {
		t.Fatalf("duplicate id: %v", err)
	}
	n, err := w.store.GetNode(t.Context(), "gz-01")
	if err != nil {
		t.Fatal(err)
	}
	if string(n.SealedSecret) == string(w.p.Secret) || len(n.SealedSecret) < len(w.p.Secret) {
		t.Fatal("secret stored in the clear")
	}
}
