package stress

import (
	"fmt"
	"strings"

	"github.com/gpusla/gpusla/probe/cuda"
	"github.com/gpusla/gpusla/probe/wire"
)

// The wgmma burns (sm_90a PTX) are used only after a sanity burn: one
// short launch of each on the whole grid, every output element checked
// against the host reference. A kernel that errs or computes one wrong
// value is never used; its precision falls back to the mma.sync kernel
// (FP8, which has none, is skipped), and the report says so.

// sanityIters is the sanity launch's loop count: enough steps to exercise
// the pipelined wgmma chain, a few milliseconds of work.
const sanityIters = 64

// SanityResult is one wgmma kernel's sanity burn.
type SanityResult struct {
	Precision  Precision  `json:"precision"`
	Kernel     string     `json:"kernel"`
	Passed     bool       `json:"passed"`
	Checked    uint64     `json:"checked"`
	Mismatches uint64     `json:"mismatches"`
	FirstBad   []Mismatch `json:"first_bad,omitempty"`
	Error      string     `json:"error,omitempty"`
	driverErr  bool       // Error came from the driver (the context may be unusable)
}

// why says in a few words why a kernel did not pass.
func (s SanityResult) why() string {
	switch {
	case s.Passed:
		return "passed"
	case s.Error != "":
		return s.Error
	case s.Mismatches > 0:
		return fmt.Sprintf("%d wrong of %d values", s.Mismatches, s.Checked)
	}
	return "nothing checked"
}

// sanityBurn runs one checked launch of prec's wgmma kernel.
func sanityBurn(c *cuda.Context, mod *cuda.Module, info cuda.DeviceInfo, prec Precision) SanityResult {
	k, err := kernelFor(prec, 90, true)
	out := SanityResult{Precision: prec, Kernel: k.name}
	if err != nil {
		out.Error = err.Error()
		return out
	}
	driverFail := func(err error) SanityResult { out.Error, out.driverErr = err.Error(), true; return out }
	var res BurnResult
	r, err := setupBurn(c, mod, info, k, &res)
	switch {
	case err != nil:
		return driverFail(err)
	case r == nil:
		out.Error = res.Skipped
		return out
	}
	defer r.h.close()
	k.prepare(sanityIters)
	s := r.h.slots[0]
	if err := r.h.enqueue(s, r.ops, sanityIters, false); err != nil {
		return driverFail(err)
	}
	kt, err := r.h.wait(s)
	if err != nil {
		return driverFail(err)
	}
	r.ops.done(s, kt)
	s.launch = -1
	out.Checked, out.Mismatches, out.FirstBad = res.Checked, res.Mismatches, res.FirstBad
	out.Passed = out.Checked > 0 && out.Mismatches == 0
	return out
}

// runSanity runs the sanity burn of every wgmma kernel on g (whose module
// is the sm_90a variant) and records which may be used. It reports
// whether a kernel failed with a driver error, which can leave the
// context unusable (the caller then starts a fresh one).
func runSanity(g *GPUReport) (driverError bool) {
	g.wg = map[Precision]bool{}
	for _, p := range wgmmaPrecisions {
		r := sanityBurn(g.ctx, g.mod, g.info, p)
		g.Sanity = append(g.Sanity, r)
		g.wg[p] = r.Passed
		if r.driverErr {
			return true // later launches on this context may fail too
		}
	}
	return false
}

// fallbackReason says why prec runs without its wgmma kernel on g, or ""
// when it runs with it or the card has none (not compute capability 9.0).
func (g *GPUReport) fallbackReason(prec Precision) string {
	if !g.wantWG || g.wg[prec] || !isWgmmaPrecision(prec) {
		return ""
	}
	for _, r := range g.Sanity {
		if r.Precision == prec {
			return fmt.Sprintf("the wgmma kernel %s failed the sanity burn (%s), so it is not used", r.Kernel, r.why())
		}
	}
	if g.wgmmaErr != "" {
		return "the wgmma kernels are not used: " + g.wgmmaErr
	}
	return "the wgmma kernels are not used: their sanity burn did not run"
}

func isWgmmaPrecision(p Precision) bool {
	for _, q := range wgmmaPrecisions {
		if q == p {
			return true
		}
	}
	return false
}

// judgeSanity is the gpu.wgmma check of a compute capability 9.0 card:
// pass when every wgmma kernel passed its sanity burn; fail when one
// computed a wrong value (the card's tensor cores are wrong on the path
// real Hopper work takes); warn when they could not run (the sm_90a PTX
// did not load, a driver error), since the burns then fell back to
// mma.sync and the card was tested at a lower rate.
func judgeSanity(g *GPUReport) (wire.Check, bool) {
	if !g.wantWG || g.Skipped != "" {
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
		d := fmt.Sprintf("%s: %s", r.Precision, r.why())
		if len(r.FirstBad) > 0 {
			f := r.FirstBad[0]
			d += fmt.Sprintf(" (first: element %d = %g, want %g)", f.Index, f.Got, f.Want)
		}
		notes = append(notes, d)
	}
	c.Number, c.Unit = num(float64(passed)), "kernels"
	c.Value = fmt.Sprintf("%d of %d wgmma kernels passed the sanity burn", passed, len(wgmmaPrecisions))
	if g.wgmmaErr != "" {
		notes = append([]string{g.wgmmaErr}, notes...)
	}
	switch {
	case wrong > 0:
		c.Verdict = wire.Fail
	case passed < len(wgmmaPrecisions):
		c.Verdict = wire.Warn
	}
	if c.Verdict != wire.Pass {
		c.Detail = strings.Join(notes, "; ") + "; those precisions ran on mma.sync (FP8 has no such kernel and was skipped)"
	}
	return c, true
}
