package checkrun

import (
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/host"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
)

// judge runs the check groups of `gpuprobe check` on a recorded snapshot,
// with the order given (or the one recorded in the snapshot).
func judge(t *testing.T, file string, order *expect.Expected) *Report {
	t.Helper()
	s, err := ReadSnapshot("testdata/snapshots/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var exp expect.Expected
	switch {
	case order != nil:
		exp = *order
	case s.Expected != nil:
		exp = *s.Expected
	}
	r := &Runner{Groups: []Group{
		GPUGroup(nil, nil, specdb.Default(), &exp),
		HostGroup(host.Reader{}, &exp),
	}}
	return r.Recorded(s, file)
}

// failure names a check that must fail, on which GPU, in which category,
// with which words in its reason.
type failure struct {
	check    string
	gpu      int // -1: not about one GPU
	category string
	reason   string
}

func TestRecordedSnapshots(t *testing.T) {
	realOrder := &expect.Expected{Model: "H200", GPUs: 2, GPUMemoryGB: 141, CPUs: 32, RAMGB: 256}
	for _, tc := range []struct {
		file  string
		order *expect.Expected
		fails []failure // exactly these checks fail
	}{
		{file: "h200x2-real.json", order: realOrder},
		{file: "h200x2-real.json", order: &expect.Expected{Model: "H200 SXM"}},
		{file: "h200x1-real.json", order: &expect.Expected{Model: "H200", GPUs: 1, GPUMemoryGB: 141, CPUs: 16}},
		{file: "rtx4090d-relabelled.json", fails: []failure{
			{"gpu.model", 0, wire.CategoryInventory, `calls itself "NVIDIA GeForce RTX 4090" but its PCI device id 0x2685 is NVIDIA GeForce RTX 4090 D (a genuine NVIDIA GeForce RTX 4090 has device id 0x2684)`},
			{"gpu.order.model", 0, wire.CategoryInventory, "device id 0x2685 is NVIDIA GeForce RTX 4090 D (rtx-4090-d), the order says RTX 4090"},
		}},
		{file: "h20-as-h100.json", fails: []failure{
			{"gpu.model", 0, wire.CategoryInventory, `calls itself "NVIDIA H100 80GB HBM3" but its PCI device id 0x2329 is NVIDIA H20`},
			{"gpu.order.model", 0, wire.CategoryInventory, "device id 0x2329 is NVIDIA H20 (h20-96gb), the order says H100"},
		}},
		{file: "rtx4090-48gb.json", fails: []failure{
			{"gpu.memory", 0, wire.CategoryInventory, "49140 MiB is more than any genuine NVIDIA GeForce RTX 4090 has (24564 MiB): a reworked board"},
		}},
		{file: "h200-power-capped.json", fails: []failure{
			{"gpu.power.enforced_limit", 0, wire.CategoryInventory, "power limit capped at 400 W, 57 % of the card's default 700 W"},
		}},
		{file: "h200-pcie-x8.json", fails: []failure{
			{"gpu.pcie.width", 1, wire.CategoryInventory, "the link runs at x8, narrower than the card's x16"},
		}},
		{file: "h200-remap-pending-xid79.json", fails: []failure{
			{"gpu.remapped_rows", 1, wire.CategoryGPUDegraded, "a row remapping is pending"},
			{"gpu.xid.kernel_log", 1, wire.CategoryGPULost, "79 GPU has fallen off the bus ×1"},
		}},
		{file: "h200-vgpu-slice.json", fails: []failure{
			{"gpu.whole", 0, wire.CategoryInventory, "virtualization mode vGPU"},
		}},
		{file: "no-driver.json", fails: []failure{
			{"gpu.driver", -1, wire.CategoryGPULost, "no NVIDIA driver is installed on this machine (ERROR_LIBRARY_NOT_FOUND)"},
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rep := judge(t, tc.file, tc.order)
			failed := rep.With(wire.Fail)
			if len(failed) != len(tc.fails) {
				for _, c := range failed {
					t.Logf("failed: %s gpu=%v: %s", c.Name, gpuCol(c.GPU), c.Detail)
				}
				t.Fatalf("%d checks failed, want %d", len(failed), len(tc.fails))
			}
			for _, want := range tc.fails {
				found := false
				for _, c := range failed {
					g := -1
					if c.GPU != nil {
						g = *c.GPU
					}
					if c.Name != want.check || g != want.gpu {
						continue
					}
					found = true
					if c.Category != want.category || !strings.Contains(c.Value+" "+c.Detail, want.reason) {
						t.Errorf("%s gpu %d: got [%s] %q / %q, want [%s] containing %q", c.Name, g, c.Category, c.Value, c.Detail, want.category, want.reason)
					}
				}
				if !found {
					t.Errorf("%s on gpu %d did not fail", want.check, want.gpu)
				}
			}
			wantExit := ExitPass
			if len(tc.fails) > 0 {
				wantExit = ExitFail
			}
			if rep.ExitCode != wantExit {
				t.Errorf("exit %d, want %d (warnings: %+v)", rep.ExitCode, wantExit, rep.With(wire.Warn))
			}
		})
	}
}

// The real recording passes every check and warns about nothing: the
// thresholds are calibrated so that a healthy card is not flagged.
func TestRealRecordingHasNoWarnings(t *testing.T) {
	rep := judge(t, "h200x2-real.json", &expect.Expected{Model: "H200", GPUs: 2, GPUMemoryGB: 141, CPUs: 32, RAMGB: 256})
	if w := rep.With(wire.Warn); len(w) > 0 {
		t.Fatalf("warnings on a healthy machine: %+v", w)
	}
	if rep.Counts[wire.Pass] < 60 {
		t.Fatalf("only %d checks passed", rep.Counts[wire.Pass])
	}
}

// A card whose memory cannot be read is not shown to be what was
// ordered: the dependent checks are skipped with the reason and the run
// warns (exit 2), never passes.
func TestUnreadableMemoryNeverPasses(t *testing.T) {
	rep := judge(t, "h200-memory-unreadable.json", nil)
	want := map[string]string{
		"gpu.memory":            wire.Skipped,
		"gpu.order.memory":      wire.Warn,
		"gpu.identity.verified": wire.Warn,
	}
	for _, c := range rep.Checks {
		if v, ok := want[c.Name]; ok {
			if c.Verdict != v || !strings.Contains(c.Detail, "memory: ERROR_UNKNOWN") {
				t.Errorf("%s: %s %q, want %s naming the NVML error", c.Name, c.Verdict, c.Detail, v)
			}
			delete(want, c.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing checks: %v", want)
	}
	if rep.ExitCode != ExitWarn {
		t.Errorf("exit %d, want %d", rep.ExitCode, ExitWarn)
	}
}

// Without a driver, the host checks still run.
func TestNoDriverStillChecksHost(t *testing.T) {
	rep := judge(t, "no-driver.json", nil)
	hostChecks := 0
	for _, c := range rep.Checks {
		if strings.HasPrefix(c.Name, "host.") {
			hostChecks++
		}
	}
	if hostChecks < 6 {
		t.Fatalf("%d host checks", hostChecks)
	}
}

// An order for more GPUs than the machine has is a lost GPU.
func TestFewerGPUsThanOrdered(t *testing.T) {
	rep := judge(t, "h200x2-real.json", &expect.Expected{GPUs: 8})
	f := rep.With(wire.Fail)
	if len(f) != 1 || f[0].Name != "gpu.count" || f[0].Category != wire.CategoryGPULost || !strings.Contains(f[0].Detail, "2 usable GPUs, the order says 8") {
		t.Fatalf("got %+v", f)
	}
}
