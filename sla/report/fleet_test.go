package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/terms"
)

// Six H200 nodes burn every day at 03:00 UTC; "slow" runs at 50 TFLOP/s on
// 3, 4 and 5 March and at 60 like the others on the 2nd and the 6th. It
// passes any static threshold below 50 but is slower than its siblings.
func fleetLog() []events.Event {
	var l log
	from, to := time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	for _, id := range []string{"n1", "n2", "n3", "n4", "n5", "slow"} {
		l.Register(id, "cn-example", from.Add(-time.Hour), 8)
		l.Add(events.Event{Type: events.TypeHeartbeatRun, Node: id, At: from, LastAt: to, ReceivedAt: from.Add(time.Second),
			LastReceivedAt: to.Add(time.Second), Count: int64(to.Sub(from)/time.Minute) + 1, HeartbeatIntervalS: 60, MaxGapMS: 60000, MaxDelayMS: 1000})
		for day := 2; day <= 6; day++ {
			v := 60.0
			if id == "slow" && day >= 3 && day <= 5 {
				v = 50
			}
			g := 0
			l.Add(events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s/burn/%d", id, day), Node: id,
				At: time.Date(2026, 3, day, 3, 0, 0, 0, time.UTC), ReceivedAt: time.Date(2026, 3, day, 3, 0, 1, 0, time.UTC), Kind: events.KindCheck,
				Checks: []events.Check{{Name: "gpu.burn.fp32", Category: events.CategoryPerformance, Verdict: events.Pass, Number: &v, Unit: "TFLOP/s", GPU: &g}}})
		}
	}
	return l.Events
}

func TestSlowerThanItsSiblingsOpensPerformanceBelowSpec(t *testing.T) {
	all := loadTerms(t)
	// A contract that counts performance_below_spec as unavailable.
	var tm []*terms.Terms
	for _, x := range all {
		c := *x
		if c.Contract == "cn-example" {
			c.Uptime.Unavailable = map[incident.Kind]bool{incident.Unreachable: true, incident.PerformanceBelowSpec: true}
		}
		tm = append(tm, &c)
	}
	r := buildFleet(t, tm)
	// Per-GPU medians: 60 ×5 and slow's (60 50 50 50 60) = 50. Fleet p10:
	// h = 5·0.1 = 0.5 → 50 + 0.5·10 = 55; p50 60; threshold min(55, 57) = 55.
	if r.Fleet == nil || len(r.Fleet.Dists) != 1 || r.Fleet.Dists[0].Threshold != 55 || len(r.Fleet.Findings) != 1 {
		t.Fatalf("fleet = %+v", r.Fleet)
	}
	n := node(t, r, "slow")
	if len(n.Outages) != 1 {
		t.Fatalf("slow's outages = %+v", n.Outages)
	}
	o := n.Outages[0]
	// From the first slow run (3 March 03:00 UTC = 11:00 in Shanghai) to
	// the first run back at 60 (6 March 03:00 UTC): 3 days = 259200 s, all
	// counted under this contract.
	eq(t, "kind", o.Kind, string(incident.PerformanceBelowSpec))
	eq(t, "check", o.Check, "fleet:gpu.burn.fp32/gpu0") // apart from the probe's own verdict on gpu.burn.fp32
	eq(t, "start", o.Start, "2026-03-03T11:00:00+08:00")
	eq(t, "end", o.End, "2026-03-06T11:00:00+08:00")
	eq(t, "counted", o.CountedSeconds, int64(259200))
	eq(t, "claimable", n.Uptime.ClaimableOutageSeconds, int64(259200))
	// slow is judged against the other five alone (60 ×5: p10 60,
	// threshold min(60, 57) = 57), never against a fleet holding itself.
	if !strings.Contains(o.Evidence[0], "slower than its siblings") || !strings.Contains(o.Evidence[0], "the other 5 H200 SXM 141GB nodes") || !strings.Contains(o.Evidence[0], "threshold 57") {
		t.Errorf("evidence = %q", o.Evidence)
	}
	for _, id := range []string{"n1", "n5"} {
		if len(node(t, r, id).Outages) != 0 {
			t.Errorf("%s has outages", id)
		}
	}
	// The report carries the finding its documents show (functions/document
	// writes the fleet section; its tests read the text).
	if f := r.Fleet.Findings[0]; f.Node != "slow" || !f.Start.Equal(time.Date(2026, 3, 3, 3, 0, 0, 0, time.UTC)) {
		t.Errorf("finding = %+v", f)
	}
}

