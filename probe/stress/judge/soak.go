package judge

import (
	"fmt"

	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// The soak is the seed's "连续执行多轮矩阵运算, 对比算力输出曲线是否平稳": one
// long burn (up to the seed's 30 minutes), every result checked like any
// burn, whose per-second throughput curve must stay flat. A card that
// holds its clocks for the first minutes and then throttles — poor
// cooling, a power supply that sags when hot — passes a short burn and
// fails here.
//
// The curve's first soakRampSeconds are the clock and power ramp and are
// left out (a burn's own first sample already is). The rest, the steady
// curve, is cut into quarters: the sag is how far the last quarter's
// median lies below the first quarter's, in %. Thresholds: more than
// soakWarnSagPct warns, more than soakFailSagPct fails (a card losing a
// twentieth of its throughput under sustained load is throttling: on an
// H200 that is the clock falling from 1980 MHz below ~1880); a CV of the
// steady curve above maxCV (5 %, as for every burn) warns. A healthy H200
// holds its burns at a CV of 0.02 % and the same throughput within 1 %
// from run to run, so 2 % is far outside a healthy card's noise. These
// are provisional: no 30-minute soak of a healthy card has been recorded
// yet (docs/BENCHMARKS.md).
const (
	soakRampSeconds = 10
	// SoakMinSamples is the shortest steady curve judged: four quarters
	// of ten seconds each (a soak of at least a minute is asked for).
	SoakMinSamples = 40
	soakWarnSagPct = 2.0
	soakFailSagPct = 5.0
)

// SoakCurve is the stability of a soak's per-second curve.
type SoakCurve struct {
	Samples  int     // steady samples judged
	FirstQ   float64 // median of the first steady quarter, TFLOP/s
	LastQ    float64 // median of the last quarter
	SagPct   float64 // (FirstQ - LastQ) / FirstQ, in %
	CV       float64 // of the steady curve
	Unjudged string  // why the curve is not judged (too short)
	RampLeft int     // leading samples left out
}

// soakStability measures a per-second throughput curve.
func soakStability(perSecond []float64) SoakCurve {
	c := SoakCurve{RampLeft: min(soakRampSeconds, len(perSecond))}
	steady := perSecond[c.RampLeft:]
	c.Samples = len(steady)
	if len(steady) < SoakMinSamples {
		c.Unjudged = fmt.Sprintf("the soak gave %d per-second samples after its %d-second ramp, fewer than the %d its stability needs (a soak of at least a minute)",
			len(steady), soakRampSeconds, SoakMinSamples)
		return c
	}
	q := len(steady) / 4
	c.FirstQ, c.LastQ = result.Median(steady[:q]), result.Median(steady[len(steady)-q:])
	if c.FirstQ > 0 {
		c.SagPct = 100 * (c.FirstQ - c.LastQ) / c.FirstQ
	}
	c.CV = result.CV(steady)
	return c
}

// judgeSoak is the soak's checks: those of any burn (errors, throughput,
// power, thermal, XID) under gpu.soak.<precision>, and the curve's
// stability.
func judgeSoak(b result.Burn, spec Spec, known bool) []wire.Check {
	name := "gpu.soak." + string(b.Precision)
	out := judgeBurn(name, b, spec, known)
	if b.Skipped != "" || b.Launches == 0 {
		return out
	}
	out = append(out, wire.Check{Name: name + ".duration", Category: wire.CategoryPerformance, GPU: gpuPtr(b.GPU), Unit: "s",
		Number: num(b.Seconds), Verdict: wire.Pass, Value: fmt.Sprintf("%.1f s (%.2f min)", b.Seconds, b.Seconds/60),
		Criterion: "recorded: the seed's gpu_burn runs 30 min (1800 s) without an error"})
	if s, ok := powerSwing(name+".power.swing", b.GPU, b.Monitor); ok {
		out = append(out, s)
	}
	c := soakStability(b.Samples)
	s := wire.Check{Name: name + ".stability", Category: wire.CategoryPerformance, GPU: gpuPtr(b.GPU), Unit: "%"}
	s.SetCriterion("the last quarter's median within %g %% of the first steady quarter's (fail beyond %g %%), CV ≤ %g %%",
		soakWarnSagPct, soakFailSagPct, 100*maxCV)
	if c.Unjudged != "" {
		s.Verdict, s.Detail = wire.Skipped, c.Unjudged
		return append(out, s)
	}
	s.Number = num(c.SagPct)
	s.SetValue("last quarter %.1f vs first steady quarter %.1f TFLOP/s (%+.1f %%), CV %.2f %% over %d s (first %d s left out)",
		c.LastQ, c.FirstQ, -c.SagPct, 100*c.CV, c.Samples, c.RampLeft)
	switch {
	case c.SagPct > soakFailSagPct:
		s.Verdict = wire.Fail
		s.SetDetail("throughput sagged %.1f %% under sustained load: the card throttles (cooling or power delivery)", c.SagPct)
	case c.SagPct > soakWarnSagPct:
		s.Verdict = wire.Warn
		s.SetDetail("throughput sagged %.1f %% under sustained load", c.SagPct)
	case c.CV > maxCV:
		s.Verdict = wire.Warn
		s.SetDetail("throughput unsteady: CV %.1f %% over %.0f %%", 100*c.CV, 100*maxCV)
	default:
		s.Verdict = wire.Pass
	}
	return append(out, s)
}
