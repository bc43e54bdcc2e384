package judge

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// Thresholds that do not depend on the model.
const (
	// maxCV is the largest coefficient of variation of per-second
	// throughput a stable card shows (healthy H200: well under 1 %).
	maxCV = 0.05
	// maxPowerFluctPct is the seed checklist's "power under full load within ±5 %".
	maxPowerFluctPct = 5.0
)

func gpuPtr(i int) *int      { return &i }
func num(v float64) *float64 { return &v }

// pctOf is v as a share of the model's official figure, "" where there
// is none.
func pctOf(v float64, spec Spec, key string) any {
	if o := spec.Official[key]; o > 0 {
		return wire.T(" (%.1f %% of the official %g)", 100*v/o, o)
	}
	return ""
}

// judgeBurn turns one burn into its checks: result errors (gpu_degraded),
// throughput against the model's threshold (performance_below_spec) and
// what the NVML monitor saw.
func judgeBurn(name string, b result.Burn, spec Spec, known bool) []wire.Check {
	c := wire.Check{Name: name, Category: wire.CategoryGPUDegraded, GPU: gpuPtr(b.GPU), Unit: "TFLOP/s"}
	switch {
	case b.Skipped != "":
		c.Verdict, c.Detail = wire.Skipped, b.Skipped
		return []wire.Check{c}
	case b.Error != "" && b.Launches == 0:
		c.Verdict = wire.Fail
		c.SetDetail("burn could not run: %s", b.Error)
		return []wire.Check{c}
	}
	var out []wire.Check
	// Errors first: a single wrong value anywhere fails the card.
	e := wire.Check{Name: name + ".errors", Category: wire.CategoryGPUDegraded, GPU: gpuPtr(b.GPU),
		Criterion: "0 wrong values against the host-computed reference", Number: num(float64(b.Mismatches)), Unit: "values"}
	e.SetValue("%d wrong of %d checked in %d launches", b.Mismatches, b.Checked, b.Launches)
	e.Verdict = wire.Pass
	if b.Mismatches > 0 {
		e.Verdict = wire.Fail
		if len(b.FirstBad) > 0 {
			f := b.FirstBad[0]
			e.SetDetail("first: launch %d element %d = %g, want %g", f.Launch, f.Index, f.Got, f.Want)
			if b.Injected {
				e.SetDetail("first: launch %d element %d = %g, want %g; fault injection was on (--fault-inject), one wrong value was planted", f.Launch, f.Index, f.Got, f.Want)
			}
		} else if b.Injected {
			e.Detail = "; fault injection was on (--fault-inject), one wrong value was planted"
		}
	}
	if b.Error != "" {
		e.Verdict = wire.Fail
		e.Detail = strings.TrimPrefix(e.Detail+"; ", "; ") + "driver error during the burn: " + b.Error
	}
	out = append(out, e)

	c.Category = wire.CategoryPerformance
	c.Number = num(b.Median)
	// A tensor burn that fell back from wgmma to mma.sync is held to the
	// mma.sync threshold: the slower engine must not fail a healthy card.
	key := string(b.Precision)
	if b.Fallback != "" {
		key += mmaSyncSuffix
	}
	c.SetValue("%.1f TFLOP/s median%s; min %.1f, CV %.2f %%, %d samples, %s",
		b.Median, pctOf(b.Median, spec, string(b.Precision)), b.Min, 100*b.CV, len(b.Samples), b.Engine)
	spec.judge(&c, key, b.Median, "TFLOP/s", known)
	if b.Fallback != "" {
		c.Detail = strings.TrimPrefix(c.Detail+"; "+b.Fallback, "; ")
	}
	if c.Verdict == wire.Pass && b.CV > maxCV {
		c.Verdict = wire.Warn
		c.SetDetail("throughput unsteady: CV %.1f %% over %.0f %%", 100*b.CV, 100*maxCV)
	}
	out = append(out, c)
	if b.Monitor != nil {
		out = append(out, judgeMonitor(name, b.GPU, *b.Monitor)...)
	}
	return out
}

// steadyCriterion is the power stability criterion (probe/stress monitor.go,
// steadyPart), of maxPowerFluctPct.
const steadyCriterion = "every reading of the steady part (after the ramp) within ±%g %% of its mean"

