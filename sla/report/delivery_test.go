package report

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report/reporttest"
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

// health adds one health-job observation of a 2-GPU node registered as
// H200s: the card checks of gpuprobe check, gpu.order.model passing (an
// H200) or not (an H100).
func health(l *log, node string, at time.Time, orderVerdict string) {
	name := "NVIDIA H200"
	if orderVerdict == "fail" {
		name = "NVIDIA H100 80GB HBM3"
	}
	var cs []events.Check
	for g := 0; g < 2; g++ {
		gi := g
		cs = append(cs,
			events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: "pass", GPU: &gi, Value: name},
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
	eq(t, "judged at", n.Delivery.JudgedAt, "2026-04-01T00:00:00+08:00")
	var late *Penalty
	for i, p := range n.Credit.Penalties {
		if p.Kind == "late_delivery" && p.Percent == 20 {
			late = &n.Credit.Penalties[i]
		}
	}
	if late == nil {
		t.Fatalf("no 20 %% late_delivery penalty in %+v", n.Credit.Penalties)
	}
	// Never "delivered … after the order": it was not delivered.
	eq(t, "reason", late.Reason, "not delivered as of 2026-04-01T00:00:00+08:00, 709h30m0s late so far (target 30m0s)")
	// A node never delivered has no uptime: the JSON gives no figure at all
	// (never claimable_percent: 100, which would say it ran), says why, and
	// does not count it below the target.
	r := run(t, sc, cnTerms(t, "acceptance_passed"), false)
	var buf strings.Builder
	if err := JSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	js := buf.String()
	for _, absent := range []string{`"claimable_percent"`, `"observed_percent"`} {
		if strings.Contains(js, absent) {
			t.Errorf("an undelivered node's JSON holds %s", absent)
		}
	}
	if !strings.Contains(js, `"not_judged": "not_in_service"`) || n.Uptime.Met || r.Contracts[0].NodesBelow != 0 {
		t.Errorf("not judged: %+v, nodes below %d", n.Uptime, r.Contracts[0].NodesBelow)
	}
	// Late delivery earns 20 %: a request, and a breach.
	eq(t, "breach", n.Breach, true)
	eq(t, "letter", r.Contracts[0].Letter, LetterRequest)
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
	// The report itself names it: a partial report never reads as whole.
	if len(r.LeftOut) != 1 || r.LeftOut[0].Node != "gz-09" || r.LeftOut[0].Reason != skipped[0].Reason {
		t.Fatalf("left_out %+v", r.LeftOut)
	}
	want, none := build(alone)
	if want.LeftOut == nil || len(want.LeftOut) != 0 {
		t.Errorf("a whole report's left_out is %#v, want []", want.LeftOut)
	}
	if len(none) != 0 || !reflect.DeepEqual(r.Nodes[0].Uptime, want.Nodes[0].Uptime) || r.Contracts[0].Claim != want.Contracts[0].Claim {
		t.Errorf("gz-01's month differs with the skipped node in the log: %+v vs %+v", r.Nodes[0].Uptime, want.Nodes[0].Uptime)
	}
}

// Every event-file error reads "path:N: field: problem" — a
// malformed line, a field that fails validation, a line the reader cannot
// take, and an event that contradicts an earlier one alike.
func TestEventFileErrorsOneForm(t *testing.T) {
	reg := `{"type":"node_registered","id":"r1","node":"gz-01","contract":"cn-example","ordered_at":"2026-03-01T01:00:00Z","hardware":{"gpu_model":"H200","gpu_count":8}}` + "\n"
	cases := []struct{ name, log, want string }{
		{"missing field", reg + `{"type":"observation","id":"o1","at":"2026-03-01T01:20:00Z","received_at":"2026-03-01T01:20:01Z","kind":"heartbeat"}` + "\n",
			"march.jsonl:2: node: "},
		{"registered again", reg + "\n" + strings.Replace(strings.Replace(reg, "cn-example", "us-example", 1), `"r1"`, `"r2"`, 1),
			`march.jsonl:3: contract: node gz-01 registered again under contract "us-example" (was "cn-example"; event r2)`},
		{"line too long", reg + `{"type":"observation","id":"` + strings.Repeat("x", events.MaxLineBytes) + `"}` + "\n",
			"march.jsonl:2: line longer than"},
	}
	for _, c := range cases {
		b, err := NewBuilder(loadTerms(t), Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		err = b.ReadLog("march.jsonl", strings.NewReader(c.log))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "line 2:") {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	// The Reader (the bundle's verifier, tools) names the log the same way.
	var e events.Event
	err := events.NewReader("observations.jsonl", strings.NewReader(`{"type":"observation","id":"o1"}`+"\n")).Next(&e)
	if err == nil || !strings.HasPrefix(err.Error(), "observations.jsonl:1: ") {
		t.Errorf("Reader: got %v, want observations.jsonl:1: …", err)
	}
}

// An overdue unanswered ticket earns the late-response
// penalty as a late answer does. cn-example: a P1 opened on a workday at
// 10:00 is due a first response in 15 min; the penalty is per ticket. One
// ticket is answered 2 h late, the other never: both earn it, the second
// with its own reason.
func TestUnansweredTicketEarnsLateResponsePenalty(t *testing.T) {
	tm := loadTerms(t)
	var cn *terms.Terms
	for _, x := range tm {
		if x.Contract == "cn-example" {
			cn = x
		}
	}
	if cn.Support.LateResponsePenalty <= 0 {
		t.Fatal("cn-example has no late_response_penalty; this test needs one")
	}
	sc := scenario{name: "unanswered", month: time.March, asOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC), build: func(l *log) {
		l.Register("gz-01", "cn-example", local(shanghai, "2026-03-01 08:00"), 8)
		l.Heartbeats("gz-01", local(shanghai, "2026-03-01 09:00"), local(shanghai, "2026-03-03 12:00"))
		for _, id := range []string{"T-late", "T-never"} {
			l.Ticket(events.TypeTicketOpened, id, local(shanghai, "2026-03-03 10:00"), func(e *events.Event) { e.Node, e.Priority = "gz-01", "P1" })
		}
		l.Ticket(events.TypeProviderResponded, "T-late", local(shanghai, "2026-03-03 12:15"), nil)
	}}
	n := node(t, run(t, sc, tm, false), "gz-01")
	got := map[string]Penalty{}
	for _, p := range n.Credit.Penalties {
		if p.Kind == "late_response" {
			got[p.Ref] = p
		}
	}
	if p := got["T-late"]; p.Percent != cn.Support.LateResponsePenalty || p.Reason != "first response 2h0m0s late (target 15m0s)" {
		t.Errorf("answered late: %+v", p)
	}
	if p := got["T-never"]; p.Percent != cn.Support.LateResponsePenalty || !strings.HasPrefix(p.Reason, "no first response, ") {
		t.Errorf("never answered: %+v (penalties %+v)", p, n.Credit.Penalties)
	}
}

// The tier is chosen from the exact uptime, never from the
// rounded figure the report shows. March in Shanghai is 2 678 400 s; an
// outage of 2 679 s leaves (2 678 400 − 2 679) / 2 678 400 = 99.89998… %,
// which the report shows rounded to 4 decimals as 99.9 — yet it is below
// cn-example's 99.9 % target and in its [99, 99.9) tier. 2 678 s leaves
// 99.90001… %: the target is met and no tier applies.
func TestTierFromExactUptime(t *testing.T) {
	var cn *terms.Terms
	for _, x := range loadTerms(t) {
		if x.Contract == "cn-example" {
			cn = x
		}
	}
	month := 2678400 * time.Second
	below := account.Uptime(month, 0, 2679*time.Second)
	if round4(below) != 99.9 || below >= 99.9 {
		t.Fatalf("uptime %v (shown %v): the case needs a figure just under 99.9 that rounds to it", below, round4(below))
	}
	c := account.CreditFor(cn, below, 1000, nil, 0)
	if c.Tier == nil || c.Tier.Min != 99 || c.Tier.Max != 99.9 || c.TierPercent != 10 {
		t.Errorf("exact %v %% (shown %v): tier %+v, want [99, 99.9) at 10 %%", below, round4(below), c.Tier)
	}
	above := account.Uptime(month, 0, 2678*time.Second)
	if c := account.CreditFor(cn, above, 1000, nil, 0); c.Tier != nil || above < cn.Uptime.Target {
		t.Errorf("exact %v %%: tier %+v, want none (target met)", above, c.Tier)
	}
}

// A node whose period ended before the month (released
// before it, or at its first instant) has no part in the month and is not
// listed; one released inside the month is listed, in service up to its
// release (released: true). From the event log side: node_released.
func TestReleasedBeforeMonthNotListed(t *testing.T) {
	sc := scenario{name: "released", month: time.March, asOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC), build: func(l *log) {
		for _, c := range []struct{ node, released string }{{"gz-feb", "2026-02-20 12:00"}, {"gz-edge", "2026-03-01 00:00"}, {"gz-mar", "2026-03-10 12:00"}} {
			l.Register(c.node, "cn-example", local(shanghai, "2026-02-01 08:00"), 8)
			l.Heartbeats(c.node, local(shanghai, "2026-02-01 09:00"), local(shanghai, "2026-02-01 10:00"))
			l.Add(events.Event{Type: events.TypeNodeReleased, Node: c.node, At: local(shanghai, c.released)})
		}
	}}
	r := run(t, sc, loadTerms(t), true)
	if len(r.Nodes) != 1 || r.Nodes[0].Node != "gz-mar" {
		t.Fatalf("nodes %+v, want gz-mar alone", r.Nodes)
	}
	eq(t, "released", r.Nodes[0].Period.Released, true)
	eq(t, "period end", r.Nodes[0].Period.End, "2026-03-10T12:00:00+08:00")
}

// claim.within_days counts calendar days in the contract's
// zone after the month's end. cn-example (30 days, Shanghai): the March
// claim may be filed through 30 April; the deadline, exclusive, is 1 May
// 00:00 +08:00. us-style zones count days, not 24-hour spans: New York's
// March ends at 1 April 00:00 EDT, and 30 days later is 1 May 00:00 EDT.
func TestClaimWindowCalendarDays(t *testing.T) {
	var cn *terms.Terms
	for _, x := range loadTerms(t) {
		if x.Contract == "cn-example" {
			cn = x
		}
	}
	r := run(t, scenario{name: "claim", month: time.March, asOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC), build: func(l *log) {
		l.Register("gz-01", "cn-example", local(shanghai, "2026-03-01 08:00"), 8)
		l.Heartbeats("gz-01", local(shanghai, "2026-03-01 09:00"), local(shanghai, "2026-03-01 10:00"))
	}}, loadTerms(t), false)
	eq(t, "claim deadline", node(t, r, "gz-01").ClaimDeadline, "2026-05-01T00:00:00+08:00")
	_, me := calendar.MonthBounds(2026, time.March, newYork)
	if got := cn.Claim.Deadline(me, newYork); !got.Equal(time.Date(2026, 5, 1, 0, 0, 0, 0, newYork)) {
		t.Errorf("30 days after March in New York: %v, want 2026-05-01 00:00 EDT", got)
	}
	_, feb := calendar.MonthBounds(2026, time.February, newYork) // 1 March; DST begins 8 March
	if got := cn.Claim.Deadline(feb, newYork); !got.Equal(time.Date(2026, 3, 31, 0, 0, 0, 0, newYork)) || got.Sub(feb) == 30*24*time.Hour {
		t.Errorf("30 days after February across the DST change: %v (%s), want 2026-03-31 00:00 EDT, 30 calendar days (719 h)", got, got.Sub(feb))
	}
}

