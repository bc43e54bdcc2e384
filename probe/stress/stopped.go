package stress

import (
	"context"
	"fmt"
	"strings"

	"github.com/gpusla/gpusla/probe/wire"
)

// A run that is cancelled (SIGTERM to the daemon, SIGINT to a check, a
// job's timeout) keeps what it finished: every test that completed before
// the cancellation is judged as usual, and the test that was running is
// marked Interrupted. An interrupted test's partial figures are no
// measurement (a burn stopped after one second is all ramp), so its
// performance and stability checks are skipped; what it found wrong before
// the stop — a wrong value, an XID, a thermal slowdown — is a fact and
// still fails.

// markInterrupted moves errors that are the cancellation itself into the
// results' Interrupted fields, so that a stop is not judged a GPU fault.
func markInterrupted(rep *Report, cause error) {
	why := cause.Error()
	mark := func(errStr, interrupted *string) {
		if *errStr != "" && strings.HasSuffix(*errStr, why) {
			*interrupted, *errStr = "stopped before it finished ("+why+")", ""
		}
	}
	for i := range rep.Burns {
		mark(&rep.Burns[i].Error, &rep.Burns[i].Interrupted)
	}
	for i := range rep.Soaks {
		mark(&rep.Soaks[i].Error, &rep.Soaks[i].Interrupted)
	}
	for i := range rep.Power {
		mark(&rep.Power[i].Error, &rep.Power[i].Interrupted)
	}
	for i := range rep.Bandwidth {
		mark(&rep.Bandwidth[i].Error, &rep.Bandwidth[i].Interrupted)
	}
	for i := range rep.Memtests {
		mark(&rep.Memtests[i].Error, &rep.Memtests[i].Interrupted)
	}
	if r := rep.AllReduce; r != nil {
		mark(&r.Error, &r.Interrupted)
	}
}

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
		c.Detail = fmt.Sprintf("%s: not judged", why)
	}
	return cs
}

// Finished counts the tests of a report that ran to the end.
func (r *Report) Finished() (done, interrupted int) {
	count := func(i string) {
		if i == "" {
			done++
		} else {
			interrupted++
		}
	}
	for _, b := range append(append([]BurnResult(nil), r.Burns...), r.Soaks...) {
		count(b.Interrupted)
	}
	for _, p := range r.Power {
		count(p.Interrupted)
	}
	for _, b := range r.Bandwidth {
		count(b.Interrupted)
	}
	for _, m := range r.Memtests {
		count(m.Interrupted)
	}
	return done, interrupted
}

// RunChecks are the results of a stress run as the daemon and the trial
// report them: every check of the tests it finished, also when it was
// stopped (SIGTERM, the job's timeout) — the stop itself is reported, not
// judged a GPU fault — and a failed gpu.stress.run when the run could not
// complete for another reason.
func RunChecks(ctx context.Context, rep *Report, err error) []wire.Check {
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
		cs = append(cs, wire.Check{Name: "gpu.stress.run", Category: wire.CategoryGPUDegraded, Verdict: wire.Skipped,
			Criterion: "the stress run completes",
			Detail:    fmt.Sprintf("stopped before it finished (%v): %d test(s) finished and are reported, %d interrupted", context.Cause(ctx), done, stopped)})
	case err != nil:
		cs = append(cs, wire.Check{Name: "gpu.stress.run", Category: wire.CategoryGPUDegraded, Verdict: wire.Fail,
			Criterion: "the stress run completes", Detail: err.Error()})
	}
	return cs
}
