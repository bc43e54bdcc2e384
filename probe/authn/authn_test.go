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

// as4090 turns GPU 0 into a genuine RTX 4090 on an ASUS board.
func as4090(d *gpu.Device) {
	d.Name, d.PCI.DeviceID, d.PCI.SubsystemID = "NVIDIA GeForce RTX 4090", 0x268410de, 0x88e21043
	d.MemoryTotalMiB, d.MemoryBusWidth, d.Cores, d.ComputeCapability = p(uint64(24564)), p(uint32(384)), p(uint32(16384)), "8.9"
	d.MaxSMClockMHz, d.MaxMemClockMHz = p(uint32(3105)), p(uint32(10501))
	d.PowerDefaultLimitW, d.PowerEnforcedLimitW = p(450.0), p(450.0)
	d.PCIeGPUMaxGen, d.PCIeMaxGen, d.PCIeCurrentGen = p(4), p(4), p(4)
}

// asTuring turns GPU 0 into a Turing GeForce card.
func asTuring(d *gpu.Device, id uint16, name string, mib uint64, cores, bus uint32) {
	as4090(d)
	d.Name, d.PCI.DeviceID, d.ComputeCapability = name, uint32(id)<<16|0x10de, "7.5"
	d.MemoryTotalMiB, d.Cores, d.MemoryBusWidth = p(mib), p(cores), p(bus)
	d.MaxSMClockMHz, d.MaxMemClockMHz, d.PowerDefaultLimitW, d.PowerEnforcedLimitW = p(uint32(2100)), p(uint32(7000)), p(250.0), p(250.0)
	d.PCIeGPUMaxGen, d.PCIeMaxGen, d.PCIeCurrentGen = p(3), p(3), p(3)
}

