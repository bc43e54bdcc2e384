package scorecard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/events"
)

// Unfinished cases count at the as-of instant: the scenario's
// Alpha with an off-hours ticket never answered, a node never delivered
// and an outage still open at the end of March. As of 5 April 00:00.
func TestUnfinishedCasesCountAsWhatTheyAreSoFar(t *testing.T) {
	l := scenario(t)
	// TA5: Saturday 28 March 22:00, never answered: 7 days 2 h = 10 200
	// min so far. TA6: Sunday 8 March 22:00, answered in 50 min.
	l.add(eventTicket("TA5", "a2", "2026-03-28T22:00:00Z"))
	l.ticket("TA6", "a1", "2026-03-08T22:00:00Z", "2026-03-08T22:50:00Z")
	// a4: ordered 20 March, never delivered: 16 days (384 h) at the
	// as-of instant, 5 April, as an unanswered ticket's wait runs (the
	// month's report stops its books at the month's end, 288 h).
	l.register("a4", "alpha-c", "2026-03-20T00:00:00Z")
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	sc := build(t, l.buf.Bytes(), Options{})
	a := sc.Providers[0].All

	// Off-hours first responses 40, 50 and ≥ 10 200 min. p50: h = 1 →
	// the 50, and the unanswered one sits above it: exact. p90: h = 1.8
	// → 50 + 0.8·(10 200 − 50) = 8170, interpolated towards the
	// unanswered ticket: at least 8170.
	f := a.Support.OffHoursP50Min
	want(t, "off-hours p50", f, 50, 3)
	if f.Bound != "" || f.Censored != 1 {
		t.Errorf("off-hours p50 %+v: the unanswered ticket cannot move it", f)
	}
	f = a.Support.OffHoursP90Min
	want(t, "off-hours p90", f, 8170, 3)
	if f.Bound != AtLeast || f.Censored != 1 {
		t.Errorf("off-hours p90 %+v, want at least", f)
	}
	// Within 1 h: 40 and 50 yes, the unanswered one is past 60 min
	// already: 2 of 3, exact. Left out, the unanswered ticket would make
	// it 2 of 2.
	want(t, "off-hours within 1 h", a.Support.OffHoursWithin1h, 2.0/3, 3)
	if a.Support.OffHoursWithin1h.Bound != "" || a.Support.Unanswered != 1 {
		t.Errorf("within 1 h %+v, unanswered %d", a.Support.OffHoursWithin1h, a.Support.Unanswered)
	}
	// Breaches: TA2, TA4, TA5 (past its 30 min), TA6 (50 > 30) of 6.
	want(t, "breach share", a.Support.BreachShare, 4.0/6, 6)

	// Delivery 0.5, 1, 3 h and ≥ 384 h. p50: h = 1.5 → 1 + 0.5·2 = 2,
	// exact (the pending one is above the 3). p90: h = 2.7 → 3 + 0.7·381
	// = 269.7, at least. Late: a3 and a4 of 4; within 30 min: a1 of 4.
	want(t, "delivery p50", a.Delivery.P50Hours, 2, 4)
	want(t, "delivery p90", a.Delivery.P90Hours, 269.7, 4)
	if a.Delivery.P90Hours.Bound != AtLeast || a.Delivery.P50Hours.Bound != "" || a.Delivery.Pending != 1 || a.Delivery.P90Hours.Machines != 4 {
		t.Errorf("delivery %+v", a.Delivery)
	}
	want(t, "late share", a.Delivery.LateShare, 0.5, 4)
	want(t, "within 30 min", a.Delivery.Within30Min, 0.25, 4)

	// The JSON carries the marks; every document prints "≥".
	var b bytes.Buffer
	if err := JSON(&b, sc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"bound": "at_least"`) || !strings.Contains(b.String(), `"censored": 1`) {
		t.Errorf("JSON lacks the censored marks")
	}
}

// eventTicket opens a P1 ticket and never answers it.
func eventTicket(id, node, opened string) events.Event {
	return events.Event{Type: events.TypeTicketOpened, Ticket: id, Node: node, At: at(opened), Priority: "P1"}
}

// Ranks beyond noise: 0.03 % against 0.05 % billed hours not
// usable is within billing's 0.1 point, a tie; 0.29 % beats both. A
// figure bounded below ties with a better one it could still reach.
func TestRanksTieWithinTheMinimumMeaningfulDifference(t *testing.T) {
	mk := func(v float64, bound string) *Figure {
		f := Figure{Value: &v, N: 5, Machines: 3, MinN: 3, Better: Lower, Bound: bound, MinDiff: minDiff("billing.billed_not_usable_share")}
		return &f
	}
	x, y, z := mk(0.0003, ""), mk(0.0005, ""), mk(0.0029, "")
	rankFigures([]*Figure{z, y, x})
	if x.Rank != 1 || y.Rank != 1 || z.Rank != 3 || x.Ranked != 3 {
		t.Errorf("ranks %d %d %d of %d, want 1 1 3 of 3", x.Rank, y.Rank, z.Rank, x.Ranked)
	}
	// Delivery p90: 2 h against ≥ 1.5 h (a node still pending): the
	// pending one may end up later than 2 h, so neither beats the other;
	// against ≥ 2.5 h, 2 h is better by more than 0.25 h.
	d := minDiff("delivery.p90_hours")
	two, open := 2.0, 1.5
	a := Figure{Value: &two, N: 3, Machines: 3, MinN: 3, Better: Lower, MinDiff: d}
	b := Figure{Value: &open, N: 3, Machines: 3, MinN: 3, Better: Lower, MinDiff: d, Bound: AtLeast}
	rankFigures([]*Figure{&a, &b})
	if a.Rank != 1 || b.Rank != 1 {
		t.Errorf("2 h vs ≥ 1.5 h: ranks %d %d, want a tie", a.Rank, b.Rank)
	}
	later := 2.5
	b.Value = &later
	rankFigures([]*Figure{&a, &b})
	if a.Rank != 1 || b.Rank != 2 {
		t.Errorf("2 h vs ≥ 2.5 h: ranks %d %d, want 1 2", a.Rank, b.Rank)
	}
	if minDiff("support.off_hours_first_response_p90_minutes") != 5 || minDiff("support.off_hours_answered_within_1_h_share") != 0.1 {
		t.Errorf("min diffs by prefix wrong")
	}
}

// One machine watched for three months is three node-months but one
// machine: never ranked, and a provider observed over other months than
// the rest is named in a warning.
func TestOneMachineIsNotRankedAndMonthsAreNamed(t *testing.T) {
	l := newLog(t)
	for _, id := range []string{"a1", "a2", "a3"} {
		l.register(id, "alpha-c", "2026-02-01T00:00:00Z")
		l.run(id, "2026-02-01T00:10:00Z", "2026-05-01T00:00:00Z")
	}
	l.register("b1", "beta-c", "2026-03-01T00:00:00Z")
	l.run("b1", "2026-03-01T00:10:00Z", "2026-05-01T00:00:00Z")
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	sc := build(t, l.buf.Bytes(), Options{From: Month{2026, time.February}, To: Month{2026, time.April}, AsOf: at("2026-05-05T00:00:00Z")})
	a, b := sc.Providers[0].All, sc.Providers[1].All
	// b1: March and April, 2 node-months (less the first 10 minutes) on
	// one machine: n = 2 < 3 and 1 machine < 3.
	f := b.Reliability.ClaimableMinPerNM
	if !f.TooFew || f.Machines != 1 || f.Rank != 0 || b.Exposure.Machines != 1 || b.Exposure.NodeMonthCount != 2 {
		t.Errorf("Beta %+v, exposure %+v", f, b.Exposure)
	}
	if a.Reliability.ClaimableMinPerNM.Rank != 1 || a.Reliability.ClaimableMinPerNM.Ranked != 1 || a.Exposure.Machines != 3 {
		t.Errorf("Alpha %+v", a.Reliability.ClaimableMinPerNM)
	}
	got := strings.Join(sc.Warnings, "\n")
	for _, w := range []string{"providers are compared over different months: Alpha 2026-02 to 2026-04; Beta 2026-03 to 2026-04",
		"Beta: 1 machines in service, fewer than the 3 needed to rank"} {
		if !strings.Contains(got, w) {
			t.Errorf("warnings %q lack %q", got, w)
		}
	}
}

// What a usable GPU-hour cost. The scenario's contracts bill
// 2 per GPU-hour by the hour from the order: each node 744 h × 8 GPUs ×
// 2 = 11 904 USD, 3 × 11 904 = 35 712 for each provider. Alpha's usable
// GPU-hours 8 × (2227.5 − 119/60) = 17 804.133: 2.005825 USD per usable
// GPU-hour; Beta's 8 × 2231.25 = 17 850: 2.000672. A bill line that
// charged b1 12 500 USD replaces its contract charge: 35 712 − 11 904 +
// 12 500 = 36 308 ÷ 17 850 = 2.034062.
func TestPricePerUsableGPUHour(t *testing.T) {
	l := scenario(t)
	sc := build(t, l.buf.Bytes(), Options{})
	a, b := sc.Providers[0].All.Billing, sc.Providers[1].All.Billing
	if len(a.PerUsableGPUHour) != 1 || a.PerUsableGPUHour[0].Currency != "USD" {
		t.Fatalf("Alpha prices %+v", a.PerUsableGPUHour)
	}
	pa, pb := a.PerUsableGPUHour[0], b.PerUsableGPUHour[0]
	if math.Abs(pa.Amount-35712) > 1e-6 || math.Abs(pa.UsableGPUHours-8*(2227.5-119.0/60)) > 1e-6 {
		t.Errorf("Alpha price %+v", pa)
	}
	want(t, "Alpha per usable GPU-hour", pa.PerGPUHour, 35712/(8*(2227.5-119.0/60)), 3)
	want(t, "Beta per usable GPU-hour", pb.PerGPUHour, 35712/(8*2231.25), 3)
	// 0.005 apart: within a cent, a tie.
	wantRank(t, "Alpha price", pa.PerGPUHour, 1, 2)
	wantRank(t, "Beta price", pb.PerGPUHour, 1, 2)
	if b.Converted.Value != nil {
		t.Errorf("converted without rates: %+v", b.Converted)
	}

	sc = build(t, l.buf.Bytes(), Options{Bill: []billing.Line{{Line: 2, Node: "b1", Period: "2026-03", Amount: 12500, HasAmt: true, Currency: "USD"}}})
	pb = sc.Providers[1].All.Billing.PerUsableGPUHour[0]
	if pb.FromBill != 1 || math.Abs(pb.Amount-36308) > 1e-6 {
		t.Errorf("Beta with a bill %+v", pb)
	}
	want(t, "Beta per usable GPU-hour, billed", pb.PerGPUHour, 36308/(8*2231.25), 3)
	wantRank(t, "Beta price, billed", pb.PerGPUHour, 2, 2)

	// With rates in EUR (1 USD = 0.9 EUR): Alpha 35 712 × 0.9 ÷ 17 804.133.
	rates, err := ParseRates("rates.yaml", []byte("base: EUR\nrates:\n  USD: 0.9\n"))
	if err != nil {
		t.Fatal(err)
	}
	sc = build(t, l.buf.Bytes(), Options{Rates: rates})
	c := sc.Providers[0].All.Billing.Converted
	want(t, "Alpha converted", c, 35712*0.9/(8*(2227.5-119.0/60)), 3)
	if c.Unit != "EUR per usable GPU-hour" {
		t.Errorf("unit %q", c.Unit)
	}
}

func TestParseRatesNamesTheProblem(t *testing.T) {
	head := "base: USD\nrates:\n  CNY: 0.14\n"
	full := head + strings.Repeat("#", MaxRatesBytes-len(head)-1) + "\n" // exactly MaxRatesBytes
	big := full + "\n"
	for _, c := range []struct{ in, want string }{
		{"base: usd\nrates:\n  CNY: 0.14\n", `r.yaml:1: base: "usd" is not an ISO 4217 code`},
		{"base: USD\nrates:\n  CNY: -1\n", `r.yaml:3: rates.CNY: "-1" is not a positive number`},
		{"base: USD\nrates:\n  CNY: abc\n", `r.yaml:3: rates.CNY: "abc" is not a positive number`},
		{"base: USD\nrates:\n  Yuan: 0.14\n", `r.yaml:3: rates: "Yuan" is not an ISO 4217 code`},
		{"base: USD\nrates:\n  USD: 2\n", `r.yaml:3: rates.USD: the base currency's rate is 1`},
		{"base: USD\nrate:\n  CNY: 0.14\n", `r.yaml:2: unknown field "rate"`},
		{"base: USD\n", `r.yaml:1: rates: missing`},
		{"rates:\n  CNY: 0.14\n", `r.yaml:1: base: missing`},
		// Absurd rates: just past either bound, and the overflow YAML reads as +Inf.
		{"base: USD\nrates:\n  CNY: 100000001\n", `r.yaml:3: rates.CNY: 100000001 is outside 1e-08 to 1e+08: no two currencies are that far apart (one CNY is worth 100000001 USD)`},
		{"base: USD\nrates:\n  IRR: 0.0000000099\n", `r.yaml:3: rates.IRR: 0.0000000099 is outside 1e-08 to 1e+08`},
		{"base: USD\nrates:\n  CNY: 1e400\n", `r.yaml:3: rates.CNY: "1e400" is not a positive number`},
		{big, fmt.Sprintf("r.yaml: %d bytes; a rates file is at most 65536 bytes", MaxRatesBytes+1)},
	} {
		if _, err := ParseRates("r.yaml", []byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.80q: %v, want %q", c.in, err, c.want)
		}
	}
	r, err := ParseRates("r.yaml", []byte("base: USD\nrates:\n  CNY: 0.1385\n"))
	if err != nil || r.Per["CNY"] != 0.1385 || r.Per["USD"] != 1 {
		t.Errorf("rates %+v %v", r, err)
	}
	// The bounds themselves are rates (the widest real pair, KWD against
	// IRR, is inside them), and a file of exactly MaxRatesBytes is read.
	r, err = ParseRates("r.yaml", []byte("base: IRR\nrates:\n  KWD: 3300000\n  XXX: 100000000\n  YYY: 0.00000001\n"))
	if err != nil || r.Per["KWD"] != 3.3e6 || r.Per["XXX"] != MaxRate || r.Per["YYY"] != MinRate {
		t.Errorf("rates at the bounds %+v %v", r, err)
	}
	if _, err := ParseRates("r.yaml", []byte(full)); len(full) != MaxRatesBytes || err != nil {
		t.Errorf("a file of %d bytes: %v", len(full), err)
	}
}

