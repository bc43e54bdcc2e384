package scorecard

import (
	"math"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

// The comparison never flatters: each test below is one way it used to.

// Eight GPUs of one node failing together are eight GPU-level incidents
// (the rate is per GPU-month), not one; a node-level kind starting on
// every GPU at once stays one incident per node.
func TestGPULevelIncidentsCountPerGPU(t *testing.T) {
	l := newLog(t)
	l.register("g1", "alpha-c", "2026-03-01T00:00:00Z")
	l.run("g1", "2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z")
	var bad, good []events.Check
	for i := 0; i < 8; i++ {
		// An uncorrectable ECC error is definitive: an incident at the
		// first result; two passes in a row close it.
		bad = append(bad, events.Check{Name: "gpu.ecc.volatile", Category: events.CategoryGPUDegraded, Verdict: events.Fail, GPU: gpu(i)},
			events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: events.Fail, GPU: gpu(i)})
		good = append(good, events.Check{Name: "gpu.ecc.volatile", Category: events.CategoryGPUDegraded, Verdict: events.Pass, GPU: gpu(i)},
			events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: events.Pass, GPU: gpu(i)})
	}
	for _, when := range []string{"2026-03-10T00:00:00Z", "2026-03-10T00:05:00Z", "2026-03-10T00:10:00Z"} {
		l.checks("g1", when, bad...)
	}
	l.checks("g1", "2026-03-10T01:00:00Z", good...)
	l.checks("g1", "2026-03-10T01:05:00Z", good...)
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	sc := build(t, l.buf.Bytes(), Options{})
	rl := sc.Providers[0].All.Reliability
	counts := map[string]KindRate{}
	for _, k := range rl.Incidents {
		counts[k.Kind] = k
	}
	// A whole month in service on 8 GPUs: 8 GPU-months, 1 node-month.
	deg, inv := counts["gpu_degraded"], counts["inventory_mismatch"]
	if deg.Count != 8 || deg.Per != "GPU-month" || deg.Rate.Value == nil || math.Abs(*deg.Rate.Value-1) > 1e-9 {
		t.Errorf("gpu_degraded %+v, want 8 incidents, 8 / 8 GPU-months = 1", deg)
	}
	if inv.Count != 1 || inv.Per != "node-month" || math.Abs(*inv.Rate.Value-1) > 1e-9 {
		t.Errorf("inventory_mismatch %+v, want 1 per node-month", inv)
	}
	// Closed after an hour each: the mean repair is 1 h over 9 incidents.
	if m := rl.MTTRHours; m.N != 9 || m.Censored != 0 || math.Abs(*m.Value-(1+5.0/60)) > 0.2 {
		t.Errorf("MTTR %+v", m)
	}
}

// The MTTR minimum counts closed incidents: two closed and two still open
// on three machines is not enough to rank, whatever n says; three closed
// and one open is.
func TestMTTRMinimumCountsClosedIncidents(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	inc := func(h float64, open bool) *incidentRec {
		return &incidentRec{kind: "gpu_lost", start: t0, end: t0.Add(time.Duration(h * float64(time.Hour))), ongoing: open}
	}
	facts := func(recs ...*incidentRec) []*nodeFacts {
		var fs []*nodeFacts
		for i, id := range []string{"n1", "n2", "n3"} {
			f := &nodeFacts{id: id, gpus: 8, months: []nodeMonth{{month: "2026-03", inService: true, share: 1}}}
			if i < len(recs) {
				f.incidents = []*incidentRec{recs[i]}
			}
			fs = append(fs, f)
		}
		fs[0].incidents = append(fs[0].incidents, recs[3:]...)
		return fs
	}
	fs := facts(inc(1, false), inc(2, false), inc(5, true), inc(4, true))
	m := reliability(fs, exposure(fs)).MTTRHours
	// Mean of 1, 2, ≥ 5, ≥ 4 = ≥ 3 h; 2 closed < 3.
	if !m.TooFew || m.N != 4 || m.Censored != 2 || m.Counted() != 2 || m.Bound != AtLeast || math.Abs(*m.Value-3) > 1e-9 {
		t.Errorf("2 closed, 2 open: %+v, want too few", m)
	}
	fs = facts(inc(1, false), inc(2, false), inc(3, false), inc(6, true))
	if m = reliability(fs, exposure(fs)).MTTRHours; m.TooFew || m.Counted() != 3 {
		t.Errorf("3 closed, 1 open: %+v, want ranked", m)
	}
}

