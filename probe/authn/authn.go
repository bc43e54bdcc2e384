// Package authn decides whether the GPUs are what they claim to be and
// what was ordered. It cross-checks each card's NVML readings against the
// spec database entry of its PCI device id — name, memory, bus width,
// cores, clocks, power limits, PCIe link — and against the order. Every
// verdict names its evidence: the reading, the figure it was held to, and
// where that figure comes from.
//
// Step 2 of the observation pipeline (read, judge, observe, spool, push):
// judges the GPU snapshot against the spec database and the order.
package authn

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/yardstick"
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
	c := wire.Check{Name: "gpu.driver", Category: wire.CategoryGPULost, Verdict: wire.Fail,
		Value: "unavailable", Criterion: "NVML answers (NVIDIA driver installed and loaded)", Detail: err.Error()}
	if t, ok := gpu.ErrorText(c.Detail); ok {
		c.Detail, c.DetailText = wire.Put(t)
	}
	return c
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
	if exp.Driver != "" {
		out = append(out, judgeOrderDriver(s.DriverVersion, exp.Driver))
	}

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
		c.SetCriterion("%d (ordered)", exp.GPUs)
		if usable < exp.GPUs {
			c.Verdict = wire.Fail
			c.SetDetail("%d usable GPUs, the order says %d", usable, exp.GPUs)
		} else if usable > exp.GPUs {
			c.Verdict, c.Category = wire.Warn, wire.CategoryInventory
			c.SetDetail("%d GPUs, more than the %d ordered", usable, exp.GPUs)
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

// judgeOrderDriver holds the driver to the order (nvidia-smi's "driver
// version … 与下单配置一致"): the version ordered or a release of it.
func judgeOrderDriver(installed, ordered string) wire.Check {
	c := wire.Check{Name: "gpu.order.driver", Category: wire.CategoryInventory, Verdict: wire.Pass, Value: installed}
	c.SetCriterion("%s (ordered: that version, or a release of it)", ordered)
	switch {
	case installed == "":
		c.Verdict, c.Value, c.Detail = wire.Warn, "-", "the order cannot be verified: NVML did not report the driver version"
	case !expect.DriverMatches(ordered, installed):
		c.Verdict = wire.Fail
		c.SetDetail("driver %s is installed, the order says %s", installed, ordered)
	}
	return c
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
		c.GPU, c.UUID = idx(d.Index), d.UUID
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
	id := wire.Check{Name: "gpu.identity", Verdict: wire.Pass, Value: d.Name, Criterion: "recorded"}
	id.SetDetail("uuid %s, serial %s, bus %s, device 0x%08x, subsystem 0x%08x, board %s, vbios %s, %d SMs, persistence %s",
		orDash(d.UUID), orDash(d.Serial), orDash(d.PCI.BusID), d.PCI.DeviceID, d.PCI.SubsystemID, orDash(d.BoardPartNumber), orDash(d.VBIOS),
		d.SMs(), onOff(d.PersistenceMode))
	add(id)

	// Virtualisation: a slice is not a whole GPU whatever it is called.
	judgeSlice(d, add)

	if d.PCI.DeviceID == 0 {
		// Without the PCI ids nothing can be looked up: every identity
		// check is unverified, and so is the order.
		why := d.MissingText("pci")
		c := wire.Check{Name: "gpu.model", Verdict: wire.Skipped, Value: orDash(d.Name), Criterion: "device id in the spec database"}
		c.Detail, c.DetailText = wire.Put(why)
		add(c)
		iv := &identity{}
		iv.unverified(wire.T("model"), why)
		if exp.Model != "" || exp.GPUMemoryGB > 0 {
			add(unverifiedOrder(exp, wire.T("the PCI device id could not be read: %s", why)))
		}
		add(iv.check())
		return out
	}
	devID := d.PCI.DeviceID16()
	if v := d.PCI.VendorID(); v != NVIDIA {
		c := wire.Check{Name: "gpu.model", Verdict: wire.Fail, Criterion: "PCI vendor 0x10de (NVIDIA)"}
		c.SetValue("vendor 0x%04x", v)
		c.SetDetail("PCI vendor id 0x%04x is not NVIDIA's", v)
		add(c)
		return out
	}
	m, known := db.Lookup(devID, uint16(d.PCI.SubsystemID>>16))
	if !known {
		judgeUnknown(d, db, devID, add)
		if exp.Model != "" {
			judgeOrderByName(d, exp, ordered, orderErr, add)
		}
		if exp.GPUMemoryGB > 0 {
			judgeOrderMemory(d, exp, add)
		}
		return out
	}
	judgeName(d, db, m, devID, add)
	judgeBoard(d, m, add)
	if exp.Model != "" {
		c := wire.Check{Name: "gpu.order.model", Verdict: wire.Pass, Value: m.DisplayName()}
		c.SetCriterion("%s (ordered)", exp.Model)
		switch {
		case orderErr != nil:
			c.Verdict = wire.Fail
			c.SetDetail("the order's model: %s", orderErr)
		case !slices.ContainsFunc(ordered, func(o *specdb.Model) bool { return o.ID == m.ID }):
			c.Verdict = wire.Fail
			c.SetDetail("device id 0x%04x is %s (%s), the order says %s", devID, m.DisplayName(), m.ID, exp.Model)
		default:
			if over, ok := cutDown(m, ordered, exp.GPUMemoryGB); ok {
				c.Verdict = wire.Warn
				c.SetDetail("the order %s can mean %s or %s; the card is the %s, below the other on every figure their datasheets give: name the exact model ordered, or have the provider confirm in writing that it is what was sold",
					exp.Model, over, m.DisplayName(), m.DisplayName())
			}
		}
		add(c)
	}
	if exp.GPUMemoryGB > 0 {
		judgeOrderMemory(d, exp, add)
	}
	judgeSpecs(d, m, add)
	judgePCIe(d, m, add)
	return out
}

// judgeUnknown judges a device id the database does not know: a card that
// calls itself by the name of a model the database does know is
// relabelled (a genuine one would carry that model's id); any other is
// only unknown.
func judgeUnknown(d *gpu.Device, db *specdb.DB, devID uint16, add func(wire.Check)) {
	c := wire.Check{Name: "gpu.model", Verdict: wire.Warn, Value: fmt.Sprintf("%s (0x%04x)", d.Name, devID),
		Criterion: "device id in the spec database"}
	c.SetDetail("device id 0x%04x is not in the spec database: name, memory, clocks and power cannot be cross-checked", devID)
	if claimed := db.ByNVMLName(d.Name); len(claimed) > 0 {
		c.Verdict = wire.Fail
		c.SetCriterion("a card named %q has device id %s", d.Name, idList(claimed))
		c.SetDetail("the card calls itself %q, but a genuine one has device id %s and this one has 0x%04x: relabelled card (VBIOS or driver rename)",
			d.Name, idList(claimed), devID)
	}
	add(c)
}

// judgeName holds the NVML name to the device id's model: a relabelled
// card keeps its device id.
func judgeName(d *gpu.Device, db *specdb.DB, m *specdb.Model, devID uint16, add func(wire.Check)) {
	c := wire.Check{Name: "gpu.model", Verdict: wire.Pass, Value: d.Name}
	c.SetCriterion("name matches device id 0x%04x (%s)", devID, m.DisplayName())
	c.SetDetail("spec db entry %s: %s", m.ID, m.Source)
	if d.Name == "" {
		c.Verdict = wire.Skipped
		c.Detail, c.DetailText = wire.Put(d.MissingText("name"))
		add(c)
		return
	}
	for _, n := range m.Names {
		if strings.EqualFold(strings.TrimSpace(n), strings.TrimSpace(d.Name)) {
			add(c)
			return
		}
	}
	c.Verdict = wire.Fail
	c.SetDetail("the card calls itself %q but its PCI device id 0x%04x is %s", d.Name, devID, m.DisplayName())
	if claimed := db.ByNVMLName(d.Name); len(claimed) > 0 {
		c.SetDetail("the card calls itself %q but its PCI device id 0x%04x is %s (a genuine %s has device id %s): relabelled or modified card",
			d.Name, devID, m.DisplayName(), d.Name, idList(claimed))
	}
	add(c)
}

func idList(ms []*specdb.Model) string {
	var ids []string
	for _, m := range ms {
		for _, id := range m.DeviceIDs {
			ids = append(ids, fmt.Sprintf("0x%04x", id))
		}
	}
	return strings.Join(ids, " or ")
}

// judgeBoard holds the subsystem vendor (who built the board) to the form
// factor: SXM modules are NVIDIA's own boards, so anything else on an SXM
// device id is a PCIe card or altered ids; PCIe cards carry their board
// maker's id, which must at least be a valid one.
func judgeBoard(d *gpu.Device, m *specdb.Model, add func(wire.Check)) {
	sv := uint16(d.PCI.SubsystemID & 0xffff)
	c := wire.Check{Name: "gpu.board", Verdict: wire.Pass}
	c.SetValue("subsystem vendor 0x%04x (%s)", sv, boardMaker(sv))
	switch m.FormFactor {
	case specdb.SXM:
		c.Criterion = "an SXM module: subsystem vendor 0x10de (NVIDIA builds every SXM board)"
	default:
		c.Criterion = "a PCIe card: a valid board maker's subsystem vendor"
	}
	switch {
	case d.PCI.SubsystemID == 0:
		c.Verdict, c.Value, c.Detail = wire.Skipped, "-", "the PCI subsystem id was not read"
	case sv == 0xffff:
		c.Verdict, c.Detail = wire.Fail, "subsystem vendor 0xffff is no vendor: the ids are unreadable or forged"
	case m.FormFactor == specdb.SXM && sv != NVIDIA:
		c.Verdict = wire.Fail
		c.SetDetail("device id 0x%04x is an SXM module (%s), which only NVIDIA builds, but its subsystem vendor is 0x%04x (%s): a PCIe card or altered ids",
			d.PCI.DeviceID16(), m.DisplayName(), sv, boardMaker(sv))
	}
	add(c)
}

// boardMakers are PCI vendor ids of NVIDIA and the board partners and
// server makers whose ids appear as GPU subsystem vendors (pci.ids), for
// the report; an id not listed is shown as unlisted, not judged.
var boardMakers = map[uint16]string{
	0x10de: "NVIDIA", 0x1043: "ASUS", 0x1462: "MSI", 0x1458: "Gigabyte", 0x3842: "EVGA", 0x19da: "Zotac",
	0x1569: "Palit", 0x10b0: "Gainward", 0x1b4c: "Galax/KFA2", 0x196e: "PNY", 0x7377: "Colorful",
	0x107d: "Leadtek", 0x1028: "Dell", 0x103c: "HP", 0x1590: "HPE", 0x17aa: "Lenovo", 0x15d9: "Supermicro",
	0x1137: "Cisco", 0x1bd4: "Inspur", 0x1734: "Fujitsu", 0x1014: "IBM", 0x174b: "PC Partner", 0x1849: "ASRock",
}

// boardMaker is the maker's name (data), or a sentence saying it is not
// listed.
func boardMaker(v uint16) any {
	if n, ok := boardMakers[v]; ok {
		return n
	}
	return wire.T("unlisted maker")
}

// judgeOrderMemory holds the memory to the order, in both directions: less
// fails; more than 3 % over warns (not what was ordered, though not less).
func judgeOrderMemory(d *gpu.Device, exp expect.Expected, add func(wire.Check)) {
	want := exp.GPUMemoryGB * 1024
	c := wire.Check{Name: "gpu.order.memory", Verdict: wire.Pass, Unit: "MiB"}
	c.SetCriterion("within %.0f %% of %g GB ordered", 100*(1-MemoryRatio), exp.GPUMemoryGB)
	if d.MemoryTotalMiB == nil {
		// The order cannot be confirmed: never a pass.
		c.Verdict, c.Value = wire.Warn, "-"
		c.SetDetail("the order cannot be verified: %s", d.MissingText("memory"))
		add(c)
		return
	}
	got := float64(*d.MemoryTotalMiB)
	c.Value, c.Number = fmt.Sprintf("%.0f MiB", got), num(got)
	switch {
	case got < MemoryRatio*want:
		c.Verdict = wire.Fail
		c.SetDetail("%.0f MiB (%.1f GiB) per GPU, the order says %g GB", got, got/1024, exp.GPUMemoryGB)
	case got > (2-MemoryRatio)*want:
		c.Verdict = wire.Warn
		c.SetDetail("%.0f MiB (%.1f GiB) per GPU, more than the %g GB ordered: not the ordered card", got, got/1024, exp.GPUMemoryGB)
	}
	add(c)
}

// unverifiedOrder is the order check when the card could not be
// identified: never a pass.
func unverifiedOrder(exp expect.Expected, why wire.Text) wire.Check {
	c := wire.Check{Name: "gpu.order.model", Verdict: wire.Warn, Value: "-"}
	c.SetCriterion("%s (ordered)", orDash(exp.Model))
	c.SetDetail("the order cannot be verified: %s", why)
	return c
}

func judgeSlice(d *gpu.Device, add func(wire.Check)) {
	c := wire.Check{Name: "gpu.whole", Verdict: wire.Pass, Value: virtName(d.VirtualizationMode), Criterion: "a whole GPU: not a vGPU or MIG slice"}
	var why []wire.Text
	if d.VirtualizationMode != nil && *d.VirtualizationMode == 2 {
		why = append(why, wire.T("NVML reports virtualization mode vGPU: this is a time-sliced or MIG-backed vGPU, not a whole GPU"))
	}
	if d.MIGMode != nil && *d.MIGMode == 1 {
		why = append(why, wire.T("MIG mode is enabled: the GPU is partitioned into instances"))
	}
	if strings.Contains(d.Name, "MIG ") {
		why = append(why, wire.T("the device name %q is a MIG instance's", d.Name))
	}
	if len(why) > 0 {
		c.Verdict = wire.Fail
		c.Detail, c.DetailText = wire.Put(wire.Join(why))
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
	switch {
	case d.PCIeMaxWidth == nil && d.PCIeCurrentWidth == nil:
		add(skipped("gpu.pcie.width", d.MissingText("pcie_max_width")))
	case m.PCIeWidth == 0:
		add(skipped("gpu.pcie.width", wire.T("the spec database has no PCIe width for %s", m.ID)))
	default:
		c := wire.Check{Name: "gpu.pcie.width", Verdict: wire.Pass, Unit: "lanes"}
		c.SetCriterion("x%d (the card's)", m.PCIeWidth)
		cur := 0
		if d.PCIeCurrentWidth != nil {
			cur = *d.PCIeCurrentWidth
		}
		maxw := 0
		if d.PCIeMaxWidth != nil {
			maxw = *d.PCIeMaxWidth
		}
		c.SetValue("x%d (max x%d)", cur, maxw)
		c.Number = num(float64(cur))
		switch {
		case maxw > 0 && maxw < m.PCIeWidth:
			c.Verdict = wire.Fail
			c.SetDetail("the link can be at most x%d, the card is x%d: slot, riser or card is cut down", maxw, m.PCIeWidth)
		case cur > 0 && cur < m.PCIeWidth:
			c.Verdict = wire.Fail
			c.SetDetail("the link runs at x%d, narrower than the card's x%d: host-device bandwidth is cut", cur, m.PCIeWidth)
		}
		add(c)
	}
	switch {
	case d.PCIeGPUMaxGen == nil && d.PCIeMaxGen == nil:
		add(skipped("gpu.pcie.gen", d.MissingText("pcie_max_gen")))
	case m.PCIeGen == 0:
		add(skipped("gpu.pcie.gen", wire.T("the spec database has no PCIe generation for %s", m.ID)))
	default:
		c := wire.Check{Name: "gpu.pcie.gen", Verdict: wire.Pass}
		c.SetCriterion("gen %d (the card's)", m.PCIeGen)
		gpuMax, linkMax, cur := deref(d.PCIeGPUMaxGen), deref(d.PCIeMaxGen), deref(d.PCIeCurrentGen)
		// The value judged is the link's maximum, so it leads, beside the
		// criterion; the speed of the moment follows when it is lower.
		c.SetValue("gen %d", linkMax)
		c.Number = num(float64(linkMax))
		if cur > 0 && cur != linkMax {
			c.SetValue("gen %d (gen %d now)", linkMax, cur)
		}
		switch {
		case gpuMax > 0 && gpuMax < m.PCIeGen:
			c.Verdict = wire.Fail
			c.SetDetail("the card supports PCIe gen %d, the model gen %d", gpuMax, m.PCIeGen)
		case linkMax > 0 && linkMax < m.PCIeGen:
			c.Verdict = wire.Fail
			c.SetDetail("the link can reach only gen %d (slot or host limit), the card supports gen %d", linkMax, m.PCIeGen)
		case cur > 0 && linkMax > 0 && cur < linkMax:
			// Idle GPUs lower the link speed to save power; only the
			// maximum says what the link can do.
			c.SetDetail("gen %d now (idle power saving), gen %d possible", cur, linkMax)
		}
		add(c)
	}
}

func judgeOrderByName(d *gpu.Device, exp expect.Expected, ordered []*specdb.Model, orderErr error, add func(wire.Check)) {
	c := wire.Check{Name: "gpu.order.model", Verdict: wire.Warn, Value: d.Name,
		Detail: "the device id is unknown, so the model cannot be confirmed; judged by name only"}
	c.SetCriterion("%s (ordered)", exp.Model)
	if orderErr != nil {
		c.Verdict = wire.Fail
		c.SetDetail("the order's model: %s", orderErr)
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
			c.Verdict = wire.Fail
			c.SetDetail("the card is %q, the order says %s", d.Name, exp.Model)
		}
	}
	add(c)
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// onOff is a setting's state: on, off, or "-" where it was not read.
func onOff(b *bool) any {
	switch {
	case b == nil:
		return "-"
	case *b:
		return wire.T("on")
	}
	return wire.T("off")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cutDown says whether the card, one of the models an order naming a
// family means, is that family's cut-down form (an H100 PCIe for "H100",
// where the SXM was the one to expect; sla/yardstick.Outdone, the trial's
// rule too), and names the model it falls short of. The memory ordered
// narrows the family first.
func cutDown(m *specdb.Model, ordered []*specdb.Model, memoryGB float64) (string, bool) {
	ids := make([]string, len(ordered))
	for i, o := range ordered {
		ids[i] = o.ID
	}
	over, ok := yardstick.Outdone(m.ID, ids, func(o yardstick.Model) bool {
		want := memoryGB * 1024
		return want == 0 || o.MemoryMiB == 0 || (float64(o.MemoryMiB) >= MemoryRatio*want && float64(o.MemoryMiB) <= (2-MemoryRatio)*want)
	})
	return over.DisplayName(), ok
}
