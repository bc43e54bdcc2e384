package scorecard

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/golden"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// contractYAML is a contract in UTC with business hours Mon–Fri 09–18, a
// 2 h delivery target and a 15 min / 30 min P1 response target (business
// hours / off-hours, wall clock), billed by the hour from the order.
func contractYAML(id, provider string, p1Business, p1Off string) string {
	return fmt.Sprintf(`contract: %s
provider: %s
currency: USD
timezone: UTC
business_hours:
  monday: "09:00-18:00"
  tuesday: "09:00-18:00"
  wednesday: "09:00-18:00"
  thursday: "09:00-18:00"
  friday: "09:00-18:00"
uptime:
  target: 99.9
  unavailable: [unreachable, gpu_lost]
  minimum_outage: 1m
  tiers:
    - {min: 0, max: 99.9, credit: 10}
  credit_cap: 50
maintenance:
  notice: 72h
detection:
  heartbeat_grace: 2m
  failure_threshold: 3
  success_threshold: 2
support:
  response:
    P1: {business_hours: %s, off_hours: %s, clock: wall}
hardware_replacement:
  within: 4h
  clock: wall
delivery:
  within: 2h
claim:
  within_days: 30
billing:
  price_per_gpu_hour: 2
  granularity: 1h
  starts_at: order
`, id, provider, p1Business, p1Off)
}

func scenarioTerms(t *testing.T) []*terms.Terms {
	t.Helper()
	var all []*terms.Terms
	for _, y := range []string{contractYAML("alpha-c", "Alpha", "15m", "30m"), contractYAML("beta-c", "Beta", "1h", "2h")} {
		ts, err := terms.Parse("inline.yaml", []byte(y))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ts...)
	}
	return all
}

// logW builds an event log line by line.
type logW struct {
	t   *testing.T
	buf bytes.Buffer
	w   *events.Writer
	n   int
}

func newLog(t *testing.T) *logW {
	l := &logW{t: t}
	l.w = events.NewWriter(&l.buf)
	return l
}

