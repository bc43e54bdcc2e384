package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
)

// cnTerms is cn-example with its delivery clause's counts_until set (""
// leaves the file as it is: first_heartbeat).
func cnTerms(t *testing.T, countsUntil string) []*terms.Terms {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "terms", "cn-example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	if countsUntil != "" {
		const within = "  within: 30m                   # order to first heartbeat\n"
		if !strings.Contains(s, within) {
			t.Fatal("cn-example.yaml's delivery clause changed; update this test")
		}
		s = strings.Replace(s, within, within+"  counts_until: "+countsUntil+"\n", 1)
	}
	ts, err := terms.Parse("cn-example.yaml", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// health adds one health-job observation of a 2-GPU node: the card checks
// of gpuprobe check, gpu.order.model passing or not.
func health(l *log, node string, at time.Time, orderVerdict string) {
	var cs []events.Check
	for g := 0; g < 2; g++ {
		gi := g
		cs = append(cs,
			events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: "pass", GPU: &gi, Value: "NVIDIA H100 80GB HBM3"},
			events.Check{Name: "gpu.order.model", Category: events.CategoryInventory, Verdict: orderVerdict, GPU: &gi, Criterion: "H200 (ordered)"},
			events.Check{Name: "gpu.temperature", Category: events.CategoryGPUDegraded, Verdict: "pass", GPU: &gi})
	}
	l.Add(events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s/health/%d", node, at.Unix()), Node: node, At: at,
		ReceivedAt: at.Add(time.Second), Kind: events.KindCheck, Checks: cs})
}

// A node ordered 2026-03-02 10:00 (Shanghai) under cn-example (delivery
// within 30 min, penalty 5 % per started hour, at most 20 %) sends its first
// heartbeat at 10:20 — with the wrong card: its health checks at 10:25 find
// an H100 where an H200 was ordered. The card is swapped and the checks at
// 12:05 pass. Worked by hand:
//
//   - counts_until first_heartbeat (the default): delivered 10:20, 20 min
//     after the order, met; no penalty; in service from 10:20.
//   - counts_until acceptance_passed: delivered 12:05, 2 h 05 min = 7500 s
//     after the order, 1 h 35 min = 5700 s late; two started hours: 10 %;
//     in service from 12:05.
func TestDeliveryCountsUntil(t *testing.T) {
	ordered := local(shanghai, "2026-03-02 10:00")
	build := func(l *log) {
		l.Register("gz-07", "cn-example", ordered, 2)
		l.Heartbeats("gz-07", local(shanghai, "2026-03-02 10:20"), local(shanghai, "2026-04-01 06:00"))
		health(l, "gz-07", local(shanghai, "2026-03-02 10:25"), "fail")
		health(l, "gz-07", local(shanghai, "2026-03-02 11:25"), "fail")
		health(l, "gz-07", local(shanghai, "2026-03-02 12:05"), "pass")
		health(l, "gz-07", local(shanghai, "2026-03-02 12:10"), "pass")
	}
	sc := scenario{name: "delivery", month: time.March, asOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC), build: build}

	r := run(t, sc, cnTerms(t, ""), true)
	n := node(t, r, "gz-07")
	eq(t, "first_heartbeat: delivered", n.Delivery.DeliveredAt, "2026-03-02T10:20:00+08:00")
	eq(t, "first_heartbeat: status", n.Delivery.Status, "met")
	eq(t, "first_heartbeat: seconds", n.Delivery.Seconds, int64(20*60))
	eq(t, "first_heartbeat: late", n.Delivery.LateSeconds, int64(0))
	eq(t, "first_heartbeat: counts_until", n.Delivery.CountsUntil, "")
	eq(t, "first_heartbeat: period start", n.Period.Start, "2026-03-02T10:20:00+08:00")
	for _, p := range n.Credit.Penalties {
		if p.Kind == "late_delivery" {
			t.Errorf("first_heartbeat: a late_delivery penalty %+v", p)
		}
	}

	r = run(t, sc, cnTerms(t, "acceptance_passed"), true)
	n = node(t, r, "gz-07")
	eq(t, "acceptance_passed: delivered", n.Delivery.DeliveredAt, "2026-03-02T12:05:00+08:00")
	eq(t, "acceptance_passed: status", n.Delivery.Status, "breached")
	eq(t, "acceptance_passed: seconds", n.Delivery.Seconds, int64(7500))
	eq(t, "acceptance_passed: late", n.Delivery.LateSeconds, int64(5700))
	eq(t, "acceptance_passed: counts_until", n.Delivery.CountsUntil, "acceptance_passed")
	eq(t, "acceptance_passed: period start", n.Period.Start, "2026-03-02T12:05:00+08:00")
	var late *Penalty
	for i, p := range n.Credit.Penalties {
		if p.Kind == "late_delivery" {
			late = &n.Credit.Penalties[i]
		}
	}
	if late == nil || late.Percent != 10 || late.Ref != "gz-07" {
		t.Fatalf("acceptance_passed: late_delivery penalty %+v, want 10 %% on gz-07 (penalties %+v)", late, n.Credit.Penalties)
	}
}

