package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/stress"
	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/trialrun"
	"github.com/gpusla/gpusla/probe/wire"
)

// stressFlags are the options `gpuprobe stress` and `gpuprobe check` share.
type stressFlags struct {
	burn        time.Duration
	tests       string
	memFraction float64
	copyMiB     uint64
	reps        int
	faultInject bool
	force       bool
	gpus        []int
	arMaxMiB    uint64
}

func (f *stressFlags) register(cmd *cobra.Command, burnDefault time.Duration) {
	fs := cmd.Flags()
	fs.DurationVar(&f.burn, "duration", burnDefault, "burn time for each precision, and of the power test's main phase (after its ~10 s tuning)")
	fs.StringVar(&f.tests, "tests", "fp32,fp64,tf32,bf16,fp16,fp8,bandwidth,memtest", "tests to run, comma separated: fp32, fp64, tf32, bf16, fp16, fp8 (E4M3 and E5M2; wgmma, compute capability 9.0 only), bandwidth (device, host and peer copies), memtest, power (tensor burn and memory copy at once, as near the power limit as the card goes; not in the default list), allreduce (NCCL all-reduce over every GPU, 8 B to --allreduce-max-mib, float32 and bfloat16, every result checked; needs libnccl.so.2; not in the default list)")
	fs.Uint64Var(&f.arMaxMiB, "allreduce-max-mib", 1024, "largest all-reduce message in MiB (a power of two, 1 to 16384)")
	fs.Float64Var(&f.memFraction, "memtest-fraction", 0.9, "share of free GPU memory the memory test writes and verifies")
	fs.Uint64Var(&f.copyMiB, "copy-mib", 4096, "device-to-device copy size in MiB")
	fs.IntVar(&f.reps, "reps", 10, "timed repetitions of each copy")
	fs.BoolVar(&f.faultInject, "fault-inject", false, "corrupt one result of every burn and one word of the memory test, to prove errors are caught (the run must then fail)")
	fs.BoolVar(&f.force, "force", false, "test GPUs even when other processes are using them")
	fs.IntSliceVar(&f.gpus, "gpus", nil, "CUDA ordinals of the GPUs to test (default all)")
}

func (f *stressFlags) options(log *slog.Logger) (stress.Options, error) {
	o := stress.DefaultOptions()
	o.Burn, o.MemtestFraction, o.Reps = f.burn, f.memFraction, f.reps
	o.CopyBytes = f.copyMiB << 20
	o.FaultInject, o.Force, o.GPUs, o.Log = f.faultInject, f.force, f.gpus, log
	if f.memFraction <= 0 || f.memFraction > 0.97 {
		return o, fmt.Errorf("--memtest-fraction %g: must be above 0 and at most 0.97", f.memFraction)
	}
	if f.reps < 1 {
		return o, fmt.Errorf("--reps %d: must be 1 or more", f.reps)
	}
	if f.copyMiB < 16 {
		return o, fmt.Errorf("--copy-mib %d: must be at least 16", f.copyMiB)
	}
	if f.arMaxMiB < 1 || f.arMaxMiB > 16384 || f.arMaxMiB&(f.arMaxMiB-1) != 0 {
		return o, fmt.Errorf("--allreduce-max-mib %d: must be a power of two from 1 to 16384", f.arMaxMiB)
	}
	o.AllReduceMaxBytes = f.arMaxMiB << 20
	o.Precisions, o.Bandwidth, o.Memtest = nil, false, false
	for _, t := range strings.Split(f.tests, ",") {
		switch t = strings.TrimSpace(t); t {
		case "fp32", "fp64", "tf32", "bf16", "fp16", "fp8":
			o.Precisions = append(o.Precisions, result.Precision(t))
		case "bandwidth":
			o.Bandwidth = true
		case "memtest":
			o.Memtest = true
		case "power":
			o.Power = f.burn
		case "allreduce":
			o.AllReduce = true
		case "":
		default:
			return o, fmt.Errorf("--tests: unknown test %q (want fp32, fp64, tf32, bf16, fp16, fp8, bandwidth, memtest, power, allreduce)", t)
		}
	}
	if len(o.Precisions) == 0 {
		o.Burn = 0
	}
	return o, nil
}

