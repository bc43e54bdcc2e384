package scorecard

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/trial"
)

// Order to delivery, finished, at each of its lines (whole seconds, as the
// report counts them): 1799 s and 1800 s are within 30 min (pass, "30");
// 1801 s is 30.0167 min, past it — printed 30.02, never a passing-looking
// "30"; 86 400 s is 1440 min, a day (warn); 86 401 s is over it (fail,
// 1440.02).
func TestTrialDeliveryLines(t *testing.T) {
	for _, c := range []struct {
		secs           int64
		verdict, shown string
	}{
		{1799, trial.Pass, "30"},
		{1800, trial.Pass, "30"},
		{1801, trial.Warn, "30.02"},
		{86400, trial.Warn, "1440"},
		{86401, trial.Fail, "1440.02"},
	} {
		f := &nodeFacts{id: "n", delivery: &report.Delivery{OrderedAt: "2026-03-01T00:00:00Z", DeliveredAt: "2026-03-01T00:30:00Z", Seconds: c.secs}}
		x := trialDelivery(f)
		x.Finish()
		if x.Verdict != c.verdict || printed(x) != c.shown || x.AtLeast {
			t.Errorf("%d s: %s %s (at least %v), want %s %s", c.secs, x.Verdict, printed(x), x.AtLeast, c.verdict, c.shown)
		}
		if (x.Verdict == trial.Pass) != (x.Ask == "") {
			t.Errorf("%d s: %s, ask %q", c.secs, x.Verdict, x.Ask)
		}
	}
}

