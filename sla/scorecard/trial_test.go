package scorecard

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/golden"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/trial"
)

// trialNode is one trial node's figures in trialLog.
type trialNode struct {
	id, contract, first       string
	model                     events.Check
	util                      float64
	soakSecs, soakSwing, pswg float64
	d2d, arUs                 float64
	mirror                    []string
	rtt                       []float64
	iperf                     float64
	dataDisk                  bool // an ordered data disk held (--expect disks=)
}

// trialLog: the seed's method, one 8-GPU H200 SXM node from each provider,
// March 2026 (UTC contracts billed by the hour from the order at 2 per
// GPU-hour, P1 off-hours target 30 min), each on one side of every line:
//
//   - Alpha's ta: ordered 1 March 00:00, first heartbeat 00:20; its
//     acceptance reading passes, GPUs idle (0 %); a trial run on 2 March
//     marked idle: soak 1800.4 s without error, power swing 4.99 % (soak)
//     and 5.00 % (power test), copies at 4077.4 GB/s (95 % of a genuine
//     H200's 4292), all-reduce 199.9 µs, the mirror answering; gateway
//     pings 1.2, 2.0, 2.4 ms; iperf3 7000 of 10 000 Mbit/s; later, under
//     the renter's own job, 97 % busy (not held against it); a test ticket
//     Saturday 7 March 22:00, answered 22:25.
//   - Beta's tb: ordered 00:00, first heartbeat 03:00, first a usage
//     reading, then its GPUs: an H20 calling itself an H100 (gpu.model,
//     gpu.order.model fail), 35 % busy; a trial run with a 5-minute soak,
//     power swing 5.01 %, copies at 4077.3 GB/s, all-reduce 200.0 µs, the
//     mirror once unanswered; pings 2.001, 1.9, 3 ms; iperf3 6990; a test
//     ticket Saturday 7 March 23:00 never answered.
func trialLog(t *testing.T) *logW {
	l := newLog(t)
	h20 := events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: events.Fail, Value: "H20", GPU: gpu(0)}
	h200 := events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: events.Pass, Value: "NVIDIA H200", GPU: gpu(0)}
	for _, n := range []trialNode{
		{"ta", "alpha-c", "2026-03-01T00:20:00Z", h200, 0, 1800.4, 4.99, 5, 4077.4, 199.9, []string{events.Pass, events.Pass}, []float64{1.2, 2.0, 2.4}, 7000, true},
		{"tb", "beta-c", "2026-03-01T03:00:00Z", h20, 35, 300, 0.5, 5.01, 4077.3, 200, []string{events.Pass, events.Fail}, []float64{2.001, 1.9, 3}, 6990, false},
	} {
		l.register(n.id, n.contract, "2026-03-01T00:00:00Z")
		l.run(n.id, n.first, "2026-04-01T00:00:00Z")
		trialNodeLog(l, n)
	}
	l.ticket("TA", "ta", "2026-03-07T22:00:00Z", "2026-03-07T22:25:00Z")
	l.add(eventTicket("TB", "tb", "2026-03-07T23:00:00Z"))
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	return l
}