// signalContext is cancelled by SIGINT or SIGTERM, so that a stress run
// stops at its next launch and frees the GPU memory it holds.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func init() {
	commands = append(commands, func() *cobra.Command {
		var f stressFlags
		var asJSON bool
		cmd := &cobra.Command{
			Use:   "stress",
			Short: "Burn every GPU (FP32, FP64, TF32, BF16, FP16, FP8) with checked results, measure memory, PCIe and peer bandwidth, test memory",
			Long: `stress loads every GPU the CUDA driver sees. Each burn's results are compared,
element by element, with a reference the host computes, so a single wrong value
is counted. Throughput is sampled every second (median, minimum, coefficient of
variation) while NVML is read every second (power, temperature, SM clock,
clock-event reasons, XID errors). Then device-to-device, pinned host<->device and
peer-to-peer copies are timed and verified, and a pattern test writes and reads
back most of the free memory. Results are judged against the model's calibrated
thresholds, always beside the % of the official figure.

GPUs that other processes use are skipped unless --force. Clocks, power limits
and modes are never changed. SIGINT or SIGTERM stops the run at the next launch.

Exit status, as for check (docs/probe-check.md): 0 every check passed or
was skipped, 2 warnings but no failure, 3 at least one failure (no GPU to
test is one), 1 the command could not run (bad flags, driver errors).`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
				o, err := f.options(log)
				if err != nil {
					return err
				}
				ctx, stop := signalContext()
				defer stop()
				rep, runErr := stress.Run(ctx, o)
				if asJSON {
					enc := json.NewEncoder(cmd.OutOrStdout())
					enc.SetIndent("", "  ")
					if err := enc.Encode(rep); err != nil {
						return err
					}
				} else {
					printChecks(cmd.OutOrStdout(), rep.Checks)
				}
				switch {
				case errors.Is(runErr, stress.ErrNoGPU):
					fmt.Fprintln(cmd.ErrOrStderr(), "gpuprobe stress:", runErr)
					return exitError{code: checkrun.ExitFail}
				case runErr != nil:
					return runErr
				}
				if _, code := checkrun.Verdict(rep.Checks); code != checkrun.ExitPass {
					return exitError{code: code}
				}
				return nil
			},
		}
		f.register(cmd, 30*time.Second)
		cmd.Flags().BoolVar(&asJSON, "json", false, "print the full report as JSON")
		return cmd
	})
}

// printChecks writes one line a check: verdict, name, GPU, value, then
// the criterion and detail when there is one.
func printChecks(w io.Writer, cs []wire.Check) {
	for _, c := range cs {
		gpu := "   "
		if c.GPU != nil {
			gpu = fmt.Sprintf("[%d]", *c.GPU)
		}
		fmt.Fprintf(w, "%-7s %s %-24s %s\n", strings.ToUpper(c.Verdict), gpu, c.Name, c.Value)
		if c.Criterion != "" && c.Verdict != wire.Pass {
			fmt.Fprintf(w, "%40s want %s\n", "", c.Criterion)
		}
		if c.Detail != "" {
			fmt.Fprintf(w, "%40s %s\n", "", c.Detail)
		}
	}
}

// checkStress holds `gpuprobe check`'s stress flags: by default check runs
// an 18 s burn (3 s for each of six precisions), a phase at the power cap
// (the power test, with a two-mix tuning) and the bandwidth and memory
// tests; --quick shortens it, --full lengthens it, --no-stress leaves it
// out.
type checkStress struct {
	quick, full, none bool
	force             bool
	soak              time.Duration
	own               stress.OwnWork // set by checkGroups
}