// The 22:00 ticket ("选在晚上10点后提交一个测试工单,记录首次响应时间"):
// opened from 22:00 to 06:00 in the contract's zone (the report writes
// opened_at there: +08:00 for Shanghai), each such, first answered
// within 30 min (pass), 1 h (warn), later fails. 21:59:59 and 06:00:00 are
// not at night; 22:00:00 and 05:59:59 are. The worst night ticket is shown. 30 min 1 s prints 30.02 beside
// its warning, 60 min 1 s 60.02 beside its failure. One unanswered counts
// to the as-of instant: 20 min undecided, 45 min at best a warning, 61
// min failed.
func TestTrialNightTicketLines(t *testing.T) {
	met := func(opened, answered string) report.Ticket {
		return report.Ticket{Ticket: opened, OpenedAt: opened, Response: &report.Target{At: answered, Status: "met"}}
	}
	open := func(opened string) report.Ticket {
		return report.Ticket{Ticket: opened, OpenedAt: opened, Response: &report.Target{Status: "pending"}}
	}
	asOf := time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		what           string
		tickets        []report.Ticket
		asOf           time.Time
		verdict, shown string
	}{
		{"21:59:59 is not night", []report.Ticket{met("2026-03-07T21:59:59+08:00", "2026-03-07T22:04:59+08:00")}, asOf, trial.NotMeasured, "–"},
		{"06:00:00 is not night", []report.Ticket{met("2026-03-08T06:00:00+08:00", "2026-03-08T06:05:00+08:00")}, asOf, trial.NotMeasured, "–"},
		{"22:00:00, 30 min", []report.Ticket{met("2026-03-07T22:00:00+08:00", "2026-03-07T22:30:00+08:00")}, asOf, trial.Pass, "30"},
		{"05:59:59, 30 min 1 s", []report.Ticket{met("2026-03-08T05:59:59+08:00", "2026-03-08T06:30:00+08:00")}, asOf, trial.Warn, "30.02"},
		{"60 min", []report.Ticket{met("2026-03-07T23:00:00+08:00", "2026-03-08T00:00:00+08:00")}, asOf, trial.Warn, "60"},
		{"60 min 1 s", []report.Ticket{met("2026-03-07T23:00:00+08:00", "2026-03-08T00:00:01+08:00")}, asOf, trial.Fail, "60.02"},
		// Every night ticket is judged and the worst shown: one answered
		// in 5 min does not hide another answered after 2 h, nor one
		// still open past 30 min (at best a warning).
		{"the slowest night ticket", []report.Ticket{met("2026-03-07T23:00:00+08:00", "2026-03-08T01:00:00+08:00"), met("2026-03-07T22:10:00+08:00", "2026-03-07T22:15:00+08:00")},
			asOf, trial.Fail, "120"},
		{"two answered in time", []report.Ticket{met("2026-03-07T23:00:00+08:00", "2026-03-07T23:20:00+08:00"), met("2026-03-07T22:10:00+08:00", "2026-03-07T22:15:00+08:00")},
			asOf, trial.Pass, "20"},
		{"one answered, one open 20 min", []report.Ticket{met("2026-03-07T22:10:00+08:00", "2026-03-07T22:15:00+08:00"), open("2026-03-07T22:40:00+08:00")},
			time.Date(2026, 3, 7, 15, 0, 0, 0, time.UTC), trial.NotMeasured, "20"},
		{"one answered, one open 45 min", []report.Ticket{met("2026-03-07T22:10:00+08:00", "2026-03-07T22:15:00+08:00"), open("2026-03-07T22:40:00+08:00")},
			time.Date(2026, 3, 7, 15, 25, 0, 0, time.UTC), trial.Warn, "45"},
		{"unanswered 20 min", []report.Ticket{open("2026-03-07T22:00:00+08:00")}, time.Date(2026, 3, 7, 14, 20, 0, 0, time.UTC), trial.NotMeasured, "20"},
		{"unanswered 45 min", []report.Ticket{open("2026-03-07T22:00:00+08:00")}, time.Date(2026, 3, 7, 14, 45, 0, 0, time.UTC), trial.Warn, "45"},
		{"unanswered 61 min", []report.Ticket{open("2026-03-07T22:00:00+08:00")}, time.Date(2026, 3, 7, 15, 1, 0, 0, time.UTC), trial.Fail, "61"},
	} {
		x := trialNightTicket(&nodeFacts{id: "n", tickets: c.tickets, asOf: c.asOf})
		x.Finish()
		if x.Verdict != c.verdict || printed(x) != c.shown {
			t.Errorf("%s: %s %s, want %s %s", c.what, x.Verdict, printed(x), c.verdict, c.shown)
		}
		if (x.Verdict == trial.Pass) != (x.Ask == "") {
			t.Errorf("%s: %s, ask %q", c.what, x.Verdict, x.Ask)
		}
	}
}

// A node's acceptance reading is held to its registration where its probe
// had no order (a config without expected:): of three nodes registered as
// eight H100s, a genuine H800 (its name true to its device id) and one of
// two GPUs fail acceptance as the trial page fails them; the genuine H100
// passes. 2 of 3 failing, both wrong hardware (inventory).
func TestAcceptanceHeldToTheRegistration(t *testing.T) {
	l := newLog(t)
	for _, n := range []struct {
		id, name string
		gpus     float64
	}{{"h1", "NVIDIA H100 80GB HBM3", 8}, {"h8", "NVIDIA H800 80GB HBM3", 8}, {"h2", "NVIDIA H100 80GB HBM3", 2}} {
		l.add(events.Event{Type: events.TypeNodeRegistered, Node: n.id, Contract: "alpha-c", OrderedAt: at("2026-03-01T00:00:00Z"),
			Hardware: &events.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryMiB: 81920}})
		l.run(n.id, "2026-03-01T00:30:00Z", "2026-04-01T00:00:00Z")
		l.checks(n.id, "2026-03-01T00:30:00Z", events.Check{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: events.Pass, Number: nump(n.gpus), Unit: "GPUs"},
			events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: events.Pass, Value: n.name, GPU: gpu(0)},
			events.Check{Name: "gpu.memory", Category: events.CategoryInventory, Verdict: events.Pass, Number: nump(81559), Unit: "MiB", GPU: gpu(0)})
	}
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	a := build(t, l.buf.Bytes(), Options{}).Providers[0].All
	want(t, "failing acceptance", a.Hardware.FailShare, 2.0/3, 3)
	want(t, "wrong hardware", a.Delivery.WrongHardware, 2.0/3, 3)
	got := map[string]int{}
	for _, r := range a.Hardware.Reasons {
		got[r.Check+"/"+r.Category] = r.Nodes
	}
	if len(got) != 2 || got["gpu.order.model/inventory"] != 1 || got["gpu.count/inventory"] != 1 {
		t.Errorf("reasons %v", got)
	}
}