func trialNodeLog(l *logW, n trialNode) {
	order := events.Check{Name: "gpu.order.model", Category: events.CategoryInventory, Verdict: n.model.Verdict, GPU: gpu(0)}
	busy := func(v float64) events.Check {
		c := events.Check{Name: "gpu.utilization", Category: events.CategoryGPUDegraded, Verdict: events.Pass, Number: nump(v), Unit: "%", GPU: gpu(0)}
		if v >= 5 {
			c.Verdict = events.Warn
		}
		return c
	}
	num := func(name, cat string, v float64, unit string) events.Check {
		return events.Check{Name: name, Category: cat, Verdict: events.Pass, Number: nump(v), Unit: unit, GPU: gpu(0)}
	}
	// A usage reading first: the acceptance is the first that reads the GPUs.
	l.checks(n.id, n.first, pass("usage.boot", events.CategoryHost))
	at := strings.Replace(n.first, ":00:00Z", ":05:00Z", 1)
	// gpustat reads every GPU: GPU 0 at the node's figure, the others idle.
	idleGPUs := func(gpu0 float64) []events.Check {
		var cs []events.Check
		for g := 0; g < 8; g++ {
			c := busy(0)
			if g == 0 {
				c = busy(gpu0)
			}
			c.GPU = gpu(g)
			cs = append(cs, c)
		}
		return cs
	}
	acc := append([]events.Check{{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: events.Pass, Number: nump(8), Unit: "GPUs"},
		n.model, order, pass("gpu.processes", events.CategoryGPUDegraded), pass("host.disk.system", events.CategoryHost)}, idleGPUs(n.util)...)
	if n.dataDisk {
		acc = append(acc, pass("host.disk.ordered:/data", events.CategoryInventory))
	}
	l.checks(n.id, at, acc...)
	run := strings.Replace(n.first, "01T", "02T", 1)
	l.checks(n.id, run, append([]events.Check{pass("probe.trial", events.CategoryHost), pass("probe.trial.idle", events.CategoryHost)}, idleGPUs(0)...)...)
	for i, v := range n.mirror {
		// The trial's HEAD, then the daemon's every 15 minutes.
		l.checks(n.id, fmt.Sprintf("2026-03-03T00:%02d:00Z", 15*i), events.Check{Name: "net.http.mirror.reach", Category: events.CategoryConnectivity, Verdict: v},
			events.Check{Name: "net.http.mirror.latency", Category: events.CategoryNetwork, Verdict: events.Pass, Number: nump(42), Unit: "ms"})
	}
	stress := []events.Check{pass("probe.trial", events.CategoryHost),
		events.Check{Name: "gpu.nccl.allreduce.latency", Category: events.CategoryPerformance, Verdict: events.Pass, Number: nump(n.arUs), Unit: "µs"}}
	for g := 0; g < 8; g++ {
		onGPU := func(c events.Check) events.Check { c.GPU = gpu(g); return c }
		// GPU 0 is the one at the line; the other seven well clear of it.
		d2d, soakSwing, pswg := n.d2d, n.soakSwing, n.pswg
		if g > 0 {
			d2d, soakSwing, pswg = 4290, 0.4, 0.5
		}
		stress = append(stress, onGPU(num("gpu.soak.bf16.duration", events.CategoryPerformance, n.soakSecs, "s")),
			onGPU(num("gpu.soak.bf16.errors", events.CategoryGPUDegraded, 0, "values")),
			onGPU(num("gpu.soak.bf16.power.swing", events.CategoryPerformance, soakSwing, "%")), onGPU(num("gpu.power.swing", events.CategoryPerformance, pswg, "%")),
			onGPU(num("gpu.bw.d2d", events.CategoryPerformance, d2d, "GB/s")))
	}
	l.checks(n.id, strings.Replace(run, "T00", "T01", 1), stress...)
	for i, v := range n.rtt {
		l.checks(n.id, fmt.Sprintf("2026-03-%02dT12:00:00Z", 10+i), events.Check{Name: "net.gateway.rtt", Category: events.CategoryNetwork, Verdict: events.Pass, Number: nump(v), Unit: "ms"},
			events.Check{Name: "net.gateway.loss", Category: events.CategoryNetwork, Verdict: events.Pass, Number: nump(0), Unit: "%"})
	}
	l.checks(n.id, "2026-03-15T03:30:00Z", events.Check{Name: "net.iperf3.peer", Category: events.CategoryNetwork, Verdict: events.Pass, Number: nump(n.iperf), Unit: "Mbit/s", Criterion: "≥ 70 % of 10000 Mbit/s"})
	// The renter's own job later: busy, and not the provider's doing.
	l.checks(n.id, "2026-03-20T12:00:00Z", busy(97))
}

