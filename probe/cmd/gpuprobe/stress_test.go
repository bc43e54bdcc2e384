package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/cuda"
	"github.com/gpusla/gpusla/probe/stress"
	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

func TestStressFlagsRejectBadInput(t *testing.T) {
	for _, tc := range []struct {
		mutate func(*stressFlags)
		want   string
	}{
		{func(f *stressFlags) { f.tests = "fp32,fp4" }, `unknown test "fp4"`},
		{func(f *stressFlags) { f.memFraction = 1 }, "--memtest-fraction 1"},
		{func(f *stressFlags) { f.reps = 0 }, "--reps 0"},
		{func(f *stressFlags) { f.copyMiB = 1 }, "--copy-mib 1"},
		{func(f *stressFlags) { f.arMaxMiB = 0 }, "--allreduce-max-mib 0: must be a power of two"},
		{func(f *stressFlags) { f.arMaxMiB = 768 }, "--allreduce-max-mib 768"},
		{func(f *stressFlags) { f.arMaxMiB = 32768 }, "--allreduce-max-mib 32768"},
	} {
		f := stressFlags{burn: time.Second, tests: "fp32", memFraction: 0.9, copyMiB: 64, reps: 2, arMaxMiB: 1024}
		tc.mutate(&f)
		if _, err := f.options(nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want error containing %q, got %v", tc.want, err)
		}
	}
	f := stressFlags{burn: 5 * time.Second, tests: "bf16, memtest", memFraction: 0.5, copyMiB: 64, reps: 2, arMaxMiB: 1024}
	o, err := f.options(nil)
	if err != nil || len(o.Precisions) != 1 || o.Precisions[0] != "bf16" || !o.Memtest || o.Bandwidth || o.Burn != 5*time.Second || o.AllReduce {
		t.Fatalf("%+v %v", o, err)
	}
	// `--tests allreduce` runs it on any number of GPUs, up to the size asked.
	f.tests, f.arMaxMiB = "allreduce", 256
	if o, err := f.options(nil); err != nil || !o.AllReduce || o.AllReduceMultiGPU || o.AllReduceMaxBytes != 256<<20 || o.Burn != 0 {
		t.Fatalf("allreduce: %+v %v", o, err)
	}
	f.tests = "bandwidth"
	if o, _ := f.options(nil); o.Burn != 0 {
		t.Errorf("no precision chosen: the burn must be off, got %v", o.Burn)
	}
}

func TestCheckStressModes(t *testing.T) {
	for _, tc := range []struct {
		s    checkStress
		on   bool
		burn time.Duration
	}{
		{checkStress{}, true, 2 * time.Second}, // 6 precisions × 2 s, then the power phase
		{checkStress{quick: true}, true, 2 * time.Second},
		{checkStress{full: true}, true, 60 * time.Second},
		{checkStress{none: true}, false, 0},
	} {
		o, on, err := tc.s.options()
		if err != nil || on != tc.on || (on && o.Burn != tc.burn) {
			t.Errorf("%+v: on %v burn %v err %v", tc.s, on, o.Burn, err)
		}
	}
	// The default check takes the card to its power cap: the power test
	// with the short tuning; --full with the full one; --quick not at all.
	if o, _, _ := (&checkStress{}).options(); o.Power != 8*time.Second || !reflect.DeepEqual(o.PowerMixes, stress.QuickPowerMixes) {
		t.Errorf("default: power %v mixes %v", o.Power, o.PowerMixes)
	}
	if o, _, _ := (&checkStress{full: true}).options(); o.Power != 60*time.Second || o.PowerMixes != nil {
		t.Errorf("--full: power %v mixes %v", o.Power, o.PowerMixes)
	}
	// --full adds the all-reduce where there are two GPUs or more; the
	// default and --quick checks do not.
	if o, _, _ := (&checkStress{full: true}).options(); !o.AllReduce || !o.AllReduceMultiGPU {
		t.Errorf("--full: allreduce %v multi %v", o.AllReduce, o.AllReduceMultiGPU)
	}
	if o, _, _ := (&checkStress{}).options(); o.AllReduce {
		t.Error("default check runs the all-reduce")
	}
	if o, _, _ := (&checkStress{quick: true}).options(); o.Power != 0 {
		t.Errorf("--quick: power %v", o.Power)
	}
	if _, _, err := (&checkStress{quick: true, none: true}).options(); err == nil {
		t.Error("--quick with --no-stress must be refused")
	}
}