// powerValue describes the power readings: over the steady part when
// there is one, else over the readings after warm-up.
func powerValue(m result.Monitor) wire.Text {
	over := wire.T("readings %d–%d of %d", m.SteadyFrom+1, m.Samples, m.Samples)
	if m.PowerUnjudged != "" {
		over = wire.T("%d readings, no steady part", m.Samples)
	}
	if m.SteadySamples == 0 && m.PowerUnjudged == "" {
		over = wire.T("%d readings", m.Samples) // summarised before the steady rule
	}
	return wire.T("%.0f W mean, %.0f–%.0f W (±%.1f %%; %s)", m.PowerMeanW, m.PowerMinW, m.PowerMaxW, m.PowerFluctPct, over)
}

// powerSwing is the check name (gpu.power.swing, gpu.soak.<precision>.power.swing): the steady part's largest distance
// from its mean, in %, as a number — the seed's "整机功耗 nvidia-smi dmon:
// 满载时功率波动在5%以内", which the trial judges on the power test and the
// soak (sla/trial). Over 5 % warns, as the phase's power check does; none
// where the phase has no steady part to measure.
func powerSwing(name string, gpu int, m *result.Monitor) (wire.Check, bool) {
	if m == nil || m.Samples == 0 || m.PowerUnjudged != "" || m.SteadySamples == 0 {
		return wire.Check{}, false
	}
	c := wire.Check{Name: name, Category: wire.CategoryPerformance, GPU: gpuPtr(gpu), Unit: "%",
		Number: num(m.PowerFluctPct), Verdict: wire.Pass}
	c.SetCriterion("≤ %g %% (the seed: 满载时功率波动在5%%以内)", maxPowerFluctPct)
	c.SetValue("±%s %% of the %.0f W mean over readings %d–%d", strconv.FormatFloat(m.PowerFluctPct, 'f', swingDigits(m.PowerFluctPct), 64),
		m.PowerMeanW, m.SteadyFrom+1, m.Samples)
	if m.PowerFluctPct > maxPowerFluctPct {
		c.Verdict = wire.Warn
		c.SetDetail("power unsteady at full load: over ±%g %%", maxPowerFluctPct)
	}
	return c, true
}

// swingDigits is the decimals that print a swing on its own side of the
// 5 % line (5.004 % as 5.004, never as 5.00).
func swingDigits(v float64) int {
	for d := 2; d < 6; d++ {
		p := math.Pow(10, float64(d))
		if (math.Round(v*p)/p > maxPowerFluctPct) == (v > maxPowerFluctPct) {
			return d
		}
	}
	return 6
}

