package baseline

import (
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
	for _, want := range []string{"slower than its siblings", "gpu.burn.fp32 on GPU 0 3 runs in a row", "90, 90, 90 TFLOP/s", "fleet of 6 H200 nodes", "p10 93.2", "median 99.5", "threshold 93.2"} {
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
