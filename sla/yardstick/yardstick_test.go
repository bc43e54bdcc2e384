package yardstick

import "testing"

func TestLookupAndFigure(t *testing.T) {
	// By id or alias; "H200" (and the NVML name "NVIDIA H200", which
	// folds to it) is the family, which also holds the NVL, whose FP32
	// figure is its own datasheet's: no one yardstick.
	for _, name := range []string{"h200-sxm-141gb", "H200 SXM", "H200 SXM5"} {
		if y, ok := Lookup(name, "gpu.burn.fp32"); !ok || y.Datasheet != 66.9 || y.Healthy != 65.3 {
			t.Errorf("%s: %+v %v", name, y, ok)
		}
	}
	for _, name := range []string{"H200", "NVIDIA H200"} {
		if y, ok := Lookup(name, "gpu.burn.fp32"); ok {
			t.Errorf("%s: the H200 family agreed on %+v", name, y)
		}
	}
	if _, ok := Lookup("no such card", "gpu.burn.fp32"); ok {
		t.Errorf("an unknown model has a yardstick")
	}
	for in, want := range map[string]string{"stress.fp32": "gpu.burn.fp32", "bw.h2d": "gpu.bw.h2d", "stress.power": "gpu.power", "stress.tf32.mma_sync": "", "nccl.allreduce": ""} {
		if got, ok := Figure(in); got != want || ok != (want != "") {
			t.Errorf("Figure(%s) = %q %v, want %q", in, got, ok, want)
		}
	}
}
