// Package authn decides whether the GPUs are what they claim to be and
// what was ordered. It cross-checks each card's NVML readings against the
// spec database entry of its PCI device id — name, memory, bus width,
// cores, clocks, power limits, PCIe link — and against the order. Every
// verdict names its evidence: the reading, the figure it was held to, and
// where that figure comes from.
package authn

import (
	"context"
	"fmt"
	"strings"

	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
)

// Tolerances. NVML reports a little less memory than the marketing size
// (reserved regions) and clocks or limits may be a few MHz or watts off
// between VBIOS builds; anything beyond these is a different or modified card.
const (
	MemoryRatio = 0.97
	ClockRatio  = 0.95
	PowerRatio  = 0.95
	NVIDIA      = 0x10de
)

// Collect reads the GPUs and judges them: the function the daemon schedules.
func Collect(ctx context.Context, src gpu.Source, db *specdb.DB, exp expect.Expected) []wire.Check {
	s, err := src.Read(ctx)
	if err != nil {
		return []wire.Check{DriverCheck(err)}
	}
	return Judge(s, db, exp)
}

// DriverCheck is the single failure reported when NVML cannot be used:
// the GPU section fails, plainly, and other sections carry on.
func DriverCheck(err error) wire.Check {
	return wire.Check{Name: "gpu.driver", Category: wire.CategoryGPULost, Verdict: wire.Fail,
		Value: "unavailable", Criterion: "NVML answers (NVIDIA driver installed and loaded)", Detail: err.Error()}
}

func num(v float64) *float64 { return &v }
func idx(i int) *int         { return &i }

// Judge checks a snapshot against the spec database and the order.
func Judge(s *gpu.Snapshot, db *specdb.DB, exp expect.Expected) []wire.Check {
	var out []wire.Check
	driver := s.DriverVersion
	if s.CUDAVersion != "" {
		driver += " (CUDA " + s.CUDAVersion + ")"
	}
	out = append(out, wire.Check{Name: "gpu.driver", Category: wire.CategoryInventory, Verdict: wire.Pass,
		Value: driver, Criterion: "NVML answers"})

	// Count: a GPU that NVML lists but cannot open counts as lost.
	usable := 0
	for _, d := range s.Devices {
		if !lost(d) {
			usable++
		}
	}
	c := wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Pass,
		Value: fmt.Sprintf("%d", usable), Number: num(float64(usable)), Unit: "GPUs", Criterion: "at least one GPU"}
	switch {
	case exp.GPUs > 0:
		c.Criterion = fmt.Sprintf("%d (ordered)", exp.GPUs)
		if usable < exp.GPUs {
			c.Verdict, c.Detail = wire.Fail, fmt.Sprintf("%d usable GPUs, the order says %d", usable, exp.GPUs)
		} else if usable > exp.GPUs {
			c.Verdict, c.Category, c.Detail = wire.Warn, wire.CategoryInventory, fmt.Sprintf("%d GPUs, more than the %d ordered", usable, exp.GPUs)
		}
	case usable == 0:
		c.Verdict, c.Detail = wire.Fail, "NVML lists no usable GPU"
	}
	out = append(out, c)

	var ordered []*specdb.Model
	var orderErr error
	if exp.Model != "" {
		ordered, orderErr = db.Resolve(exp.Model)
	}
	for i := range s.Devices {
		out = append(out, judgeDevice(&s.Devices[i], db, exp, ordered, orderErr)...)
	}
	return out
}

func lost(d gpu.Device) bool {
	for _, e := range d.Errors {
		if strings.HasPrefix(e, "handle:") || strings.Contains(e, "ERROR_GPU_IS_LOST") {
			return true
		}
	}
	return false
}

