package authn

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
)

// real is the GPU part of the real 2×H200 recording.
func recorded(t *testing.T) *gpu.Snapshot {
	t.Helper()
	b, err := os.ReadFile("testdata/h200x2.json")
	if err != nil {
		t.Fatal(err)
	}
	var s gpu.Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func p[T any](v T) *T { return &v }

func TestRealH200PassesEverything(t *testing.T) {
	cs := Judge(recorded(t), specdb.Default(), expect.Expected{Model: "H200", GPUs: 2, GPUMemoryGB: 141})
	for _, c := range cs {
		if c.Verdict != wire.Pass {
			t.Errorf("%s: %s %s", c.Name, c.Verdict, c.Detail)
		}
	}
}

// asA100 turns GPU 0 into a genuine A100 SXM4 80GB (a datasheet model).
func asA100(d *gpu.Device) {
	d.Name, d.PCI.DeviceID, d.PCI.SubsystemID = "NVIDIA A100-SXM4-80GB", 0x20b210de, 0x147f10de
	d.MemoryTotalMiB, d.MemoryBusWidth, d.Cores, d.ComputeCapability = p(uint64(81920)), p(uint32(5120)), p(uint32(6912)), "8.0"
	d.MaxSMClockMHz, d.MaxMemClockMHz = p(uint32(1410)), p(uint32(1593))
	d.PowerDefaultLimitW, d.PowerEnforcedLimitW = p(400.0), p(400.0)
	d.PCIeGPUMaxGen, d.PCIeMaxGen, d.PCIeCurrentGen = p(4), p(4), p(4)
}

func TestVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		edit     func(d *gpu.Device)
		order    expect.Expected
		check    string
		verdict  string
		category string
		reason   string
	}{
		{"genuine A100", asA100, expect.Expected{Model: "A100"}, "gpu.order.model", wire.Pass, wire.CategoryInventory, ""},
		{"cut memory", func(d *gpu.Device) { d.MemoryTotalMiB = p(uint64(98304)) }, expect.Expected{}, "gpu.memory", wire.Fail, wire.CategoryInventory, "memory 98304 MiB is below the model's 143771 MiB"},
		{"narrow bus", func(d *gpu.Device) { d.MemoryBusWidth = p(uint32(5120)) }, expect.Expected{}, "gpu.memory_bus_width", wire.Fail, wire.CategoryInventory, "5120 bits is below the model's 6016"},
		{"fewer cores", func(d *gpu.Device) { d.Cores = p(uint32(14592)) }, expect.Expected{}, "gpu.cores", wire.Fail, wire.CategoryInventory, "GPU core count 14592"},
		{"clock capped", func(d *gpu.Device) { d.MaxSMClockMHz = p(uint32(1410)) }, expect.Expected{}, "gpu.clock.max_sm", wire.Fail, wire.CategoryInventory, "max SM clock 1410 MHz is below the model's 1980 MHz"},
		{"datasheet clock only warns", func(d *gpu.Device) { asA100(d); d.MaxSMClockMHz = p(uint32(1200)) }, expect.Expected{}, "gpu.clock.max_sm", wire.Warn, wire.CategoryInventory, "not yet calibrated"},
		{"memory clock capped", func(d *gpu.Device) { d.MaxMemClockMHz = p(uint32(2619)) }, expect.Expected{}, "gpu.clock.max_mem", wire.Fail, wire.CategoryInventory, "max memory clock 2619 MHz"},
		{"vbios power default", func(d *gpu.Device) { d.PowerDefaultLimitW, d.PowerEnforcedLimitW = p(450.0), p(450.0) }, expect.Expected{}, "gpu.power.default_limit", wire.Fail, wire.CategoryInventory, "default power limit 450 W"},
		{"power capped", func(d *gpu.Device) { d.PowerEnforcedLimitW = p(500.0) }, expect.Expected{}, "gpu.power.enforced_limit", wire.Fail, wire.CategoryInventory, "capped at 500 W"},
		{"power cap within tolerance", func(d *gpu.Device) { d.PowerEnforcedLimitW = p(680.0) }, expect.Expected{}, "gpu.power.enforced_limit", wire.Pass, wire.CategoryInventory, ""},
		{"x8 link", func(d *gpu.Device) { d.PCIeCurrentWidth = p(8) }, expect.Expected{}, "gpu.pcie.width", wire.Fail, wire.CategoryInventory, "runs at x8"},
		{"x8 slot", func(d *gpu.Device) { d.PCIeMaxWidth, d.PCIeCurrentWidth = p(8), p(8) }, expect.Expected{}, "gpu.pcie.width", wire.Fail, wire.CategoryInventory, "at most x8"},
		{"gen4 slot", func(d *gpu.Device) { d.PCIeMaxGen, d.PCIeCurrentGen = p(4), p(4) }, expect.Expected{}, "gpu.pcie.gen", wire.Fail, wire.CategoryInventory, "only gen 4 (slot or host limit)"},
		{"gen4 card", func(d *gpu.Device) { d.PCIeGPUMaxGen, d.PCIeMaxGen = p(4), p(4) }, expect.Expected{}, "gpu.pcie.gen", wire.Fail, wire.CategoryInventory, "the card supports PCIe gen 4, the model gen 5"},
		{"idle link downshift", func(d *gpu.Device) { d.PCIeCurrentGen = p(1) }, expect.Expected{}, "gpu.pcie.gen", wire.Pass, wire.CategoryInventory, "idle power saving"},
		{"mig enabled", func(d *gpu.Device) { d.MIGMode = p(1) }, expect.Expected{}, "gpu.whole", wire.Fail, wire.CategoryInventory, "MIG mode is enabled"},
		{"mig instance name", func(d *gpu.Device) { d.Name = "NVIDIA H200 MIG 1g.18gb" }, expect.Expected{}, "gpu.whole", wire.Fail, wire.CategoryInventory, "MIG instance"},
		{"compute capability", func(d *gpu.Device) { d.ComputeCapability = "8.0" }, expect.Expected{}, "gpu.compute_capability", wire.Fail, wire.CategoryInventory, "8.0, the model's is 9.0"},
		{"unknown device id", func(d *gpu.Device) { d.PCI.DeviceID = 0x999910de }, expect.Expected{}, "gpu.model", wire.Warn, wire.CategoryInventory, "0x9999 is not in the spec database"},
		{"unknown id, name mismatches order", func(d *gpu.Device) { d.PCI.DeviceID = 0x999910de }, expect.Expected{Model: "H100"}, "gpu.order.model", wire.Fail, wire.CategoryInventory, `the card is "NVIDIA H200", the order says H100`},
		{"not nvidia", func(d *gpu.Device) { d.PCI.DeviceID = 0x740f1002 }, expect.Expected{}, "gpu.model", wire.Fail, wire.CategoryInventory, "0x1002 is not NVIDIA's"},
		{"less memory than ordered", nil, expect.Expected{GPUMemoryGB: 192}, "gpu.order.memory", wire.Fail, wire.CategoryInventory, "140.4 GiB) per GPU, the order says 192 GB"},
		{"order names unknown model", nil, expect.Expected{Model: "B300"}, "gpu.order.model", wire.Fail, wire.CategoryInventory, `"B300" is not in the spec database`},
		{"PCIe card sold as SXM", func(d *gpu.Device) {
			d.Name, d.PCI.DeviceID, d.PCI.SubsystemID, d.Cores, d.MemoryTotalMiB = "NVIDIA H100 PCIe", 0x233110de, 0x162610de, p(uint32(14592)), p(uint64(81559))
		}, expect.Expected{Model: "H100 SXM"}, "gpu.order.model", wire.Fail, wire.CategoryInventory, "device id 0x2331 is NVIDIA H100 PCIe (h100-pcie-80gb), the order says H100 SXM"},
		{"lost GPU", func(d *gpu.Device) { *d = gpu.Device{Index: 0, Errors: []string{"handle: ERROR_GPU_IS_LOST"}} }, expect.Expected{}, "gpu.present", wire.Fail, wire.CategoryGPULost, "ERROR_GPU_IS_LOST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := recorded(t)
			if tc.edit != nil {
				tc.edit(&s.Devices[0])
			}
			var got *wire.Check
			cs := Judge(s, specdb.Default(), tc.order)
			for i, c := range cs {
				if c.Name == tc.check && c.GPU != nil && *c.GPU == 0 {
					got = &cs[i]
				}
			}
			if got == nil {
				t.Fatalf("no %s for GPU 0 in %d checks", tc.check, len(cs))
			}
			if got.Verdict != tc.verdict || got.Category != tc.category || !strings.Contains(got.Detail, tc.reason) {
				t.Fatalf("got %s [%s] %q; want %s [%s] with %q", got.Verdict, got.Category, got.Detail, tc.verdict, tc.category, tc.reason)
			}
		})
	}
}