// "部分平台宣传“按秒计费”，但实际账单显示的是“按小时取整”": the contract is
// the advertisement, the bill the fact. A node of a per-second contract
// (8 GPUs at 2 USD per GPU-hour) ordered 10 March 10:00 and released
// 10:30 is 0.5 node-hours, 8.00 USD. With no bill nothing shows how it
// was billed: not measured (never a pass on the contract's word). Billed
// 0.5 h: pass. Billed 1 h (the half hour rounded up): 0.50 h beyond the
// contract, fail. Billed 0.5 h but 16.00 USD: 8.00 USD beyond its price,
// fail. The same node on an hourly contract warns without a bill. What
// the trial cost is what was billed: 8.00 USD with no bill or billed 0.5
// h, 16.00 USD billed 1 h (the bill's hours at the contract's price) or
// charged 16.00.
func TestTrialBillingNeedsTheBill(t *testing.T) {
	perSecond := strings.Replace(contractYAML("alpha-c", "Alpha", "15m", "30m"), "granularity: 1h", "granularity: 1s", 1)
	for _, c := range []struct {
		what, contract string
		bill           []billing.Line
		verdict        string
		detail         string
		price          string
	}{
		{"no bill", perSecond, nil, TrialUnknown, "the contract bills per 1s; no bill of the node shows how it was billed", "8.00"},
		{"billed 0.5 h", perSecond, []billing.Line{{Line: 2, Node: "ta", Period: "2026-03", Hours: 0.5, HasHours: true}}, TrialPass, "", "8.00"},
		{"billed 1 h", perSecond, []billing.Line{{Line: 2, Node: "ta", Period: "2026-03", Hours: 1, HasHours: true}}, TrialFail, "the bill charged 0.50 h beyond the contract", "16.00"},
		{"billed 0.5 h for 16 USD", perSecond, []billing.Line{{Line: 2, Node: "ta", Period: "2026-03", Hours: 0.5, HasHours: true, Amount: 16, HasAmt: true}},
			TrialFail, "the bill charged 8.00 USD beyond the contract's price", "16.00"},
		{"hourly contract, no bill", contractYAML("alpha-c", "Alpha", "15m", "30m"), nil, TrialWarn, "", "16.00"},
	} {
		tr := trialOfTa(t, c.contract, Options{Bill: c.bill}, "2026-03-10T10:00:00Z", "2026-03-10T10:30:00Z", func(l *logW) {
			l.add(events.Event{Type: events.TypeNodeReleased, Node: "ta", At: at("2026-03-10T10:30:00Z")})
		})
		var x, price TrialFigure
		for _, f := range tr.Providers[0].Figures {
			switch f.Key {
			case trial.KeyBilling:
				x = f
			case trial.KeyPrice:
				price = f
			}
		}
		if printed(price) != c.price {
			t.Errorf("%s: the trial cost %s USD, want %s (%s)", c.what, printed(price), c.price, price.Detail)
		}
		if x.Verdict != c.verdict || (c.detail != "" && x.Detail != c.detail) || (x.Verdict == TrialPass) != (x.Ask == "") {
			t.Errorf("%s: %s %q (ask %q), want %s %q", c.what, x.Verdict, x.Detail, x.Ask, c.verdict, c.detail)
		}
	}
}