func (s *checkStress) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.BoolVar(&s.quick, "quick", false, "short stress: 2 s burn a precision, bandwidth, memory test over a quarter of free memory (no power phase)")
	fs.BoolVar(&s.full, "full", false, "long stress: 60 s burn a precision, the power test (full tuning, 60 s at the cap), bandwidth, two rounds of the memory test over 90 % of free memory")
	fs.BoolVar(&s.none, "no-stress", false, "no burn, bandwidth or memory test (read-only checks only)")
	fs.BoolVar(&s.force, "force", false, "stress GPUs even when other processes are using them")
	fs.DurationVar(&s.soak, "soak", 0, "also run one long burn (1m to 30m; BF16 on tensor-core cards) and judge its per-second throughput curve for stability; the curve is in the --json report")
}

// options returns the stress options for the chosen mode, or false for
// --no-stress.
func (s *checkStress) options() (stress.Options, bool, error) {
	n := 0
	for _, b := range []bool{s.quick, s.full, s.none} {
		if b {
			n++
		}
	}
	if n > 1 {
		return stress.Options{}, false, fmt.Errorf("--quick, --full and --no-stress exclude each other")
	}
	if s.soak != 0 && (s.soak < config.MinSoak || s.soak > config.MaxSoak) {
		return stress.Options{}, false, fmt.Errorf("--soak %v: must be between %v and %v (the seed's 30-minute soak)", s.soak, config.MinSoak, config.MaxSoak)
	}
	o := stress.DefaultOptions()
	o.Force, o.Own, o.Soak = s.force, s.own, s.soak
	switch {
	case s.none:
		if s.soak > 0 {
			return o, false, fmt.Errorf("--soak runs in the stress group, which --no-stress leaves out")
		}
		return o, false, nil
	case s.quick:
		o.Burn, o.Reps, o.MemtestFraction = 2*time.Second, 3, 0.25
	case s.full:
		o.Burn, o.MemtestRounds = 60*time.Second, 2
		o.Power = 60 * time.Second // after the full ~13.4 s tuning
		// The fabric's collective, where there is a fabric: a one-GPU
		// node has nothing to all-reduce across.
		o.AllReduce, o.AllReduceMultiGPU = true, true
	default:
		// ≤ 40 s on one H200, also when the utilisation window before it
		// was busy and is read a second time (+5 s, nvmlread.ConfirmBusy):
		// burns 6 × 2 s = 12 s (+ ~0.3 s setup each; with 3 s burns the
		// check took 36.3–39.3 s, 41.1–44.1 s with the second read, with
		// 2.5 s burns 35.7 s and 40.9 s); the
		// power phase ~3.4 s tuning (QuickPowerMixes) + 8 s at the cap +
		// ~0.5 s setup (the card's hottest load: 690 W where the burns
		// reach 620–650 W and gpu_burn -d 697 W); bandwidth (5 reps) and
		// the memory test over 90 % of memory ~3 s; NVML, the CPU-steal
		// sample and the host checks ~1.5 s. 8 s leaves a steady part of
		// 5–6 readings.
		o.Burn, o.Reps = 2*time.Second, 5
		o.Power, o.PowerMixes = 8*time.Second, stress.QuickPowerMixes
	}
	return o, true, nil
}

// group is the checkrun group that runs the stress tests live.
func (s *checkStress) group() (checkrun.Group, bool, error) {
	o, on, err := s.options()
	if err != nil || !on {
		return checkrun.Group{}, false, err
	}
	var last *result.Report
	return checkrun.Group{
		Name:   "stress",
		Curves: func() []checkrun.Curve { return soakCurves(last) },
		Run: func(ctx context.Context) []wire.Check {
			rep, err := stress.Run(ctx, o)
			last = rep
			if rep == nil {
				return []wire.Check{{Name: "gpu.stress", Category: wire.CategoryGPUDegraded, Verdict: wire.Fail, Detail: err.Error()}}
			}
			if err != nil && !errors.Is(err, stress.ErrNoGPU) && len(rep.Checks) == 0 {
				rep.Checks = append(rep.Checks, wire.Check{Name: "gpu.stress", Category: wire.CategoryGPUDegraded, Verdict: wire.Fail, Detail: err.Error()})
			}
			return rep.Checks
		},
	}, true, nil
}

// soakCurves are the per-second throughput curves of a run's soaks.
func soakCurves(rep *result.Report) []checkrun.Curve { return trialrun.SoakCurves(rep) }