// Never accepted: the wrong card all month. Under acceptance_passed the node
// was never delivered: not in service, and the delivery is breached by the
// whole month after the target — as of the month's end, 2026-04-01 00:00,
// that is 29 d 14 h = 2 556 000 s from the order, less the 30-minute
// target: 2 554 200 s late, the penalty at its 20 % maximum.
func TestDeliveryNeverAccepted(t *testing.T) {
	ordered := local(shanghai, "2026-03-02 10:00")
	sc := scenario{name: "never-accepted", month: time.March, asOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC), build: func(l *log) {
		l.Register("gz-08", "cn-example", ordered, 2)
		l.Heartbeats("gz-08", local(shanghai, "2026-03-02 10:20"), local(shanghai, "2026-03-02 14:00"))
		health(l, "gz-08", local(shanghai, "2026-03-02 10:25"), "fail")
	}}
	n := node(t, run(t, sc, cnTerms(t, "acceptance_passed"), false), "gz-08")
	eq(t, "delivered", n.Delivery.DeliveredAt, "")
	eq(t, "status", n.Delivery.Status, "breached")
	eq(t, "seconds", n.Delivery.Seconds, int64(2556000))
	eq(t, "late", n.Delivery.LateSeconds, int64(2554200))
	eq(t, "in service", n.Period.InService, false)
	found := false
	for _, p := range n.Credit.Penalties {
		found = found || (p.Kind == "late_delivery" && p.Percent == 20)
	}
	eq(t, "late_delivery 20 %", found, true)
}

// A node registered under a contract no terms define is left out with its
// events and its tickets and named with its contract (Skipped); every other
// node is reported as if it were not in the log. It used to fail the whole
// report.
func TestUnknownContractNodeIsSkipped(t *testing.T) {
	tm := loadTerms(t)
	var l log
	l.Register("gz-01", "cn-example", local(shanghai, "2026-03-01 08:00"), 8)
	l.Heartbeats("gz-01", local(shanghai, "2026-03-01 09:00"), local(shanghai, "2026-03-01 12:00"))
	alone := append([]events.Event(nil), l.Events...)
	l.Heartbeats("gz-09", local(shanghai, "2026-03-01 09:00"), local(shanghai, "2026-03-01 10:00")) // before its registration
	l.Register("gz-09", "cn-exmaple", local(shanghai, "2026-03-01 08:00"), 8)
	l.Ticket(events.TypeTicketOpened, "T-9", local(shanghai, "2026-03-01 09:30"), func(e *events.Event) { e.Node, e.Priority = "gz-09", "P1" })
	l.Ticket(events.TypeProviderResponded, "T-9", local(shanghai, "2026-03-01 09:40"), nil)
	build := func(evs []events.Event) (*Report, []Skipped) {
		b, err := NewBuilder(tm, Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		for i := range evs {
			if err := b.Add(&evs[i]); err != nil {
				t.Fatalf("Add %s: %v", evs[i].ID, err)
			}
		}
		r, err := b.Build()
		if err != nil {
			t.Fatalf("Build: %v", err)
		}
		return r, b.Skipped()
	}
	r, skipped := build(l.Events)
	if len(skipped) != 1 || skipped[0].Node != "gz-09" || skipped[0].Contract != "cn-exmaple" ||
		skipped[0].Reason != `contract "cn-exmaple" is defined by no terms given (known: cn-example, us-example)` {
		t.Fatalf("skipped %+v", skipped)
	}
	if len(r.Nodes) != 1 || r.Nodes[0].Node != "gz-01" {
		t.Fatalf("nodes %+v, want gz-01 alone", r.Nodes)
	}
	want, none := build(alone)
	if len(none) != 0 || r.Nodes[0].Uptime != want.Nodes[0].Uptime || r.Contracts[0].Claim != want.Contracts[0].Claim {
		t.Errorf("gz-01's month differs with the skipped node in the log: %+v vs %+v", r.Nodes[0].Uptime, want.Nodes[0].Uptime)
	}
}