func (l *logW) add(e events.Event) {
	l.n++
	if e.ID == "" {
		e.ID = fmt.Sprintf("e%d", l.n)
	}
	if err := l.w.Write(&e); err != nil {
		l.t.Fatal(err)
	}
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func (l *logW) register(node, contract, ordered string) {
	l.add(events.Event{Type: events.TypeNodeRegistered, Node: node, Contract: contract, OrderedAt: at(ordered),
		Hardware: &events.Hardware{GPUModel: "H200 SXM", GPUCount: 8}})
}

// run is minute heartbeats from a to b, as the backend exports them.
func (l *logW) run(node, a, b string) {
	from, to := at(a), at(b)
	n := int64(to.Sub(from)/time.Minute) + 1
	l.add(events.Event{Type: events.TypeHeartbeatRun, Node: node, At: from, LastAt: to, ReceivedAt: from.Add(time.Second),
		LastReceivedAt: to.Add(time.Second), Count: n, HeartbeatIntervalS: 60, MaxGapMS: 60000, MaxDelayMS: 1000})
}

func (l *logW) checks(node, when string, cs ...events.Check) {
	l.add(events.Event{Type: events.TypeObservation, Node: node, At: at(when), ReceivedAt: at(when).Add(time.Second), Kind: events.KindCheck, Checks: cs})
}

func nump(v float64) *float64 { return &v }
func gpu(i int) *int          { return &i }

func pass(name, cat string) events.Check {
	return events.Check{Name: name, Category: cat, Verdict: events.Pass}
}

func (l *logW) ticket(id, node, opened, responded string) {
	l.add(events.Event{Type: events.TypeTicketOpened, Ticket: id, Node: node, At: at(opened), Priority: "P1"})
	l.add(events.Event{Type: events.TypeProviderResponded, Ticket: id, At: at(responded)})
}

// scenario: two providers, three 8-GPU H200 SXM nodes each, March 2026.
func scenario(t *testing.T) *logW {
	l := newLog(t)
	// Alpha: delivered 0.5 h, 1 h and 3 h after the order (target 2 h).
	for _, n := range []struct{ id, first string }{{"a1", "2026-03-01T00:30:00Z"}, {"a2", "2026-03-01T01:00:00Z"}, {"a3", "2026-03-01T03:00:00Z"}} {
		l.register(n.id, "alpha-c", "2026-03-01T00:00:00Z")
		if n.id == "a1" {
			// A 2 h hole in a1's heartbeats on 10 March.
			l.run(n.id, n.first, "2026-03-10T00:00:00Z")
			l.run(n.id, "2026-03-10T02:00:00Z", "2026-04-01T00:00:00Z")
		} else {
			l.run(n.id, n.first, "2026-04-01T00:00:00Z")
		}
		// Acceptance: a2 is not the model that was sold.
		acc := []events.Check{pass("gpu.count", events.CategoryGPULost)}
		if n.id == "a2" {
			acc = append(acc, events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: events.Fail, Value: "H20"})
		} else {
			acc = append(acc, pass("gpu.model", events.CategoryInventory))
		}
		l.checks(n.id, n.first, acc...)
	}
	// Beta: each delivered 15 min after the order.
	for _, id := range []string{"b1", "b2", "b3"} {
		l.register(id, "beta-c", "2026-03-01T00:00:00Z")
		l.run(id, "2026-03-01T00:15:00Z", "2026-04-01T00:00:00Z")
		l.checks(id, "2026-03-01T00:15:00Z", pass("gpu.count", events.CategoryGPULost), pass("gpu.model", events.CategoryInventory))
	}
	// Network: Alpha's nodes measure RTT 1..10 ms (a1, a2, a3 in turn),
	// Beta's 2 ms every time; no loss. Three machines each: enough to rank.
	for i := 1; i <= 10; i++ {
		an, bn := fmt.Sprintf("a%d", 1+(i-1)%3), fmt.Sprintf("b%d", 1+(i-1)%3)
		when := fmt.Sprintf("2026-03-%02dT12:00:00Z", 10+i)
		rtt := func(v float64) events.Check {
			return events.Check{Name: "net.gateway.rtt", Category: events.CategoryNetwork, Verdict: events.Pass, Number: nump(v), Unit: "ms"}
		}
		loss := events.Check{Name: "net.gateway.loss", Category: events.CategoryNetwork, Verdict: events.Pass, Number: nump(0), Unit: "%"}
		l.checks(an, when, rtt(float64(i)), loss, pass("net.gateway.reach", events.CategoryConnectivity))
		l.checks(bn, when, rtt(2), loss, pass("net.gateway.reach", events.CategoryConnectivity))
	}
	// iperf3: Alpha 9000 of 10000 Mbit/s, Beta 5000 (the probe's criterion
	// text), on each provider's three nodes in turn.
	for i := 1; i <= 5; i++ {
		an, bn := fmt.Sprintf("a%d", 1+(i-1)%3), fmt.Sprintf("b%d", 1+(i-1)%3)
		when := fmt.Sprintf("2026-03-%02dT03:30:00Z", 20+i)
		ip := func(v float64) events.Check {
			return events.Check{Name: "net.iperf3.peer", Category: events.CategoryNetwork, Verdict: events.Pass, Number: nump(v), Unit: "Mbit/s", Criterion: "≥ 70 % of 10000 Mbit/s"}
		}
		l.checks(an, when, ip(9000))
		l.checks(bn, when, ip(5000))
	}
	// Stress: GPU 0 of every node, 2–4 March; b3 runs at 50 TFLOP/s, the rest at 60.
	for day := 2; day <= 4; day++ {
		when := fmt.Sprintf("2026-03-%02dT03:00:00Z", day)
		for _, id := range []string{"a1", "a2", "a3", "b1", "b2", "b3"} {
			v := 60.0
			if id == "b3" {
				v = 50
			}
			l.checks(id, when, events.Check{Name: "gpu.burn.fp32", Category: events.CategoryPerformance, Verdict: events.Pass, Number: nump(v), Unit: "TFLOP/s", GPU: gpu(0)})
		}
	}
	// One hardware XID on a2's GPU 3, seen by NVML and in the kernel log at once.
	xid := func(name string) events.Check {
		return events.Check{Name: name, Category: events.CategoryGPUDegraded, Verdict: events.Fail, Number: nump(1), GPU: gpu(3)}
	}
	l.checks("a2", "2026-03-05T08:00:00Z", xid("gpu.xid.events"), xid("gpu.xid.kernel_log"))
	// Tickets. Alpha, business hours: 10, 20, 5 min; off-hours (Saturday 22:00): 40 min.
	l.ticket("TA1", "a1", "2026-03-02T10:00:00Z", "2026-03-02T10:10:00Z")
	l.ticket("TA2", "a3", "2026-03-03T11:00:00Z", "2026-03-03T11:20:00Z") // over 15 min: breached
	l.ticket("TA3", "a2", "2026-03-04T09:30:00Z", "2026-03-04T09:35:00Z")
	l.ticket("TA4", "a3", "2026-03-07T22:00:00Z", "2026-03-07T22:40:00Z") // over 30 min: breached
	// Beta, business hours: 30 min thrice; off-hours: 120, 60, 90 min (all within 2 h).
	l.ticket("TB1", "b1", "2026-03-02T10:00:00Z", "2026-03-02T10:30:00Z")
	l.ticket("TB2", "b3", "2026-03-03T10:00:00Z", "2026-03-03T10:30:00Z")
	l.ticket("TB3", "b2", "2026-03-04T10:00:00Z", "2026-03-04T10:30:00Z")
	l.ticket("TB4", "b2", "2026-03-07T22:00:00Z", "2026-03-08T00:00:00Z")
	l.ticket("TB5", "b3", "2026-03-08T22:00:00Z", "2026-03-08T23:00:00Z")
	l.ticket("TB6", "b1", "2026-03-14T22:00:00Z", "2026-03-14T23:30:00Z")
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	return l
}

