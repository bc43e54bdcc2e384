package judge

import (
	"context"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// A run stopped half-way (SIGTERM) keeps its finished tests' verdicts; the
// test that was running reports only the faults it found, and a stop is
// never judged a GPU fault.
func TestStoppedRunKeepsFinishedResults(t *testing.T) {
	rep := healthyH200()
	cause := context.Canceled
	// The BF16 burn was running when the stop came: 1 s of ramp.
	rep.Burns[3].Error = "interrupted: " + cause.Error()
	rep.Burns[3].Median, rep.Burns[3].Samples = 120, []float64{120}
	// FP16 never launched, and the run stopped before FP8 began.
	rep.Burns[4] = result.Burn{GPU: 0, Precision: result.FP16, Error: "interrupted: " + cause.Error()}
	rep.Burns = rep.Burns[:5]
	// The host copy was timed but not verified.
	rep.Bandwidth[2].Error = "interrupted: " + cause.Error()
	rep.Memtests = nil
	rep.MarkInterrupted(cause)
	cs := Report(rep)
	for _, name := range []string{"gpu.burn.fp32", "gpu.burn.fp32.errors", "gpu.burn.fp64", "gpu.burn.tf32", "gpu.bw.d2d", "gpu.bw.d2h"} {
		if c := find(t, cs, name); c.Verdict != wire.Pass {
			t.Errorf("finished %s: %s %s", name, c.Verdict, c.Detail)
		}
	}
	for _, name := range []string{"gpu.burn.bf16", "gpu.burn.bf16.errors", "gpu.burn.fp16", "gpu.burn.fp16.errors", "gpu.bw.h2d"} {
		c := find(t, cs, name)
		if c.Verdict != wire.Skipped || !strings.Contains(c.Detail, "stopped before it finished (context canceled): not judged") {
			t.Errorf("interrupted %s: %s %q", name, c.Verdict, c.Detail)
		}
	}
	if done, stopped := rep.Finished(); done != 7 || stopped != 3 {
		t.Errorf("finished %d, interrupted %d", done, stopped)
	}

	// A wrong value found before the stop is a fact: it still fails.
	rep = healthyH200()
	rep.Burns[3].Error = "interrupted: " + cause.Error()
	rep.Burns[3].Mismatches = 1
	rep.MarkInterrupted(cause)
	if c := find(t, Report(rep), "gpu.burn.bf16.errors"); c.Verdict != wire.Fail || !strings.Contains(c.Detail, "stopped before it finished") {
		t.Errorf("wrong value in an interrupted burn: %s %q", c.Verdict, c.Detail)
	}
	// A driver error that is not the cancellation stays an error.
	rep = healthyH200()
	rep.Burns[0].Error = "launch 3: CUDA_ERROR_ILLEGAL_ADDRESS"
	rep.MarkInterrupted(cause)
	if c := find(t, Report(rep), "gpu.burn.fp32.errors"); c.Verdict != wire.Fail || rep.Burns[0].Interrupted != "" {
		t.Errorf("driver error: %s", c.Verdict)
	}
}
