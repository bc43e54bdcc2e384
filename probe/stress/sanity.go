package stress

import (
	"fmt"

	"github.com/gpusla/gpusla/probe/cuda"
	"github.com/gpusla/gpusla/probe/stress/result"
)

// The wgmma burns (sm_90a PTX) are used only after a sanity burn: one
// short launch of each on the whole grid, every output element checked
// against the host reference. A kernel that errs or computes one wrong
// value is never used; its precision falls back to the mma.sync kernel
// (FP8, which has none, is skipped), and the report says so.

// sanityIters is the sanity launch's loop count: enough steps to exercise
// the pipelined wgmma chain, a few milliseconds of work.
const sanityIters = 64

// sanityBurn runs one checked launch of prec's wgmma kernel; driverErr
// says that its error came from the driver (the context may be unusable).
func sanityBurn(c *cuda.Context, mod *cuda.Module, info cuda.DeviceInfo, prec result.Precision) (out result.Sanity, driverErr bool) {
	k, err := kernelFor(prec, 90, true)
	out = result.Sanity{Precision: prec, Kernel: k.name}
	if err != nil {
		out.Error = err.Error()
		return out, false
	}
	driverFail := func(err error) (result.Sanity, bool) { out.Error = err.Error(); return out, true }
	var res result.Burn
	r, err := setupBurn(c, mod, info, k, &res)
	switch {
	case err != nil:
		return driverFail(err)
	case r == nil:
		out.Error = res.Skipped
		return out, false
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
	return out, false
}

// runSanity runs the sanity burn of every wgmma kernel on g (whose module
// is the sm_90a variant) and records which may be used. It reports
// whether a kernel failed with a driver error, which can leave the
// context unusable (the caller then starts a fresh one).
func runSanity(g *device) (driverError bool) {
	g.wg = map[result.Precision]bool{}
	for _, p := range result.WgmmaPrecisions {
		r, driverErr := sanityBurn(g.ctx, g.mod, g.info, p)
		g.Sanity = append(g.Sanity, r)
		g.wg[p] = r.Passed
		if driverErr {
			return true // later launches on this context may fail too
		}
	}
	return false
}

// fallbackReason says why prec runs without its wgmma kernel on g, or ""
// when it runs with it or the card has none (not compute capability 9.0).
func (g *device) fallbackReason(prec result.Precision) string {
	if !g.WgmmaWanted || g.wg[prec] || !prec.IsWgmma() {
		return ""
	}
	for _, r := range g.Sanity {
		if r.Precision == prec {
			return fmt.Sprintf("the wgmma kernel %s failed the sanity burn (%s), so it is not used", r.Kernel, r.Why())
		}
	}
	if g.WgmmaErr != "" {
		return "the wgmma kernels are not used: " + g.WgmmaErr
	}
	return "the wgmma kernels are not used: their sanity burn did not run"
}
