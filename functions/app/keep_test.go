package app_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
)

// Only batches that are evidence are stored: the node's first check
// results, one with a
// check that does not pass, one that opens or closes an incident, and the
// passes that count while a failure or an incident is pending. In-time
// all-pass batches with nothing pending are not — and replaying what was
// stored through the SLA engine gives exactly the incidents the live path
// opened and closed.
func TestOnlyEvidenceBatchesAreStored(t *testing.T) {
	w := newWorld(t)
	remap := func(verdict string) wire.Check {
		return wire.Check{Name: "gpu.temperature", Category: wire.CategoryGPUDegraded, Verdict: verdict, Value: "71 C", Criterion: "below 85 C"} // a measured figure: counted by the thresholds
	}
	steps := []struct {
		verdict string // "" for a heartbeat-only push
		why     string // the reasons it is kept, "" when it is not
	}{
		{"", ""},                    // heartbeats only: the run records them
		{wire.Pass, "first_checks"}, // the node's first check results: delivery evidence
		{wire.Pass, ""},
		{wire.Fail, "checks"},          // one failure: counted, not yet an incident
		{wire.Pass, "pending"},         // resets the count: the replay needs it
		{wire.Pass, ""},                // nothing pending
		{wire.Skipped, "checks"},       // not a pass: evidence of what was not checked
		{wire.Fail, "checks"},          // first of two
		{wire.Fail, "checks,incident"}, // opens gpu_degraded
		{wire.Pass, "pending"},         // first pass while open
		{wire.Pass, "incident"},        // closes it: the evidence of recovery
		{wire.Pass, ""},
		{"", ""},
	}
	for i, s := range steps {
		now := w.clock.Now()
		obs := []wire.Observation{{At: now.Add(-30 * time.Second), Kind: wire.KindHeartbeat}, {At: now, Kind: wire.KindHeartbeat}}
		if s.verdict != "" {
			obs = append(obs, wire.Observation{At: now, Kind: wire.KindCheck, Checks: []wire.Check{remap(s.verdict)}})
		}
		if ack := w.push(obs...); ack.Status != wire.AckStored {
			t.Fatalf("step %d: ack %+v", i, ack)
		}
		w.clock.Advance(time.Minute)
	}
	got := map[uint64]string{}
	recs, err := w.store.ListBatches(t.Context(), "gz-01", 0, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		got[r.Seq] = strings.Join(r.Why, ",")
		if d := r.ExpiresAt.Sub(r.ReceivedAt); d != app.DefaultRetention {
			t.Errorf("seq %d expires after %s, want the default retention %s", r.Seq, d, app.DefaultRetention)
		}
	}
	for i, s := range steps {
		seq := uint64(i + 1)
		if got[seq] != s.why {
			t.Errorf("seq %d (%q): kept for %q, want %q", seq, s.verdict, got[seq], s.why)
		}
	}

	// Replay the stored check observations (as the export carries them)
	// through a fresh engine: the same incidents as the live path.
	var obs []events.Event
	if _, err := app.Export(t.Context(), w.store, app.ExportSelect{From: t0.Add(-time.Hour), To: t0.Add(time.Hour), Nodes: []string{"gz-01"}}, func(e *events.Event) error {
		if e.Type == events.TypeObservation && e.Kind == events.KindCheck {
			obs = append(obs, *e)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].TrueAt().Before(obs[j].TrueAt()) })
	n, err := w.store.GetNode(t.Context(), "gz-01")
	if err != nil {
		t.Fatal(err)
	}
	var st incident.State
	var replayed []string
	for i := range obs {
		for _, tr := range st.Observe(w.svc.Thresholds(n), &obs[i]) {
			replayed = append(replayed, fmt.Sprintf("%s %s since %s at %s", tr.Op, tr.Kind, tr.Since.Format(time.TimeOnly), tr.At.Format(time.TimeOnly)))
		}
	}
	incs, err := w.store.ListIncidents(t.Context(), "gz-01", t0.Add(-time.Hour), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, inc := range incs {
		live = append(live, fmt.Sprintf("open %s since %s at %s", inc.Kind, inc.Start.Format(time.TimeOnly), inc.Start.Format(time.TimeOnly)))
		if inc.Open() {
			t.Fatalf("incident %s still open", inc.ID)
		}
		live = append(live, fmt.Sprintf("close %s since %s at %s", inc.Kind, inc.Start.Format(time.TimeOnly), inc.End.Format(time.TimeOnly)))
	}
	if len(live) != 2 || !slices.Equal(replayed, live) {
		t.Errorf("replayed from the stored batches:\n%v\nlive:\n%v", replayed, live)
	}
}