func unreadableMemory(d *gpu.Device) {
	d.MemoryTotalMiB, d.MemoryUsedMiB = nil, nil
	d.Errors = append(d.Errors, "memory: ERROR_UNKNOWN")
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
		{"unknown device id", func(d *gpu.Device) { d.Name, d.PCI.DeviceID = "NVIDIA Mystery GPU", 0x999910de }, expect.Expected{}, "gpu.model", wire.Warn, wire.CategoryInventory, "0x9999 is not in the spec database"},
		{"unknown id calling itself a known model", func(d *gpu.Device) { d.PCI.DeviceID = 0x999910de }, expect.Expected{}, "gpu.model", wire.Fail, wire.CategoryInventory, "a genuine one has device id 0x2335 and this one has 0x9999: relabelled"},
		{"RTX 4090 reworked to 48 GB", func(d *gpu.Device) { as4090(d); d.MemoryTotalMiB = p(uint64(49140)) }, expect.Expected{}, "gpu.memory", wire.Fail, wire.CategoryInventory, "more than any genuine NVIDIA GeForce RTX 4090 has (24564 MiB): a reworked board"},
		{"genuine RTX 4090", as4090, expect.Expected{Model: "RTX 4090", GPUMemoryGB: 24}, "gpu.memory", wire.Pass, wire.CategoryInventory, ""},
		{"RTX 2080 Ti reworked to 22 GB", func(d *gpu.Device) { asTuring(d, 0x1e07, "NVIDIA GeForce RTX 2080 Ti", 22528, 4352, 352) }, expect.Expected{}, "gpu.memory", wire.Fail, wire.CategoryInventory, "a reworked board"},
		{"RTX 2080 Ti as shipped", func(d *gpu.Device) { asTuring(d, 0x1e07, "NVIDIA GeForce RTX 2080 Ti", 11019, 4352, 352) }, expect.Expected{}, "gpu.memory", wire.Pass, wire.CategoryInventory, ""},
		{"RTX 3080 reworked to 20 GB", func(d *gpu.Device) {
			as4090(d)
			d.Name, d.PCI.DeviceID, d.ComputeCapability = "NVIDIA GeForce RTX 3080", 0x220610de, "8.6"
			d.MemoryTotalMiB, d.Cores, d.MemoryBusWidth = p(uint64(20480)), p(uint32(8704)), p(uint32(320))
		}, expect.Expected{}, "gpu.memory", wire.Fail, wire.CategoryInventory, "a reworked board"},
		{"more cores than the model", func(d *gpu.Device) { d.Cores = p(uint32(18432)) }, expect.Expected{}, "gpu.cores", wire.Fail, wire.CategoryInventory, "above the model's 16896"},
		{"wider bus than the model", func(d *gpu.Device) { as4090(d); d.MemoryBusWidth = p(uint32(512)) }, expect.Expected{}, "gpu.memory_bus_width", wire.Fail, wire.CategoryInventory, "above the model's 384"},
		{"SXM module on a partner board", func(d *gpu.Device) { d.PCI.SubsystemID = 0x18bf1043 }, expect.Expected{}, "gpu.board", wire.Fail, wire.CategoryInventory, "an SXM module (NVIDIA H200), which only NVIDIA builds, but its subsystem vendor is 0x1043 (ASUS)"},
		{"PCIe card on a partner board", func(d *gpu.Device) { as4090(d); d.PCI.SubsystemID = 0x88a21043 }, expect.Expected{}, "gpu.board", wire.Pass, wire.CategoryInventory, ""},
		{"forged subsystem vendor", func(d *gpu.Device) { as4090(d); d.PCI.SubsystemID = 0x0000ffff }, expect.Expected{}, "gpu.board", wire.Fail, wire.CategoryInventory, "0xffff is no vendor"},
		{"memory unreadable", unreadableMemory, expect.Expected{}, "gpu.memory", wire.Skipped, wire.CategoryInventory, "NVML could not read memory: ERROR_UNKNOWN"},
		{"memory unreadable: identity unverified", unreadableMemory, expect.Expected{}, "gpu.identity.verified", wire.Warn, wire.CategoryInventory, "memory size (NVML could not read memory: ERROR_UNKNOWN)"},
		{"memory unreadable: order unverified", unreadableMemory, expect.Expected{GPUMemoryGB: 141}, "gpu.order.memory", wire.Warn, wire.CategoryInventory, "the order cannot be verified"},
		{"cores not supported", func(d *gpu.Device) { d.Cores, d.Unsupported = nil, append(d.Unsupported, "gpu_cores") }, expect.Expected{}, "gpu.cores", wire.Skipped, wire.CategoryInventory, "gpu_cores: not supported"},
		{"pci ids unreadable", func(d *gpu.Device) { d.PCI = gpu.PCI{}; d.Errors = append(d.Errors, "pci: ERROR_UNKNOWN") }, expect.Expected{Model: "H200"}, "gpu.order.model", wire.Warn, wire.CategoryInventory, "the order cannot be verified: the PCI device id could not be read"},
		{"more memory than ordered", nil, expect.Expected{GPUMemoryGB: 80}, "gpu.order.memory", wire.Warn, wire.CategoryInventory, "more than the 80 GB ordered"},
		{"model without a figure", func(d *gpu.Device) {
			as4090(d)
			d.Name, d.PCI.DeviceID, d.ComputeCapability, d.MemoryTotalMiB = "NVIDIA A10G", 0x223710de, "8.6", p(uint64(22731))
		}, expect.Expected{}, "gpu.cores", wire.Skipped, wire.CategoryInventory, "the spec database has no core count for NVIDIA A10G"},
		{"unknown id, name mismatches order", func(d *gpu.Device) { d.PCI.DeviceID = 0x999910de }, expect.Expected{Model: "H100"}, "gpu.order.model", wire.Fail, wire.CategoryInventory, `the card is "NVIDIA H200", the order says H100`},
		{"not nvidia", func(d *gpu.Device) { d.PCI.DeviceID = 0x740f1002 }, expect.Expected{}, "gpu.model", wire.Fail, wire.CategoryInventory, "0x1002 is not NVIDIA's"},
		{"less memory than ordered", nil, expect.Expected{GPUMemoryGB: 192}, "gpu.order.memory", wire.Fail, wire.CategoryInventory, "140.4 GiB) per GPU, the order says 192 GB"},
		// 80 GB ordered is 81920 MiB: 97 % of it is 79462.4 MiB, 103 % 84377.6 MiB.
		{"97 % of the memory ordered", func(d *gpu.Device) { d.MemoryTotalMiB = p(uint64(79463)) }, expect.Expected{GPUMemoryGB: 80}, "gpu.order.memory", wire.Pass, wire.CategoryInventory, ""},
		{"just under 97 % of the memory ordered", func(d *gpu.Device) { d.MemoryTotalMiB = p(uint64(79462)) }, expect.Expected{GPUMemoryGB: 80}, "gpu.order.memory", wire.Fail, wire.CategoryInventory,
			"79462 MiB (77.6 GiB) per GPU, the order says 80 GB"},
		{"103 % of the memory ordered", func(d *gpu.Device) { d.MemoryTotalMiB = p(uint64(84377)) }, expect.Expected{GPUMemoryGB: 80}, "gpu.order.memory", wire.Pass, wire.CategoryInventory, ""},
		{"just over 103 % of the memory ordered", func(d *gpu.Device) { d.MemoryTotalMiB = p(uint64(84378)) }, expect.Expected{GPUMemoryGB: 80}, "gpu.order.memory", wire.Warn, wire.CategoryInventory,
			"84378 MiB (82.4 GiB) per GPU, more than the 80 GB ordered"},
		{"order names unknown model", nil, expect.Expected{Model: "B300"}, "gpu.order.model", wire.Fail, wire.CategoryInventory, `"B300" is not in the spec database`},
		{"PCIe card sold as SXM", func(d *gpu.Device) {
			d.Name, d.PCI.DeviceID, d.PCI.SubsystemID, d.Cores, d.MemoryTotalMiB = "NVIDIA H100 PCIe", 0x233110de, 0x162610de, p(uint32(14592)), p(uint64(81559))
		}, expect.Expected{Model: "H100 SXM"}, "gpu.order.model", wire.Fail, wire.CategoryInventory, "device id 0x2331 is NVIDIA H100 PCIe (h100-pcie-80gb), the order says H100 SXM"},
		// An order naming the family: the PCIe card is the family's
		// cut-down form (the SXM outdoes it on every datasheet figure):
		// a warning, never a pass; the genuine H200 (SXM) on "H200" passes.
		{"PCIe card on an H100 order", func(d *gpu.Device) {
			d.Name, d.PCI.DeviceID, d.PCI.SubsystemID, d.Cores, d.MemoryTotalMiB = "NVIDIA H100 PCIe", 0x233110de, 0x162610de, p(uint32(14592)), p(uint64(81559))
		}, expect.Expected{Model: "H100", GPUMemoryGB: 80}, "gpu.order.model", wire.Warn, wire.CategoryInventory,
			"the order H100 can mean NVIDIA H100 80GB HBM3 or NVIDIA H100 PCIe; the card is the NVIDIA H100 PCIe, below the other"},
		{"PCIe card ordered as PCIe", func(d *gpu.Device) {
			d.Name, d.PCI.DeviceID, d.PCI.SubsystemID, d.Cores, d.MemoryTotalMiB = "NVIDIA H100 PCIe", 0x233110de, 0x162610de, p(uint32(14592)), p(uint64(81559))
		}, expect.Expected{Model: "H100 PCIe"}, "gpu.order.model", wire.Pass, wire.CategoryInventory, ""},
		{"H200 SXM on an H200 order", nil, expect.Expected{Model: "H200", GPUMemoryGB: 141}, "gpu.order.model", wire.Pass, wire.CategoryInventory, ""},
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

// TestPCIeGenValueBesideCriterion: the value shown beside "gen 5 (the
// card's)" is the link's maximum, the figure judged; an idle link's lower
// speed of the moment follows it, never leads it.
func TestPCIeGenValueBesideCriterion(t *testing.T) {
	for _, tc := range []struct {
		cur, want string
		edit      func(d *gpu.Device)
	}{
		{"idle", "gen 5 (gen 1 now)", func(d *gpu.Device) { d.PCIeCurrentGen = p(1) }},
		{"busy", "gen 5", func(d *gpu.Device) { d.PCIeCurrentGen = p(5) }},
		{"unread", "gen 5", func(d *gpu.Device) { d.PCIeCurrentGen = nil }},
	} {
		s := recorded(t)
		tc.edit(&s.Devices[0])
		for _, c := range Judge(s, specdb.Default(), expect.Expected{}) {
			if c.Name == "gpu.pcie.gen" && c.GPU != nil && *c.GPU == 0 && (c.Value != tc.want || c.Criterion != "gen 5 (the card's)" || c.Verdict != wire.Pass) {
				t.Errorf("%s link: %s %q beside %q, want %q", tc.cur, c.Verdict, c.Value, c.Criterion, tc.want)
			}
		}
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

// A genuine card of a datasheet model passes every identity check: the
// database's figures do not raise false alarms.
func TestGenuineCardsPass(t *testing.T) {
	for name, edit := range map[string]func(*gpu.Device){"RTX 4090": as4090, "A100 SXM4 80GB": asA100} {
		s := recorded(t)
		s.Devices = s.Devices[:1]
		edit(&s.Devices[0])
		for _, c := range Judge(s, specdb.Default(), expect.Expected{Model: name, GPUs: 1}) {
			if c.Verdict != wire.Pass {
				t.Errorf("%s: %s %s: %s", name, c.Name, c.Verdict, c.Detail)
			}
		}
	}
}

// The driver against the order (nvidia-smi's "驱动版本…与下单配置一致"):
// the version ordered or a release of it, whole parts only.
func TestOrderDriver(t *testing.T) {
	for _, tc := range []struct {
		ordered, installed, verdict, detail string
	}{
		{"580.159.04", "580.159.04", wire.Pass, ""},
		{"580", "580.159.04", wire.Pass, ""},
		{"580.159", "580.159.04", wire.Pass, ""},
		{"580.15", "580.159.04", wire.Fail, "driver 580.159.04 is installed, the order says 580.15"},
		{"535.129.03", "580.159.04", wire.Fail, "the order says 535.129.03"},
		{"580.159.04.1", "580.159.04", wire.Fail, "the order says 580.159.04.1"},
		{"580", "", wire.Warn, "NVML did not report the driver version"},
	} {
		s := recorded(t)
		s.DriverVersion = tc.installed
		var got *wire.Check
		for _, c := range Judge(s, specdb.Default(), expect.Expected{Driver: tc.ordered}) {
			if c.Name == "gpu.order.driver" {
				got = &c
			}
		}
		if got == nil || got.Verdict != tc.verdict || got.Category != wire.CategoryInventory || !strings.Contains(got.Detail, tc.detail) {
			t.Errorf("ordered %s, installed %q: %+v", tc.ordered, tc.installed, got)
		}
	}
	for _, c := range Judge(recorded(t), specdb.Default(), expect.Expected{}) {
		if c.Name == "gpu.order.driver" {
			t.Errorf("no driver ordered, yet %+v", c)
		}
	}
	var e expect.Expected
	if err := e.Set("driver=580.x"); err == nil || !strings.Contains(err.Error(), `expected.driver: "580.x" is not a driver version`) {
		t.Errorf("driver=580.x: %v", err)
	}
}