func judgeDevice(d *gpu.Device, db *specdb.DB, exp expect.Expected, ordered []*specdb.Model, orderErr error) []wire.Check {
	var out []wire.Check
	add := func(c wire.Check) {
		c.GPU = idx(d.Index)
		if c.Category == "" {
			c.Category = wire.CategoryInventory
		}
		out = append(out, c)
	}
	if lost(*d) {
		add(wire.Check{Name: "gpu.present", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "lost",
			Criterion: "NVML can open the GPU", Detail: strings.Join(d.Errors, "; ")})
		return out
	}
	add(wire.Check{Name: "gpu.identity", Verdict: wire.Pass, Value: d.Name, Criterion: "recorded",
		Detail: fmt.Sprintf("uuid %s, serial %s, bus %s, device 0x%08x, subsystem 0x%08x, board %s, vbios %s, %d SMs, persistence %s",
			orDash(d.UUID), orDash(d.Serial), orDash(d.PCI.BusID), d.PCI.DeviceID, d.PCI.SubsystemID, orDash(d.BoardPartNumber), orDash(d.VBIOS),
			d.SMs(), onOff(d.PersistenceMode))})

	devID := d.PCI.DeviceID16()
	if v := d.PCI.VendorID(); v != NVIDIA {
		add(wire.Check{Name: "gpu.model", Verdict: wire.Fail, Value: fmt.Sprintf("vendor 0x%04x", v),
			Criterion: "PCI vendor 0x10de (NVIDIA)", Detail: fmt.Sprintf("PCI vendor id 0x%04x is not NVIDIA's", v)})
		return out
	}
	m, known := db.Lookup(devID, uint16(d.PCI.SubsystemID>>16))

	// Virtualisation: a slice is not a whole GPU whatever it is called.
	judgeSlice(d, add)

	if !known {
		add(wire.Check{Name: "gpu.model", Verdict: wire.Warn, Value: fmt.Sprintf("%s (0x%04x)", d.Name, devID),
			Criterion: "device id in the spec database",
			Detail:    fmt.Sprintf("device id 0x%04x is not in the spec database: name, memory, clocks and power cannot be cross-checked", devID)})
		if exp.Model != "" {
			judgeOrderByName(d, exp, ordered, orderErr, add)
		}
		return out
	}

	// Name against device id: a relabelled card keeps its device id.
	c := wire.Check{Name: "gpu.model", Verdict: wire.Pass, Value: d.Name,
		Criterion: fmt.Sprintf("name matches device id 0x%04x (%s)", devID, m.DisplayName()),
		Detail:    fmt.Sprintf("spec db entry %s: %s", m.ID, m.Source)}
	nameOK := false
	for _, n := range m.Names {
		if strings.EqualFold(strings.TrimSpace(n), strings.TrimSpace(d.Name)) {
			nameOK = true
		}
	}
	if !nameOK {
		c.Verdict = wire.Fail
		c.Detail = fmt.Sprintf("the card calls itself %q but its PCI device id 0x%04x is %s", d.Name, devID, m.DisplayName())
		if claimed := db.ByNVMLName(d.Name); len(claimed) > 0 {
			c.Detail += fmt.Sprintf(" (a genuine %s has device id 0x%04x): relabelled or modified card", d.Name, claimed[0].DeviceID)
		}
	}
	add(c)

	// The order.
	if exp.Model != "" {
		c := wire.Check{Name: "gpu.order.model", Verdict: wire.Pass, Value: m.DisplayName(), Criterion: fmt.Sprintf("%s (ordered)", exp.Model)}
		switch {
		case orderErr != nil:
			c.Verdict, c.Detail = wire.Fail, "the order's model: "+orderErr.Error()
		case !contains(ordered, m):
			c.Verdict = wire.Fail
			c.Detail = fmt.Sprintf("device id 0x%04x is %s (%s), the order says %s", devID, m.DisplayName(), m.ID, exp.Model)
		}
		add(c)
	}
	if exp.GPUMemoryGB > 0 && d.MemoryTotalMiB != nil {
		want := exp.GPUMemoryGB * 1024
		got := float64(*d.MemoryTotalMiB)
		c := wire.Check{Name: "gpu.order.memory", Verdict: wire.Pass, Value: fmt.Sprintf("%.0f MiB", got), Number: num(got), Unit: "MiB",
			Criterion: fmt.Sprintf(">= %.0f %% of %g GB ordered", MemoryRatio*100, exp.GPUMemoryGB)}
		if got < MemoryRatio*want {
			c.Verdict, c.Detail = wire.Fail, fmt.Sprintf("%.0f MiB (%.1f GiB) per GPU, the order says %g GB", got, got/1024, exp.GPUMemoryGB)
		}
		add(c)
	}

	// The criterion names the entry and whether its figures were measured
	// on a real card; the gpu.model check carries the full source.
	src := m.ID + ", datasheet"
	if m.Measured() {
		src = m.ID + ", measured"
	}
	// Cut-down or modified hardware: below the model is a fail; figures
	// from datasheets (not yet calibrated on a real card) only warn for
	// clocks and power, where VBIOS builds legitimately differ a little.
	soft := wire.Fail
	if !m.Measured() {
		soft = wire.Warn
	}
	if d.MemoryTotalMiB != nil {
		add(below("gpu.memory", float64(*d.MemoryTotalMiB), float64(m.MemoryMiB), MemoryRatio, "MiB", "memory", wire.Fail, src))
	}
	if d.MemoryBusWidth != nil && m.MemoryBusWidth > 0 {
		add(below("gpu.memory_bus_width", float64(*d.MemoryBusWidth), float64(m.MemoryBusWidth), 1, "bits", "memory bus width", wire.Fail, src))
	}
	if d.Cores != nil {
		add(below("gpu.cores", float64(*d.Cores), float64(m.GPUCores), 1, "cores", "GPU core count", wire.Fail, src))
	}
	if d.ComputeCapability != "" && m.ComputeCapability != "" {
		c := wire.Check{Name: "gpu.compute_capability", Verdict: wire.Pass, Value: d.ComputeCapability, Criterion: m.ComputeCapability + " (" + src + ")"}
		if d.ComputeCapability != m.ComputeCapability {
			c.Verdict, c.Detail = wire.Fail, fmt.Sprintf("compute capability %s, the model's is %s", d.ComputeCapability, m.ComputeCapability)
		}
		add(c)
	}
	if d.MaxSMClockMHz != nil {
		add(below("gpu.clock.max_sm", float64(*d.MaxSMClockMHz), float64(m.MaxSMClockMHz), ClockRatio, "MHz", "max SM clock", soft, src))
	}
	if d.MaxMemClockMHz != nil && m.MaxMemClockMHz > 0 {
		add(below("gpu.clock.max_mem", float64(*d.MaxMemClockMHz), float64(m.MaxMemClockMHz), ClockRatio, "MHz", "max memory clock", soft, src))
	}
	if d.PowerDefaultLimitW != nil {
		add(below("gpu.power.default_limit", *d.PowerDefaultLimitW, m.DefaultPowerW, PowerRatio, "W", "default power limit", soft, src))
	}
	if d.PowerEnforcedLimitW != nil {
		// Held to the card's own default: a limit set below it caps the
		// card however genuine it is.
		ref, refName := m.DefaultPowerW, "the model's default"
		if d.PowerDefaultLimitW != nil && *d.PowerDefaultLimitW > 0 {
			ref, refName = *d.PowerDefaultLimitW, "the card's default"
		}
		c := wire.Check{Name: "gpu.power.enforced_limit", Verdict: wire.Pass, Value: fmt.Sprintf("%.0f W", *d.PowerEnforcedLimitW),
			Number: num(*d.PowerEnforcedLimitW), Unit: "W", Criterion: fmt.Sprintf(">= %.0f %% of %s %.0f W", PowerRatio*100, refName, ref)}
		if *d.PowerEnforcedLimitW < PowerRatio*ref {
			c.Verdict = wire.Fail
			c.Detail = fmt.Sprintf("power limit capped at %.0f W, %.0f %% of %s %.0f W: the card cannot reach its rated performance", *d.PowerEnforcedLimitW, 100**d.PowerEnforcedLimitW/ref, refName, ref)
		}
		add(c)
	}
	judgePCIe(d, m, add)
	return out
}