// judgeMonitor judges what NVML showed during a burn.
func judgeMonitor(prefix string, gpu int, m result.Monitor) []wire.Check {
	if m.Samples == 0 {
		c := wire.Check{Name: prefix + ".power", Category: wire.CategoryGPUDegraded, GPU: gpuPtr(gpu), Verdict: wire.Skipped}
		c.SetDetail("no NVML samples: %s", strings.Join(m.Errors, "; "))
		return []wire.Check{c}
	}
	var out []wire.Check
	p := wire.Check{Name: prefix + ".power", Category: wire.CategoryPerformance, GPU: gpuPtr(gpu),
		Number: num(m.PowerMeanW), Unit: "W", Verdict: wire.Pass}
	p.SetCriterion(steadyCriterion, maxPowerFluctPct)
	p.Value, p.ValueText = wire.Put(powerValue(m))
	if m.PowerLimitW > 0 {
		p.SetValue("%s, %.0f %% of the %.0f W limit", powerValue(m), 100*m.PowerMeanW/m.PowerLimitW, m.PowerLimitW)
	}
	switch {
	case m.PowerUnjudged != "":
		p.Verdict, p.Detail = wire.Skipped, m.PowerUnjudged
	case m.PowerFluctPct > maxPowerFluctPct:
		p.Verdict = wire.Warn
		p.SetDetail("power unsteady: a reading of the steady part %.1f %% from its mean, over ±%g %%", m.PowerFluctPct, maxPowerFluctPct)
	}
	out = append(out, p)

	t := wire.Check{Name: prefix + ".thermal", Category: wire.CategoryGPUDegraded, GPU: gpuPtr(gpu),
		Number: num(m.TempPeakC), Unit: "°C", Verdict: wire.Pass}
	t.SetValue("peak %.0f °C; SM clock median %.0f MHz, min %.0f", m.TempPeakC, m.SMClockMedian, m.SMClockMin)
	if m.MaxSMClockMHz > 0 {
		t.SetValue("peak %.0f °C; SM clock median %.0f MHz, min %.0f (max %.0f)", m.TempPeakC, m.SMClockMedian, m.SMClockMin, m.MaxSMClockMHz)
	}
	t.Criterion = "below the slowdown temperature; no thermal or hardware slowdown"
	if m.SlowdownC > 0 {
		t.SetCriterion("below the %.0f °C slowdown temperature; no thermal or hardware slowdown", m.SlowdownC)
		if m.TempPeakC >= m.SlowdownC {
			t.Verdict = wire.Fail
		}
	}
	var bad, info []string
	keys := make([]string, 0, len(m.EventSamples))
	for k := range m.EventSamples {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := fmt.Sprintf("%s in %d of %d samples", k, m.EventSamples[k], m.Samples)
		if k == "sw_power_cap" {
			info = append(info, s) // at the power limit under burn: expected
		} else {
			bad = append(bad, s)
		}
	}
	if len(bad) > 0 {
		t.Verdict = wire.Fail
	}
	t.Detail = strings.Join(append(bad, info...), "; ")
	out = append(out, t)

	x := wire.Check{Name: prefix + ".xid", Category: wire.CategoryGPUDegraded, GPU: gpuPtr(gpu),
		Number: num(float64(len(m.XIDs))), Verdict: wire.Pass, Criterion: "no XID error during the burn"}
	x.SetValue("%d XID events", len(m.XIDs))
	if len(m.XIDs) > 0 {
		x.Verdict = wire.Fail
		x.SetDetail("XIDs %s", fmt.Sprint(m.XIDs))
	}
	out = append(out, x)
	return out
}

// judgeBandwidth judges one copy measurement against the model's threshold.
func judgeBandwidth(r result.Bandwidth, key string, spec Spec, known bool) []wire.Check {
	name := "gpu.bw." + r.Test
	if r.Peer != nil {
		name = fmt.Sprintf("gpu.bw.p2p.%d-%d", r.GPU, *r.Peer)
	}
	c := wire.Check{Name: name, Category: wire.CategoryPerformance, GPU: gpuPtr(r.GPU), Unit: "GB/s"}
	switch {
	case r.Skipped != "":
		c.Verdict, c.Detail = wire.Skipped, r.Skipped
		return []wire.Check{c}
	case r.Error != "":
		c.Category, c.Verdict, c.Detail = wire.CategoryGPUDegraded, wire.Fail, r.Error
		return []wire.Check{c}
	}
	c.Number = num(r.BestGBs)
	c.SetValue("%.0f GB/s best, %.0f median (%s, %s, %d × %d MiB)%s",
		r.BestGBs, r.MedianGB, r.Method, r.Counting, r.Reps, r.Bytes>>20, pctOf(r.BestGBs, spec, key))
	spec.judge(&c, key, r.BestGBs, "GB/s", known)
	out := []wire.Check{c}
	if r.BadWords != 0 {
		v := wire.Check{Name: name + ".data", Category: wire.CategoryGPUDegraded, GPU: gpuPtr(r.GPU),
			Verdict: wire.Fail, Criterion: "copied data identical to the source", Number: num(float64(r.BadWords)), Unit: "words"}
		v.SetValue("%d words wrong after the copies", r.BadWords)
		if r.BadWords < 0 {
			v.Verdict, v.Value = wire.Skipped, "not verified"
		}
		out = append(out, v)
	}
	return out
}

