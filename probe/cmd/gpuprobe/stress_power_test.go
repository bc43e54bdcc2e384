package main

import (
	"testing"
	"time"
)

// The power test is chosen by name and runs for --duration; it is not in
// the default list, and asking for it alone runs no precision burn.
func TestStressFlagsPowerTest(t *testing.T) {
	f := stressFlags{burn: 20 * time.Second, tests: "power", memFraction: 0.9, copyMiB: 64, reps: 2, arMaxMiB: 1024}
	o, err := f.options(nil)
	if err != nil || o.Power != 20*time.Second || o.Burn != 0 || len(o.Precisions) != 0 || o.Bandwidth || o.Memtest {
		t.Fatalf("--tests power: %+v %v", o, err)
	}
	f.tests = "fp32,fp64,tf32,bf16,fp16,bandwidth,memtest" // the default list
	if o, _ := f.options(nil); o.Power != 0 {
		t.Errorf("the default tests must not run the power test, got %v", o.Power)
	}
}