var march = Month{2026, time.March}

func build(t *testing.T, log []byte, opts Options) *Scorecard {
	t.Helper()
	if opts.From == (Month{}) {
		opts.From, opts.To = march, march
	}
	if opts.AsOf.IsZero() {
		opts.AsOf = at("2026-04-05T00:00:00Z")
	}
	b, err := NewBuilder(scenarioTerms(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ReadLog("scenario.jsonl", bytes.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	sc, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func want(t *testing.T, what string, f Figure, v float64, n int) {
	t.Helper()
	if f.Value == nil || math.Abs(*f.Value-v) > 1e-4 || f.N != n {
		got := "nil"
		if f.Value != nil {
			got = fmt.Sprint(*f.Value)
		}
		t.Errorf("%s = %s (n=%d), want %g (n=%d)", what, got, f.N, v, n)
	}
}

func wantRank(t *testing.T, what string, f Figure, rank, of int) {
	t.Helper()
	if f.Rank != rank || f.Ranked != of {
		t.Errorf("%s rank %d/%d, want %d/%d (%+v)", what, f.Rank, f.Ranked, rank, of, f)
	}
}

func TestScenarioTwoProviders(t *testing.T) {
	l := scenario(t)
	sc := build(t, l.buf.Bytes(), Options{Bill: []billing.Line{{Line: 2, Node: "b1", Period: "2026-03", Hours: 750, HasHours: true}}})
	if len(sc.Providers) != 2 || sc.Providers[0].Provider != "Alpha" || sc.Providers[1].Provider != "Beta" {
		t.Fatalf("providers = %+v", sc.Providers)
	}
	a, b := sc.Providers[0].All, sc.Providers[1].All

	// Exposure. In service from delivery to 1 April 00:00 (744 h in March):
	// Alpha 743.5 + 743 + 741 = 2227.5 h = 2.993952 node-months, × 8 GPUs
	// = 23.951613 GPU-months; Beta 3 × 743.75 = 2231.25 h = 2.999 node-months.
	if math.Abs(a.Exposure.NodeMonths-2227.5/744) > 1e-4 || math.Abs(a.Exposure.GPUMonths-8*2227.5/744) > 1e-4 || a.Exposure.NodeMonthCount != 3 || a.Exposure.Machines != 3 || len(a.Exposure.Months) != 1 || a.Exposure.Months[0] != "2026-03" {
		t.Errorf("Alpha exposure %+v", a.Exposure)
	}

	// Delivery: Alpha took 0.5, 1, 3 h. p50 = 1; p90: h = 2·0.9 = 1.8 →
	// 1 + 0.8·(3 − 1) = 2.6. Late (over 2 h): 1 of 3.
	want(t, "Alpha delivery p50", a.Delivery.P50Hours, 1, 3)
	want(t, "Alpha delivery p90", a.Delivery.P90Hours, 2.6, 3)
	want(t, "Alpha late share", a.Delivery.LateShare, 1.0/3, 3)
	want(t, "Beta delivery p90", b.Delivery.P90Hours, 0.25, 3)
	// Delivered within 30 min of the order, the same bar for both: Alpha
	// a1 (0.5 h) of three, Beta all three.
	want(t, "Alpha within 30 min", a.Delivery.Within30Min, 1.0/3, 3)
	want(t, "Beta within 30 min", b.Delivery.Within30Min, 1, 3)
	wantRank(t, "Beta within 30 min", b.Delivery.Within30Min, 1, 2)
	wantRank(t, "Beta delivery p90", b.Delivery.P90Hours, 1, 2)
	wantRank(t, "Alpha delivery p90", a.Delivery.P90Hours, 2, 2)

	// Hardware truth: a2's acceptance failed gpu.model (inventory): 1 of 3.
	want(t, "Alpha wrong hardware", a.Delivery.WrongHardware, 1.0/3, 3)
	want(t, "Alpha failing acceptance", a.Hardware.FailShare, 1.0/3, 3)
	if len(a.Hardware.Reasons) != 1 || a.Hardware.Reasons[0].Check != "gpu.model" || a.Hardware.Reasons[0].Nodes != 1 {
		t.Errorf("Alpha reasons %+v", a.Hardware.Reasons)
	}
	want(t, "Beta failing acceptance", b.Hardware.FailShare, 0, 3)

	// Reliability: a1's hole is unreachable from 00:01, when the heartbeat
	// after the 00:00 one was due (confirmed 2 min grace later, backdated),
	// to 02:00 = 119 min, with no data: counted. 119 / 2.993952 node-months
	// = 39.7462 min.
	want(t, "Alpha claimable per node-month", a.Reliability.ClaimableMinPerNM, 119/(2227.5/744), 3)
	want(t, "Beta claimable per node-month", b.Reliability.ClaimableMinPerNM, 0, 3)
	wantRank(t, "Beta claimable", b.Reliability.ClaimableMinPerNM, 1, 2)
	// Unreachable takes the whole node: one incident per 2.993952
	// node-months (= 0.334), not per 23.95 GPU-months.
	unreach := a.Reliability.Incidents[0]
	if unreach.Kind != "unreachable" || unreach.Count != 1 || unreach.Per != "node-month" {
		t.Errorf("Alpha incidents %+v", a.Reliability.Incidents)
	}
	want(t, "Alpha unreachable rate", unreach.Rate, 1/(2227.5/744), 3)
	// MTTR: the 119 min repair, and the gpu_degraded incident the XID
	// opened on 5 March 08:00, still open at the end of March: counted at
	// its 26 days 16 h = 640 h so far. Mean ≥ (1.98333 + 640) / 2 =
	// 320.99 h; two, fewer than MinRepairs: shown, not ranked.
	if f := a.Reliability.MTTRHours; !f.TooFew || f.Rank != 0 || f.N != 2 || f.Censored != 1 || f.Bound != AtLeast || math.Abs(*f.Value-(119.0/60+640)/2) > 1e-4 {
		t.Errorf("Alpha MTTR %+v", f)
	}
	// XID: NVML and the kernel log of GPU 3 at one instant are one report.
	want(t, "Alpha XID rate", a.Reliability.XIDPerGPUMonth, 1/(8*2227.5/744), 3)
	// A hardware XID is a definitive failure: it opens a gpu_degraded
	// incident at its first report (docs/reports.md, per-check incidents),
	// so Alpha has one per 23.951613 GPU-months and ranks second.
	var degraded bool
	for _, inc := range a.Reliability.Incidents {
		if inc.Kind == "gpu_degraded" {
			degraded = true
			want(t, "Alpha gpu_degraded rate", inc.Rate, 1/(8*2227.5/744), 3)
			if inc.Per != "GPU-month" {
				t.Errorf("gpu_degraded per %s, want per GPU-month", inc.Per)
			}
		}
	}
	if !degraded {
		t.Errorf("Alpha incidents %+v: the hardware XID opened no gpu_degraded incident", a.Reliability.Incidents)
	}

	// Network: RTT 1..10 ms: p50 = 5.5; p99: h = 9·0.99 = 8.91 → 9.91.
	want(t, "Alpha RTT p50", a.Network.RTTP50, 5.5, 10)
	want(t, "Alpha RTT p99", a.Network.RTTP99, 9.91, 10)
	want(t, "Beta RTT p99", b.Network.RTTP99, 2, 10)
	// The seed's absolute standard, a ping averaging 2 ms or less: Alpha
	// 1 and 2 of ten, Beta every one.
	want(t, "Alpha RTT within 2 ms", a.Network.RTTWithin, 0.2, 10)
	want(t, "Beta RTT within 2 ms", b.Network.RTTWithin, 1, 10)
	wantRank(t, "Beta RTT within 2 ms", b.Network.RTTWithin, 1, 2)
	wantRank(t, "Beta RTT p99", b.Network.RTTP99, 1, 2)
	// iperf3: 9000 / 10000 = 0.9 against 5000 / 10000 = 0.5.
	want(t, "Alpha iperf3", a.Network.IperfP50, 0.9, 5)
	want(t, "Beta iperf3 below 70 %", b.Network.IperfLow, 1, 5)
	wantRank(t, "Alpha iperf3", a.Network.IperfP50, 1, 2)

	// Support, wall clock. Alpha business hours 5, 10, 20 min: p50 10,
	// p90 h = 1.8 → 10 + 0.8·10 = 18. Off-hours: one ticket, too few.
	want(t, "Alpha business p50", a.Support.BusinessP50Min, 10, 3)
	want(t, "Alpha business p90", a.Support.BusinessP90Min, 18, 3)
	if f := a.Support.OffHoursP90Min; !f.TooFew || f.N != 1 || f.Rank != 0 {
		t.Errorf("Alpha off-hours p90 %+v", f)
	}
	// Beta off-hours 60, 90, 120: p50 90, p90 = 90 + 0.8·30 = 114; the
	// only provider with enough: rank 1 of 1.
	want(t, "Beta off-hours p90", b.Support.OffHoursP90Min, 114, 3)
	wantRank(t, "Beta off-hours p90", b.Support.OffHoursP90Min, 1, 1)
	// Held to the same standard: Beta answered one off-hours ticket of
	// three within 1 h (60 ≤ 60 min), none within 30 min; both answered
	// every business-hours ticket within 30 min (Beta's at 30 exactly).
	want(t, "Beta off-hours within 1 h", b.Support.OffHoursWithin1h, 1.0/3, 3)
	want(t, "Beta off-hours within 30 min", b.Support.OffHoursWithin30, 0, 3)
	want(t, "Alpha business within 30 min", a.Support.BusinessWithin30, 1, 3)
	want(t, "Beta business within 30 min", b.Support.BusinessWithin30, 1, 3)
	// Breaches: Alpha TA2 (20 > 15 min) and TA4 (40 > 30 min): 2 of 4.
	want(t, "Alpha breach share", a.Support.BreachShare, 0.5, 4)
	want(t, "Beta breach share", b.Support.BreachShare, 0, 6)

	// Billing from the order by the hour: 3 × 744 h billed. Alpha usable
	// 2227.5 − 119/60 = 2225.5167 h: (2232 − 2225.5167) / 2232 = 0.0029048;
	// Beta 2231.25 usable: 0.75 / 2232 = 0.000336.
	if a.Billing.BilledHours != 2232 || math.Abs(a.Billing.UsableHours-(2227.5-119.0/60)) > 1e-4 {
		t.Errorf("Alpha billing %+v", a.Billing)
	}
	want(t, "Alpha not usable", a.Billing.NotUsableShare, (4.5+119.0/60)/2232, 3)
	want(t, "Beta not usable", b.Billing.NotUsableShare, 0.75/2232, 3)
	// b1 billed 750 h where the contract gives 744: 6 h over, 1 of 1
	// node-months on the bill: too few to rank.
	if b.Billing.OverBilledHours != 6 || !b.Billing.OverBilled.TooFew || *b.Billing.OverBilled.Value != 1 {
		t.Errorf("Beta over-billing %+v", b.Billing)
	}

	// Performance: per-GPU medians 60 ×5 and 50 (b3). Fleet p10: h = 0.5 →
	// 50 + 0.5·10 = 55, p50 60; threshold min(55, 57) = 55: b3 ran three
	// times at 50, below its siblings.
	if len(sc.Fleet.Findings) != 1 || sc.Fleet.Findings[0].Node != "b3" {
		t.Errorf("findings %+v", sc.Fleet.Findings)
	}
	if b.Performance.BelowFleet != 1 || a.Performance.BelowFleet != 0 {
		t.Errorf("below fleet: Alpha %d, Beta %d", a.Performance.BelowFleet, b.Performance.BelowFleet)
	}
	// Beta shares 1, 1, 50/60: median 1, as Alpha's: a tie, both rank 1.
	want(t, "Beta share of fleet", b.Performance.ShareOfFleet, 1, 3)
	wantRank(t, "Alpha share of fleet", a.Performance.ShareOfFleet, 1, 2)
	wantRank(t, "Beta share of fleet", b.Performance.ShareOfFleet, 1, 2)
	// Against the spec database's H200 SXM: a healthy card burns FP32 at
	// 65.3 TFLOP/s, the datasheet says 66.9. Alpha's GPUs 60 / 65.3 =
	// 91.88 % of a healthy card, 89.69 % of the datasheet; Beta's median
	// of 60, 60, 50 the same: a tie.
	want(t, "Alpha share of healthy", a.Performance.ShareOfHealthy, 60/65.3, 3)
	want(t, "Beta share of healthy", b.Performance.ShareOfHealthy, 60/65.3, 3)
	want(t, "Alpha share of datasheet", a.Performance.ShareOfDatasheet, 60/66.9, 3)
	wantRank(t, "Beta share of healthy", b.Performance.ShareOfHealthy, 1, 2)

	// The comparison table holds the same figures.
	if len(sc.Table.Rows) != 2 || len(sc.Table.Rows[0].Cells) != len(sc.Table.Columns) || math.Abs(*sc.Table.Rows[0].Cells[0].Value-2.6) > 1e-9 {
		t.Errorf("table %+v", sc.Table)
	}
	// Per model: both rent H200 only, so the model cards equal the totals.
	if len(sc.Providers[0].Models) != 1 || math.Abs(*sc.Providers[0].Models[0].Card.Delivery.P90Hours.Value-2.6) > 1e-9 || sc.Providers[0].Models[0].Card.Delivery.P90Hours.Rank != 2 {
		t.Errorf("Alpha models %+v", sc.Providers[0].Models)
	}
}

// The scorecard's outage figures are the report's: build the report of
// the same log and compare node by node.
func TestClaimableOutageAgreesWithTheReport(t *testing.T) {
	l := scenario(t)
	rb, err := report.NewBuilder(scenarioTerms(t), report.Options{Year: 2026, Month: time.March, AsOf: at("2026-04-05T00:00:00Z")})
	if err != nil {
		t.Fatal(err)
	}
	if err := rb.ReadLog("scenario.jsonl", bytes.NewReader(l.buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	rep, err := rb.Build()
	if err != nil {
		t.Fatal(err)
	}
	var claim int64
	for _, n := range rep.Nodes {
		if n.Provider == "Alpha" {
			claim += n.Uptime.ClaimableOutageSeconds
		}
	}
	sc := build(t, l.buf.Bytes(), Options{})
	a := sc.Providers[0].All
	if got := *a.Reliability.ClaimableMinPerNM.Value * a.Exposure.NodeMonths; math.Abs(got-float64(claim)/60) > 1e-2 {
		t.Errorf("scorecard %g claimable minutes, report %g", got, float64(claim)/60)
	}
}

// Reading the log twice (a re-export concatenated) changes nothing.
func TestDuplicatedLogGivesTheSameScorecard(t *testing.T) {
	l := scenario(t)
	once := build(t, l.buf.Bytes(), Options{})
	twice := build(t, append(append([]byte{}, l.buf.Bytes()...), l.buf.Bytes()...), Options{})
	var x, y bytes.Buffer
	once.Events, twice.Events = 0, 0
	if err := JSON(&x, once); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&y, twice); err != nil {
		t.Fatal(err)
	}
	if x.String() != y.String() {
		t.Errorf("a duplicated log changed the scorecard")
	}
}

// Two months: an incident spanning the boundary counts once, exposure
// adds up, and a provider seen in one month only keeps its too-few marks.
func TestTwoMonthsCountAnIncidentOnce(t *testing.T) {
	l := newLog(t)
	for _, id := range []string{"a1", "a2", "a3"} {
		l.register(id, "alpha-c", "2026-02-01T00:00:00Z")
		l.checks(id, "2026-02-01T00:10:00Z", pass("gpu.model", events.CategoryInventory))
		if id == "a1" {
			// Down from 31 March 23:00 to 1 April 01:00.
			l.run(id, "2026-02-01T00:10:00Z", "2026-03-31T23:00:00Z")
			l.run(id, "2026-04-01T01:00:00Z", "2026-05-01T00:00:00Z")
			continue
		}
		l.run(id, "2026-02-01T00:10:00Z", "2026-05-01T00:00:00Z")
	}
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	sc := build(t, l.buf.Bytes(), Options{From: march, To: Month{2026, time.April}, AsOf: at("2026-05-05T00:00:00Z")})
	a := sc.Providers[0].All
	// March 744 h + April 720 h per node: 2 node-months each, 6 in all.
	if a.Exposure.NodeMonthCount != 6 || math.Abs(a.Exposure.NodeMonths-6) > 1e-9 || len(a.Exposure.Months) != 2 {
		t.Errorf("exposure %+v", a.Exposure)
	}
	if a.Reliability.Incidents[0].Count != 1 || a.Reliability.MTTRHours.N != 1 || math.Abs(*a.Reliability.MTTRHours.Value-(2-1.0/60)) > 1e-4 {
		t.Errorf("incidents %+v, MTTR %+v", a.Reliability.Incidents[0], a.Reliability.MTTRHours)
	}
	// Claimable: 59 min in March (23:01–24:00) + 60 in April = 119 min over 6 node-months.
	want(t, "claimable", a.Reliability.ClaimableMinPerNM, 119.0/6, 6)
	// Ordered in February, before the window: no delivery figures; the
	// acceptance results are February's too.
	if a.Delivery.P50Hours.N != 0 || a.Hardware.FailShare.N != 0 || !a.Delivery.P50Hours.TooFew {
		t.Errorf("delivery %+v, hardware %+v", a.Delivery, a.Hardware)
	}
}

func TestBadInputIsNamed(t *testing.T) {
	if _, err := NewBuilder(scenarioTerms(t), Options{From: march, To: Month{2026, time.February}, AsOf: at("2026-04-01T00:00:00Z")}); err == nil || !strings.Contains(err.Error(), "--to 2026-02 is before --from 2026-03") {
		t.Errorf("reversed months: %v", err)
	}
	if _, err := NewBuilder(scenarioTerms(t), Options{From: march, To: march, AsOf: at("2026-04-01T00:00:00Z"),
		Bill: []billing.Line{{Line: 7, Node: "a1", Period: "2026-05"}}}); err == nil || !strings.Contains(err.Error(), "bill line 7: field period") {
		t.Errorf("bill outside the months: %v", err)
	}
	if _, err := NewBuilder(scenarioTerms(t), Options{From: Month{2020, 1}, To: Month{2026, 1}, AsOf: at("2026-04-01T00:00:00Z")}); err == nil || !strings.Contains(err.Error(), "more than 36 months") {
		t.Errorf("too many months: %v", err)
	}
	b, err := NewBuilder(scenarioTerms(t), Options{From: march, To: march, AsOf: at("2026-04-01T00:00:00Z")})
	if err != nil {
		t.Fatal(err)
	}
	log := `{"type":"node_registered","id":"r1","node":"a1","contract":"alpha-c","ordered_at":"2026-03-01T00:00:00Z","hardware":{"gpu_model":"H200","gpu_count":8}}
{"type":"observation","id":"o1","node":"a1","at":"2026-03-01T00:00:00Z","kind":"check"}
`
	if err := b.ReadLog("bad.jsonl", strings.NewReader(log)); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2: received_at: missing") {
		t.Errorf("bad line: %v", err)
	}
	if _, err := ParseMonth("2026-13"); err == nil || !strings.Contains(err.Error(), `"2026-13" is not a month`) {
		t.Errorf("ParseMonth: %v", err)
	}
}

// Each month's report inside the scorecard (fed check results only near
// its month) is the report built alone from the whole log.
func TestMonthReportsEqualStandaloneReports(t *testing.T) {
	l := scenario(t)
	// A GPU lost across the March/April boundary, and a connectivity
	// failure in the lookback of April.
	for _, when := range []string{"2026-03-31T23:40:00Z", "2026-03-31T23:50:00Z", "2026-04-01T00:10:00Z", "2026-04-01T00:20:00Z", "2026-04-01T00:30:00Z"} {
		l.checks("b2", when, events.Check{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: events.Fail},
			events.Check{Name: "net.gateway.reach", Category: events.CategoryConnectivity, Verdict: events.Fail})
	}
	l.checks("b2", "2026-04-03T00:30:00Z", pass("gpu.count", events.CategoryGPULost))
	l.checks("b2", "2026-04-03T00:40:00Z", pass("gpu.count", events.CategoryGPULost))
	// Stress results in February, late March (April's lookback) and April,
	// with a1 slow from 30 March: every month's fleet is computed from the
	// scorecard's one shared collector, over that month's own window.
	for _, when := range []string{"2026-02-20T03:00:00Z", "2026-03-29T03:00:00Z", "2026-03-30T03:00:00Z", "2026-03-31T03:00:00Z",
		"2026-04-01T03:00:00Z", "2026-04-02T03:00:00Z", "2026-04-20T03:00:00Z"} {
		for i, id := range []string{"a1", "a2", "a3", "b1", "b2", "b3"} {
			v := 60 + float64(i)
			if id == "a1" && when >= "2026-03-30" {
				v = 40
			}
			l.checks(id, when, events.Check{Name: "gpu.bw.h2d", Category: events.CategoryPerformance, Verdict: events.Pass, Number: nump(v), Unit: "GB/s", GPU: gpu(0)})
		}
	}
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	asOf := at("2026-05-05T00:00:00Z")
	b, err := NewBuilder(scenarioTerms(t), Options{From: Month{2026, time.February}, To: Month{2026, time.April}, AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ReadLog("s.jsonl", bytes.NewReader(l.buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	for i, m := range b.months {
		alone, err := report.NewBuilder(scenarioTerms(t), report.Options{Year: m.Year, Month: m.Month, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if err := alone.ReadLog("s.jsonl", bytes.NewReader(l.buf.Bytes())); err != nil {
			t.Fatal(err)
		}
		want, err := alone.Build()
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.reports[i].Build()
		if err != nil {
			t.Fatal(err)
		}
		got.Input, want.Input = report.Input{}, report.Input{}
		var x, y bytes.Buffer
		if err := report.JSON(&x, got); err != nil {
			t.Fatal(err)
		}
		if err := report.JSON(&y, want); err != nil {
			t.Fatal(err)
		}
		if x.String() != y.String() {
			t.Errorf("%s: the scorecard's report differs from the report alone", m)
		}
		if m.Month == time.April && !strings.Contains(x.String(), `"kind": "gpu_lost"`) {
			t.Errorf("April's report lacks the GPU lost across the boundary")
		}
		// a1's copies at 40 GB/s from 30 March, judged against the other
		// nodes' medians 61…65: p10 h = 0.4 → 61.4, p50 63, threshold
		// min(61.4, 59.85) = 59.85; slow in March (3 runs by 1 April 03:00,
		// inside March's window) and April, not in February.
		slow := false
		if got.Fleet != nil {
			for _, f := range got.Fleet.Findings {
				slow = slow || (f.Node == "a1" && f.Figure == "gpu.bw.h2d" && math.Abs(f.Dist.Threshold-59.85) < 1e-9 && f.Start.Equal(at("2026-03-30T03:00:00Z")))
			}
		}
		if slow != (m.Month != time.February) {
			t.Errorf("%s: a1 slower than its siblings = %v", m, slow)
		}
	}
}

// The scenario as files (docs/scorecard.md renders them with `gpusla
// scorecard`): its terms and its log, golden (functions/document keeps the
// Markdown scorecard built from them).
func TestScenarioFilesGolden(t *testing.T) {
	terms := contractYAML("alpha-c", "Alpha", "15m", "30m") + "---\n" + contractYAML("beta-c", "Beta", "1h", "2h")
	golden.Check(t, "two-providers-terms.yaml", []byte(terms))
	l := scenario(t)
	golden.Check(t, "two-providers.jsonl", l.buf.Bytes())
}

// A node under a contract no terms define is left out of the scorecard,
// as the month's report leaves it out, and named; the others are scored.
func TestNodeOfAnUnknownContractIsLeftOutAndNamed(t *testing.T) {
	l := scenario(t)
	l.register("x1", "no-such-contract", "2026-03-01T00:00:00Z")
	l.run("x1", "2026-03-01T00:15:00Z", "2026-04-01T00:00:00Z")
	l.checks("x1", "2026-03-02T03:00:00Z", events.Check{Name: "gpu.burn.fp32", Category: events.CategoryPerformance, Verdict: events.Pass, Number: nump(10), Unit: "TFLOP/s", GPU: gpu(0)})
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	b, err := NewBuilder(scenarioTerms(t), Options{From: Month{2026, time.March}, To: Month{2026, time.March}, AsOf: at("2026-04-05T00:00:00Z")})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ReadLog("s.jsonl", bytes.NewReader(l.buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	sk := b.Skipped()
	if len(sk) != 1 || sk[0].Node != "x1" || sk[0].Contract != "no-such-contract" {
		t.Errorf("skipped = %+v", sk)
	}
	sc, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	nodes := 0
	for _, p := range sc.Providers {
		nodes += p.Nodes
	}
	if nodes != 6 || len(sc.Fleet.Dists) != 1 || sc.Fleet.Dists[0].Nodes != 6 {
		t.Errorf("%d nodes scored, fleet %+v", nodes, sc.Fleet.Dists)
	}
}
