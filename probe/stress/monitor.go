package stress

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/gpusla/gpusla/probe/stress/result"
)

// Sampler reads a GPU's health counters. The live one is NVML
// (nvmlSampler); tests use a fake. GPUs are addressed by PCI bus id so that
// CUDA's and NVML's device orders cannot be confused.
type Sampler interface {
	// Static reads what does not change during a run.
	Static(busID string) (result.Static, error)
	// Sample reads the current counters and any XID events since the
	// previous Sample of that GPU.
	Sample(busID string) (Reading, error)
	// Busy lists other processes holding the GPU and its utilisation.
	Busy(busID string) (Busy, error)
	// NVLinks reports the state of each NVLink (true = active); nil when
	// the GPU has none.
	NVLinks(busID string) ([]bool, error)
}

// Reading is one sample of a GPU's counters.
type Reading struct {
	At          time.Time
	PowerW      float64
	TempC       float64
	SMClockMHz  float64
	ClockEvents uint64
	XIDs        []uint64
}

// Busy says whether other work uses a GPU.
type Busy struct {
	OtherPIDs      []uint32
	UtilizationPct float64
}

// warmupReadings is how many leading readings the clock statistics leave
// out. NVML's readings average the last second or so, and the first two
// of a burn still cover the previous phase's tail and the launch ramp.
// Fewer are left out of short burns so that something remains.
func warmupReadings(n int) int {
	switch {
	case n >= 5:
		return 2
	case n >= 3:
		return 1
	}
	return 0
}

// The steady part of a burn's power readings, over which the seed checklist's
// "power under full load within ±5 %" is judged. A burn's first readings
// are not the card's behaviour under load: NVML's power reading averages
// about the last second, so the first one or two still hold the previous
// phase or the idle card, and clocks and power ramp for a second or two
// after the launch (on an H200: 364 W in the second reading of a TF32 burn
// that then held 463 W ±0.2 %; a 2-second burn is all ramp, and was
// warned ±8–11 % on a healthy card). So:
//
//   - the burn's level is the median of the last half of its readings;
//   - the ramp is the first rampReadings readings, up to and including
//     the last of them more than steadyBandPct from that level — a
//     reading within the band followed by one outside it (the previous
//     phase's tail happening to match) does not end the ramp early;
//   - the steady part is everything after the ramp, and needs at least
//     minSteadyReadings readings; a shorter burn is not judged, and says
//     so (how many readings it had, how many it needs).
//
// Readings after the first rampReadings are always judged, so a card
// whose power wanders later in the burn is never excused as a ramp.
const (
	steadyBandPct     = 3.0
	rampReadings      = 5
	minSteadyReadings = 3
)

// steadyPart returns the index at which the steady part of power begins,
// or a reason why the readings have none.
func steadyPart(power []float64) (start int, unjudged string) {
	n := len(power)
	if n < minSteadyReadings {
		return n, fmt.Sprintf("the burn gave %d power reading(s), fewer than the %d a steady part needs (a burn of at least %d s); power stability is judged on longer burns",
			n, minSteadyReadings, minSteadyReadings+2)
	}
	level := result.Median(power[n/2:])
	for i := 0; i < min(rampReadings, n); i++ {
		if level > 0 && 100*math.Abs(power[i]-level)/level > steadyBandPct {
			start = i + 1
		}
	}
	if n-start < minSteadyReadings {
		return start, fmt.Sprintf("the power was still ramping in reading %d of %d (more than %g %% from the burn's level %.0f W), leaving %d steady reading(s), fewer than the %d needed to judge stability",
			start, n, steadyBandPct, level, n-start, minSteadyReadings)
	}
	return start, ""
}

var reasonNames = []struct {
	bit  uint64
	name string
}{
	{result.ClockSWPowerCap, "sw_power_cap"},
	{result.ClockHWSlowdown, "hw_slowdown"},
	{result.ClockSWThermal, "sw_thermal_slowdown"},
	{result.ClockHWThermal, "hw_thermal_slowdown"},
	{result.ClockHWPowerBrake, "hw_power_brake"},
}

// monitor samples every interval until ctx ends, then summarises.
func monitor(ctx context.Context, s Sampler, busID string, st result.Static, interval time.Duration) *result.Monitor {
	var rs []Reading
	m := &result.Monitor{PowerLimitW: st.PowerLimitW, SlowdownC: st.SlowdownC, MaxSMClockMHz: st.MaxSMClockMHz}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			summarise(m, rs)
			return m
		case <-t.C:
			r, err := s.Sample(busID)
			if err != nil {
				if len(m.Errors) < 5 {
					m.Errors = append(m.Errors, err.Error())
				}
				continue
			}
			rs = append(rs, r)
		}
	}
}

func summarise(m *result.Monitor, rs []Reading) {
	m.Samples = len(rs)
	if len(rs) == 0 {
		return
	}
	m.EventSamples = map[string]int{}
	var all, clocks []float64
	skip := warmupReadings(len(rs))
	for i, r := range rs {
		all = append(all, r.PowerW)
		m.PowerSamples = append(m.PowerSamples, math.Round(r.PowerW*10)/10)
		m.TempPeakC = math.Max(m.TempPeakC, r.TempC)
		m.ClockEvents |= r.ClockEvents
		for _, rn := range reasonNames {
			if r.ClockEvents&rn.bit != 0 {
				m.EventSamples[rn.name]++
			}
		}
		m.XIDs = append(m.XIDs, r.XIDs...)
		if i < skip {
			continue
		}
		clocks = append(clocks, r.SMClockMHz)
	}
	m.SteadyFrom, m.PowerUnjudged = steadyPart(all)
	power := all[m.SteadyFrom:]
	if m.PowerUnjudged != "" {
		// Still say what the card drew, over the readings after warm-up.
		power = all[skip:]
	}
	m.SteadySamples = len(all) - m.SteadyFrom
	m.PowerMeanW = result.Mean(power)
	m.PowerMinW, m.PowerMaxW = minOf(power), maxOf(power)
	if m.PowerMeanW > 0 {
		m.PowerFluctPct = 100 * math.Max(m.PowerMaxW-m.PowerMeanW, m.PowerMeanW-m.PowerMinW) / m.PowerMeanW
	}
	m.SMClockMedian = result.Median(clocks)
	m.SMClockMin = minOf(clocks)
}

// monitorGroup runs one monitor per GPU for the length of a phase.
type monitorGroup struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	out    []*result.Monitor
}

func startMonitors(ctx context.Context, s Sampler, busIDs []string, st []result.Static, interval time.Duration) *monitorGroup {
	g := &monitorGroup{out: make([]*result.Monitor, len(busIDs))}
	if s == nil {
		return g
	}
	ctx, g.cancel = context.WithCancel(ctx)
	for i, id := range busIDs {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			g.out[i] = monitor(ctx, s, id, st[i], interval)
		}()
	}
	return g
}

func (g *monitorGroup) stop() []*result.Monitor {
	if g.cancel != nil {
		g.cancel()
	}
	g.wg.Wait()
	return g.out
}
