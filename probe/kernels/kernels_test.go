package kernels

import (
	"bytes"
	"testing"
)

func TestSelectByComputeCapability(t *testing.T) {
	for _, tc := range []struct {
		major, minor int
		want         string
	}{{9, 0, "sm_90a"}, {10, 0, "sm_90"}, {12, 0, "sm_90"}, {8, 0, "sm_80"}, {8, 9, "sm_80"}, {7, 5, "sm_70"}, {7, 0, "sm_70"}} {
		v, err := Select(tc.major, tc.minor)
		if err != nil {
			t.Fatalf("%d.%d: %v", tc.major, tc.minor, err)
		}
		if v.Name() != tc.want || v.Source != "embedded" {
			t.Errorf("%d.%d: got %s from %s, want %s embedded", tc.major, tc.minor, v.Name(), v.Source, tc.want)
		}
	}
	if _, err := Select(6, 1); err == nil {
		t.Error("6.1 should be refused: older than the portable variant")
	}
}

// Arch-specific PTX runs on its own compute capability only; portable PTX
// on it and every newer one.
func TestVariantRuns(t *testing.T) {
	a := Variant{Arch: 90, Specific: true}
	p := Variant{Arch: 90}
	for cc, want := range map[int][2]bool{89: {false, false}, 90: {true, true}, 100: {false, true}, 120: {false, true}} {
		if got := [2]bool{a.Runs(cc), p.Runs(cc)}; got != want {
			t.Errorf("cc %d: sm_90a runs %v, sm_90 runs %v; want %v", cc, got[0], got[1], want)
		}
	}
}

// The embedded PTX must hold every kernel the probe asks for, targeted at
// the variant's architecture.
func TestEmbeddedPTXHoldsTheKernels(t *testing.T) {
	vs, err := Variants()
	if err != nil {
		t.Fatal(err)
	}
	common := []string{"burn_fp32", "burn_fp64", "mem_fill", "mem_check", "copy_f4", "power_check"}
	tensor := []string{"burn_tf32", "burn_bf16", "burn_fp16", "burn_fp64_mma", "power_bf16"}
	wgmma := []string{"burn_wg_tf32", "burn_wg_bf16", "burn_wg_fp16", "burn_wg_fp8"}
	var names []string
	for _, v := range vs {
		names = append(names, v.Name())
		want := common
		if v.Arch >= 80 {
			want = append(append([]string{}, common...), tensor...)
		}
		if v.Specific {
			want = append(want, wgmma...)
		}
		for _, k := range want {
			if !bytes.Contains(v.PTX, []byte(".entry "+k+"(")) {
				t.Errorf("%s PTX lacks kernel %s", v.Name(), k)
			}
		}
		for _, k := range wgmma {
			if !v.Specific && bytes.Contains(v.PTX, []byte(".entry "+k+"(")) {
				t.Errorf("portable %s PTX holds the sm_90a kernel %s", v.Name(), k)
			}
		}
		if !bytes.Contains(v.PTX, []byte("\n.target "+v.Name()+"\n")) {
			t.Errorf("the %s PTX does not target %s", v.Name(), v.Name())
		}
	}
	if want := []string{"sm_70", "sm_80", "sm_90", "sm_90a"}; len(names) != len(want) || names[3] != want[3] || names[2] != want[2] {
		t.Errorf("variants %v, want %v", names, want)
	}
}

func TestPTXDirOverride(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	if _, err := Select(9, 0); err == nil {
		t.Fatal("an empty override directory must not silently fall back")
	}
}
