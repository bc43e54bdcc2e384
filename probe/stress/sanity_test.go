package stress

import (
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/wire"
)

// hopper is a compute capability 9.0 GPU whose sm_90a module loaded, with
// every wgmma kernel's sanity burn passed except those in bad.
func hopper(bad map[Precision]SanityResult) *GPUReport {
	g := &GPUReport{Index: 0, CC: "9.0", wantWG: true, wg: map[Precision]bool{}}
	for _, p := range wgmmaPrecisions {
		r := SanityResult{Precision: p, Kernel: "burn_wg_" + string(p), Passed: true, Checked: 8650752}
		if b, ok := bad[p]; ok {
			r = b
			r.Precision, r.Kernel = p, "burn_wg_"+string(p)
		}
		g.Sanity = append(g.Sanity, r)
		g.wg[p] = r.Passed
	}
	return g
}

func TestSanityVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		g       *GPUReport
		verdict string
		value   string
		detail  []string
	}{
		{"all passed", hopper(nil), wire.Pass, "4 of 4 wgmma kernels passed", nil},
		{"a wrong value", hopper(map[Precision]SanityResult{FP8: {Checked: 8650752, Mismatches: 1,
			FirstBad: []Mismatch{{Index: 77, Got: 1025, Want: 1024}}}}), wire.Fail, "3 of 4",
			[]string{"fp8: 1 wrong of 8650752 values", "element 77 = 1025, want 1024", "ran on mma.sync"}},
		{"a driver error", hopper(map[Precision]SanityResult{BF16: {Error: "cuLaunchKernel: CUDA_ERROR_ILLEGAL_INSTRUCTION", driverErr: true}}),
			wire.Warn, "3 of 4", []string{"bf16: cuLaunchKernel: CUDA_ERROR_ILLEGAL_INSTRUCTION"}},
		{"sm_90a PTX did not load", &GPUReport{Index: 0, CC: "9.0", wantWG: true, wgmmaErr: "load sm_90a PTX: CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
			wire.Warn, "0 of 4", []string{"load sm_90a PTX: CUDA_ERROR_UNSUPPORTED_PTX_VERSION"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := judgeSanity(tc.g)
			if !ok || c.Name != "gpu.wgmma" || c.Verdict != tc.verdict || !strings.Contains(c.Value, tc.value) {
				t.Fatalf("%v %+v", ok, c)
			}
			for _, d := range tc.detail {
				if !strings.Contains(c.Detail, d) {
					t.Errorf("detail %q lacks %q", c.Detail, d)
				}
			}
		})
	}
	// Not a 9.0 card (or skipped): no such check.
	if _, ok := judgeSanity(&GPUReport{CC: "8.0"}); ok {
		t.Error("an Ampere card got a gpu.wgmma check")
	}
	if _, ok := judgeSanity(&GPUReport{CC: "9.0", wantWG: true, Skipped: "in use"}); ok {
		t.Error("a skipped GPU got a gpu.wgmma check")
	}
}

// A kernel that failed its sanity burn is never chosen, and the burn says
// why it ran on mma.sync (or, for FP8, why it was skipped).
func TestFallbackChoosesMmaSync(t *testing.T) {
	g := hopper(map[Precision]SanityResult{BF16: {Checked: 10, Mismatches: 2}, FP8: {Error: "boom", driverErr: true}})
	if r := g.fallbackReason(FP16); r != "" {
		t.Errorf("FP16 passed but has a fallback reason %q", r)
	}
	if r := g.fallbackReason(FP32); r != "" {
		t.Errorf("FP32 has no wgmma kernel but got %q", r)
	}
	r := g.fallbackReason(BF16)
	if !strings.Contains(r, "burn_wg_bf16 failed the sanity burn (2 wrong of 10 values)") {
		t.Errorf("BF16 reason %q", r)
	}
	k, err := kernelFor(BF16, 90, g.wg[BF16])
	if err != nil || k.name != "burn_bf16" {
		t.Errorf("BF16 after a failed sanity burn: %q %v, want the mma.sync burn_bf16", k.name, err)
	}
	if k, _ := kernelFor(FP16, 90, g.wg[FP16]); k.name != "burn_wg_fp16" {
		t.Errorf("FP16 passed its sanity burn but runs %q", k.name)
	}
	if _, err := kernelFor(FP8, 90, g.wg[FP8]); err == nil {
		t.Error("FP8 after a failed sanity burn must be skipped")
	}
	if r := g.fallbackReason(FP8); !strings.Contains(r, "(boom)") {
		t.Errorf("FP8 reason %q", r)
	}
	// Not a 9.0 card: nothing to fall back from.
	if r := (&GPUReport{CC: "8.0"}).fallbackReason(BF16); r != "" {
		t.Errorf("Ampere BF16 got %q", r)
	}
}
