package report

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

// Every row's counted fields agree with its reason. A
// network_degraded incident (not counted by cn-example) that overlaps a
// counted outage counts nothing itself: counted false, counted 0 s, and
// the reason says why; the unreachable row beside it counts its own time.
func TestRowCountedFieldsAgreeWithReason(t *testing.T) {
	tm := loadTerms(t)
	sc := scenario{name: "overlap", month: time.March, asOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC),
		build: func(l *log) {
			l.Register("gz-09", "cn-example", local(shanghai, "2026-02-24 09:00"), 8)
			l.Heartbeats("gz-09", local(shanghai, "2026-02-25 00:00"), local(shanghai, "2026-04-01 06:00"),
				local(shanghai, "2026-03-10 10:00"), local(shanghai, "2026-03-10 10:30"))
			for at := local(shanghai, "2026-03-10 09:50"); at.Before(local(shanghai, "2026-03-10 11:00")); at = at.Add(time.Minute) {
				if at.After(local(shanghai, "2026-03-10 10:00")) && at.Before(local(shanghai, "2026-03-10 10:30")) {
					continue // nothing heard in the outage
				}
				v := "fail"
				if !at.Before(local(shanghai, "2026-03-10 10:45")) {
					v = "pass"
				}
				l.Add(events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("gz-09/net/%d", at.Unix()), Node: "gz-09",
					At: at, ReceivedAt: at.Add(time.Second), Kind: events.KindCheck,
					Checks: []events.Check{{Name: "net.gateway.loss", Category: "network_degraded", Verdict: v, Value: "20 % loss"}}})
			}
		}}
	r := run(t, sc, tm, false)
	n := node(t, r, "gz-09")
	var sawNet, sawUnreach bool
	for _, o := range n.Outages {
		t.Logf("%s %s %s–%s counted=%v counted_s=%d observed_s=%d reason=%q", o.Kind, o.Cause, o.Start, o.End, o.Counted, o.CountedSeconds, o.ObservedSeconds, o.Reason)
		if o.Counted != (o.CountedSeconds > 0) {
			t.Errorf("%s: counted %v with %d counted seconds", o.Kind, o.Counted, o.CountedSeconds)
		}
		if o.CountedSeconds < o.Seconds && o.Reason == "" {
			t.Errorf("%s: counts %d of %d s and gives no reason", o.Kind, o.CountedSeconds, o.Seconds)
		}
		if o.CountedSeconds == o.Seconds && o.Reason != "" {
			t.Errorf("%s: counts all its %d s but says %q", o.Kind, o.Seconds, o.Reason)
		}
		switch o.Kind {
		case "network_degraded":
			sawNet = true
			if o.Counted || o.CountedSeconds != 0 || o.ObservedSeconds != 0 {
				t.Errorf("network_degraded row: counted %v, counted %d s, observed %d s; the contract does not count it", o.Counted, o.CountedSeconds, o.ObservedSeconds)
			}
		case "unreachable":
			sawUnreach = true
			if !o.Counted || o.CountedSeconds != o.Seconds {
				t.Errorf("unreachable row: counted %v, %d of %d s", o.Counted, o.CountedSeconds, o.Seconds)
			}
		}
	}
	if !sawNet || !sawUnreach {
		t.Fatalf("want a network_degraded and an unreachable row, got %+v", n.Outages)
	}
}