func judgeSlice(d *gpu.Device, add func(wire.Check)) {
	c := wire.Check{Name: "gpu.whole", Verdict: wire.Pass, Value: virtName(d.VirtualizationMode), Criterion: "a whole GPU: not a vGPU or MIG slice"}
	var why []string
	if d.VirtualizationMode != nil && *d.VirtualizationMode == 2 {
		why = append(why, "NVML reports virtualization mode vGPU: this is a time-sliced or MIG-backed vGPU, not a whole GPU")
	}
	if d.MIGMode != nil && *d.MIGMode == 1 {
		why = append(why, "MIG mode is enabled: the GPU is partitioned into instances")
	}
	if strings.Contains(d.Name, "MIG ") {
		why = append(why, fmt.Sprintf("the device name %q is a MIG instance's", d.Name))
	}
	if len(why) > 0 {
		c.Verdict, c.Detail = wire.Fail, strings.Join(why, "; ")
	}
	add(c)
}

func virtName(m *int) string {
	if m == nil {
		return "-"
	}
	switch *m {
	case 0:
		return "bare metal"
	case 1:
		return "pass-through"
	case 2:
		return "vGPU"
	case 3:
		return "vGPU host"
	case 4:
		return "vSGA host"
	}
	return fmt.Sprintf("mode %d", *m)
}

