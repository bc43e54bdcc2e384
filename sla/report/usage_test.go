package report

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report/reporttest"
)

// The node's usage readings become its month's usage (disks, traffic over
// the service period, its last sign of life); one the report cannot read
// is left out and listed as evidence, and the rest of the report stands.
func TestUsageReadingsInTheReport(t *testing.T) {
	var l reporttest.Log
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, shanghai)
	l.Register("gz-01", "cn-example", start.Add(-24*time.Hour), 8)
	l.Heartbeats("gz-01", start.Add(-time.Hour), start.Add(48*time.Hour))
	reading := func(at time.Time, detail string) {
		l.Add(events.Event{Type: events.TypeObservation, Node: "gz-01", At: at, ReceivedAt: at.Add(time.Second), Kind: events.KindCheck,
			Checks: []events.Check{{Name: "usage.boot", Category: "host", Verdict: "pass", Detail: "boot_id=b&boot_time=1772294400"},
				{Name: "usage.disk.vda", Category: "host", Verdict: "pass", Detail: "size_bytes=107374182400&system=1"},
				{Name: "usage.net.eth0", Category: "host", Verdict: "pass", Detail: detail}}})
	}
	// 28 Feb 23:00 (before the month) 0 bytes out, 1 March 12:00 7e9, 2 March 12:00 9e9 — and one
	// reading whose counter is not a number.
	reading(start.Add(-time.Hour), "physical=1&default_route=1&rx_bytes=0&tx_bytes=0")
	reading(start.Add(12*time.Hour), "physical=1&default_route=1&rx_bytes=0&tx_bytes=7000000000")
	reading(start.Add(24*time.Hour), "physical=1&default_route=1&rx_bytes=0&tx_bytes=x")
	reading(start.Add(36*time.Hour), "physical=1&default_route=1&rx_bytes=0&tx_bytes=9000000000")
	r := buildFrom(t, loadTerms(t), Options{Year: 2026, Month: 3, AsOf: start.Add(48 * time.Hour)}, l.Events)
	u := r.Nodes[0].Usage
	if u == nil || u.Readings != 3 || len(u.Disks) != 1 || !u.Disks[0].System {
		t.Fatalf("usage %+v", u)
	}
	// The period is 1 March 00:00 to the as-of, 3 March 00:00: the pair
	// straddling its start gives at most 7e9, the pair inside exactly 2e9;
	// after the last reading (12 h to the as-of) no link speed caps it.
	if tx := u.Traffic.Tx; tx.Lower != 2e9 || tx.Upper != 9e9 || !tx.Unbounded {
		t.Errorf("tx %+v", tx)
	}
	if want := start.Add(48*time.Hour - time.Minute); !u.LastSeen.Equal(want) {
		t.Errorf("last seen %s, want the last heartbeat %s", u.LastSeen, want)
	}
	var bad []string
	for _, e := range r.Nodes[0].Evidence {
		if e.Kind == EvidenceUsageUnreadable {
			bad = append(bad, e.Detail)
		}
	}
	if len(bad) != 1 || !strings.Contains(bad[0], "usage.net.eth0: tx_bytes") {
		t.Errorf("evidence %v", bad)
	}
}

// A usage reading is an instant the node reports like any other: one dated
// ahead of its receipt (a probe clock 200 s fast) is read at the receipt,
// so it can neither move the month's last reading past what the backend
// had heard nor stretch the traffic's span; one dated a second before its
// receipt keeps its own time.
func TestUsageReadingDatedAtItsReceipt(t *testing.T) {
	var l reporttest.Log
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, shanghai)
	l.Register("gz-01", "cn-example", start.Add(-24*time.Hour), 8)
	l.Heartbeats("gz-01", start.Add(-time.Hour), start.Add(48*time.Hour))
	reading := func(at, received time.Time, tx string) {
		l.Add(events.Event{Type: events.TypeObservation, Node: "gz-01", At: at, ReceivedAt: received, Kind: events.KindCheck,
			Checks: []events.Check{{Name: "usage.boot", Category: "host", Verdict: "pass", Detail: "boot_id=b&boot_time=1772294400"},
				{Name: "usage.net.eth0", Category: "host", Verdict: "pass", Detail: "physical=1&default_route=1&rx_bytes=0&tx_bytes=" + tx}}})
	}
	first := start.Add(time.Hour)
	reading(first, first.Add(time.Second), "0")
	recv := start.Add(30 * time.Hour)
	reading(recv.Add(200*time.Second), recv, "5000000000")
	r := buildFrom(t, loadTerms(t), Options{Year: 2026, Month: 3, AsOf: start.Add(48 * time.Hour)}, l.Events)
	u := r.Nodes[0].Usage
	if u == nil || u.Readings != 2 || !u.First.Equal(first) || !u.Last.Equal(recv) {
		t.Fatalf("usage %+v: want readings at %s and %s (the receipt)", u, first, recv)
	}
}