// reportedCards adds one health-job observation of the card from a probe
// told no order.
func reportedCards(l *log, node string, at time.Time, c reporttest.Card) {
	l.Add(events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s/health/%d", node, at.Unix()), Node: node, At: at,
		ReceivedAt: at.Add(time.Second), Kind: events.KindCheck, Checks: c.Checks()})
}

// The monthly report holds acceptance to the registration as the live
// service does, whatever the probe was told and wherever the registration
// falls in the log. A node of 8 GPUs of 80 GB (81,920 MiB) ordered
// 2026-03-02 10:00 (Shanghai) under cn-example with counts_until:
// acceptance_passed (within 30 min; 5 % per started hour late, at most
// 20 %; 18.50 CNY per GPU-hour from the order, whole hours) heartbeats from
// 10:20; its probe, given no order, reports its cards at 10:25 and 11:25
// and, after the cards are replaced, at 12:05 and 12:10 (reporttest's
// Handovers). Worked by hand:
//
//   - cards as registered from the start: delivered 10:25, 1,500 s after
//     the order, met, no penalty;
//   - a genuine H800 registered as an H100, 4 GPUs of 8, or 40 GB A100s for
//     an 80 GB A100 order, replaced at 12:05: delivered 12:05, 7,500 s
//     after the order, 5,700 s late; two started hours, 10 %. The month is
//     billed from the order: 2026-03-02 10:00 to 04-01 00:00 is 710 h, × 8
//     GPUs × 18.50 = 105,080.00 CNY, so the penalty is 10,508.00 CNY (no
//     outage: the whole credit).
func TestDeliveryHeldToTheRegistration(t *testing.T) {
	ordered := local(shanghai, "2026-03-02 10:00")
	for _, h := range reporttest.Handovers() {
		delivered, seconds, late, percent := "2026-03-02T12:05:00+08:00", int64(7500), int64(5700), 10.0
		if h.First == h.Right {
			delivered, seconds, late, percent = "2026-03-02T10:25:00+08:00", 1500, 0, 0
		}
		for _, regLast := range []bool{false, true} {
			build := func(l *log) {
				register := func() {
					l.Add(events.Event{Type: events.TypeNodeRegistered, Node: "gz-11", Contract: "cn-example", OrderedAt: ordered,
						Hardware: &events.Hardware{GPUModel: h.Model, GPUCount: h.GPUs, GPUMemoryMiB: h.MiB}})
				}
				if !regLast {
					register()
				}
				l.Heartbeats("gz-11", local(shanghai, "2026-03-02 10:20"), local(shanghai, "2026-04-01 00:00"))
				reportedCards(l, "gz-11", local(shanghai, "2026-03-02 10:25"), h.First)
				reportedCards(l, "gz-11", local(shanghai, "2026-03-02 11:25"), h.First)
				reportedCards(l, "gz-11", local(shanghai, "2026-03-02 12:05"), h.Right)
				reportedCards(l, "gz-11", local(shanghai, "2026-03-02 12:10"), h.Right)
				if regLast {
					register()
				}
			}
			sc := scenario{name: "held", month: time.March, asOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC), build: build}
			n := node(t, run(t, sc, cnTerms(t, "acceptance_passed"), true), "gz-11")
			what := fmt.Sprintf("%s (registration last: %v)", h.Name, regLast)
			eq(t, what+": delivered", n.Delivery.DeliveredAt, delivered)
			eq(t, what+": seconds", n.Delivery.Seconds, seconds)
			eq(t, what+": late", n.Delivery.LateSeconds, late)
			eq(t, what+": period start", n.Period.Start, delivered)
			eq(t, what+": charge", n.Billing.Charge, 105080.0)
			var pct float64
			for _, p := range n.Credit.Penalties {
				if p.Kind == "late_delivery" {
					pct += p.Percent
				}
			}
			eq(t, what+": late_delivery percent", pct, percent)
			eq(t, what+": credit", n.Credit.Amount, 105080.0*percent/100)
		}
	}
}
