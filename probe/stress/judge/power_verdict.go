package judge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// powerSpec is the power test's threshold for one model: the spec
// database's `stress.power` (min: mean watts a healthy card of the model
// holds in the test; official: the model's default power limit).
type powerSpec struct {
	Model         string
	Min, Official float64
	Warn          float64 // warn below (0: no warn band)
	Source        string
	Known         bool
}

func powerSpecOf(g *result.GPU) powerSpec {
	if g == nil {
		return powerSpec{}
	}
	id, sub := g.IDs()
	return powerSpecFrom(specdb.Default(), id, sub)
}

func powerSpecFrom(db *specdb.DB, deviceID, subsystemID uint16) powerSpec {
	m, ok := db.Lookup(deviceID, subsystemID)
	if !ok {
		return powerSpec{}
	}
	t, ok := m.Threshold("stress.power")
	if !ok || t.Min <= 0 {
		return powerSpec{Model: m.DisplayName()}
	}
	return powerSpec{Model: m.DisplayName(), Min: t.Min, Warn: t.Warn, Official: t.Official, Source: t.Source, Known: true}
}

// judgePower turns the power test of one GPU into checks:
//   - gpu.power.errors: any wrong tensor result or copied word, or a driver
//     error (gpu_degraded);
//   - gpu.power: mean power of the main phase against the model's
//     calibrated minimum, with the % of the model's and of the enforced
//     limit (performance_below_spec; warn when a reading of the steady part
//     strays more than ±5 % from its mean, probe/stress monitor.go steadyPart);
//   - gpu.power.thermal and gpu.power.xid as for the burns. Reaching the
//     power limit is the point of this test, so the SW power cap is
//     reported and never failed; thermal and hardware slowdown, the power
//     brake and temperature at the slowdown threshold fail, in the tuning
//     as in the main phase.
func judgePower(p result.Power, spec powerSpec) []wire.Check {
	c := wire.Check{Name: "gpu.power", Category: wire.CategoryGPUDegraded, GPU: gpuPtr(p.GPU), Unit: "W"}
	switch {
	case p.Skipped != "":
		c.Verdict, c.Detail = wire.Skipped, p.Skipped
		return []wire.Check{c}
	case p.Error != "" && p.Launches == 0:
		c.Verdict = wire.Fail
		c.SetDetail("power test could not run: %s", p.Error)
		return []wire.Check{c}
	}
	out := []wire.Check{judgePowerErrors(p)}
	c.Category = wire.CategoryPerformance
	m := p.Monitor
	if m == nil || m.Samples == 0 {
		c.Verdict = wire.Skipped
		c.Detail = "no NVML power readings"
		if m != nil && len(m.Errors) > 0 {
			c.SetDetail("no NVML power readings: %s", strings.Join(m.Errors, "; "))
		}
		return append(out, c)
	}
	judgePowerDraw(&c, p, *m, spec)
	out = append(out, c)
	if s, ok := powerSwing("gpu.power.swing", p.GPU, m); ok {
		out = append(out, s)
	}
	return append(out, judgePowerMonitor(p, *m)...)
}

// judgePowerErrors is gpu.power.errors: every tensor result and copied
// word of the test checked, and any driver error during it.
func judgePowerErrors(p result.Power) wire.Check {
	e := wire.Check{Name: "gpu.power.errors", Category: wire.CategoryGPUDegraded, GPU: gpuPtr(p.GPU),
		Criterion: "0 wrong tensor results against the host reference, 0 wrong copied words",
		Number:    num(float64(p.Mismatches + p.CopyBad)), Unit: "values", Verdict: wire.Pass}
	e.SetValue("%d wrong of %d tensor results, %d wrong of %d copied words, in %d launches",
		p.Mismatches, p.Checked, p.CopyBad, p.CopyChecked, p.Launches)
	var why []wire.Text
	if p.Mismatches > 0 {
		e.Verdict = wire.Fail
		if len(p.FirstBad) > 0 {
			f := p.FirstBad[0]
			why = append(why, wire.T("first tensor result: launch %d element %d = %g, want %g", f.Launch, f.Index, f.Got, f.Want))
		}
	}
	if p.CopyBad > 0 {
		e.Verdict = wire.Fail
		if len(p.CopyFirstBad) > 0 {
			why = append(why, wire.T("first copied word wrong at word offset %d", p.CopyFirstBad[0]))
		}
	}
	if e.Verdict == wire.Fail && p.Injected {
		why = append(why, wire.T("fault injection was on (--fault-inject): one tensor result and one copied word were planted"))
	}
	if p.Error != "" {
		e.Verdict = wire.Fail
		why = append(why, wire.T("driver error during the test: %s", p.Error))
	}
	if len(why) > 0 {
		e.Detail, e.DetailText = wire.Put(wire.Join(why))
	}
	return e
}

