package kernels

import (
	"bytes"
	"testing"
)

func TestSelectByComputeCapability(t *testing.T) {
	for _, tc := range []struct {
		major, minor, want int
	}{{9, 0, 90}, {10, 0, 90}, {8, 0, 80}, {8, 9, 80}, {7, 5, 70}, {7, 0, 70}} {
		v, err := Select(tc.major, tc.minor)
		if err != nil {
			t.Fatalf("%d.%d: %v", tc.major, tc.minor, err)
		}
		if v.Arch != tc.want || v.Source != "embedded" {
			t.Errorf("%d.%d: got sm_%d from %s, want sm_%d embedded", tc.major, tc.minor, v.Arch, v.Source, tc.want)
		}
	}
	if _, err := Select(6, 1); err == nil {
		t.Error("6.1 should be refused: older than the portable variant")
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
	for _, v := range vs {
		want := common
		if v.Arch >= 80 {
			want = append(append([]string{}, common...), tensor...)
		}
		for _, k := range want {
			if !bytes.Contains(v.PTX, []byte(".entry "+k+"(")) {
				t.Errorf("sm_%d PTX lacks kernel %s", v.Arch, k)
			}
		}
		if !bytes.Contains(v.PTX, []byte(".target sm_"+itoa(v.Arch))) {
			t.Errorf("burn_sm%d.ptx does not target sm_%d", v.Arch, v.Arch)
		}
	}
	if len(vs) != 3 {
		t.Errorf("want 3 variants, got %d", len(vs))
	}
}

func TestPTXDirOverride(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	if _, err := Select(9, 0); err == nil {
		t.Fatal("an empty override directory must not silently fall back")
	}
}

func itoa(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }
