package health

import (
	"fmt"
	"strings"

	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/wire"
)

// Temperature: the margin to the slowdown threshold, where the GPU starts
// cutting its clocks. An idle rental well below it is normal; close to it
// means poor cooling.
type Temperature struct{}

// TempMarginWarnC is the margin below which a GPU is running hot.
const TempMarginWarnC = 10

func (Temperature) Name() string { return "temperature" }

func (Temperature) Check(in Input) []wire.Check {
	return perGPU(in, func(d *gpu.Device) []wire.Check {
		if d.TemperatureC == nil {
			return []wire.Check{skipped("gpu.temperature", "below the slowdown threshold", "temperature not readable")}
		}
		t := float64(*d.TemperatureC)
		c := wire.Check{Name: "gpu.temperature", Verdict: wire.Pass, Value: fmt.Sprintf("%.0f °C", t), Number: num(t), Unit: "°C"}
		if d.SlowdownThresholdC == nil {
			c.Criterion = "slowdown threshold unknown"
			return []wire.Check{c}
		}
		slow := float64(*d.SlowdownThresholdC)
		margin := slow - t
		c.SetValue("%.0f °C (%.0f °C below slowdown)", t, margin)
		c.SetCriterion("at least %d °C below the slowdown threshold %.0f °C", TempMarginWarnC, slow)
		switch {
		case margin <= 0:
			c.Verdict = wire.Fail
			c.SetDetail("%.0f °C is at or above the slowdown threshold %.0f °C: the GPU is throttling", t, slow)
		case margin < TempMarginWarnC:
			c.Verdict = wire.Warn
			c.SetDetail("only %.0f °C below the slowdown threshold", margin)
		}
		return []wire.Check{c}
	})
}

// Power: the draw against the enforced limit. At rest the draw only tells
// that the card is alive; a draw over the limit means broken sensing.
type Power struct{}

func (Power) Name() string { return "power" }

func (Power) Check(in Input) []wire.Check {
	return perGPU(in, func(d *gpu.Device) []wire.Check {
		if d.PowerUsageW == nil {
			return []wire.Check{skipped("gpu.power.draw", "within the enforced limit", "power draw not readable")}
		}
		c := wire.Check{Name: "gpu.power.draw", Verdict: wire.Pass, Value: fmt.Sprintf("%.0f W", *d.PowerUsageW), Number: num(*d.PowerUsageW), Unit: "W",
			Criterion: "within the enforced limit"}
		if d.PowerEnforcedLimitW != nil {
			c.SetValue("%.0f W of %.0f W", *d.PowerUsageW, *d.PowerEnforcedLimitW)
			if *d.PowerUsageW > 1.1**d.PowerEnforcedLimitW {
				c.Verdict = wire.Warn
				c.SetDetail("drawing more than %d %% of the enforced limit: power sensing or limiting is faulty", 110)
			}
		}
		return []wire.Check{c}
	})
}

// Clock event reasons (NVML's nvmlClocksEventReason bits).
const (
	reasonIdle          = 0x1
	reasonAppClocks     = 0x2
	reasonSWPowerCap    = 0x4
	reasonHWSlowdown    = 0x8
	reasonSyncBoost     = 0x10
	reasonSWThermal     = 0x20
	reasonHWThermal     = 0x40
	reasonHWPowerBrake  = 0x80
	reasonDisplayClocks = 0x100
)

type reason struct {
	bit     uint64
	name    string
	verdict string
}

// reasons in the order they are reported. Idle, sync boost and display
// clocks are normal operation; software caps warn; hardware slowdowns are
// faults (failing cooling or power delivery).
var reasons = []reason{
	{reasonHWSlowdown, "hardware slowdown", wire.Fail},
	{reasonHWThermal, "hardware thermal slowdown", wire.Fail},
	{reasonHWPowerBrake, "hardware power brake", wire.Fail},
	{reasonSWThermal, "software thermal slowdown", wire.Warn},
	{reasonSWPowerCap, "software power cap", wire.Warn},
	{reasonAppClocks, "application clocks setting", wire.Warn},
	{0x200, "board limit", wire.Warn},
	{0x400, "reliability limit", wire.Warn},
	{reasonIdle, "idle", wire.Pass},
	{reasonSyncBoost, "sync boost", wire.Pass},
	{reasonDisplayClocks, "display clock setting", wire.Pass},
}

// ClockEvents: why clocks are below their maximum right now.
type ClockEvents struct{}

func (ClockEvents) Name() string { return "clock_events" }

// clockEventsCriterion is what a GPU's clock event reasons pass by.
const clockEventsCriterion = "no thermal, power or hardware slowdown (idle is fine)"

func (ClockEvents) Check(in Input) []wire.Check {
	// Under the probe's own burn the power cap is expected, not a fault.
	ownLoad := in.GPU != nil && in.GPU.OwnWork != nil && in.GPU.OwnWork.Running
	return perGPU(in, func(d *gpu.Device) []wire.Check {
		if d.ClockEventReasons == nil {
			return []wire.Check{skipped("gpu.clock_events", clockEventsCriterion, "clock event reasons not readable")}
		}
		bits := *d.ClockEventReasons
		c := wire.Check{Name: "gpu.clock_events", Verdict: wire.Pass, Criterion: clockEventsCriterion, Number: num(float64(bits))}
		var names, faults []string
		var capped *wire.Text
		for _, r := range reasons {
			if bits&r.bit == 0 {
				continue
			}
			names = append(names, r.name)
			if r.bit == reasonSWPowerCap && ownLoad {
				t := wire.T("software power cap: expected, %s", wire.T(OwnStressRunning))
				capped = &t
				c.Detail, c.DetailText = wire.Put(t)
				continue
			}
			if r.verdict != wire.Pass {
				faults = append(faults, r.name)
				if c.Verdict != wire.Fail {
					c.Verdict = r.verdict
				}
			}
		}
		c.SetValue("0x%x (none)", bits)
		if len(names) > 0 {
			c.SetValue("0x%x (%s)", bits, strings.Join(names, ", "))
		}
		switch {
		case len(faults) > 0 && capped != nil:
			c.SetDetail("clocks held down by %s; %s", strings.Join(faults, ", "), *capped)
		case len(faults) > 0:
			c.SetDetail("clocks held down by %s", strings.Join(faults, ", "))
		}
		return []wire.Check{c}
	})
}
