package stress

import (
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/stress/result"
)

// hopper is a compute capability 9.0 GPU as a run holds it after its
// sanity burns: every wgmma kernel passed except those in bad.
func hopper(bad map[result.Precision]result.Sanity) *device {
	d := &device{GPU: &result.GPU{Index: 0, CC: "9.0", WgmmaWanted: true}, wg: map[result.Precision]bool{}}
	for _, p := range result.WgmmaPrecisions {
		r, isBad := bad[p]
		if !isBad {
			r = result.Sanity{Passed: true, Checked: 8650752}
		}
		r.Precision, r.Kernel = p, "burn_wg_"+string(p)
		d.Sanity, d.wg[p] = append(d.Sanity, r), r.Passed
	}
	return d
}

// A kernel that failed its sanity burn is never chosen, and the burn says
// why it ran on mma.sync (or, for FP8, why it was skipped).
func TestFallbackChoosesMmaSync(t *testing.T) {
	g := hopper(map[result.Precision]result.Sanity{result.BF16: {Checked: 10, Mismatches: 2}, result.FP8: {Error: "boom"}})
	if r := g.fallbackReason(result.FP16); r != "" {
		t.Errorf("FP16 passed but has a fallback reason %q", r)
	}
	if r := g.fallbackReason(result.FP32); r != "" {
		t.Errorf("FP32 has no wgmma kernel but got %q", r)
	}
	r := g.fallbackReason(result.BF16)
	if !strings.Contains(r, "burn_wg_bf16 failed the sanity burn (2 wrong of 10 values)") {
		t.Errorf("BF16 reason %q", r)
	}
	k, err := kernelFor(result.BF16, 90, g.wg[result.BF16])
	if err != nil || k.name != "burn_bf16" {
		t.Errorf("BF16 after a failed sanity burn: %q %v, want the mma.sync burn_bf16", k.name, err)
	}
	if k, _ := kernelFor(result.FP16, 90, g.wg[result.FP16]); k.name != "burn_wg_fp16" {
		t.Errorf("FP16 passed its sanity burn but runs %q", k.name)
	}
	if _, err := kernelFor(result.FP8, 90, g.wg[result.FP8]); err == nil {
		t.Error("FP8 after a failed sanity burn must be skipped")
	}
	if r := g.fallbackReason(result.FP8); !strings.Contains(r, "(boom)") {
		t.Errorf("FP8 reason %q", r)
	}
	// Not a 9.0 card: nothing to fall back from.
	if r := (&device{GPU: &result.GPU{CC: "8.0"}}).fallbackReason(result.BF16); r != "" {
		t.Errorf("Ampere BF16 got %q", r)
	}
}
