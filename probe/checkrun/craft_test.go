package checkrun

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu"
)

// The crafted snapshots in testdata/snapshots are derived from the real
// 2×H200 recording by the functions below, so every crafted file differs
// from a real machine only in what its scenario changes. Regenerate with
//
//	go test ./probe/checkrun -run TestCraftedSnapshotsUpToDate -update
var update = flag.Bool("update", false, "rewrite the crafted snapshots in testdata/snapshots")

const realSnapshot = "testdata/snapshots/h200x2-real.json"

func p[T any](v T) *T { return &v }

// oneGPU keeps the first GPU only, as a one-GPU rental.
func oneGPU(s *Snapshot) {
	s.GPU.Devices = s.GPU.Devices[:1]
	s.GPU.Devices[0].NVLinks = nil
	s.GPU.Devices[0].Unsupported = append(s.GPU.Devices[0].Unsupported, "nvlink")
}

// crafted lists each scenario: its file, what it represents, the order it
// was sold under, and how it differs from the real recording.
// geforce turns the recording into one Ada GeForce card with that device
// id, core count and memory, as an RTX 4090-class board reports it.
func geforce(s *Snapshot, id uint16, cores uint32, mib uint64) {
	oneGPU(s)
	d := &s.GPU.Devices[0]
	d.Name, d.Architecture, d.BoardPartNumber, d.VBIOS = "NVIDIA GeForce RTX 4090", "ada", "", "95.02.3C.40.8A"
	d.PCI.DeviceID = uint32(id)<<16 | 0x10de
	d.MemoryTotalMiB, d.MemoryUsedMiB, d.MemoryBusWidth = p(mib), p(uint64(290)), p(uint32(384))
	d.Cores, d.ComputeCapability = p(cores), "8.9"
	d.MaxSMClockMHz, d.MaxMemClockMHz, d.SMClockMHz, d.MemClockMHz = p(uint32(3105)), p(uint32(10501)), p(uint32(210)), p(uint32(405))
	d.PowerUsageW, d.PowerDefaultLimitW, d.PowerEnforcedLimitW, d.PowerLimitMinW, d.PowerLimitMaxW = p(21.3), p(425.0), p(425.0), p(150.0), p(480.0)
	d.SlowdownThresholdC, d.ShutdownThresholdC = p(uint32(87)), p(uint32(92))
	d.PCIeMaxGen, d.PCIeGPUMaxGen, d.PCIeMaxWidth, d.PCIeCurrentGen = p(4), p(4), p(16), p(1)
	// Consumer cards have no ECC, row remapping or page retirement.
	d.ECCEnabled, d.ECCPendingEnabled, d.ECCVolatileCorr, d.ECCVolatileUncorr, d.ECCAggregateCorr, d.ECCAggregateUncorr = nil, nil, nil, nil, nil, nil
	d.RemappedRows = nil
	d.Unsupported = append(d.Unsupported, "ecc_mode", "remapped_rows")
	d.MIGMode, d.MIGModePending = nil, nil
	d.Unsupported = append(d.Unsupported, "mig_mode")
}

