package judge

import (
	"fmt"
	"strings"

	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// judgeSanity is the gpu.wgmma check of a compute capability 9.0 card:
// pass when every wgmma kernel passed its sanity burn; fail when one
// computed a wrong value (the card's tensor cores are wrong on the path
// real Hopper work takes); warn when they could not run (the sm_90a PTX
// did not load, a driver error), since the burns then fell back to
// mma.sync and the card was tested at a lower rate.
func judgeSanity(g *result.GPU) (wire.Check, bool) {
	if !g.WgmmaWanted || g.Skipped != "" {
		return wire.Check{}, false
	}
	c := wire.Check{Name: "gpu.wgmma", Category: wire.CategoryGPUDegraded, GPU: gpuPtr(g.Index),
		Criterion: "every wgmma tensor burn kernel (sm_90a) passes its sanity burn: all values right", Verdict: wire.Pass}
	var passed, wrong int
	var notes []string
	for _, r := range g.Sanity {
		if r.Passed {
			passed++
			continue
		}
		if r.Mismatches > 0 {
			wrong++
		}
		d := fmt.Sprintf("%s: %s", r.Precision, r.Why())
		if len(r.FirstBad) > 0 {
			f := r.FirstBad[0]
			d += fmt.Sprintf(" (first: element %d = %g, want %g)", f.Index, f.Got, f.Want)
		}
		notes = append(notes, d)
	}
	c.Number, c.Unit = num(float64(passed)), "kernels"
	c.SetValue("%d of %d wgmma kernels passed the sanity burn", passed, len(result.WgmmaPrecisions))
	if g.WgmmaErr != "" {
		notes = append([]string{g.WgmmaErr}, notes...)
	}
	switch {
	case wrong > 0:
		c.Verdict = wire.Fail
	case passed < len(result.WgmmaPrecisions):
		c.Verdict = wire.Warn
	}
	if c.Verdict != wire.Pass {
		c.Detail = strings.Join(notes, "; ") + "; those precisions ran on mma.sync (FP8 has no such kernel and was skipped)"
	}
	return c, true
}
