// Package crosscheck holds NVML's answers against sources a preloaded
// library or a patched NVML cannot reach: the kernel's PCI devices and the
// NVIDIA driver's /proc files (probe/pcisys) and the CUDA driver's own
// device attributes (probe/cuda). A shim that renames a card, invents GPUs
// or shows one GPU as eight makes them disagree, and any disagreement
// fails gpu.identity.consistent.
//
// Step 2 of the observation pipeline (read, judge, observe, spool, push):
// judges the GPU snapshot against the kernel's and CUDA's own view of the
// GPUs.
package crosscheck

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/gpusla/gpusla/probe/cuda"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/pcisys"
	"github.com/gpusla/gpusla/probe/wire"
)

// CUDAView is the CUDA driver's view of the devices.
type CUDAView struct {
	Devices []cuda.DeviceInfo `json:"devices"`
	// Error says why the CUDA driver could not be asked.
	Error string `json:"error,omitempty"`
	// Visible is CUDA_VISIBLE_DEVICES when set: CUDA then shows only
	// those devices, so counts are not compared.
	Visible string `json:"cuda_visible_devices,omitempty"`
}

// ReadCUDA asks the CUDA driver about every device it sees.
func ReadCUDA(context.Context) *CUDAView {
	v := &CUDAView{}
	if vis, ok := os.LookupEnv("CUDA_VISIBLE_DEVICES"); ok {
		v.Visible = vis
		if vis == "" {
			v.Visible = "(empty)"
		}
	}
	drv, err := cuda.Load()
	if err != nil {
		v.Error = err.Error()
		return v
	}
	n, err := drv.DeviceCount()
	if err != nil {
		v.Error = err.Error()
		return v
	}
	for i := 0; i < n; i++ {
		info, err := drv.Device(i)
		if err != nil {
			v.Error = fmt.Sprintf("device %d: %v", i, err)
			continue
		}
		v.Devices = append(v.Devices, info)
	}
	return v
}

// Input is what is compared.
type Input struct {
	NVML   *gpu.Snapshot
	Kernel *pcisys.Snapshot
	CUDA   *CUDAView
}

const name = "gpu.identity.consistent"

// Tolerances: CUDA reports the framebuffer less a few hundred MiB the
// driver reserves (an H100 80GB: NVML 81559 MiB, CUDA 81079, 0.6 %), and
// the same clock table as NVML. A shim's lie (half or double the memory,
// another model's clock) is far outside either.
const (
	memTolerance   = 0.02
	clockTolerance = 0.01
)

// Judge compares the sources: one check for the machine (GPU counts) and
// one per NVML GPU.
func Judge(in Input) []wire.Check {
	if in.NVML == nil {
		return nil // no NVML answer: gpu.driver already fails
	}
	var out []wire.Check
	out = append(out, judgeCount(in))
	for i := range in.NVML.Devices {
		out = append(out, judgeDevice(&in.NVML.Devices[i], in))
	}
	return out
}

// sources names what each check compared, and says why a source was not.
type tally struct {
	compared []string
	skipped  []string
	bad      []string
}

func (t *tally) check(c *wire.Check) {
	switch {
	case len(t.bad) > 0:
		c.Verdict = wire.Fail
		c.SetValue("%d disagreement(s)", len(t.bad))
		c.SetDetail("%s: NVML's answers are not the hardware's (a preloaded library, a patched driver or relabelled ids)", strings.Join(t.bad, "; "))
	case len(t.compared) == 0:
		c.Verdict, c.Value = wire.Skipped, "-"
		c.SetDetail("nothing to compare NVML with: %s", strings.Join(t.skipped, "; "))
	default:
		c.Verdict = wire.Pass
		c.SetValue("agree: %s", strings.Join(t.compared, ", "))
		if len(t.skipped) > 0 {
			c.SetDetail("not compared: %s", strings.Join(t.skipped, "; "))
		}
	}
}