var crafted = []struct {
	file  string
	note  string
	order expect.Expected
	edit  func(s *Snapshot)
}{
	{
		file:  "rtx4090d-relabelled.json",
		note:  "crafted: an RTX 4090 D (device id 0x2685, 114 SMs) whose VBIOS calls it an RTX 4090, sold as an RTX 4090",
		order: expect.Expected{Model: "RTX 4090", GPUs: 1, GPUMemoryGB: 24},
		edit: func(s *Snapshot) {
			geforce(s, 0x2685, 14592, 24564)
			s.GPU.Devices[0].PCI.SubsystemID = 0x16f310de
		},
	},
	{
		file:  "rtx4090-48gb.json",
		note:  "crafted: a genuine RTX 4090 (device id 0x2684, 128 SMs) on a reworked board with 48 GB, sold as an RTX 4090 48GB",
		order: expect.Expected{Model: "RTX 4090", GPUs: 1, GPUMemoryGB: 48},
		edit: func(s *Snapshot) {
			geforce(s, 0x2684, 16384, 49140)
			d := &s.GPU.Devices[0]
			d.PCI.SubsystemID = 0x88e21043 // an ASUS board
			d.PowerDefaultLimitW, d.PowerEnforcedLimitW, d.PowerLimitMaxW = p(450.0), p(450.0), p(600.0)
		},
	},
	{
		file:  "h200-memory-unreadable.json",
		note:  "crafted: the real H200 whose memory size NVML could not read (a shim hiding it, or a failing read)",
		order: expect.Expected{Model: "H200", GPUs: 1, GPUMemoryGB: 141},
		edit: func(s *Snapshot) {
			oneGPU(s)
			d := &s.GPU.Devices[0]
			d.MemoryTotalMiB, d.MemoryUsedMiB = nil, nil
			d.Errors = append(d.Errors, "memory: ERROR_UNKNOWN")
		},
	},
	{
		file:  "h20-as-h100.json",
		note:  "crafted: an H20 (device id 0x2329, 78 SMs, 96 GB) relabelled NVIDIA H100 80GB HBM3 and sold as an H100",
		order: expect.Expected{Model: "H100", GPUs: 1, GPUMemoryGB: 80},
		edit: func(s *Snapshot) {
			oneGPU(s)
			d := &s.GPU.Devices[0]
			d.Name = "NVIDIA H100 80GB HBM3"
			d.PCI.DeviceID, d.PCI.SubsystemID = 0x232910de, 0x180610de
			d.MemoryTotalMiB, d.MemoryBusWidth, d.Cores = p(uint64(97871)), p(uint32(6144)), p(uint32(9984))
			d.MaxMemClockMHz, d.MemClockMHz = p(uint32(2619)), p(uint32(2619))
			d.PowerDefaultLimitW, d.PowerEnforcedLimitW, d.PowerLimitMaxW = p(400.0), p(400.0), p(400.0)
		},
	},
	{
		file:  "h200-power-capped.json",
		note:  "crafted: the real 2×H200 with GPU 0's power limit set to 400 W of its 700 W default",
		order: expect.Expected{Model: "H200", GPUs: 2, GPUMemoryGB: 141},
		edit:  func(s *Snapshot) { s.GPU.Devices[0].PowerEnforcedLimitW = p(400.0) },
	},
	{
		file:  "h200-pcie-x8.json",
		note:  "crafted: the real 2×H200 with GPU 1's link trained at x8 (e.g. a bad riser) though the card is x16",
		order: expect.Expected{Model: "H200", GPUs: 2, GPUMemoryGB: 141},
		edit:  func(s *Snapshot) { s.GPU.Devices[1].PCIeCurrentWidth = p(8) },
	},
	{
		file:  "h200-remap-pending-xid79.json",
		note:  "crafted: the real 2×H200 with a row remap pending on GPU 1 and XID 79 (fallen off the bus) for GPU 1 in the kernel log",
		order: expect.Expected{Model: "H200", GPUs: 2, GPUMemoryGB: 141},
		edit: func(s *Snapshot) {
			s.GPU.Devices[1].RemappedRows = &gpu.Remap{Correctable: 0, Uncorrectable: 1, Pending: true}
			s.Kernel.Lines = append(s.Kernel.Lines,
				"4,512,8123441203,-;NVRM: Xid (PCI:0000:00:07): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x00000000000a1b2c) Marked for Remapping, reset gpu to activate.",
				"3,513,8125002117,-;NVRM: Xid (PCI:0000:00:07): 79, pid=0, GPU has fallen off the bus.")
		},
	},
	{
		file:  "h200-vgpu-slice.json",
		note:  "crafted: the real H200 presented through vGPU (virtualization mode 2) as a whole GPU",
		order: expect.Expected{Model: "H200", GPUs: 1},
		edit: func(s *Snapshot) {
			oneGPU(s)
			s.GPU.Devices[0].VirtualizationMode = p(2)
		},
	},
	{
		file:  "no-driver.json",
		note:  "crafted: the real machine's host readings with no NVIDIA driver installed",
		order: expect.Expected{Model: "H200", GPUs: 2},
		edit: func(s *Snapshot) {
			s.GPU = nil
			s.GPUError = "NVML init: the NVIDIA driver library libnvidia-ml.so.1 was not found: no NVIDIA driver is installed on this machine (ERROR_LIBRARY_NOT_FOUND)"
			s.Kernel.Lines = nil
			s.Host.NVIDIADriver = ""
		},
	},
}

func craft(t *testing.T, i int) []byte {
	t.Helper()
	s, err := ReadSnapshot(realSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	c := crafted[i]
	c.edit(s)
	s.Note = c.note
	order := c.order
	s.Expected = &order
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestCraftedSnapshotsUpToDate(t *testing.T) {
	for i, c := range crafted {
		want := craft(t, i)
		path := filepath.Join("testdata/snapshots", c.file)
		if *update {
			if err := WriteSnapshot(path, mustParse(t, want)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (regenerate with -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what its recipe makes of %s; regenerate with -update", path, realSnapshot)
		}
	}
}

func mustParse(t *testing.T, b []byte) *Snapshot {
	t.Helper()
	s, err := ParseSnapshot(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
