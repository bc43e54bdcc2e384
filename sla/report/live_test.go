package report

import (
	"sort"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/incident"
)

// The backend's live evaluation (incident.State fed in receive order, with
// a watchdog tick every minute) and the monthly report find the same
// incidents in the same log: same kinds and intervals. Live unreachable
// times are reckoned from receive times, the report's from probe times, so
// those may differ by the transit delay (one second here).
func TestLiveEvaluationAgreesWithReport(t *testing.T) {
	tm := loadTerms(t)
	var sc scenario
	for _, s := range scenarios() {
		if s.name == "cn-flapping" {
			sc = s
		}
	}
	r := run(t, sc, tm, false)
	var l log
	sc.build(&l)
	evs := l.Events[1:] // after the registration
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].ReceivedAt.Before(evs[j].ReceivedAt) })
	th := tm[0].Detection
	var st incident.State
	type inc struct {
		kind       incident.Kind
		since, end time.Time
	}
	open := map[incident.Kind]*inc{}
	var got []inc
	apply := func(trs []incident.Transition) {
		for _, tr := range trs {
			switch tr.Op {
			case incident.Open:
				open[tr.Kind] = &inc{kind: tr.Kind, since: tr.Since}
			case incident.Record:
				got = append(got, inc{kind: tr.Kind, since: tr.Since, end: tr.At})
			case incident.Close:
				i := open[tr.Kind]
				i.end = tr.At
				got = append(got, *i)
				delete(open, tr.Kind)
			}
		}
	}
	next := evs[0].ReceivedAt.Truncate(time.Minute).Add(time.Minute)
	for i := range evs {
		for !next.After(evs[i].ReceivedAt) {
			apply(st.Tick(next, time.Time{}, time.Minute, th))
			next = next.Add(time.Minute)
		}
		apply(st.Observe(th, &evs[i]))
	}
	n := node(t, r, "gz-03")
	var want []inc
	for _, o := range n.Outages {
		s, _ := time.Parse(time.RFC3339, o.Start)
		e, _ := time.Parse(time.RFC3339, o.End)
		want = append(want, inc{kind: incident.Kind(o.Kind), since: s, end: e})
	}
	sort.Slice(got, func(i, j int) bool { return got[i].since.Before(got[j].since) })
	// Before March the scenario has no gaps; the report covers March only.
	if len(got) != len(want) {
		t.Fatalf("live found %+v, report %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		off := func(a, b time.Time) bool { return a.Before(b) || a.Sub(b) > time.Second }
		if g.kind != w.kind || off(g.since, w.since) || off(g.end, w.end) {
			t.Errorf("incident %d: live %v %s–%s, report %v %s–%s", i, g.kind, g.since, g.end, w.kind, w.since, w.end)
		}
	}
}