// A figure its unfinished cases can only make worse is never ranked ahead
// of a settled one it does not already beat: "≥ 15 min" beside 20 and 60
// min (5 min apart is noise) ties with the 60, not the 20; beside 14 min
// it ties with it; it never beats anything.
func TestUnfinishedFigureIsNotRankedAheadOfWhatItCannotYetBeat(t *testing.T) {
	d := minDiff("support.off_hours_first_response_p90_minutes")
	mk := func(v float64, bound string) *Figure {
		f := Figure{Value: &v, N: 3, Machines: 3, MinN: 3, Better: Lower, Bound: bound, MinDiff: d}
		return &f
	}
	open, twenty, sixty := mk(15, AtLeast), mk(20, ""), mk(60, "")
	rankFigures([]*Figure{open, twenty, sixty})
	if twenty.Rank != 1 || sixty.Rank != 2 || open.Rank != 2 {
		t.Errorf("≥ 15 / 20 / 60 min: ranks %d %d %d, want 2 1 2", open.Rank, twenty.Rank, sixty.Rank)
	}
	open, fourteen := mk(15, AtLeast), mk(14, "")
	rankFigures([]*Figure{open, fourteen})
	if open.Rank != 1 || fourteen.Rank != 1 {
		t.Errorf("≥ 15 / 14 min: ranks %d %d, want a tie", open.Rank, fourteen.Rank)
	}
	// Already worse than a settled one by more than the noise: behind it.
	open, twenty = mk(26, AtLeast), mk(20, "")
	rankFigures([]*Figure{open, twenty})
	if open.Rank != 2 || twenty.Rank != 1 {
		t.Errorf("≥ 26 / 20 min: ranks %d %d, want 2 1", open.Rank, twenty.Rank)
	}
	// A share answered within a limit with undecided tickets can only
	// rise: it is no worse than it reads, and ranks as it reads.
	hi := func(v float64, bound string) *Figure {
		f := Figure{Value: &v, N: 3, Machines: 3, MinN: 3, Better: Higher, Bound: bound, MinDiff: 0.1}
		return &f
	}
	up, flat := hi(0.55, AtLeast), hi(0.40, "")
	rankFigures([]*Figure{up, flat})
	if up.Rank != 1 || flat.Rank != 2 {
		t.Errorf("≥ 55 %% / 40 %%: ranks %d %d, want 1 2", up.Rank, flat.Rank)
	}
}

// "Answered within 1 h" counts a ticket not yet answered and not yet an
// hour old as a miss, which its answer can only turn into a hit: the
// share is a lower bound ("≥"), never "≤".
func TestWithinShareWithUndecidedCasesIsALowerBound(t *testing.T) {
	os := []obs{{v: 20, node: "a"}, {v: 90, node: "b"}, {v: 10, censored: true, node: "c"}}
	f := withinFig(os, 60, 3)
	if math.Abs(*f.Value-1.0/3) > 1e-12 || f.Bound != AtLeast || f.Censored != 1 {
		t.Errorf("within 1 h of 20, 90 and an open 10 min: %+v, want ≥ 1/3", f)
	}
	// Past the limit, an unanswered one is a miss already: exact.
	os[2].v = 61
	if f = withinFig(os, 60, 3); f.Bound != "" || math.Abs(*f.Value-1.0/3) > 1e-12 {
		t.Errorf("with the open one past 60 min: %+v, want exactly 1/3", f)
	}
}