// judgePowerDraw fills in gpu.power from the main phase's NVML readings:
// the mean draw against the model's calibrated minimum (and warn band),
// then notes on a capped power limit and on unsteady power.
func judgePowerDraw(c *wire.Check, p result.Power, m result.Monitor, spec powerSpec) {
	c.Number = num(m.PowerMeanW)
	v := powerValue(m)
	if spec.Official > 0 {
		v = wire.T("%s, %.1f %% of the model's %g W", v, 100*m.PowerMeanW/spec.Official, spec.Official)
	}
	if m.PowerLimitW > 0 {
		v = wire.T("%s, %.1f %% of the enforced %.0f W limit", v, 100*m.PowerMeanW/m.PowerLimitW, m.PowerLimitW)
	}
	c.SetValue("%s; %.1f TFLOP/s and %.0f GB/s copy at once (%s; %s)", v, p.Median, p.CopyGBs, p.Mix, p.Tuned)
	var notes []wire.Text
	switch {
	case !spec.Known:
		c.Verdict = wire.Skipped
		notes = append(notes, wire.T("no calibrated power threshold for this GPU model"))
	case m.PowerMeanW < spec.Min:
		c.Verdict = wire.Fail
		c.SetCriterion("≥ %g W (%s)", spec.Min, spec.Source)
	case m.PowerMeanW < spec.Warn:
		c.Verdict = wire.Warn
		c.SetCriterion("≥ %g W (%s)", spec.Min, spec.Source)
		notes = append(notes, wire.T("below the %g W a healthy card is expected to draw", spec.Warn))
	default:
		c.Verdict = wire.Pass
		c.SetCriterion("≥ %g W (%s)", spec.Min, spec.Source)
	}
	if spec.Official > 0 && m.PowerLimitW > 0 && m.PowerLimitW < spec.Official-1 {
		notes = append(notes, wire.T("the enforced power limit %.0f W is below the model's %g W: the card is capped", m.PowerLimitW, spec.Official))
	}
	switch {
	case m.PowerUnjudged != "":
		notes = append(notes, wire.T("stability not judged: %s", m.PowerUnjudged))
	case m.PowerFluctPct > maxPowerFluctPct:
		if c.Verdict == wire.Pass {
			c.Verdict = wire.Warn
		}
		notes = append(notes, wire.T("power unsteady: a reading of the steady part %.1f %% from its mean, over ±%g %%", m.PowerFluctPct, maxPowerFluctPct))
	}
	if len(notes) > 0 {
		c.Detail, c.DetailText = wire.Put(wire.Join(notes))
	}
}

// judgePowerMonitor is temperature, clock-event reasons and XIDs as for
// the burns, with the tuning's clock events added to the thermal check;
// the monitor's own power check is replaced by gpu.power.
func judgePowerMonitor(p result.Power, m result.Monitor) []wire.Check {
	var out []wire.Check
	for _, x := range judgeMonitor("gpu.power", p.GPU, m) {
		if x.Name == "gpu.power.power" {
			continue
		}
		if x.Name == "gpu.power.thermal" {
			judgeTuneEvents(&x, p)
		}
		out = append(out, x)
	}
	return out
}

// judgeTuneEvents adds the clock-event reasons seen while tuning to the
// thermal check: a slowdown then is as much a fault as in the main phase.
func judgeTuneEvents(t *wire.Check, p result.Power) {
	keys := make([]string, 0, len(p.TuneEvents))
	for k := range p.TuneEvents {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s in %d of %d tuning readings", k, p.TuneEvents[k], p.TuneSamples))
		if k != "sw_power_cap" {
			t.Verdict = wire.Fail
		}
	}
	if len(parts) > 0 {
		t.Detail = strings.TrimPrefix(t.Detail+"; "+strings.Join(parts, "; "), "; ")
	}
}
