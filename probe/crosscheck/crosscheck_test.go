package crosscheck

import (
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/cuda"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/gpu/gputest"
	"github.com/gpusla/gpusla/probe/pcisys"
	"github.com/gpusla/gpusla/probe/wire"
)

// recorded is the NVML part of the real 2×H200 recording.
func recorded(t *testing.T) *gpu.Snapshot {
	return gputest.Recorded(t, "../checkrun/testdata/snapshots/h200x2-real.json")
}

// cudaOf is what the CUDA driver reports for the recorded H200s:
// 132 SMs at 1980 MHz, the framebuffer less what the driver reserves.
func cudaOf(s *gpu.Snapshot) *CUDAView {
	v := &CUDAView{}
	for i, d := range s.Devices {
		v.Devices = append(v.Devices, cuda.DeviceInfo{Ordinal: i, Name: d.Name, CCMajor: 9, CCMinor: 0, SMs: 132,
			TotalMem: (*d.MemoryTotalMiB - 480) << 20, PCIBusID: pcisys.Normalise(d.PCI.BusID), ClockKHz: 1980000})
	}
	return v
}

func verdicts(cs []wire.Check) map[string]wire.Check {
	out := map[string]wire.Check{}
	for _, c := range cs {
		k := "machine"
		if c.GPU != nil {
			k = "gpu" + string(rune('0'+*c.GPU))
		}
		out[k] = c
	}
	return out
}

func TestGenuineMachineAgrees(t *testing.T) {
	s := recorded(t)
	cs := Judge(Input{NVML: s, Kernel: pcisys.Read("../pcisys/testdata/h200x2"), CUDA: cudaOf(s)})
	if len(cs) != 3 {
		t.Fatalf("%d checks, want machine + 2 GPUs", len(cs))
	}
	for _, c := range cs {
		if c.Name != name || c.Verdict != wire.Pass {
			t.Errorf("%s gpu %v: %s %s %s", c.Name, c.GPU, c.Verdict, c.Value, c.Detail)
		}
	}
	// The recording is a VM (pass-through): the link is not compared, and
	// the check says so.
	if d := cs[1].Detail; !strings.Contains(d, "hypervisor may virtualise") {
		t.Errorf("GPU 0 detail %q does not say the link was not compared", d)
	}
}

func TestShimDisagreements(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tree  string
		edit  func(s *gpu.Snapshot, v *CUDAView)
		where string
		want  string
	}{
		{"one GPU shown as two", "one-gpu", func(*gpu.Snapshot, *CUDAView) {}, "machine", "NVML lists 2 GPUs, the PCI bus has 1 NVIDIA GPUs"},
		{"invented GPU", "one-gpu", func(*gpu.Snapshot, *CUDAView) {}, "gpu1", "NVML lists a GPU at 0000:00:07.0, the PCI bus has no NVIDIA GPU there"},
		{"renamed card", "h200x2", func(s *gpu.Snapshot, _ *CUDAView) { s.Devices[0].Name = "NVIDIA H100 80GB HBM3" }, "gpu0", `NVML calls it "NVIDIA H100 80GB HBM3", the NVIDIA driver's /proc "NVIDIA H200"`},
		{"altered device id", "h200x2", func(s *gpu.Snapshot, _ *CUDAView) { s.Devices[1].PCI.DeviceID = 0x233010de }, "gpu1", "device id: NVML 0x2330, PCI bus 0x2335"},
		{"altered subsystem", "h200x2", func(s *gpu.Snapshot, _ *CUDAView) { s.Devices[0].PCI.SubsystemID = 0x18bf1043 }, "gpu0", "subsystem vendor: NVML 0x1043, PCI bus 0x10de"},
		{"fewer SMs than NVML says", "h200x2", func(_ *gpu.Snapshot, v *CUDAView) { v.Devices[0].SMs = 114 }, "gpu0", "SMs: NVML 132 (from 16896 cores), CUDA 114"},
		{"memory doubled", "h200x2", func(s *gpu.Snapshot, _ *CUDAView) {
			m := 2 * *s.Devices[0].MemoryTotalMiB
			s.Devices[0].MemoryTotalMiB = &m
		}, "gpu0", "memory: NVML 287542 MiB"},
		{"other clock", "h200x2", func(_ *gpu.Snapshot, v *CUDAView) { v.Devices[1].ClockKHz = 1755000 }, "gpu1", "max SM clock: NVML 1980 MHz, CUDA 1755 MHz"},
		{"CUDA sees fewer", "h200x2", func(_ *gpu.Snapshot, v *CUDAView) { v.Devices = v.Devices[:1] }, "machine", "NVML lists 2 GPUs, CUDA sees 1"},
		{"UUID swapped", "h200x2", func(s *gpu.Snapshot, _ *CUDAView) { s.Devices[0].UUID = "GPU-00000000-0000-0000-0000-000000000000" }, "gpu0", "NVML's UUID GPU-00000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := recorded(t)
			v := cudaOf(s)
			tc.edit(s, v)
			got := verdicts(Judge(Input{NVML: s, Kernel: pcisys.Read("../pcisys/testdata/" + tc.tree), CUDA: v}))[tc.where]
			if got.Verdict != wire.Fail || !strings.Contains(got.Detail, tc.want) {
				t.Fatalf("%s: %s %q, want fail with %q", tc.where, got.Verdict, got.Detail, tc.want)
			}
		})
	}
}

// On bare metal the link is compared too: a shim claiming x16 on an x8
// link is caught.
func TestBareMetalLink(t *testing.T) {
	s := recorded(t)
	zero := 0
	for i := range s.Devices {
		s.Devices[i].VirtualizationMode = &zero
	}
	k := pcisys.Read("../pcisys/testdata/h200x2")
	if c := verdicts(Judge(Input{NVML: s, Kernel: k, CUDA: cudaOf(s)}))["gpu0"]; c.Verdict != wire.Pass {
		t.Fatalf("genuine link: %+v", c)
	}
	k.Devices[0].MaxLinkWidth = 8
	if c := verdicts(Judge(Input{NVML: s, Kernel: k, CUDA: cudaOf(s)}))["gpu0"]; c.Verdict != wire.Fail || !strings.Contains(c.Detail, "max PCIe width: NVML x16, PCI bus x8") {
		t.Fatalf("x8 link: %+v", c)
	}
}

// Sources that could not be read are named; with none, the check is
// skipped, not passed.
func TestUnreadSourcesAreSkipped(t *testing.T) {
	s := recorded(t)
	cs := Judge(Input{NVML: s, Kernel: pcisys.Read(t.TempDir()), CUDA: &CUDAView{Error: "CUDA driver library libcuda.so.1 not found"}})
	for _, c := range cs {
		if c.Verdict != wire.Skipped || !strings.Contains(c.Detail, "nothing to compare") {
			t.Errorf("gpu %v: %s %q", c.GPU, c.Verdict, c.Detail)
		}
	}
	v := cudaOf(s)
	v.Devices, v.Visible = v.Devices[:1], "0"
	c := verdicts(Judge(Input{NVML: s, Kernel: pcisys.Read("../pcisys/testdata/h200x2"), CUDA: v}))["machine"]
	if c.Verdict != wire.Pass || !strings.Contains(c.Detail, "CUDA_VISIBLE_DEVICES=0") {
		t.Errorf("CUDA_VISIBLE_DEVICES: %+v", c)
	}
}