// Without a GPU, `gpuprobe stress` says why and exits 3.
func TestStressWithoutGPU(t *testing.T) {
	if _, err := cuda.Load(); !errors.Is(err, cuda.ErrNoDriver) {
		t.Skip("this machine has a CUDA driver")
	}
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs([]string{"stress", "--duration", "1s"})
	err := root.Execute()
	var e exitError
	if !errors.As(err, &e) || e.code != 3 {
		t.Fatalf("want exit 3, got %v", err)
	}
	if !strings.Contains(out.String(), "SKIPPED") || !strings.Contains(out.String(), "libcuda.so.1") {
		t.Errorf("output %q", out.String())
	}
}

// The daemon's stress job keeps the checks of a run stopped half-way and
// says it was stopped; a run that failed for another reason fails.
func TestStressChecksOfAStoppedRun(t *testing.T) {
	rep := &result.Report{
		Burns:  []result.Burn{{Precision: result.FP32}, {Precision: result.FP64, Interrupted: "stopped before it finished (context canceled)"}},
		Checks: []wire.Check{{Name: "gpu.burn.fp32", Verdict: wire.Pass}, {Name: "gpu.burn.fp64", Verdict: wire.Skipped}},
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cs := stressChecks(ctx, rep, fmt.Errorf("stopped: %w", context.Canceled))
	if len(cs) != 3 || cs[0].Name != "gpu.burn.fp32" || cs[2].Name != "gpu.stress.run" || cs[2].Verdict != wire.Skipped ||
		!strings.Contains(cs[2].Detail, "1 test(s) finished and are reported, 1 interrupted") {
		t.Fatalf("%+v", cs)
	}
	cs = stressChecks(context.Background(), rep, errors.New("GPU 0: CUDA_ERROR_OUT_OF_MEMORY"))
	if last := cs[len(cs)-1]; last.Verdict != wire.Fail || !strings.Contains(last.Detail, "OUT_OF_MEMORY") {
		t.Fatalf("%+v", last)
	}
	if cs := stressChecks(context.Background(), rep, nil); len(cs) != 2 {
		t.Fatalf("a finished run adds nothing: %+v", cs)
	}
}

// `check --soak D` adds one long burn to the stress group, bounded by the
// seed's 30 minutes; its per-second curve goes into the --json report.
func TestCheckSoak(t *testing.T) {
	o, on, err := (&checkStress{soak: 30 * time.Minute}).options()
	if err != nil || !on || o.Soak != 30*time.Minute || o.Burn != 2*time.Second {
		t.Fatalf("--soak 30m: %v %v %v", o.Soak, on, err)
	}
	for _, tc := range []struct {
		s    checkStress
		want string
	}{
		{checkStress{soak: 31 * time.Minute}, "--soak 31m0s: must be between 1m0s and 30m0s"},
		{checkStress{soak: 10 * time.Second}, "--soak 10s: must be between"},
		{checkStress{soak: time.Minute, none: true}, "which --no-stress leaves out"},
	} {
		if _, _, err := tc.s.options(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
	}
	rep := &result.Report{Soaks: []result.Burn{{GPU: 1, Precision: result.BF16, Samples: []float64{651, 652, 652}}, {GPU: 2, Skipped: "x"}}}
	cs := soakCurves(rep)
	if len(cs) != 1 || cs[0].Name != "gpu.soak.bf16" || *cs[0].GPU != 1 || len(cs[0].PerSecond) != 3 || cs[0].Unit != "TFLOP/s" {
		t.Fatalf("%+v", cs)
	}
	if soakCurves(nil) != nil {
		t.Error("no report, no curves")
	}
}
