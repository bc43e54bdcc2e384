package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/terms"
)

// shortGapMonth is a March of 30 s heartbeats (each received a second
// later) under cn-example with Google's downtime period instead of its
// minimum_outage, {minimum: 1m, unit: 1m}: "a period of one or more
// consecutive minutes of Downtime. Partial minutes or intermittent Downtime
// for a period of less than one minute will not be counted". Every gap is
// shorter than the 2-minute grace, so none is ever alerted on:
//
//   - 12 days (2nd to 13th) the heartbeats after 10:00:00 stop until
//     10:02:00: nothing heard from 10:00:30, when the next was due, for
//     90 s: 1 whole minute counts;
//   - 16 days (14th to 29th) until 10:02:30: 120 s, 2 minutes count;
//   - 5 days (2nd to 6th) the one of 15:00:30 is missing: 30 s, less than
//     the minimum: nothing counts.
//
// Counted: 12 × 1 + 16 × 2 = 44 minutes (2640 s) of 12 × 90 + 16 × 120 +
// 5 × 30 = 3150 s of gaps. Judged by the grace, as the books once were,
// none of it counted (every silence no longer than the grace).
func shortGapMonth(t *testing.T) ([]*terms.Terms, []events.Event) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "terms", "cn-example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const minimum = "  minimum_outage: 1m            # shorter runs of unavailability do not count\n"
	if !strings.Contains(string(src), minimum) {
		t.Fatal("cn-example.yaml's minimum_outage line changed; update this test")
	}
	s := strings.Replace(string(src), minimum, "  downtime_period: {minimum: 1m, unit: 1m}\n", 1)
	tms, err := terms.Parse("cn-example.yaml", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	if tms[0].Detection.Grace != 2*time.Minute {
		t.Fatalf("cn-example's grace is %s; the month is worked for 2m", tms[0].Detection.Grace)
	}
	day := func(d, h, m, sec int) time.Time { return time.Date(2026, time.March, d, h, m, sec, 0, shanghai) }
	var down [][2]time.Time // (last heartbeat before, next one after)
	for d := 2; d <= 13; d++ {
		down = append(down, [2]time.Time{day(d, 10, 0, 0), day(d, 10, 2, 0)})
	}
	for d := 14; d <= 29; d++ {
		down = append(down, [2]time.Time{day(d, 10, 0, 0), day(d, 10, 2, 30)})
	}
	for d := 2; d <= 6; d++ {
		down = append(down, [2]time.Time{day(d, 15, 0, 0), day(d, 15, 1, 0)})
	}
	evs := []events.Event{{Type: events.TypeNodeRegistered, ID: "reg", Node: "gz-30", Contract: "cn-example",
		OrderedAt: local(shanghai, "2026-02-27 10:00"), HeartbeatIntervalS: 30, Hardware: &events.Hardware{GPUModel: "H200 SXM 141GB", GPUCount: 8}}}
	for at := local(shanghai, "2026-02-27 10:10"); at.Before(local(shanghai, "2026-04-01 06:00")); at = at.Add(30 * time.Second) {
		skip := false
		for _, w := range down {
			skip = skip || (at.After(w[0]) && at.Before(w[1]))
		}
		if !skip {
			evs = append(evs, events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("gz-30/%d", at.Unix()), Node: "gz-30",
				At: at, ReceivedAt: at.Add(time.Second), Kind: events.KindHeartbeat})
		}
	}
	return tms, evs
}

// The report counts the month's 44 minutes (not the 0 the grace let
// through), row by row as the downtime period says.
func TestShortGapsCountByTheDowntimePeriod(t *testing.T) {
	tms, evs := shortGapMonth(t)
	r := buildFrom(t, tms, Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)}, evs)
	n := node(t, r, "gz-30")
	eq(t, "rows", len(n.Outages), 33)
	eq(t, "observed seconds (by the downtime period too)", n.Uptime.ObservedOutageSeconds, int64(44*60))
	eq(t, "claimable seconds", n.Uptime.ClaimableOutageSeconds, int64(44*60))
	counted := map[int64]int{}
	var seen int64
	for _, o := range n.Outages {
		counted[o.Seconds*1000+o.CountedSeconds]++
		seen += o.Seconds
	}
	eq(t, "rows' seconds", seen, int64(3150))
	eq(t, "90 s rows counting 60 s", counted[90*1000+60], 12)
	eq(t, "120 s rows counting 120 s", counted[120*1000+120], 16)
	eq(t, "30 s rows counting nothing", counted[30*1000+0], 5)
}

// The live state, fed the same month in receive order with a watchdog tick
// every minute, opens and alerts on nothing, records the same 33 gaps after
// the fact (incident.Record), and its books count the same 44 minutes.
func TestLiveRecordsShortGapsAsTheReportCountsThem(t *testing.T) {
	tms, evs := shortGapMonth(t)
	tm := tms[0]
	th := tm.Detection
	st := incident.State{Interval: 30 * time.Second}
	var outs []account.Outage
	next := evs[1].ReceivedAt.Truncate(time.Minute).Add(time.Minute)
	for i := range evs[1:] {
		e := &evs[1+i]
		for !next.After(e.ReceivedAt) {
			if trs := st.Tick(next, time.Time{}, 30*time.Second, th); len(trs) > 0 {
				t.Fatalf("watchdog at %s: %+v; no gap outlasts the grace", next, trs)
			}
			next = next.Add(time.Minute)
		}
		for _, tr := range st.Observe(th, e) {
			if tr.Op != incident.Record || tr.Kind != incident.Unreachable {
				t.Fatalf("transition %+v; only records of short gaps were expected", tr)
			}
			g := interval.Interval{Start: tr.Since, End: tr.At}
			if !tr.Split.Counts(g, nil) {
				t.Errorf("gap %s–%s recorded but not Overdue", g.Start, g.End)
			}
			for _, seg := range tr.Split.Split(g, nil) {
				outs = append(outs, account.Outage{Kind: incident.Unreachable, Cause: seg.Cause, Span: seg.Span})
			}
		}
	}
	sort.Slice(outs, func(i, j int) bool { return outs[i].Span.Start.Before(outs[j].Span.Start) })
	march := interval.Interval{Start: local(shanghai, "2026-03-01 00:00"), End: local(shanghai, "2026-04-01 00:00")}
	books, _ := account.JudgeAll(tm, march, march, outs, nil, nil)
	eq(t, "live gaps", len(outs), 33)
	var seen time.Duration
	for _, o := range outs {
		seen += o.Span.Duration()
	}
	eq(t, "live gaps' length", seen, 3150*time.Second)
	eq(t, "live claimable", books.Claimable.Total(), 44*time.Minute)
}
