package report

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report/reporttest"
)

// A node given back before the month has no part in it, though its probe
// still pushed (and failed) in the month; one given back inside it while unreachable and failing has
// every row end at the release, none ongoing (docs/reports.md, period).
func TestReleasedNodes(t *testing.T) {
	ny := reporttest.NewYork
	var l reporttest.Log
	l.Register("va-11", "us-example", reporttest.Local(ny, "2026-02-01 09:00"), 8)
	l.Heartbeats("va-11", reporttest.Local(ny, "2026-02-01 09:30"), reporttest.Local(ny, "2026-03-03 00:00"),
		reporttest.Local(ny, "2026-03-01 10:00"), reporttest.Local(ny, "2026-03-01 12:00"))
	l.Add(events.Event{Type: events.TypeNodeReleased, Node: "va-11", At: reporttest.Local(ny, "2026-02-20 17:00")})
	for at := reporttest.Local(ny, "2026-03-02 09:00"); at.Before(reporttest.Local(ny, "2026-03-02 12:00")); at = at.Add(15 * time.Minute) {
		l.GPUCheck("va-11", at, "gpu.count", events.CategoryGPULost, events.Fail, 0)
	}
	rel := reporttest.Local(ny, "2026-03-10 12:00")
	l.Register("va-10", "us-example", reporttest.Local(ny, "2026-02-27 09:00"), 8)
	l.Heartbeats("va-10", reporttest.Local(ny, "2026-02-27 09:30"), reporttest.Local(ny, "2026-03-12 00:00"),
		reporttest.Local(ny, "2026-03-10 11:00"), reporttest.Local(ny, "2026-03-10 13:00"))
	for at := reporttest.Local(ny, "2026-03-10 09:00"); at.Before(reporttest.Local(ny, "2026-03-10 16:00")); at = at.Add(15 * time.Minute) {
		if at.After(reporttest.Local(ny, "2026-03-10 11:00")) && at.Before(reporttest.Local(ny, "2026-03-10 13:00")) {
			continue // down
		}
		l.GPUCheck("va-10", at, "gpu.temperature", events.CategoryGPUDegraded, events.Fail, 2)
	}
	l.Add(events.Event{Type: events.TypeNodeReleased, Node: "va-10", At: rel})
	r := run(t, scenario{name: "released", month: time.March, asOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC),
		build: func(x *log) { *x = l }}, loadTerms(t), true)
	if len(r.Nodes) != 1 || r.Nodes[0].Node != "va-10" {
		t.Fatalf("%d nodes listed, want va-10 alone (va-11 was given back before the month)", len(r.Nodes))
	}
	in := r.Nodes[0]
	if !in.Period.InService || !in.Period.Released || in.Period.End != rel.Format(time.RFC3339) {
		t.Errorf("node released on the 10th: period %+v, want in service until %s", in.Period, rel.Format(time.RFC3339))
	}
	if len(in.Outages) != 2 {
		t.Fatalf("node released on the 10th: outages %+v, want the unreachable and the gpu_degraded row", in.Outages)
	}
	for _, o := range in.Outages {
		if o.End != rel.Format(time.RFC3339) || o.Ongoing {
			t.Errorf("%s row ends %s ongoing=%v, want ending at the release %s, not ongoing", o.Kind, o.End, o.Ongoing, rel.Format(time.RFC3339))
		}
	}
}

// A machine given back is not replaced (us-example: replacement within 12 h
// on the wall clock, 10 % a late 12 h). Of va-20's hardware tickets, the
// one whose deadline passed while it was rented (opened 20 h before the
// release, unreplaced) earns the late-replacement penalty; the one opened
// 2 h before the release, due 10 h after it, earns none — its clock
// stopped at the release, pending; and one opened after the release (a
// log written by hand: the desk refuses it) has no clock at all. Before,
// the second earned a penalty at the month's end and the third started a
// fresh 12 h clock.
func TestNoReplacementPenaltyAfterRelease(t *testing.T) {
	ny := reporttest.NewYork
	at := func(s string) time.Time { return reporttest.Local(ny, s) }
	var l reporttest.Log
	l.Register("va-20", "us-example", at("2026-02-27 09:00"), 8)
	l.Heartbeats("va-20", at("2026-02-27 09:30"), at("2026-03-12 00:00"))
	rel := at("2026-03-10 12:00")
	for _, tk := range []struct {
		id     string
		opened time.Time
	}{{"T-late", rel.Add(-20 * time.Hour)}, {"T-stopped", rel.Add(-2 * time.Hour)}, {"T-after", rel.Add(time.Hour)}} {
		l.Ticket(events.TypeTicketOpened, tk.id, tk.opened, func(e *events.Event) {
			e.Node, e.Priority, e.Category = "va-20", "sev2", "hardware"
		})
		l.Ticket(events.TypeProviderResponded, tk.id, tk.opened.Add(10*time.Minute), nil)
	}
	l.Add(events.Event{Type: events.TypeNodeReleased, Node: "va-20", At: rel})
	r := run(t, scenario{name: "released-replacement", month: time.March, asOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC),
		build: func(x *log) { *x = l }}, loadTerms(t), true)
	n := r.Nodes[0]
	var pen []string
	for _, p := range n.Credit.Penalties {
		pen = append(pen, p.Kind+" "+p.Ref)
	}
	if len(pen) != 1 || pen[0] != "late_replacement T-late" {
		t.Errorf("penalties %v, want only T-late's late replacement", pen)
	}
	for _, tk := range n.Tickets {
		switch tk.Ticket {
		case "T-late":
			if tk.Replacement == nil || tk.Replacement.Status != "breached" {
				t.Errorf("T-late replacement %+v, want breached", tk.Replacement)
			}
		case "T-stopped":
			if tk.Replacement == nil || tk.Replacement.Status != "pending" || tk.Breached {
				t.Errorf("T-stopped replacement %+v (breached %v), want pending, its clock stopped at the release", tk.Replacement, tk.Breached)
			}
		case "T-after":
			if tk.Replacement != nil || tk.Response != nil || tk.Resolution != nil || tk.Breached {
				t.Errorf("T-after %+v: a ticket opened after the release has no clock", tk)
			}
		}
	}
}