// judgeMemtest judges the pattern test.
func judgeMemtest(m result.Memtest) wire.Check {
	c := wire.Check{Name: "gpu.memtest", Category: wire.CategoryGPUDegraded, GPU: gpuPtr(m.GPU),
		Criterion: "0 bad words", Unit: "words"}
	switch {
	case m.Skipped != "":
		c.Verdict, c.Detail = wire.Skipped, m.Skipped
		return c
	case m.Error != "" && m.Passes == 0:
		c.Verdict, c.Detail = wire.Fail, m.Error
		return c
	}
	c.Number = num(float64(m.BadWords))
	c.SetValue("%d bad words in %.1f GiB × %d passes (%s)", m.BadWords, float64(m.Bytes)/(1<<30), m.Passes, strings.Join(m.Patterns, ", "))
	c.Verdict = wire.Pass
	if m.BadWords > 0 || m.Error != "" {
		c.Verdict = wire.Fail
		c.SetDetail("first bad addresses: %s", strings.Join(m.BadAddrs, " "))
		if m.Injected {
			c.Detail += "; fault injection was on (--fault-inject), one bad word was planted"
		}
		if m.Error != "" {
			c.Detail += "; " + m.Error
		}
	}
	return c
}

// NVLinks fails a GPU whose links are partly down: a card with some
// links active and others not runs peer traffic at a fraction of its rate.
func NVLinks(gpu int, links []bool, err error) (wire.Check, bool) {
	c := wire.Check{Name: "gpu.nvlink", Category: wire.CategoryGPUDegraded, GPU: gpuPtr(gpu),
		Criterion: "every NVLink active"}
	if err != nil {
		c.Verdict, c.Detail = wire.Skipped, err.Error()
		return c, true
	}
	if len(links) == 0 {
		return c, false
	}
	active := 0
	for _, a := range links {
		if a {
			active++
		}
	}
	c.Number, c.Unit = num(float64(active)), "links"
	c.SetValue("%d of %d links active", active, len(links))
	c.Verdict = wire.Pass
	if active < len(links) {
		c.Verdict = wire.Fail
	}
	return c, true
}

// The FP32 burn is FFMA chains on every SM, so its throughput is fixed by
// the SM count and clock: SMs x cores per SM x 2 FLOPs x clock. On a
// healthy H200 it reaches 0.976 of that (65.3 of 66.9 TFLOP/s at 1980
// MHz). A card whose SMs are fewer than the driver reports (a shim, a
// relabelled cut-down chip) cannot reach it: below fitWarn it warns,
// below fitFail it fails.
const (
	fitWarn = 0.90
	fitFail = 0.80
)

// judgeFit holds the FP32 burn to what the reported SM count at the
// clock NVML saw during the burn can do.
func judgeFit(b result.Burn, g *result.GPU) (wire.Check, bool) {
	if b.Precision != result.FP32 || b.Skipped != "" || b.Launches == 0 || g == nil {
		return wire.Check{}, false
	}
	c := wire.Check{Name: "gpu.burn.fp32.fit", Category: wire.CategoryInventory, GPU: gpuPtr(b.GPU), Unit: "ratio"}
	c.SetCriterion("≥ %.2f x SMs x cores per SM x 2 x SM clock (a healthy H200 reaches 0.976)", fitWarn)
	perSM := specdb.CoresPerSM(g.CC)
	switch {
	case perSM == 0 || g.SMs == 0:
		c.Verdict = wire.Skipped
		c.SetDetail("SM count %d or compute capability %q unknown", g.SMs, g.CC)
		return c, true
	case b.Monitor == nil || b.Monitor.SMClockMedian <= 0:
		c.Verdict, c.Detail = wire.Skipped, "no NVML SM clock reading during the burn"
		return c, true
	}
	limit := float64(g.SMs*perSM) * 2 * b.Monitor.SMClockMedian * 1e6 / 1e12
	r := b.Median / limit
	c.Number = num(r)
	c.SetValue("%.3f: %.1f of %.1f TFLOP/s that %d SMs x %d cores at %.0f MHz can do", r, b.Median, limit, g.SMs, perSM, b.Monitor.SMClockMedian)
	switch {
	case r < fitFail:
		c.Verdict = wire.Fail
		c.SetDetail("the burn did %.0f %% of what %d SMs can: the card has fewer working SMs than it reports, or they are throttled in a way NVML does not show", 100*r, g.SMs)
	case r < fitWarn:
		c.Verdict = wire.Warn
		c.SetDetail("the burn did %.0f %% of what %d SMs can", 100*r, g.SMs)
	default:
		c.Verdict = wire.Pass
	}
	return c, true
}
