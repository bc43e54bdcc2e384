package app_test

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// everySecond is a world whose node "fast" sends a heartbeat a second, one
// a push, and its probe.
func everySecond(t *testing.T) (*world, *apptest.Probe) {
	t.Helper()
	w := newWorld(t)
	return w, w.addNode("fast", time.Second, time.Second)
}

// addNode registers node id under apptest's contract with the given
// heartbeat and push intervals, and returns its probe.
func (w *world) addNode(id string, interval, push time.Duration) *apptest.Probe {
	w.t.Helper()
	_, secret, err := w.svc.AddNode(w.t.Context(), app.NewNode{ID: id, Provider: "acme", Contract: "acme-std",
		OrderedAt: t0.Add(-time.Hour), GPUModel: "NVIDIA H100 80GB HBM3", GPUCount: 8, PricePerHour: 20,
		HeartbeatInterval: interval, PushInterval: push})
	if err != nil {
		w.t.Fatal(err)
	}
	return &apptest.Probe{Node: id, Secret: secret}
}

// beat ingests one batch from p created and received now.
func (w *world) beat(p *apptest.Probe, obs ...wire.Observation) {
	w.t.Helper()
	now := w.clock.Now()
	_, body := p.Batch(now, obs...)
	if _, err := w.svc.Ingest(w.t.Context(), p.Request(now, body)); err != nil {
		w.t.Fatalf("ingest at %s: %v", now, err)
	}
}

// nodeIncidents lists a node's incidents around t0.
func (w *world) nodeIncidents(node string) []store.Incident {
	w.t.Helper()
	incs, err := w.store.ListIncidents(w.t.Context(), node, t0.Add(-time.Hour), t0.Add(24*time.Hour))
	if err != nil {
		w.t.Fatal(err)
	}
	return incs
}

// A node heard every second sends one heartbeat dated 200 s ahead — or
// dated now with a reported skew of −200 s, which the backend adds to it:
// the instant is after the backend received it, which no observation can
// be. It is clamped to its receipt with the reason recorded: no outage
// opens, last_heartbeat_at never shows the future, and the node's next
// heartbeats are its own as before.
func TestFutureHeartbeatInventsNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ahead  time.Duration
		skewMS int64
	}{{"dated 200 s ahead", 200 * time.Second, 0}, {"reported skew -200 s", 0, -200_000}} {
		t.Run(tc.name, func(t *testing.T) {
			w, p := everySecond(t)
			for i := 0; i < 400; i++ {
				now := w.clock.Now()
				if i == 100 {
					p.SkewMS = tc.skewMS
					w.beat(p, wire.Observation{At: now.Add(tc.ahead), Kind: wire.KindHeartbeat})
					p.SkewMS = 0
				} else {
					w.beat(p, wire.Observation{At: now, Kind: wire.KindHeartbeat})
				}
				st, err := w.store.GetState(t.Context(), "fast")
				if err != nil {
					t.Fatal(err)
				}
				if st.LastHeartbeatAt.After(now) {
					t.Fatalf("at %s last_heartbeat_at is %s, in the future", now, st.LastHeartbeatAt)
				}
				w.clock.Advance(time.Second)
				if i%10 == 9 {
					if _, err := w.svc.Watchdog(t.Context()); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, inc := range w.nodeIncidents("fast") {
				t.Errorf("incident from one heartbeat dated after its receipt: %+v", inc)
			}
			evs, err := w.store.ListEvidence(t.Context(), "fast", t0.Add(-time.Hour), t0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range evs {
				if e.Kind == store.EvidenceTimeBounds {
					n++
					t.Log(e.Detail)
				}
			}
			if n != 1 {
				t.Errorf("%d time_bounds evidence records, want the one batch: %+v", n, evs)
			}
		})
	}
}

// reportOutages builds the month's report of node from what the backend
// exported and returns its outages: the books the report keeps.
func (w *world) reportOutages(node string) []report.Outage {
	w.t.Helper()
	var evs []events.Event
	_, err := app.Export(w.t.Context(), w.store, app.ExportSelect{From: t0.Add(-24 * time.Hour), To: t0.Add(24 * time.Hour), Nodes: []string{node}},
		func(e *events.Event) error { evs = append(evs, *e); return nil })
	if err != nil {
		w.t.Fatal(err)
	}
	var tms []*terms.Terms
	for _, tm := range w.book {
		tms = append(tms, tm)
	}
	b, err := report.NewBuilder(tms, report.Options{Year: t0.Year(), Month: t0.Month(), AsOf: w.clock.Now()})
	if err != nil {
		w.t.Fatal(err)
	}
	for i := range evs {
		if err := b.Add(&evs[i]); err != nil {
			w.t.Fatal(err)
		}
	}
	r, err := b.Build()
	if err != nil {
		w.t.Fatal(err)
	}
	for _, n := range r.Nodes {
		if n.Node == node {
			return n.Outages
		}
	}
	w.t.Fatalf("the report has no node %s", node)
	return nil
}

// A failing gpu_lost check dated 200 s ahead opens its incident at its
// receipt, and a passing one dated 200 s ahead closes it at its receipt:
// a future instant neither opens an incident in the future nor lengthens
// one. The report, from the export, says the same.
func TestFutureCheckResultsDatedAtTheirReceipt(t *testing.T) {
	w, p := everySecond(t)
	ahead := 200 * time.Second
	lost := wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "7", Criterion: "8"}
	ok := wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Pass, Value: "8", Criterion: "8"}
	for i := 0; i < 120; i++ {
		now := w.clock.Now()
		obs := []wire.Observation{{At: now, Kind: wire.KindHeartbeat}}
		switch i {
		case 20, 21: // two failures in a row open it (the contract's threshold)
			obs = append(obs, apptest.Check(now.Add(ahead), lost))
		case 60, 61:
			obs = append(obs, apptest.Check(now.Add(ahead), ok))
		}
		w.beat(p, obs...)
		w.clock.Advance(time.Second)
	}
	incs := w.nodeIncidents("fast")
	if len(incs) != 1 || incs[0].Kind != "gpu_lost" {
		t.Fatalf("incidents %+v, want one gpu_lost", incs)
	}
	if first := t0.Add(20 * time.Second); !incs[0].Start.Equal(first) || !incs[0].End.Equal(t0.Add(60*time.Second)) {
		t.Errorf("gpu_lost %s to %s, want from the first failure's receipt %s to the first pass's %s", incs[0].Start, incs[0].End, first, t0.Add(60*time.Second))
	}
	outs := w.reportOutages("fast")
	if len(outs) != 1 || outs[0].Start != t0.Add(20*time.Second).Format(time.RFC3339) || outs[0].End != t0.Add(60*time.Second).Format(time.RFC3339) {
		t.Errorf("report outages %+v, want the same gpu_lost", outs)
	}
}