func TestCount(t *testing.T) {
	s := recorded(t)
	s.Devices[1] = gpu.Device{Index: 1, Errors: []string{"handle: ERROR_GPU_IS_LOST"}}
	for _, tc := range []struct {
		order   expect.Expected
		verdict string
		reason  string
	}{
		{expect.Expected{GPUs: 2}, wire.Fail, "1 usable GPUs, the order says 2"},
		{expect.Expected{}, wire.Pass, ""},
		{expect.Expected{GPUs: 1}, wire.Pass, ""},
	} {
		c := Judge(s, specdb.Default(), tc.order)[1]
		if c.Name != "gpu.count" || c.Verdict != tc.verdict || c.Category != wire.CategoryGPULost || !strings.Contains(c.Detail, tc.reason) {
			t.Errorf("%+v: got %+v", tc.order, c)
		}
	}
	c := Judge(recorded(t), specdb.Default(), expect.Expected{GPUs: 1})[1]
	if c.Verdict != wire.Warn || c.Category != wire.CategoryInventory {
		t.Errorf("more than ordered: %+v", c)
	}
}

type failing struct{}

func (failing) Read(context.Context) (*gpu.Snapshot, error) {
	return nil, &gpu.DriverError{Op: "init", Reason: "no driver"}
}

func TestCollectWithoutDriver(t *testing.T) {
	cs := Collect(context.Background(), failing{}, specdb.Default(), expect.Expected{})
	if len(cs) != 1 || cs[0].Name != "gpu.driver" || cs[0].Verdict != wire.Fail || cs[0].Category != wire.CategoryGPULost || cs[0].Detail != "NVML init: no driver" {
		t.Fatalf("got %+v", cs)
	}
}
