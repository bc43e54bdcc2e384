package app_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// The export is the SLA engine's input: everything the backend saw, in
// docs/events.md, strict enough for events.Reader, and the monthly report
// recomputed from it agrees with what the live path alerted.
func TestExportRoundTripsThroughTheReport(t *testing.T) {
	w := newWorld(t)
	// Register a node under a real example contract.
	n, secret, err := w.svc.AddNode(t.Context(), app.NewNode{ID: "us-01", Provider: "Example GPU Cloud Inc.", Contract: "us-example",
		OrderedAt: t0.Add(-time.Hour), GPUModel: "H100", GPUCount: 8, PricePerHour: 24})
	if err != nil {
		t.Fatal(err)
	}
	w.p.Node, w.p.Secret, w.p.Seq, w.p.Prev = n.ID, secret, 0, ""
	// 30 minutes of pushes every minute, one with a failing check, then a
	// 10-minute silence (node dead), then 10 more minutes.
	for i := 0; i < 30; i++ {
		if i == 7 {
			now := w.clock.Now()
			w.push(wire.Observation{At: now, Kind: wire.KindHeartbeat},
				wire.Observation{At: now, Kind: wire.KindCheck, Checks: []wire.Check{{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Pass, Value: "8", Criterion: "8"}}})
		} else {
			w.push()
		}
		w.clock.Advance(time.Minute)
		if _, err := w.svc.Watchdog(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	silentFrom := w.clock.Now().Add(-time.Minute) // last push
	w.tickUntil(silentFrom.Add(10 * time.Minute))
	w.push(wire.Observation{At: w.clock.Now(), Kind: wire.KindHeartbeat})
	for i := 0; i < 10; i++ {
		w.clock.Advance(time.Minute)
		w.push()
		if _, err := w.svc.Watchdog(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	incs, err := w.store.ListIncidents(t.Context(), "us-01", t0, t0.Add(24*time.Hour))
	if err != nil || len(incs) != 1 || incs[0].Open() || incs[0].Kind != "unreachable" {
		t.Fatalf("live incidents %+v, %v: want one closed unreachable", incs, err)
	}
	live := incs[0]
	// w's own node (gz-01) has no pushes under this node; its incidents are
	// irrelevant here. Export the whole day.
	var buf bytes.Buffer
	ew := events.NewWriter(&buf)
	stats, err := app.Export(t.Context(), w.store, app.ExportSelect{From: t0.Add(-24 * time.Hour), To: t0.Add(24 * time.Hour), Nodes: []string{"us-01"}}, func(e *events.Event) error { return ew.Write(e) })
	if err != nil {
		t.Fatal(err)
	}
	if err := ew.Flush(); err != nil {
		t.Fatal(err)
	}
	// Strictly readable, and the heartbeats are all there.
	r := events.NewReader("export", bytes.NewReader(buf.Bytes()))
	var e events.Event
	hb, checks, regs, runs := 0, 0, 0, 0
	for {
		err := r.Next(&e)
		if err != nil {
			break
		}
		switch {
		case e.Type == events.TypeNodeRegistered:
			regs++
		case e.Type == events.TypeObservation && e.Node == "us-01" && e.Kind == events.KindHeartbeat:
			hb++
		case e.Type == events.TypeObservation && e.Kind == events.KindCheck:
			checks++
		case e.Type == events.TypeHeartbeatRun && e.Node == "us-01":
			// Heartbeat-only batches live on as runs: one event each, the
			// heartbeats it stands for counted.
			runs++
			hb += int(e.Count)
		}
	}
	if r.Line() != stats.Events {
		t.Fatalf("read %d lines of %d exported", r.Line(), stats.Events)
	}
	// 29 pushes of 2 heartbeats + 1 of 1 before; 1 + 10×2 after; plus the
	// heartbeat of the stored check batch, exported twice (run and batch).
	// The silence splits them into runs, and so does the heartbeat missing
	// from the push with the check (60 s between heartbeats: more than the
	// interval + 15 s a run may step, incident.PromptTol): three runs.
	if want := 29*2 + 1 + 1 + 10*2 + 1; hb != want || checks != 1 || regs != 1 || runs != 3 {
		t.Fatalf("exported %d heartbeats (want %d) in %d runs (want 3), %d checks, %d registrations", hb, want, runs, checks, regs)
	}

	// The report from the export sees the same outage as the live path.
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "terms", "us-example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tms, err := terms.Parse("us-example.yaml", raw)
	if err != nil {
		t.Fatal(err)
	}
	b, err := report.NewBuilder(tms, report.Options{Year: 2026, Month: time.November, AsOf: w.clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ReadLog("export", bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	rep, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, node := range rep.Nodes {
		if node.Node != "us-01" {
			continue
		}
		found = true
		// Runs are exported as recorded, not re-spaced, so the report's
		// outage is the live incident to the second.
		got := time.Duration(node.Uptime.ObservedOutageSeconds) * time.Second
		want := live.End.Sub(live.Start)
		if got != want {
			t.Fatalf("report from export: observed outage %s; live incident %s (%s..%s)", got, want, live.Start, live.End)
		}
	}
	if !found {
		t.Fatalf("node us-01 not in the report: %+v", rep)
	}
}
