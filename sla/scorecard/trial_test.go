package scorecard

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/gpusla/gpusla/internal/golden"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/events"
)

// trialLog: the seed's method, one node from each provider, March 2026
// (UTC contracts billed by the hour, P1 off-hours target 30 min).
//
//   - Alpha's ta: ordered 1 March 00:00, first heartbeat 00:20; acceptance
//     passes; gateway ping 1.2, 1.5, 1.8 ms; iperf3 8000 of 10000 Mbit/s;
//     a test ticket Saturday 7 March 22:00, answered 22:25.
//   - Beta's tb: ordered 00:00, first heartbeat 03:00; acceptance fails
//     gpu.model; ping 3, 3.5, 4 ms; iperf3 5000 of 10000; a test ticket
//     Saturday 7 March 23:00 never answered.
func trialLog(t *testing.T) *logW {
	l := newLog(t)
	for _, n := range []struct {
		id, contract, first string
		model               events.Check
		rtt                 []float64
		iperf               float64
	}{
		{"ta", "alpha-c", "2026-03-01T00:20:00Z", pass("gpu.model", events.CategoryInventory), []float64{1.2, 1.5, 1.8}, 8000},
		{"tb", "beta-c", "2026-03-01T03:00:00Z", events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: events.Fail, Value: "H20"}, []float64{3, 3.5, 4}, 5000},
	} {
		l.register(n.id, n.contract, "2026-03-01T00:00:00Z")
		l.run(n.id, n.first, "2026-04-01T00:00:00Z")
		l.checks(n.id, n.first, pass("gpu.count", events.CategoryGPULost), n.model)
		for i, v := range n.rtt {
			l.checks(n.id, fmt.Sprintf("2026-03-%02dT12:00:00Z", 10+i), events.Check{Name: "net.gateway.rtt", Category: events.CategoryNetwork, Verdict: events.Pass, Number: nump(v), Unit: "ms"})
		}
		l.checks(n.id, "2026-03-15T03:30:00Z", events.Check{Name: "net.iperf3.peer", Category: events.CategoryNetwork, Verdict: events.Pass, Number: nump(n.iperf), Unit: "Mbit/s", Criterion: "≥ 70 % of 10000 Mbit/s"})
	}
	l.ticket("TA", "ta", "2026-03-07T22:00:00Z", "2026-03-07T22:25:00Z")
	l.add(eventTicket("TB", "tb", "2026-03-07T23:00:00Z"))
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	return l
}

func buildTrial(t *testing.T, log []byte, opts Options) *Trial {
	t.Helper()
	opts.From, opts.To, opts.AsOf = march, march, at("2026-04-05T00:00:00Z")
	b, err := NewBuilder(scenarioTerms(t), opts)
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

func TestTrialJudgesEachFigureAgainstTheSeed(t *testing.T) {
	l := trialLog(t)
	// Beta's bill charges 750 h for March's 744.
	tr := buildTrial(t, l.buf.Bytes(), Options{Bill: []billing.Line{{Line: 2, Node: "tb", Period: "2026-03", Hours: 750, HasHours: true}}})
	if len(tr.Providers) != 2 || tr.Providers[0].Node != "ta" || tr.Providers[1].Node != "tb" || tr.Schema != TrialSchema {
		t.Fatalf("trial %+v", tr)
	}
	type w struct {
		v       float64
		verdict string
		atLeast bool
	}
	wants := map[string][]w{
		// Delivery 20 min (≤ 30: pass) against 180 min (hours: warn).
		"delivery": {{20, TrialPass, false}, {180, TrialWarn, false}},
		// Acceptance: no failing check against gpu.model.
		"acceptance": {{0, TrialPass, false}, {1, TrialFail, false}},
		// Gateway ping medians 1.5 ms (≤ 2) and 3.5 ms.
		"gateway_rtt": {{1.5, TrialPass, false}, {3.5, TrialFail, false}},
		// iperf3 80 % and 50 % of the advertised 10 Gbit/s (the seed's 70 %).
		"iperf3": {{0.8, TrialPass, false}, {0.5, TrialFail, false}},
		// The 22:00 ticket: 25 min; Beta's 23:00 one unanswered at 5 April
		// 00:00: 28 days 1 h = 40 380 min so far, past 1 h: fail.
		"night_ticket": {{25, TrialPass, false}, {40380, TrialFail, true}},
		// Both contracts round to the hour (warn); Beta's bill 6 h over: fail.
		"billing_granularity": {{3600, TrialWarn, false}, {3600, TrialFail, false}},
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
			if x.Value == nil || math.Abs(*x.Value-want.v) > 1e-9 || x.Verdict != want.verdict || x.AtLeast != want.atLeast {
				t.Errorf("%s %s = %+v, want %+v", p.Provider, x.Key, x, want)
			}
			if (x.Verdict == TrialPass) != (x.Ask == "") || x.Criterion == "" {
				t.Errorf("%s %s: verdict %s, ask %q, criterion %q", p.Provider, x.Key, x.Verdict, x.Ask, x.Criterion)
			}
		}
	}
	b := tr.Providers[1].Figures
	if b[1].Detail != "gpu.model" || b[5].Detail != "the bill charged 6.00 h beyond the contract" {
		t.Errorf("Beta details %q, %q", b[1].Detail, b[5].Detail)
	}
}

// Nothing measured is said so, with what to do, never judged.
func TestTrialNamesWhatWasNotMeasured(t *testing.T) {
	l := newLog(t)
	l.register("tc", "alpha-c", "2026-02-20T00:00:00Z") // ordered before the months: no delivery figure
	l.run("tc", "2026-02-20T01:00:00Z", "2026-04-01T00:00:00Z")
	if err := l.w.Flush(); err != nil {
		t.Fatal(err)
	}
	tr := buildTrial(t, l.buf.Bytes(), Options{})
	for _, x := range tr.Providers[0].Figures {
		if x.Key == "billing_granularity" {
			continue
		}
		if x.Verdict != TrialUnknown || x.Value != nil || x.Ask == "" {
			t.Errorf("%s = %+v, want not measured with an ask", x.Key, x)
		}
	}
}

// The trial's log as a golden file (scorecardtest.GoldenTrial builds the
// trial page other packages render from it; docs/scorecard.md shows it).
func TestTrialFileGolden(t *testing.T) {
	golden.Check(t, "trial.jsonl", trialLog(t).buf.Bytes())
}
