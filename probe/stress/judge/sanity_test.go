package judge

import (
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// hopper is a compute capability 9.0 GPU whose sm_90a module loaded, with
// every wgmma kernel's sanity burn passed except those in bad.
func hopper(bad map[result.Precision]result.Sanity) *result.GPU {
	g := &result.GPU{Index: 0, CC: "9.0", WgmmaWanted: true}
	for _, p := range result.WgmmaPrecisions {
		r := result.Sanity{Precision: p, Kernel: "burn_wg_" + string(p), Passed: true, Checked: 8650752}
		if b, ok := bad[p]; ok {
			r = b
			r.Precision, r.Kernel = p, "burn_wg_"+string(p)
		}
		g.Sanity = append(g.Sanity, r)
	}
	return g
}

func TestSanityVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		g       *result.GPU
		verdict string
		value   string
		detail  []string
	}{
		{"all passed", hopper(nil), wire.Pass, "4 of 4 wgmma kernels passed", nil},
		{"a wrong value", hopper(map[result.Precision]result.Sanity{result.FP8: {Checked: 8650752, Mismatches: 1,
			FirstBad: []result.Mismatch{{Index: 77, Got: 1025, Want: 1024}}}}), wire.Fail, "3 of 4",
			[]string{"fp8: 1 wrong of 8650752 values", "element 77 = 1025, want 1024", "ran on mma.sync"}},
		{"a driver error", hopper(map[result.Precision]result.Sanity{result.BF16: {Error: "cuLaunchKernel: CUDA_ERROR_ILLEGAL_INSTRUCTION"}}),
			wire.Warn, "3 of 4", []string{"bf16: cuLaunchKernel: CUDA_ERROR_ILLEGAL_INSTRUCTION"}},
		{"sm_90a PTX did not load", &result.GPU{Index: 0, CC: "9.0", WgmmaWanted: true, WgmmaErr: "load sm_90a PTX: CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
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
	if _, ok := judgeSanity(&result.GPU{CC: "8.0"}); ok {
		t.Error("an Ampere card got a gpu.wgmma check")
	}
	if _, ok := judgeSanity(&result.GPU{CC: "9.0", WgmmaWanted: true, Skipped: "in use"}); ok {
		t.Error("a skipped GPU got a gpu.wgmma check")
	}
}
