package judge

import (
	"context"
	"strings"

	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// keepFaults is what an interrupted test reports: its failures that are
// faults of the card (category gpu_degraded), and every other check
// skipped with the reason.
func keepFaults(cs []wire.Check, why string) []wire.Check {
	for i := range cs {
		c := &cs[i]
		if c.Verdict == wire.Fail && c.Category == wire.CategoryGPUDegraded {
			c.Detail = strings.TrimPrefix(c.Detail+"; "+why, "; ")
			continue
		}
		c.Verdict, c.Criterion = wire.Skipped, ""
		c.SetDetail("%s: not judged", why)
	}
	return cs
}

// RunChecks are the results of a stress run as the daemon and the trial
// report them: every check of the tests it finished, also when it was
// stopped (SIGTERM, the job's timeout) — the stop itself is reported, not
// judged a GPU fault — and a failed gpu.stress.run when the run could not
// complete for another reason.
func RunChecks(ctx context.Context, rep *result.Report, err error) []wire.Check {
	var cs []wire.Check
	if rep != nil {
		cs = rep.Checks
	}
	switch {
	case ctx.Err() != nil:
		done, stopped := 0, 0
		if rep != nil {
			done, stopped = rep.Finished()
		}
		c := wire.Check{Name: "gpu.stress.run", Category: wire.CategoryGPUDegraded, Verdict: wire.Skipped, Criterion: "the stress run completes"}
		c.SetDetail("stopped before it finished (%v): %d test(s) finished and are reported, %d interrupted", context.Cause(ctx).Error(), done, stopped)
		cs = append(cs, c)
	case err != nil:
		cs = append(cs, wire.Check{Name: "gpu.stress.run", Category: wire.CategoryGPUDegraded, Verdict: wire.Fail,
			Criterion: "the stress run completes", Detail: err.Error()})
	}
	return cs
}