// Under a contract that does not count performance_below_spec, the
// incident is reported and costs the provider nothing.
func TestFleetFindingUnderTheExampleContractIsNotCounted(t *testing.T) {
	r := buildFleet(t, loadTerms(t))
	n := node(t, r, "slow")
	if len(n.Outages) != 1 || n.Outages[0].Counted || n.Uptime.ClaimableOutageSeconds != 0 {
		t.Errorf("outages %+v, claimable %d", n.Outages, n.Uptime.ClaimableOutageSeconds)
	}
}

func buildFleet(t *testing.T, tm []*terms.Terms) *Report {
	t.Helper()
	return buildFrom(t, tm, Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 5, 0, 0, 0, 0, time.UTC)}, fleetLog())
}

// A slowly cooling node: six H200 nodes burn every day of March at 03:00
// UTC; five hold 100 TFLOP/s all month, "cooling" starts as the best card
// (104) and loses 2 TFLOP/s a week (102 from the 8th, 100 from the 15th, 98
// from the 22nd, 96 from the 29th), every run passing the static threshold.
// Its baseline is the median of its first three days, 104; the limit 5 %
// below is 98.8, so the drop is sustained from 22 March (98, 98, 98 …) to
// the month's end, worst 1 − 96/104 = 7.7 %. It is never slower than its
// siblings: its month's median (the 16th of 31 runs) is 100, so the fleet's
// p10 is 100 and the threshold min(100, 95) = 95, which no run falls below.
// The copies (h2d) hold steady on every node: no drop.
func TestSlowlyCoolingNodeDrifts(t *testing.T) {
	var l log
	from, to := time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	for _, id := range []string{"n1", "n2", "n3", "n4", "n5", "cooling"} {
		l.Register(id, "cn-example", from.Add(-time.Hour), 8)
		l.Add(events.Event{Type: events.TypeHeartbeatRun, Node: id, At: from, LastAt: to, ReceivedAt: from.Add(time.Second),
			LastReceivedAt: to.Add(time.Second), Count: int64(to.Sub(from)/time.Minute) + 1, HeartbeatIntervalS: 60, MaxGapMS: 60000, MaxDelayMS: 1000})
		for day := 1; day <= 31; day++ {
			burn, h2d := 100.0, 55.0
			if id == "cooling" {
				burn = 104 - 2*float64((day-1)/7)
			}
			g := 0
			at := time.Date(2026, 3, day, 3, 0, 0, 0, time.UTC)
			l.Add(events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s/stress/%d", id, day), Node: id,
				At: at, ReceivedAt: at.Add(time.Second), Kind: events.KindCheck, Checks: []events.Check{
					{Name: "gpu.burn.bf16", Category: events.CategoryPerformance, Verdict: events.Pass, Number: &burn, Unit: "TFLOP/s", GPU: &g},
					{Name: "gpu.bw.h2d", Category: events.CategoryPerformance, Verdict: events.Pass, Number: &h2d, Unit: "GB/s", GPU: &g}}})
		}
	}
	r := buildFrom(t, loadTerms(t), Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 5, 0, 0, 0, 0, time.UTC)}, l.Events)
	if r.Fleet == nil || len(r.Fleet.Drift) != 12 || len(r.Fleet.Findings) != 0 {
		t.Fatalf("fleet = %+v", r.Fleet)
	}
	for _, d := range r.Fleet.Drift {
		cooling := d.Node == "cooling" && d.Figure == "gpu.burn.bf16"
		switch {
		case len(d.Days) != 31:
			t.Errorf("%s %s: %d days", d.Node, d.Figure, len(d.Days))
		case cooling && (!d.Dropped || d.Since != "2026-03-22" || d.Until != "" || d.WorstPct != 7.7 || d.Baseline != 104 || d.Days[7].Value != 102):
			t.Errorf("cooling = %+v", d)
		case !cooling && d.Dropped:
			t.Errorf("%s %s dropped: %+v", d.Node, d.Figure, d)
		}
	}
	for _, th := range r.Fleet.Dists {
		if th.Figure == "gpu.burn.bf16" && (th.P10 != 100 || th.Threshold != 95) {
			t.Errorf("burn fleet = %+v", th)
		}
	}
	if o := node(t, r, "cooling").Outages; len(o) != 0 {
		t.Errorf("cooling's outages = %+v", o)
	}
}