func judgeCount(in Input) wire.Check {
	c := wire.Check{Name: name, Category: wire.CategoryInventory,
		Criterion: "as many GPUs on the PCI bus, in the NVIDIA driver's /proc and in CUDA as NVML lists"}
	n := len(in.NVML.Devices)
	var t tally
	if k := in.Kernel; k == nil {
		t.skipped = append(t.skipped, "the kernel's view was not read")
	} else {
		if k.SysError == "" {
			t.compared = append(t.compared, fmt.Sprintf("%d on the PCI bus", len(k.Devices)))
			if len(k.Devices) != n {
				t.bad = append(t.bad, fmt.Sprintf("NVML lists %d GPUs, the PCI bus has %d NVIDIA GPUs", n, len(k.Devices)))
			}
		} else {
			t.skipped = append(t.skipped, "/sys: "+k.SysError)
		}
		if k.ProcError == "" {
			procN := len(k.ProcOnly)
			for _, d := range k.Devices {
				if d.Driver != nil {
					procN++
				}
			}
			t.compared = append(t.compared, fmt.Sprintf("%d in /proc/driver/nvidia", procN))
			if procN != n {
				t.bad = append(t.bad, fmt.Sprintf("NVML lists %d GPUs, the NVIDIA driver's /proc lists %d", n, procN))
			}
			for _, a := range k.ProcOnly {
				t.bad = append(t.bad, fmt.Sprintf("the driver lists a GPU at %s where the PCI bus has no NVIDIA GPU", a))
			}
		} else {
			t.skipped = append(t.skipped, "/proc/driver/nvidia: "+k.ProcError)
		}
	}
	switch cu := in.CUDA; {
	case cu == nil:
		t.skipped = append(t.skipped, "CUDA was not asked")
	case cu.Error != "":
		t.skipped = append(t.skipped, "CUDA: "+cu.Error)
	case cu.Visible != "":
		t.skipped = append(t.skipped, "CUDA count (CUDA_VISIBLE_DEVICES="+cu.Visible+" limits it)")
	default:
		t.compared = append(t.compared, fmt.Sprintf("%d in CUDA", len(cu.Devices)))
		if len(cu.Devices) != n {
			t.bad = append(t.bad, fmt.Sprintf("NVML lists %d GPUs, CUDA sees %d", n, len(cu.Devices)))
		}
	}
	t.check(&c)
	return c
}

func judgeDevice(d *gpu.Device, in Input) wire.Check {
	g := d.Index
	c := wire.Check{Name: name, Category: wire.CategoryInventory, GPU: &g, UUID: d.UUID,
		Criterion: "NVML's ids, name, UUID, link, SMs, memory and clocks equal the PCI bus's, the driver's /proc and CUDA's"}
	var t tally
	addr := pcisys.Normalise(d.PCI.BusID)
	if d.PCI.BusID == "" {
		t.skipped = append(t.skipped, "NVML gave no bus id to match the other sources by")
		t.check(&c)
		return c
	}
	if k := in.Kernel; k == nil || k.SysError != "" {
		t.skipped = append(t.skipped, "PCI bus (not read)")
	} else if p, ok := find(k.Devices, addr); !ok {
		t.bad = append(t.bad, fmt.Sprintf("NVML lists a GPU at %s, the PCI bus has no NVIDIA GPU there", addr))
	} else {
		comparePCI(d, p, &t)
		if p.Driver != nil {
			t.compared = append(t.compared, "driver's /proc")
			if !strings.EqualFold(strings.TrimSpace(p.Driver.Model), strings.TrimSpace(d.Name)) {
				t.bad = append(t.bad, fmt.Sprintf("NVML calls it %q, the NVIDIA driver's /proc %q", d.Name, p.Driver.Model))
			}
			if p.Driver.UUID != "" && d.UUID != "" && !strings.EqualFold(p.Driver.UUID, d.UUID) {
				t.bad = append(t.bad, fmt.Sprintf("NVML's UUID %s, the driver's /proc %s", d.UUID, p.Driver.UUID))
			}
		} else if k.ProcError != "" {
			t.skipped = append(t.skipped, "driver's /proc: "+k.ProcError)
		}
	}
	switch cu := in.CUDA; {
	case cu == nil:
		t.skipped = append(t.skipped, "CUDA (not asked)")
	case cu.Error != "" && len(cu.Devices) == 0:
		t.skipped = append(t.skipped, "CUDA: "+cu.Error)
	default:
		if info, ok := findCUDA(cu.Devices, addr); ok {
			compareCUDA(d, info, &t)
		} else if cu.Visible != "" {
			t.skipped = append(t.skipped, "CUDA (CUDA_VISIBLE_DEVICES="+cu.Visible+" hides it)")
		} else {
			t.bad = append(t.bad, fmt.Sprintf("NVML lists a GPU at %s, CUDA has none there", addr))
		}
	}
	t.check(&c)
	return c
}

