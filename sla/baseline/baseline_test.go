package baseline

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

var t0 = time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)

func burn(name string, gpu int, v float64) events.Check {
	return events.Check{Name: name, Category: events.CategoryPerformance, Verdict: events.Pass, Number: &v, Unit: "TFLOP/s", GPU: &gpu}
}

// run adds one daily run per value, day i at t0 + i days.
func run(c *Collector, node, fig string, vals ...float64) {
	for i, v := range vals {
		c.Add(node, t0.AddDate(0, 0, i), []events.Check{burn(fig, 0, v)})
	}
}

func models(m map[string]string) func(string) (string, bool) {
	return func(n string) (string, bool) { v, ok := m[n]; return v, ok }
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestSlowerThanSiblingsAfterThreeRunsInARow(t *testing.T) {
	var c Collector
	run(&c, "n1", "gpu.burn.fp32", 100, 100, 100, 100) // median 100
	run(&c, "n2", "gpu.burn.fp32", 101, 101, 101, 101) // 101
	run(&c, "n3", "gpu.burn.fp32", 99, 99, 99, 99)     // 99
	run(&c, "n4", "gpu.burn.fp32", 102, 102, 102, 102) // 102
	run(&c, "n5", "gpu.burn.fp32", 93, 93, 100, 100)   // median of 93 93 100 100 = 96.5; two slow runs only
	run(&c, "n6", "gpu.burn.fp32", 100, 90, 90, 90)    // median 90; three slow runs in a row
	// Read twice: repeated readings merge.
	run(&c, "n6", "gpu.burn.fp32", 100, 90, 90, 90)
	// A100: three nodes only, one very slow: static threshold alone.
	run(&c, "a1", "gpu.burn.fp32", 19, 19, 19)
	run(&c, "a2", "gpu.burn.fp32", 19, 19, 19)
	run(&c, "a3", "gpu.burn.fp32", 5, 5, 5)
	m := map[string]string{"a1": "A100", "a2": "A100", "a3": "A100"}
	for _, n := range []string{"n1", "n2", "n3", "n4", "n5", "n6"} {
		m[n] = "H200"
	}
	res := c.Compute(models(m), t0, t0.AddDate(0, 1, 0), Options{})
	if len(res.Dists) != 2 {
		t.Fatalf("dists = %+v", res.Dists)
	}
	a, h := res.Dists[0], res.Dists[1]
	if !a.StaticOnly || a.Nodes != 3 || a.Threshold != 0 {
		t.Errorf("A100 with 3 < %d nodes must be static only: %+v", DefaultMinNodes, a)
	}
	// H200 per-node medians sorted: 90 96.5 99 100 101 102 (n = 6).
	// p10: h = 5·0.1 = 0.5 → 90 + 0.5·6.5 = 93.25
	// p50: h = 2.5 → 99 + 0.5·1 = 99.5;  p90: h = 4.5 → 101.5
	// threshold = min(93.25, 99.5·0.95 = 94.525) = 93.25
	if h.StaticOnly || h.Nodes != 6 || h.Runs != 24 || !near(h.P10, 93.25) || !near(h.P50, 99.5) || !near(h.P90, 101.5) || !near(h.Threshold, 93.25) {
		t.Errorf("H200 dist = %+v", h)
	}
	if len(res.Findings) != 1 {
		t.Fatalf("findings = %+v, want only n6 (n5 had two slow runs, a3 is static only)", res.Findings)
	}
	f := res.Findings[0]
	if f.Node != "n6" || f.GPU != 0 || f.Runs != 3 || !f.Start.Equal(t0.AddDate(0, 0, 1)) || !f.Confirmed.Equal(t0.AddDate(0, 0, 3)) || !f.End.IsZero() {
		t.Errorf("finding = %+v", f)
	}
	ev := f.Evidence()
	// n6 is judged against the other five: 96.5 99 100 101 102; p10: h =
	// 4·0.1 = 0.4 → 96.5 + 0.4·2.5 = 97.5, p50 100, threshold min(97.5,
	// 95) = 95. n5 against 90 99 100 101 102: p10 90 + 0.4·9 = 93.6,
	// threshold 93.6: its two runs at 93 are two only.
	if f.Against != AgainstOtherNodes || f.Dist.Nodes != 5 || !near(f.Dist.P10, 97.5) || !near(f.Dist.Threshold, 95) {
		t.Errorf("n6's bar = %s %+v", f.Against, f.Dist)
	}
	for _, want := range []string{"slower than its siblings", "gpu.burn.fp32 on GPU 0 3 runs in a row", "90, 90, 90 TFLOP/s", "the other 5 H200 nodes (5 GPUs)", "p10 97.5", "median 100", "threshold 95"} {
		if !strings.Contains(ev, want) {
			t.Errorf("evidence %q lacks %q", ev, want)
		}
	}
}

func TestTheSlowestOfAnEvenFleetIsNotAFinding(t *testing.T) {
	// Six nodes within 2 %: the slowest sits below p10 by definition, but
	// not 5 % under the median.
	var c Collector
	m := map[string]string{}
	for i, v := range []float64{100, 100.2, 100.4, 100.6, 100.8, 99} {
		n := string(rune('a' + i))
		m[n] = "H200"
		run(&c, n, "gpu.bw.d2d", v, v, v, v)
	}
	res := c.Compute(models(m), t0, t0.AddDate(0, 1, 0), Options{})
	// p10 = 99 + 0.5·(100 − 99) = 99.5; 0.95·p50 (100.3) = 95.285: threshold 95.285.
	if len(res.Findings) != 0 || !near(res.Dists[0].Threshold, 0.95*100.3) {
		t.Errorf("findings %+v, dist %+v", res.Findings, res.Dists)
	}
}

func TestFindingEndsAtTheFirstRunBackAboveAndWindowCuts(t *testing.T) {
	var c Collector
	m := map[string]string{}
	for i := range 5 {
		n := string(rune('a' + i))
		m[n] = "H200"
		run(&c, n, "gpu.power", 700, 700, 700, 700, 700, 700)
	}
	m["slow"] = "H200"
	run(&c, "slow", "gpu.power", 600, 600, 600, 600, 700, 600)
	res := c.Compute(models(m), t0, t0.AddDate(0, 1, 0), Options{})
	// Medians: 700 ×5 and slow's (600 600 600 600 600 700 → 600): p10 = 600 + 0.5·100 = 650.
	if len(res.Findings) != 1 || res.Findings[0].Runs != 4 || !res.Findings[0].End.Equal(t0.AddDate(0, 0, 4)) {
		t.Fatalf("findings = %+v", res.Findings)
	}
	// The window [day 0, day 2) holds two runs of each node: no streak of three.
	if res := c.Compute(models(m), t0, t0.AddDate(0, 0, 2), Options{}); len(res.Findings) != 0 {
		t.Errorf("window not applied: %+v", res.Findings)
	}
	// A node no model names is left out of the fleet.
	delete(m, "slow")
	if res := c.Compute(models(m), t0, t0.AddDate(0, 1, 0), Options{}); len(res.Findings) != 0 || res.Dists[0].Nodes != 5 {
		t.Errorf("unknown node counted: %+v", res)
	}
}

func TestFigureOf(t *testing.T) {
	v := 1.0
	for _, c := range []struct {
		name, cat, verdict, want string
		num                      *float64
	}{
		{"gpu.burn.fp32", events.CategoryPerformance, events.Fail, "gpu.burn.fp32", &v},
		{"gpu.burn.fp32.power", events.CategoryPerformance, events.Pass, "", &v},
		{"gpu.bw.p2p.0-1", events.CategoryPerformance, events.Pass, "gpu.bw.p2p", &v},
		{"gpu.bw.h2d", events.CategoryPerformance, events.Pass, "gpu.bw.h2d", &v},
		{"gpu.bw.h2d", events.CategoryGPUDegraded, events.Fail, "", nil},
		{"gpu.power", events.CategoryPerformance, events.Warn, "gpu.power", &v},
		{"gpu.burn.fp32", events.CategoryPerformance, events.Skipped, "", nil},
		{"gpu.burn.", events.CategoryPerformance, events.Pass, "", &v},
		{"net.gateway.rtt", events.CategoryNetwork, events.Pass, "", &v},
	} {
		got, ok := FigureOf(&events.Check{Name: c.name, Category: c.cat, Verdict: c.verdict, Number: c.num})
		if got != c.want || ok != (c.want != "") {
			t.Errorf("FigureOf(%s %s %s) = %q %v, want %q", c.name, c.cat, c.verdict, got, ok, c.want)
		}
	}
}

func TestDriftFlagsASustainedDropOnly(t *testing.T) {
	var c Collector
	// Two GPUs a day; the day's value is their median (= mean of two).
	days := [][2]float64{{100, 100}, {99, 101}, {100, 100}, {99, 99}, {96, 96}, {94, 94}, {93, 93}, {92, 92}}
	for i, d := range days {
		c.Add("cool", t0.AddDate(0, 0, i), []events.Check{burn("gpu.burn.bf16", 0, d[0]), burn("gpu.burn.bf16", 1, d[1])})
	}
	run(&c, "dip", "gpu.burn.bf16", 100, 100, 100, 94, 94, 100, 100)
	m := models(map[string]string{"cool": "H200", "dip": "H200"})
	res := c.Compute(m, t0, t0.AddDate(0, 1, 0), Options{})
	if len(res.Drift) != 2 {
		t.Fatalf("drift = %+v", res.Drift)
	}
	cool, dip := res.Drift[0], res.Drift[1]
	// Baseline: median of the first three days (100, 100, 100) = 100; limit 95.
	// Days 6–8 (94, 93, 92) are three in a row at or below 95: sustained,
	// since 2026-03-06, worst 8 %. Day 5 (96) is above the limit.
	if !cool.Dropped || cool.Since != "2026-03-06" || cool.Until != "" || cool.WorstPct != 8 || cool.Baseline != 100 || len(cool.Days) != 8 || cool.Days[1].Value != 100 {
		t.Errorf("cool = %+v", cool)
	}
	// Two days at 94 then back: not sustained.
	if dip.Dropped {
		t.Errorf("dip = %+v", dip)
	}
}

// The live service feeds a streak one run at a time, in receive order:
// an older run or the same run again changes nothing, the third slow run
// opens (backdated to the first), the first run back closes.
func TestStreakRunByRun(t *testing.T) {
	var s Streak
	day := func(d int) time.Time { return t0.AddDate(0, 0, d) }
	steps := []struct {
		at   time.Time
		v    float64
		want StreakOp
	}{
		{day(0), 60, StreakNone}, {day(1), 50, StreakNone}, {day(1), 50, StreakNone}, {day(0), 50, StreakNone},
		{day(2), 50, StreakNone}, {day(3), 54.9, StreakOpened}, {day(4), 50, StreakNone}, {day(5), 55, StreakClosed}, {day(6), 50, StreakNone},
	}
	for i, st := range steps {
		since := s.Start
		if got := s.Step(55, 3, st.at, st.v); got != st.want {
			t.Fatalf("step %d (%v at %s): %v, want %v", i, st.v, st.at, got, st.want)
		}
		if st.want == StreakOpened && (!s.Start.Equal(day(1)) || s.Runs != 3 || len(s.Values) != 3) {
			t.Errorf("opened streak = %+v", s)
		}
		if st.want == StreakClosed && !since.Equal(day(1)) {
			t.Errorf("closed a streak since %s", since)
		}
	}
	if s.Runs != 1 || s.Open {
		t.Errorf("after: %+v", s)
	}
}

// eight runs a GPU model's figure at v on GPUs 0–7, once a day for days days.
func eight(c *Collector, node, fig string, days int, v func(gpu int) float64) {
	for d := range days {
		var cs []events.Check
		for g := range 8 {
			cs = append(cs, burn(fig, g, v(g)))
		}
		c.Add(node, t0.AddDate(0, 0, d), cs)
	}
}

// A whole 8-GPU node 8 % slow: against a fleet that includes
// it, its 8 GPUs set the bar — 48 medians, 8 at 92 and 40 at 100: p10 h
// = 47·0.1 = 4.7 falls among the 92s, threshold min(92, 95) = 92, and 92
// is not below 92. Against the other five nodes alone (40 × 100: p10 =
// p50 = 100) the threshold is min(100, 95) = 95: every GPU of the node
// is three runs below it.
func TestAWholeSlowNodeIsJudgedAgainstTheOtherNodes(t *testing.T) {
	var c Collector
	m := map[string]string{}
	for _, n := range []string{"n1", "n2", "n3", "n4", "n5", "slow"} {
		m[n] = "H200"
		v := 100.0
		if n == "slow" {
			v = 92
		}
		eight(&c, n, "gpu.burn.fp32", 3, func(int) float64 { return v })
	}
	res := c.Compute(models(m), t0, t0.AddDate(0, 1, 0), Options{})
	if d := res.Dists[0]; !near(d.P10, 92) || !near(d.Threshold, 92) {
		t.Errorf("the fleet with the node in it: %+v", d)
	}
	if len(res.Findings) != 8 {
		t.Fatalf("findings = %d, want the slow node's 8 GPUs: %+v", len(res.Findings), res.Findings)
	}
	for i, f := range res.Findings {
		if f.Node != "slow" || f.GPU != i || f.Against != AgainstOtherNodes || f.Runs != 3 || !near(f.Dist.Threshold, 95) || f.Dist.Nodes != 5 || f.Dist.GPUs != 40 {
			t.Errorf("finding %d = %+v", i, f)
		}
	}
	// Live: the same bar for the node's GPU, and for a node new to the
	// fleet the bar of all six (p10 92 → threshold 92).
	if b, ok := res.Bars.For("slow", "H200", "gpu.burn.fp32", 0); !ok || !near(b.Threshold, 95) || b.Against != AgainstOtherNodes {
		t.Errorf("live bar of slow = %+v %v", b, ok)
	}
	if b, ok := res.Bars.For("new", "H200", "gpu.burn.fp32", 0); !ok || !near(b.Threshold, 92) || b.Dist.Nodes != 6 {
		t.Errorf("live bar of a new node = %+v %v", b, ok)
	}
}

// One card slower than the seven beside it, in a fleet whose other nodes
// are slower still (another clock, another cooling): against the other
// nodes (40 × 90: threshold min(90, 85.5) = 85.5) its 93 passes; against
// its node's other GPUs (median 100: threshold 95) it is slow.
func TestAGPUIsJudgedAgainstItsNodesOtherGPUs(t *testing.T) {
	var c Collector
	m := map[string]string{}
	for _, n := range []string{"n1", "n2", "n3", "n4", "n5"} {
		m[n] = "H200"
		eight(&c, n, "gpu.burn.bf16", 3, func(int) float64 { return 90 })
	}
	m["x"] = "H200"
	eight(&c, "x", "gpu.burn.bf16", 3, func(g int) float64 {
		if g == 3 {
			return 93
		}
		return 100
	})
	res := c.Compute(models(m), t0, t0.AddDate(0, 1, 0), Options{})
	if len(res.Findings) != 1 {
		t.Fatalf("findings = %+v", res.Findings)
	}
	f := res.Findings[0]
	if f.Node != "x" || f.GPU != 3 || f.Against != AgainstNodeGPUs || !near(f.Dist.Threshold, 95) || f.Dist.GPUs != 7 {
		t.Errorf("finding = %+v", f)
	}
	ev := f.Evidence()
	for _, want := range []string{"slower than the other GPUs of its node", "gpu.burn.bf16 on GPU 3 3 runs in a row below them (93, 93, 93 TFLOP/s)", "the node's other 7 GPUs: median 100 TFLOP/s", "threshold 95 = at least 5 % under their median"} {
		if !strings.Contains(ev, want) {
			t.Errorf("evidence %q lacks %q", ev, want)
		}
	}
}

// Nothing measured: the lists are [], never null (docs/scorecard.md).
func TestEmptyResultListsAreEmptyArrays(t *testing.T) {
	var c Collector
	res := c.Compute(models(nil), t0, t0.AddDate(0, 1, 0), Options{})
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"baselines":[],"below_siblings":[],"drift":[]}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
}
