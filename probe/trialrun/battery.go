package trialrun

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/netcheck"
	"github.com/gpusla/gpusla/probe/stress"
	"github.com/gpusla/gpusla/probe/stress/judge"
	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// BatteryOptions choose the battery's parts and lengths.
type BatteryOptions struct {
	// Acceptance are the read-only groups of `gpuprobe check` (GPU,
	// cross-check, host, network): the four steps after delivery.
	Acceptance []checkrun.Group
	Probe      string
	Burn       time.Duration // each precision's burn
	Soak       time.Duration // the soak; 0: none
	Power      time.Duration // the power test's main phase at the cap
	// OneGPU: the order or the node says one GPU, so there is nothing to
	// all-reduce across (the step is left out; the row says so).
	OneGPU bool
	// Iperf measures the bandwidth to the peer (its Spec.Iperf3 set); nil:
	// no peer, no step.
	Iperf *netcheck.Checker
	Own   stress.OwnWork
	Force bool
}

// Setup times measured on one H200 (docs/BENCHMARKS.md): each stress run
// opens the driver and NVML and readies every GPU (~1 s), each burn
// calibrates for about a second, the power test's full tuning is eight
// mixes of ~1.7 s.
const (
	runSetup   = 2 * time.Second
	burnSetup  = 1500 * time.Millisecond
	powerTune  = 14 * time.Second
	readChecks = 15 * time.Second
	copyTests  = 20 * time.Second
	allReduce  = 40 * time.Second
)

// Battery is the seed's checklist as steps, in its order.
func Battery(b BatteryOptions) []Step {
	steps := []Step{{Name: "the four steps after delivery (nvidia-smi against the order, gpustat idle, df -h, curl -I the mirror, ping the gateway)",
		Planned: readChecks, Idle: true, Run: func(ctx context.Context) []wire.Check {
			_, rep, err := (&checkrun.Runner{Groups: b.Acceptance, Probe: b.Probe}).Live(ctx)
			if err != nil {
				return []wire.Check{{Name: "probe.trial.read", Category: wire.CategoryHost, Verdict: wire.Fail,
					Criterion: "the node's readings can be taken", Detail: err.Error()}}
			}
			return rep.Checks
		}}}
	precisions := result.AllPrecisions
	steps = append(steps, b.stressStep(fmt.Sprintf("burns (%s, %s each, every result checked)", names(precisions), b.Burn),
		time.Duration(len(precisions))*(b.Burn+burnSetup)+runSetup, func(o *stress.Options) { o.Burn, o.Precisions = b.Burn, precisions }))
	if b.Soak > 0 {
		var last *result.Report
		s := b.stressStep(fmt.Sprintf("soak (gpu_burn %s without error; the seed's is 30 min)", b.Soak), b.Soak+burnSetup+runSetup,
			func(o *stress.Options) { o.Soak = b.Soak }, &last)
		s.Curves = func() []checkrun.Curve { return SoakCurves(last) }
		steps = append(steps, s)
	}
	steps = append(steps,
		b.stressStep(fmt.Sprintf("power test (%s at the power cap, nvidia-smi dmon)", b.Power), b.Power+powerTune+runSetup,
			func(o *stress.Options) { o.Power = b.Power }),
		b.stressStep("bandwidth (bandwidthTest) and memory test", copyTests, func(o *stress.Options) { o.Bandwidth, o.Memtest = true, true }))
	if !b.OneGPU {
		steps = append(steps, b.stressStep("all-reduce (nccl-tests)", allReduce, func(o *stress.Options) { o.AllReduce, o.AllReduceMultiGPU = true, true }))
	}
	if b.Iperf != nil && b.Iperf.Spec.Iperf3 != nil {
		p := b.Iperf.Spec.Iperf3
		steps = append(steps, Step{Name: fmt.Sprintf("iperf3 to %s (against %g Mbit/s advertised)", p.Host, p.NominalMbps),
			Planned: p.Duration + 3*time.Second, Run: b.Iperf.Bandwidth})
	}
	return steps
}

// stressStep is one stress run that only set enables (everything off
// first); keep, when given, receives its report.
func (b BatteryOptions) stressStep(name string, planned time.Duration, set func(*stress.Options), keep ...**result.Report) Step {
	return Step{Name: name, Planned: planned, Run: func(ctx context.Context) []wire.Check {
		o := stress.DefaultOptions()
		o.Burn, o.Precisions, o.Bandwidth, o.Memtest = 0, nil, false, false
		o.Own, o.Force = b.Own, b.Force
		set(&o)
		rep, err := stress.Run(ctx, o)
		for _, k := range keep {
			*k = rep
		}
		return judge.RunChecks(ctx, rep, err)
	}}
}

func names(ps []result.Precision) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strings.ToUpper(string(p))
	}
	return strings.Join(s, ", ")
}

// SoakCurves are the per-second throughput curves of a run's soaks.
func SoakCurves(rep *result.Report) []checkrun.Curve {
	if rep == nil {
		return nil
	}
	var out []checkrun.Curve
	for _, b := range rep.Soaks {
		if len(b.Samples) == 0 {
			continue
		}
		g := b.GPU
		out = append(out, checkrun.Curve{Name: "gpu.soak." + string(b.Precision), GPU: &g, Unit: "TFLOP/s", PerSecond: b.Samples})
	}
	return out
}

// ReplayNotRun is why a replayed trial lists a step that measures a live
// card without running it.
const ReplayNotRun = "a recorded snapshot was replayed: this step measures a live card"

// Replay is the battery judged on the recorded snapshot s (named source)
// instead of the live machine: the four steps are the acceptance groups'
// verdicts on its readings, as `gpuprobe check --snapshot` gives them, and
// every step that measures a live card — the burns, the soak, the power
// test, bandwidth and the memory test, the all-reduce, iperf3 — is listed
// not run, its criteria not measured and so never a pass.
func Replay(b BatteryOptions, s *checkrun.Snapshot, source string) []Step {
	b.Soak = SeedSoak // listed, so that the record names the seed's soak as not run
	steps := Battery(b)
	steps[0].Planned = time.Second
	steps[0].Run = func(context.Context) []wire.Check {
		return (&checkrun.Runner{Groups: b.Acceptance, Probe: b.Probe}).Recorded(s, source).Checks
	}
	for i := 1; i < len(steps); i++ {
		steps[i].Planned, steps[i].Run, steps[i].Curves, steps[i].NotRun = 0, nil, nil, ReplayNotRun
	}
	return steps
}