// The probe's link watch records losing the backend 25 s ahead of the batch
// that carries it; the node then falls silent for three minutes. The loss,
// dated at its receipt, is no later than the last thing the backend heard:
// it moves no gap's edge (incident.RefineStart), so the gap begins when the
// next heartbeat was due, live and in the report. (Dated as sent, the
// report took the record for the last thing heard and began the gap 25 s
// late.)
func TestFutureLinkLossMovesNoGap(t *testing.T) {
	w := newWorld(t)
	p := w.addNode("hb30", 30*time.Second, 30*time.Second)
	push := func() {
		now := w.clock.Now()
		obs := []wire.Observation{{At: now, Kind: wire.KindHeartbeat}}
		if now.Equal(t0.Add(5 * time.Minute)) {
			obs = append(obs, apptest.Check(now.Add(25*time.Second), wire.Check{Name: incident.LinkCheck, Category: wire.CategoryConnectivity,
				Verdict: wire.Fail, Value: "unreachable", Detail: "dial tcp: i/o timeout"}))
		}
		w.beat(p, obs...)
	}
	for w.clock.Now().Before(t0.Add(5*time.Minute + time.Second)) {
		push()
		w.clock.Advance(30 * time.Second)
		if _, err := w.svc.Watchdog(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	cut := t0.Add(5 * time.Minute)
	w.clock.Set(cut.Add(3 * time.Minute))
	if _, err := w.svc.Watchdog(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		push()
		w.clock.Advance(30 * time.Second)
		if _, err := w.svc.Watchdog(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	incs := w.nodeIncidents("hb30")
	if len(incs) != 1 || incs[0].Kind != "unreachable" {
		t.Fatalf("incidents %+v, want one unreachable", incs)
	}
	due := cut.Add(30 * time.Second)
	if from := incs[0].Split.Start(incs[0].Start); !incs[0].Start.Equal(due) || !from.Equal(due) {
		t.Errorf("gap due %s, begins %s; want both when the next heartbeat was due, %s", incs[0].Start, from, due)
	}
	outs := w.reportOutages("hb30")
	if len(outs) != 1 || outs[0].Start != due.Format(time.RFC3339) {
		t.Errorf("report outages %+v, want one from %s", outs, due)
	}
}