func judgePCIe(d *gpu.Device, m *specdb.Model, add func(wire.Check)) {
	if d.PCIeMaxWidth != nil || d.PCIeCurrentWidth != nil {
		c := wire.Check{Name: "gpu.pcie.width", Verdict: wire.Pass, Unit: "lanes",
			Criterion: fmt.Sprintf("x%d (the card's)", m.PCIeWidth)}
		cur := 0
		if d.PCIeCurrentWidth != nil {
			cur = *d.PCIeCurrentWidth
		}
		maxw := 0
		if d.PCIeMaxWidth != nil {
			maxw = *d.PCIeMaxWidth
		}
		c.Value, c.Number = fmt.Sprintf("x%d (max x%d)", cur, maxw), num(float64(cur))
		switch {
		case maxw > 0 && maxw < m.PCIeWidth:
			c.Verdict, c.Detail = wire.Fail, fmt.Sprintf("the link can be at most x%d, the card is x%d: slot, riser or card is cut down", maxw, m.PCIeWidth)
		case cur > 0 && cur < m.PCIeWidth:
			c.Verdict, c.Detail = wire.Fail, fmt.Sprintf("the link runs at x%d, narrower than the card's x%d: host-device bandwidth is cut", cur, m.PCIeWidth)
		}
		add(c)
	}
	if d.PCIeGPUMaxGen != nil || d.PCIeMaxGen != nil {
		c := wire.Check{Name: "gpu.pcie.gen", Verdict: wire.Pass, Criterion: fmt.Sprintf("gen %d (the card's)", m.PCIeGen)}
		gpuMax, linkMax, cur := deref(d.PCIeGPUMaxGen), deref(d.PCIeMaxGen), deref(d.PCIeCurrentGen)
		c.Value, c.Number = fmt.Sprintf("gen %d (max gen %d)", cur, linkMax), num(float64(linkMax))
		switch {
		case gpuMax > 0 && gpuMax < m.PCIeGen:
			c.Verdict, c.Detail = wire.Fail, fmt.Sprintf("the card supports PCIe gen %d, the model gen %d", gpuMax, m.PCIeGen)
		case linkMax > 0 && linkMax < m.PCIeGen:
			c.Verdict, c.Detail = wire.Fail, fmt.Sprintf("the link can reach only gen %d (slot or host limit), the card supports gen %d", linkMax, m.PCIeGen)
		case cur > 0 && linkMax > 0 && cur < linkMax:
			// Idle GPUs lower the link speed to save power; only the
			// maximum says what the link can do.
			c.Detail = fmt.Sprintf("gen %d now (idle power saving), gen %d possible", cur, linkMax)
		}
		add(c)
	}
}

func judgeOrderByName(d *gpu.Device, exp expect.Expected, ordered []*specdb.Model, orderErr error, add func(wire.Check)) {
	c := wire.Check{Name: "gpu.order.model", Verdict: wire.Warn, Value: d.Name, Criterion: fmt.Sprintf("%s (ordered)", exp.Model),
		Detail: "the device id is unknown, so the model cannot be confirmed; judged by name only"}
	if orderErr != nil {
		c.Verdict, c.Detail = wire.Fail, "the order's model: "+orderErr.Error()
	} else {
		match := false
		for _, m := range ordered {
			for _, n := range m.Names {
				if strings.EqualFold(n, d.Name) {
					match = true
				}
			}
		}
		if !match {
			c.Verdict, c.Detail = wire.Fail, fmt.Sprintf("the card is %q, the order says %s", d.Name, exp.Model)
		}
	}
	add(c)
}

// below holds a reading to a model figure: fail (or warn) below ratio × want.
func below(name string, got, want, ratio float64, unit, what, verdict, src string) wire.Check {
	c := wire.Check{Name: name, Verdict: wire.Pass, Value: fmt.Sprintf("%g %s", got, unit), Number: num(got), Unit: unit}
	if ratio < 1 {
		c.Criterion = fmt.Sprintf(">= %.0f %% of %g %s (%s)", ratio*100, want, unit, src)
	} else {
		c.Criterion = fmt.Sprintf(">= %g %s (%s)", want, unit, src)
	}
	if got < ratio*want {
		c.Verdict = verdict
		c.Detail = fmt.Sprintf("%s %g %s is below the model's %g %s", what, got, unit, want, unit)
		if verdict == wire.Warn {
			c.Detail += " (the model's figure is from a datasheet, not yet calibrated on a real card)"
		}
	}
	return c
}

func contains(ms []*specdb.Model, m *specdb.Model) bool {
	for _, x := range ms {
		if x.ID == m.ID {
			return true
		}
	}
	return false
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func onOff(b *bool) string {
	switch {
	case b == nil:
		return "-"
	case *b:
		return "on"
	}
	return "off"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