// The JSON holds every figure at full precision: ranking again from the
// JSON's values, bounds and min_diff gives the same ranks.
func TestRanksReproduceFromTheJSON(t *testing.T) {
	l := scenario(t)
	sc := build(t, l.buf.Bytes(), Options{})
	var buf bytes.Buffer
	if err := JSON(&buf, sc); err != nil {
		t.Fatal(err)
	}
	var back Scorecard
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	var ds []*Dimensions
	for i := range back.Providers {
		d := &back.Providers[i].All
		for _, k := range figures(d) {
			k.f.Rank, k.f.Ranked = 0, 0
		}
		ds = append(ds, d)
	}
	rank(ds)
	for i := range back.Providers {
		got, orig := figures(&back.Providers[i].All), figures(&sc.Providers[i].All)
		for j := range got {
			if got[j].f.Rank != orig[j].f.Rank || got[j].f.Ranked != orig[j].f.Ranked {
				t.Errorf("%s %s: rank %d/%d from the JSON, %d/%d built", back.Providers[i].Provider, got[j].key, got[j].f.Rank, got[j].f.Ranked, orig[j].f.Rank, orig[j].f.Ranked)
			}
		}
	}
}

// Performance against absolute yardsticks: Alpha is the only
// provider renting H200 SXM, and its three nodes all burn FP32 at 52.24
// TFLOP/s — 80 % of the 65.3 a healthy H200 SXM reached (the spec
// database's calibration), 52.24 / 66.9 = 78.09 % of the datasheet.
// Against its own fleet it scores 100 %.
func TestPerformanceAgainstDatasheetAndHealthyCard(t *testing.T) {
	l := newLog(t)
	for _, id := range []string{"a1", "a2", "a3"} {
		l.add(events.Event{Type: events.TypeNodeRegistered, Node: id, Contract: "alpha-c", OrderedAt: at("2026-03-01T00:00:00Z"),
			Hardware: &events.Hardware{GPUModel: "H200 SXM 141GB", GPUCount: 8}})
		l.run(id, "2026-03-01T00:30:00Z", "2026-04-01T00:00:00Z")
		for day := 2; day <= 4; day++ {
			l.checks(id, "2026-03-0"+string(rune('0'+day))+"T03:00:00Z", events.Check{Name: "gpu.burn.fp32", Category: events.CategoryPerformance,
				Verdict: events.Fail, Number: nump(52.24), Unit: "TFLOP/s", GPU: gpu(0)})
		}
	}
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	sc := build(t, l.buf.Bytes(), Options{})
	p := sc.Providers[0].All.Performance
	want(t, "share of fleet", p.ShareOfFleet, 1, 3)
	want(t, "share of healthy", p.ShareOfHealthy, 52.24/65.3, 3)
	want(t, "share of datasheet", p.ShareOfDatasheet, 52.24/66.9, 3)
	if len(p.Figures) != 1 || p.Figures[0].Healthy != 65.3 || p.Figures[0].Datasheet != 66.9 || math.Abs(p.Figures[0].ShareOfHealthy-0.8) > 1e-9 {
		t.Errorf("figures %+v", p.Figures)
	}
}