func buildTrial(t *testing.T, log []byte, opts Options) *Trial {
	t.Helper()
	return buildTrialUnder(t, scenarioTerms(t), log, opts)
}

// buildTrialUnder is buildTrial under the terms ts.
func buildTrialUnder(t *testing.T, ts []*terms.Terms, log []byte, opts Options) *Trial {
	t.Helper()
	opts.From, opts.To, opts.AsOf, opts.Trial = march, march, at("2026-04-05T00:00:00Z"), true
	b, err := NewBuilder(ts, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ReadLog("trial.jsonl", bytes.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	tr, err := b.BuildTrial()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// printed is a figure as the page prints it.
func printed(x TrialFigure) string {
	if x.Value == nil {
		return "–"
	}
	return strconv.FormatFloat(x.Shown, 'f', x.Digits, 64)
}

// Every criterion of the seed, both sides of each line, worked by hand
// in trialLog's comment.
func TestTrialJudgesEachFigureAgainstTheSeed(t *testing.T) {
	l := trialLog(t)
	// Beta's bill charges 750 h for March's 744.
	tr := buildTrial(t, l.buf.Bytes(), Options{Bill: []billing.Line{{Line: 2, Node: "tb", Period: "2026-03", Hours: 750, HasHours: true}}})
	if len(tr.Providers) != 2 || tr.Providers[0].Node != "ta" || tr.Providers[1].Node != "tb" || tr.Schema != TrialSchema {
		t.Fatalf("trial %+v", tr)
	}
	type w struct{ verdict, shown string }
	wants := map[string][2]w{
		// 20 min (≤ 30: pass) against 180 min (hours: warn).
		trial.KeyDelivery: {{TrialPass, "20"}, {TrialWarn, "180"}},
		// Beta's H20 fails acceptance and the order, though its first
		// reading was a usage one.
		trial.KeyAcceptance: {{TrialPass, "–"}, {TrialFail, "–"}},
		trial.KeyOrder:      {{TrialPass, "–"}, {TrialFail, "–"}},
		// 0 % at delivery and in the trial (97 % later is the renter's);
		// Beta 35 % at delivery.
		trial.KeyIdle: {{TrialPass, "0"}, {TrialFail, "35"}},
		// Alpha's data disk held to its order; Beta's system disk is
		// fine but no data disk was held to an order: not measured.
		trial.KeyDisk: {{TrialPass, "–"}, {TrialUnknown, "–"}},
		// Every HEAD answered, median 42 ms; Beta's once not.
		trial.KeyMirror: {{TrialPass, "42.0"}, {TrialFail, "42.0"}},
		// 30.0 min against a 5-minute soak: not measured.
		trial.KeyBurn: {{TrialPass, "30.0"}, {TrialUnknown, "5.0"}},
		// 4077.4 of 4800 GB/s = 84.9458 % ≥ the genuine line (95 % of
		// 4292 = 4077.4 GB/s); 4077.3 = 84.94 % below it.
		trial.KeyBandwidth: {{TrialPass, "84.95"}, {TrialFail, "84.9"}},
		// 199.9 µs < 200; 200.0 is not below.
		trial.KeyAllReduce: {{TrialPass, "199.9"}, {TrialFail, "200.0"}},
		// The worst swing: 5.00 % (within 5 %) against 5.01 %.
		trial.KeyPower: {{TrialPass, "5.00"}, {TrialFail, "5.01"}},
		// 70.0 % against 69.9 % of 10 000 Mbit/s.
		trial.KeyIperf: {{TrialPass, "70.0"}, {TrialFail, "69.9"}},
		// Median 2.000 ms (over 2 ms fails) against 2.001 ms.
		trial.KeyGateway: {{TrialPass, "2.000"}, {TrialFail, "2.001"}},
		// 25 min; Beta's unanswered at 5 April 00:00: 28 days 1 h =
		// 40 380 min so far, past 1 h: fail.
		trial.KeyNightTicket: {{TrialPass, "25"}, {TrialFail, "40380"}},
		// Both round to the hour (warn); Beta's bill 6 h over: fail.
		trial.KeyBilling: {{TrialWarn, "3600"}, {TrialFail, "3600"}},
		// 744 h × 8 GPUs × 2 = 11 904 USD for Alpha, recorded; Beta's
		// bill of 750 h (hours only) at the contract's price: 750 × 8 ×
		// 2 = 12 000 USD, what it was charged, not the contract's 744 h.
		trial.KeyPrice: {{TrialRecorded, "11904.00"}, {TrialRecorded, "12000.00"}},
	}
	for i, p := range tr.Providers {
		if len(p.Figures) != len(TrialKeys) {
			t.Fatalf("%s: %d figures", p.Provider, len(p.Figures))
		}
		for j, x := range p.Figures {
			if x.Key != TrialKeys[j] {
				t.Errorf("%s figure %d is %s, want %s", p.Provider, j, x.Key, TrialKeys[j])
			}
			want := wants[x.Key][i]
			if x.Verdict != want.verdict || printed(x) != want.shown {
				t.Errorf("%s %s = %s %s, want %s %s (%s)", p.Provider, x.Key, x.Verdict, printed(x), want.verdict, want.shown, x.Detail)
			}
			if ((x.Verdict == TrialPass || x.Verdict == TrialRecorded) != (x.Ask == "")) || x.Criterion == "" || x.Seed == "" {
				t.Errorf("%s %s: verdict %s, ask %q, criterion %q", p.Provider, x.Key, x.Verdict, x.Ask, x.Criterion)
			}
		}
	}
	b := tr.Providers[1].Figures
	if b[1].Detail != "gpu.model (GPU 0), gpu.order.model (GPU 0)" || b[13].Detail != "the bill charged 6.00 h beyond the contract" || !b[12].AtLeast {
		t.Errorf("Beta details %q, %q, at least %v", b[1].Detail, b[13].Detail, b[12].AtLeast)
	}
	if a := tr.Providers[0].Figures[14]; a.Detail != "744.00 h billed, 743.67 h usable; 0 month(s) at the bill's amount" {
		t.Errorf("price detail %q", a.Detail)
	}
	if b := tr.Providers[1].Figures[14]; b.Detail != "750.00 h billed, 741.00 h usable; 0 month(s) at the bill's amount; 1 month(s) at the bill's hours and the contract's price" {
		t.Errorf("Beta's price detail %q", b.Detail)
	}
}

// Nothing measured is said so, with what to do, never judged; a node
// not delivered counts to the as-of instant and, once past a limit, can
// only end as a warning (≥) or has failed.
func TestTrialNamesWhatWasNotMeasured(t *testing.T) {
	l := newLog(t)
	l.register("tc", "alpha-c", "2026-02-20T00:00:00Z") // ordered before the months: no delivery figure
	l.run("tc", "2026-02-20T01:00:00Z", "2026-04-01T00:00:00Z")
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	tr := buildTrial(t, l.buf.Bytes(), Options{})
	for _, x := range tr.Providers[0].Figures {
		switch x.Key {
		case trial.KeyBilling, trial.KeyPrice, trial.KeyAllReduce:
			continue
		}
		if x.Verdict != TrialUnknown || x.Value != nil || x.Ask == "" {
			t.Errorf("%s = %+v, want not measured with an ask", x.Key, x)
		}
	}
	for _, c := range []struct {
		asOf, verdict, shown string
	}{
		// Ordered 31 March 23:40, not delivered: 20 min at 1 April
		// 00:00 (undecided), 30.5 min at 00:10:30 (past 30 min: at best a
		// warning), 1440 min at 1 April 23:40 (not yet over a day: warn),
		// 1441 at 23:41 (failed).
		{"2026-04-01T00:00:00Z", TrialUnknown, "20"},
		{"2026-04-01T00:10:30Z", TrialWarn, "30.5"},
		{"2026-04-01T23:40:00Z", TrialWarn, "1440"},
		{"2026-04-01T23:41:00Z", TrialFail, "1441"},
	} {
		l := newLog(t)
		l.register("td", "alpha-c", "2026-03-31T23:40:00Z")
		if err := l.w.Flush(); err != nil {
			t.Fatal(err)
		}
		b, err := NewBuilder(scenarioTerms(t), Options{From: march, To: march, AsOf: at(c.asOf), Trial: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.ReadLog("t", bytes.NewReader(l.buf.Bytes())); err != nil {
			t.Fatal(err)
		}
		tr, err := b.BuildTrial()
		if err != nil {
			t.Fatal(err)
		}
		x := tr.Providers[0].Figures[0]
		if x.Verdict != c.verdict || printed(x) != c.shown || !x.AtLeast || math.IsNaN(*x.Value) {
			t.Errorf("as of %s: delivery %s %s (at least %v), want %s %s", c.asOf, x.Verdict, printed(x), x.AtLeast, c.verdict, c.shown)
		}
	}
	if _, err := mustBuilder(t).BuildTrial(); err == nil || !strings.Contains(err.Error(), "Options.Trial") {
		t.Errorf("a trial from a builder without Options.Trial: %v", err)
	}
}

func mustBuilder(t *testing.T) *Builder {
	b, err := NewBuilder(scenarioTerms(t), Options{From: march, To: march, AsOf: at("2026-04-05T00:00:00Z")})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The trial's log as a golden file (scorecardtest.GoldenTrial builds the
// trial page other packages render from it; docs/scorecard.md shows it).
func TestTrialFileGolden(t *testing.T) {
	golden.Check(t, "trial.jsonl", trialLog(t).buf.Bytes())
}

// "在服务器A上运行iperf3 -s, 在服务器B上运行iperf3 -c": the seed's trial
// rents a second node of a provider for its iperf3. Alpha's second node
// ta2, ordered at 06:00 after ta, is an H20 calling itself an H200 and 40
// % busy at delivery: it has its own column, after ta, failing acceptance,
// the order and gpustat — never hidden behind ta's pass.
func TestTrialJudgesEverySecondNode(t *testing.T) {
	l := trialLog(t)
	l.register("ta2", "alpha-c", "2026-03-01T06:00:00Z")
	l.run("ta2", "2026-03-01T06:10:00Z", "2026-04-01T00:00:00Z")
	l.checks("ta2", "2026-03-01T06:15:00Z", events.Check{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: events.Pass, Number: nump(8), Unit: "GPUs"},
		events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: events.Fail, Value: "NVIDIA H200", GPU: gpu(0)},
		events.Check{Name: "gpu.utilization", Category: events.CategoryGPUDegraded, Verdict: events.Warn, Number: nump(40), Unit: "%", GPU: gpu(0)})
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	tr := buildTrial(t, l.buf.Bytes(), Options{})
	var cols []string
	for _, p := range tr.Providers {
		cols = append(cols, p.Provider+"/"+p.Node+"/"+strconv.Itoa(p.Nodes))
	}
	if strings.Join(cols, " ") != "Alpha/ta/2 Alpha/ta2/2 Beta/tb/1" {
		t.Fatalf("columns %v", cols)
	}
	for key, want := range map[string][2]string{trial.KeyAcceptance: {TrialPass, TrialFail}, trial.KeyOrder: {TrialPass, TrialFail}, trial.KeyIdle: {TrialPass, TrialFail}} {
		for i, p := range tr.Providers[:2] {
			for _, x := range p.Figures {
				if x.Key == key && x.Verdict != want[i] {
					t.Errorf("%s %s: %s, want %s (%s)", p.Node, key, x.Verdict, want[i], x.Detail)
				}
			}
		}
	}
}