func find(ds []pcisys.Device, addr string) (pcisys.Device, bool) {
	for _, p := range ds {
		if p.Address == addr {
			return p, true
		}
	}
	return pcisys.Device{}, false
}

func findCUDA(ds []cuda.DeviceInfo, addr string) (cuda.DeviceInfo, bool) {
	for _, i := range ds {
		if pcisys.Normalise(i.PCIBusID) == addr {
			return i, true
		}
	}
	return cuda.DeviceInfo{}, false
}

// comparePCI holds NVML's PCI ids and link to the config space the kernel
// read.
func comparePCI(d *gpu.Device, p pcisys.Device, t *tally) {
	t.compared = append(t.compared, "PCI bus")
	ids := []struct {
		what       string
		nvml, kern uint16
	}{
		{"vendor", d.PCI.VendorID(), p.Vendor},
		{"device id", d.PCI.DeviceID16(), p.Device},
		{"subsystem vendor", uint16(d.PCI.SubsystemID & 0xffff), p.SubsystemVendor},
		{"subsystem device", uint16(d.PCI.SubsystemID >> 16), p.SubsystemDevice},
	}
	for _, id := range ids {
		if id.nvml != id.kern {
			t.bad = append(t.bad, fmt.Sprintf("%s: NVML 0x%04x, PCI bus 0x%04x", id.what, id.nvml, id.kern))
		}
	}
	// In a VM the hypervisor may present its own link registers to the
	// guest while NVML reads the GPU's: the link is compared on bare metal
	// only.
	if d.VirtualizationMode == nil || *d.VirtualizationMode != 0 {
		t.skipped = append(t.skipped, "PCIe link (in a VM the hypervisor may virtualise the link registers)")
		return
	}
	if d.PCIeGPUMaxGen != nil && p.MaxLinkGen > 0 && *d.PCIeGPUMaxGen != p.MaxLinkGen {
		t.bad = append(t.bad, fmt.Sprintf("max PCIe gen: NVML %d, PCI bus %d", *d.PCIeGPUMaxGen, p.MaxLinkGen))
	}
	if d.PCIeMaxWidth != nil && p.MaxLinkWidth > 0 && *d.PCIeMaxWidth != p.MaxLinkWidth {
		t.bad = append(t.bad, fmt.Sprintf("max PCIe width: NVML x%d, PCI bus x%d", *d.PCIeMaxWidth, p.MaxLinkWidth))
	}
}

// compareCUDA holds NVML's name, SM count, memory, clock and compute
// capability to
// the CUDA driver's attributes.
func compareCUDA(d *gpu.Device, i cuda.DeviceInfo, t *tally) {
	t.compared = append(t.compared, "CUDA")
	if i.Name != "" && d.Name != "" && i.Name != d.Name {
		t.bad = append(t.bad, fmt.Sprintf("NVML calls it %q, CUDA %q", d.Name, i.Name))
	}
	if sms := d.SMs(); sms > 0 && i.SMs > 0 && sms != i.SMs {
		t.bad = append(t.bad, fmt.Sprintf("SMs: NVML %d (from %d cores), CUDA %d", sms, *d.Cores, i.SMs))
	}
	if d.MemoryTotalMiB != nil && i.TotalMem > 0 {
		cu := float64(i.TotalMem) / (1 << 20)
		if math.Abs(cu-float64(*d.MemoryTotalMiB)) > memTolerance*cu {
			t.bad = append(t.bad, fmt.Sprintf("memory: NVML %d MiB, CUDA %.0f MiB", *d.MemoryTotalMiB, cu))
		}
	}
	if d.MaxSMClockMHz != nil && i.ClockKHz > 0 {
		cu := float64(i.ClockKHz) / 1000
		if math.Abs(cu-float64(*d.MaxSMClockMHz)) > clockTolerance*cu {
			t.bad = append(t.bad, fmt.Sprintf("max SM clock: NVML %d MHz, CUDA %.0f MHz", *d.MaxSMClockMHz, cu))
		}
	}
	// The bus width is not compared: NVML reports HBM3e H200s as 6016
	// bits where CUDA counts the stacks' full width.
	if d.ComputeCapability != "" && i.CCMajor > 0 && d.ComputeCapability != fmt.Sprintf("%d.%d", i.CCMajor, i.CCMinor) {
		t.bad = append(t.bad, fmt.Sprintf("compute capability: NVML %s, CUDA %d.%d", d.ComputeCapability, i.CCMajor, i.CCMinor))
	}
}