// On the page, the trial's own results are those of an observation a
// `gpuprobe trial` step marked (probe.trial): a slow burn there warns
// acceptance; the same warning in a daemon reading does not.
func TestTrialPageWarningsAreTheCards(t *testing.T) {
	for _, c := range []struct {
		marked bool
		want   string
	}{{true, TrialWarn}, {false, TrialPass}} {
		l := newLog(t)
		l.register("ta", "alpha-c", "2026-03-01T00:00:00Z")
		l.run("ta", "2026-03-01T00:20:00Z", "2026-04-01T00:00:00Z")
		l.checks("ta", "2026-03-01T00:20:00Z", events.Check{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: events.Pass, Number: nump(8), Unit: "GPUs"},
			events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: events.Pass, Value: "NVIDIA H200", GPU: gpu(0)},
			events.Check{Name: "gpu.order.model", Category: events.CategoryInventory, Verdict: events.Pass, GPU: gpu(0)})
		burn := []events.Check{{Name: "gpu.burn.bf16", Category: events.CategoryPerformance, Verdict: events.Warn, Number: nump(850), Unit: "TFLOP/s", GPU: gpu(0)}}
		if c.marked {
			burn = append([]events.Check{pass("probe.trial", events.CategoryHost)}, burn...)
		}
		l.checks("ta", "2026-03-02T00:00:00Z", burn...)
		if err := l.w.Flush(); err != nil {
			t.Fatal(err)
		}
		acc := buildTrial(t, l.buf.Bytes(), Options{}).Providers[0].Figures[1]
		if acc.Key != trial.KeyAcceptance || acc.Verdict != c.want {
			t.Errorf("marked %v: %s %s (%s), want %s", c.marked, acc.Key, acc.Verdict, acc.Detail, c.want)
		}
	}
}

// The trial page holds iperf3 to the contract's advertised internal
// bandwidth (terms network.internal_mbps: 10000): a run of 900 Mbit/s the
// renter's probe judged against 1000 is 9.0 % of what was advertised and
// fails; under terms that advertise none it is 90.0 % of the renter's
// figure and passes, the row saying which figure it is.
func TestTrialIperfHeldToTheTerms(t *testing.T) {
	base := contractYAML("alpha-c", "Alpha", "15m", "30m")
	for _, c := range []struct {
		contract, verdict, shown, detail string
	}{
		{base + "network:\n  internal_mbps: 10000\n", TrialFail, "9.0", "of 10000 Mbit/s advertised in the terms (network.internal_mbps); the probe was told 1000"},
		{base, TrialPass, "90.0", "of 1000 Mbit/s advertised, as the probe was told (--iperf-nominal)"},
	} {
		tr := trialOfTa(t, c.contract, Options{}, "2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z", func(l *logW) {
			l.checks("ta", "2026-03-02T00:00:00Z", pass("probe.trial", events.CategoryHost), events.Check{Name: "net.iperf3.peer", Category: events.CategoryNetwork,
				Verdict: events.Pass, Number: nump(900), Unit: "Mbit/s", Criterion: "≥ 70 % of 1000 Mbit/s"})
		})
		for _, x := range tr.Providers[0].Figures {
			if x.Key == trial.KeyIperf && (x.Verdict != c.verdict || printed(x) != c.shown || x.Detail != c.detail) {
				t.Errorf("iperf3 %s %s (%s), want %s %s (%s)", x.Verdict, printed(x), x.Detail, c.verdict, c.shown, c.detail)
			}
		}
	}
}

// trialOfTa is the trial page of one node ta of contract alpha-c (the
// contract's YAML), ordered at from and running until to, with what more
// log adds to its log.
func trialOfTa(t *testing.T, contract string, opts Options, from, to string, log func(l *logW)) *Trial {
	t.Helper()
	ts, err := terms.Parse("inline.yaml", []byte(contract))
	if err != nil {
		t.Fatal(err)
	}
	l := newLog(t)
	l.register("ta", "alpha-c", from)
	l.run("ta", from, to)
	log(l)
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buildTrialUnder(t, ts, l.buf.Bytes(), opts)
}
