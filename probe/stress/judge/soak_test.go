package judge

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// curve is a synthetic per-second BF16 curve of n seconds: a 3-second
// ramp, then f(t) with a small deterministic ripple.
func curve(n int, f func(t int) float64) []float64 {
	out := make([]float64, n)
	for t := range out {
		v := f(t) * (1 + 0.0005*math.Sin(float64(t)))
		if t < 3 {
			v *= 0.6 + 0.13*float64(t)
		}
		out[t] = v
	}
	return out
}

func soakOf(samples []float64) result.Burn {
	steady := samples[1:] // as a burn's statistics: its first, ramping second left out
	med, mn, cv := result.Median(steady), slices.Min(steady), result.CV(steady)
	return result.Burn{GPU: 0, Precision: result.BF16, Engine: "HMMA m16n8k16", Launches: 10 * len(samples), Checked: 1e9,
		Samples: samples, Median: med, Min: mn, CV: cv}
}

func soakCheck(t *testing.T, samples []float64) wire.Check {
	t.Helper()
	spec, _ := SpecFor(h200ID, h200Subsys)
	return find(t, judgeSoak(soakOf(samples), spec, true), "gpu.soak.bf16.stability")
}

func TestSoakStability(t *testing.T) {
	const minutes30 = 1800
	for _, tc := range []struct {
		name    string
		samples []float64
		verdict string
		detail  string
	}{
		{"steady 30 minutes", curve(minutes30, func(int) float64 { return 652 }), wire.Pass, ""},
		// Warms up a little faster at the end: not a sag.
		{"rising slightly", curve(minutes30, func(t int) float64 { return 650 + 2*float64(t)/minutes30 }), wire.Pass, ""},
		// Thermal throttling after ten minutes: 652 → 620 (−4.9 % at the end).
		{"sagging slowly", curve(minutes30, func(t int) float64 {
			return 652 - 32*math.Max(0, float64(t-600))/float64(minutes30-600)
		}), wire.Warn, "sagged"},
		// The clock falls to 1830 of 1980 MHz after five minutes: −7.6 %.
		{"throttled", curve(minutes30, func(t int) float64 {
			if t > 300 {
				return 652 * 1830 / 1980
			}
			return 652
		}), wire.Fail, "the card throttles"},
		// Bursts of half throughput every ten seconds: unsteady, no sag.
		{"unsteady", curve(minutes30, func(t int) float64 {
			if t%10 == 5 {
				return 326
			}
			return 652
		}), wire.Warn, "unsteady"},
		{"too short", curve(45, func(int) float64 { return 652 }), wire.Skipped, "35 per-second samples after its 10-second ramp, fewer than the 40"},
	} {
		c := soakCheck(t, tc.samples)
		if c.Verdict != tc.verdict || !strings.Contains(c.Detail, tc.detail) {
			t.Errorf("%s: %s %q (%s)", tc.name, c.Verdict, c.Detail, c.Value)
		}
	}
}

func TestSoakIsJudgedLikeABurnToo(t *testing.T) {
	b := soakOf(curve(120, func(int) float64 { return 900 }))
	b.Mismatches = 1
	spec, _ := SpecFor(h200ID, h200Subsys)
	cs := judgeSoak(b, spec, true)
	if c := find(t, cs, "gpu.soak.bf16.errors"); c.Verdict != wire.Fail {
		t.Errorf("errors: %+v", c)
	}
	if c := find(t, cs, "gpu.soak.bf16"); c.Verdict != wire.Pass {
		t.Errorf("throughput: %+v", c)
	}
	// In a report, soaks are judged with everything else, and an
	// interrupted soak is not judged a sag.
	rep := healthyH200()
	short := soakOf(curve(300, func(t int) float64 { return 652 - float64(t) }))
	short.Error = "interrupted: context canceled"
	rep.Soaks = []result.Burn{short}
	rep.MarkInterrupted(errCanceled{})
	if c := find(t, Report(rep), "gpu.soak.bf16.stability"); c.Verdict != wire.Skipped {
		t.Errorf("interrupted soak: %+v", c)
	}
}

type errCanceled struct{}

func (errCanceled) Error() string { return "context canceled" }

// The soak records how long it ran (the seed's gpu_burn criterion is 30
// minutes) and its power swing at full load (the seed's ±5 %), each a
// number the trial judges: 5.00 % passes, 5.01 % warns, and a swing just
// over prints with the digits that show it over.
func TestSoakRecordsDurationAndPowerSwing(t *testing.T) {
	spec, _ := SpecFor(h200ID, h200Subsys)
	for _, c := range []struct {
		swing   float64
		verdict string
		value   string
	}{{5, wire.Pass, "±5.00 %"}, {5.01, wire.Warn, "±5.01 %"}, {5.004, wire.Warn, "±5.004 %"}, {0.4, wire.Pass, "±0.40 %"}} {
		b := soakOf(curve(1800, func(int) float64 { return 652 }))
		b.Seconds = 1800.3
		b.Monitor = &result.Monitor{Samples: 1800, PowerMeanW: 690, PowerFluctPct: c.swing, SteadyFrom: 4, SteadySamples: 1796}
		cs := judgeSoak(b, spec, true)
		if d := find(t, cs, "gpu.soak.bf16.duration"); d.Number == nil || *d.Number != 1800.3 || d.Unit != "s" || d.Verdict != wire.Pass {
			t.Errorf("duration %+v", d)
		}
		s := find(t, cs, "gpu.soak.bf16.power.swing")
		if s.Number == nil || *s.Number != c.swing || s.Verdict != c.verdict || !strings.HasPrefix(s.Value, c.value+" of the 690 W mean") {
			t.Errorf("swing %g: %s %q", c.swing, s.Verdict, s.Value)
		}
	}
	// No steady part: no swing to judge, no number made up.
	b := soakOf(curve(60, func(int) float64 { return 652 }))
	b.Monitor = &result.Monitor{Samples: 3, PowerMeanW: 500, PowerUnjudged: "3 readings, 3 needed after the ramp"}
	for _, c := range judgeSoak(b, spec, true) {
		if c.Name == "gpu.soak.bf16.power.swing" {
			t.Errorf("a swing without a steady part: %+v", c)
		}
	}
}
