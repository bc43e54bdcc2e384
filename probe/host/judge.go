package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/wire"
)

// Limits of the host checks. Steal is CPU time the hypervisor gave to
// someone else: a few percent is normal on shared hosts, more means noisy
// neighbours on the same host.
const (
	StealWarnPct = 2.0
	StealFailPct = 10.0
	// The system disk fails below 5 % or 2 GiB free and warns below 10 %.
	RootFailFreePct   = 5.0
	RootFailFreeBytes = 2 << 30
	FreeWarnPct       = 10.0
	// MemTotal excludes what the firmware and kernel reserve (2–4 %), so
	// the order's RAM is met at 95 %; below 90 % memory is missing.
	RAMWarnRatio = 0.95
	RAMFailRatio = 0.90
	// A filesystem is smaller than its disk (metadata, reserved blocks);
	// an ordered disk is met when its filesystem has 90 % of the size.
	DiskFailRatio = 0.90
	// An unmounted disk smaller than this is firmware or cloud-init media.
	MinDataDiskBytes = 1 << 30
)

// Collect reads the host and judges it: the function the daemon schedules.
func Collect(ctx context.Context, r Reader, exp expect.Expected) []wire.Check {
	s, err := r.Read(ctx)
	if err != nil {
		return []wire.Check{{Name: "host.read", Category: wire.CategoryHost, Verdict: wire.Fail,
			Criterion: "the host's /proc and /sys can be read", Detail: err.Error()}}
	}
	return Judge(s, exp)
}

func num(v float64) *float64 { return &v }

const gib = 1 << 30

// Judge turns a host snapshot into checks against the order.
func Judge(s *Snapshot, exp expect.Expected) []wire.Check {
	var out []wire.Check
	add := func(c wire.Check) { out = append(out, c) }

	for _, e := range s.Errors {
		add(wire.Check{Name: "host.read", Category: wire.CategoryHost, Verdict: wire.Warn,
			Criterion: "every host reading is available", Detail: e})
	}

	add(wire.Check{Name: "host.kernel", Category: wire.CategoryHost, Verdict: wire.Pass,
		Value: orDash(s.KernelRelease), Criterion: "recorded", Detail: s.KernelVersion})
	if s.NVIDIADriver != "" {
		add(wire.Check{Name: "host.nvidia_driver", Category: wire.CategoryHost, Verdict: wire.Pass,
			Value: s.NVIDIADriver, Criterion: "NVIDIA kernel module loaded"})
	} else {
		add(wire.Check{Name: "host.nvidia_driver", Category: wire.CategoryHost, Verdict: wire.Warn,
			Value: "none", Criterion: "NVIDIA kernel module loaded",
			Detail: "/proc/driver/nvidia/version is absent: no NVIDIA kernel module is loaded"})
	}

	// CPUs.
	c := wire.Check{Name: "host.cpu.count", Category: wire.CategoryInventory, Verdict: wire.Pass,
		Value: fmt.Sprintf("%d", s.CPUs), Number: num(float64(s.CPUs)), Unit: "cpus", Criterion: "not stated in the order"}
	if exp.CPUs > 0 {
		c.SetCriterion(">= %d (ordered)", exp.CPUs)
		if s.CPUs < exp.CPUs {
			c.Verdict = wire.Fail
			c.SetDetail("%d logical CPUs, the order says %d", s.CPUs, exp.CPUs)
		}
	}
	add(c)
	c = wire.Check{Name: "host.cpu.model", Category: wire.CategoryInventory, Verdict: wire.Pass,
		Value: orDash(s.CPUModel), Criterion: "not stated in the order"}
	if exp.CPUModel != "" {
		c.SetCriterion("contains %q (ordered)", exp.CPUModel)
		if !strings.Contains(cpuName(s.CPUModel), cpuName(exp.CPUModel)) {
			c.Verdict = wire.Fail
			c.SetDetail("CPU is %q, the order says %q", s.CPUModel, exp.CPUModel)
		}
	}
	add(c)

	// Steal over the sampling window.
	dTotal := int64(s.CPUAfter.Total()) - int64(s.CPUBefore.Total())
	dSteal := int64(s.CPUAfter.Steal) - int64(s.CPUBefore.Steal)
	c = wire.Check{Name: "host.cpu.steal", Category: wire.CategoryHost, Unit: "%"}
	c.SetCriterion("< %g %% (warn), < %g %% (fail) over %d ms", StealWarnPct, StealFailPct, s.StealWindowMS)
	switch {
	case dTotal <= 0 || dSteal < 0:
		c.Verdict, c.Value, c.Detail = wire.Skipped, "-", "no CPU time elapsed between the two /proc/stat samples"
	default:
		pct := 100 * float64(dSteal) / float64(dTotal)
		c.Value, c.Number = fmt.Sprintf("%.1f %%", pct), num(pct)
		switch {
		case pct >= StealFailPct:
			c.Verdict, c.Detail = wire.Fail, "the hypervisor is giving this VM's CPU time to other guests (noisy neighbours)"
		case pct >= StealWarnPct:
			c.Verdict, c.Detail = wire.Warn, "some CPU time is taken by other guests on the host"
		default:
			c.Verdict = wire.Pass
		}
	}
	add(c)

	// Memory.
	memGiB := float64(s.MemTotalKiB) / (1 << 20)
	c = wire.Check{Name: "host.memory", Category: wire.CategoryInventory, Verdict: wire.Pass,
		Value: fmt.Sprintf("%.1f GiB", memGiB), Number: num(memGiB), Unit: "GiB", Criterion: "not stated in the order"}
	if exp.RAMGB > 0 {
		ratio := memGiB / exp.RAMGB
		c.SetCriterion(">= %.0f %% of %g GiB ordered (warn below %.0f %%)", RAMFailRatio*100, exp.RAMGB, RAMWarnRatio*100)
		switch {
		case ratio < RAMFailRatio:
			c.Verdict = wire.Fail
			c.SetDetail("MemTotal is %.1f GiB, %.0f %% of the %g GiB ordered", memGiB, ratio*100, exp.RAMGB)
		case ratio < RAMWarnRatio:
			c.Verdict = wire.Warn
			c.SetDetail("MemTotal is %.1f GiB, %.0f %% of the %g GiB ordered", memGiB, ratio*100, exp.RAMGB)
		}
	}
	add(c)

	out = append(out, judgeDisks(s, exp)...)
	return out
}

func judgeDisks(s *Snapshot, exp expect.Expected) []wire.Check {
	var out []wire.Check
	byPath := map[string]Mount{}
	for _, m := range s.Mounts {
		byPath[m.Path] = m
	}
	freeCheck := func(name string, m Mount, cat string) wire.Check {
		c := wire.Check{Name: name, Category: cat, Unit: "%"}
		if m.Error != "" || m.SizeBytes == 0 {
			c.Verdict, c.Value = wire.Warn, "-"
			c.SetDetail("%s: size unreadable: %s", m.Path, m.Error)
			return c
		}
		pct := 100 * float64(m.AvailBytes) / float64(m.SizeBytes)
		c.SetValue("%.0f GiB free of %.0f GiB (%.0f %%)", float64(m.AvailBytes)/gib, float64(m.SizeBytes)/gib, pct)
		c.Number = num(pct)
		c.Verdict = wire.Pass
		c.SetCriterion(">= %g %% free", FreeWarnPct)
		if pct < FreeWarnPct {
			c.Verdict = wire.Warn
			c.SetDetail("%s is %.0f %% full", m.Path, 100-pct)
		}
		return c
	}

	// The system disk.
	if root, ok := byPath["/"]; ok {
		c := freeCheck("host.disk.system", root, wire.CategoryHost)
		c.SetCriterion(">= %g %% and 2 GiB free (warn below %g %%)", RootFailFreePct, FreeWarnPct)
		if c.Number != nil && (*c.Number < RootFailFreePct || root.AvailBytes < RootFailFreeBytes) {
			c.Verdict, c.Detail = wire.Fail, "the system disk is nearly full"
		}
		out = append(out, c)
	} else {
		out = append(out, wire.Check{Name: "host.disk.system", Category: wire.CategoryHost, Verdict: wire.Warn,
			Value: "-", Criterion: "/ is mounted", Detail: "no root filesystem in the mount table"})
	}

	// Ordered data disks.
	if exp.NoDataDisk {
		// The order's own word that the system disk is all there is: a
		// disk attached unused still warns below.
		c := wire.Check{Name: "host.disk.ordered:none", Category: wire.CategoryInventory, Verdict: wire.Pass,
			Value: "no data disk ordered", Criterion: "the order has no data disk (--expect disks=none)"}
		out = append(out, c)
	}
	ordered := map[string]bool{}
	for _, d := range exp.Disks {
		ordered[d.Mount] = true
		name := "host.disk.ordered:" + d.Mount
		m, ok := byPath[d.Mount]
		if !ok {
			c := wire.Check{Name: name, Category: wire.CategoryInventory, Verdict: wire.Fail, Value: "not mounted"}
			c.SetCriterion("%s mounted, >= %g GB", d.Mount, d.SizeGB)
			c.SetDetail("the ordered data disk %s is not mounted", d.Mount)
			if hint := unusedList(s); hint != "" {
				c.SetDetail("the ordered data disk %s is not mounted; attached but unused: %s", d.Mount, hint)
			}
			out = append(out, c)
			continue
		}
		gb := float64(m.SizeBytes) / 1e9
		c := wire.Check{Name: name, Category: wire.CategoryInventory, Verdict: wire.Pass, Number: num(gb), Unit: "GB"}
		c.SetValue("%.0f GB (%s on %s)", gb, m.FSType, m.Device)
		c.SetCriterion(">= %.0f %% of %g GB ordered", DiskFailRatio*100, d.SizeGB)
		if d.SizeGB > 0 && gb < DiskFailRatio*d.SizeGB {
			c.Verdict = wire.Fail
			c.SetDetail("%s holds %.0f GB, the order says %g GB", d.Mount, gb, d.SizeGB)
		}
		out = append(out, c)
		out = append(out, freeCheck("host.disk.free:"+d.Mount, m, wire.CategoryHost))
	}

	// Other data filesystems: report their space.
	for _, m := range s.Mounts {
		if m.Path == "/" || ordered[m.Path] || strings.HasPrefix(m.Path, "/boot") || !isDataMount(m) {
			continue
		}
		out = append(out, freeCheck("host.disk.free:"+m.Path, m, wire.CategoryHost))
	}

	// Disks attached but not in use: the classic "data disk not mounted".
	for _, d := range unusedDisks(s) {
		c := wire.Check{Name: "host.disk.unmounted:" + d.Name, Category: wire.CategoryHost, Verdict: wire.Warn,
			Value: fmt.Sprintf("%.0f GB", float64(d.SizeBytes)/1e9), Criterion: "every attached disk is mounted or in use"}
		c.SetDetail("/dev/%s (%.0f GB) is attached but neither mounted, swap, nor part of LVM/RAID", d.Name, float64(d.SizeBytes)/1e9)
		out = append(out, c)
	}
	return out
}

func isDataMount(m Mount) bool {
	if strings.HasPrefix(m.Device, "/dev/") {
		return true
	}
	switch m.FSType {
	case "nfs", "nfs4", "cifs", "smb3", "lustre", "gpfs", "ceph", "glusterfs", "beegfs", "zfs", "fuse.juicefs", "virtiofs":
		return true
	}
	return false
}

// unusedList names the disks attached but unused (data: device names and
// sizes), "" where there is none.
func unusedList(s *Snapshot) string {
	var names []string
	for _, d := range unusedDisks(s) {
		names = append(names, fmt.Sprintf("/dev/%s (%.0f GB)", d.Name, float64(d.SizeBytes)/1e9))
	}
	return strings.Join(names, ", ")
}

// unusedDisks are whole disks of a useful size that no mount, swap or
// holder (LVM, RAID) uses, through the disk itself or a partition.
func unusedDisks(s *Snapshot) []Disk {
	used := map[string]bool{}
	for _, m := range s.Mounts {
		used[strings.TrimPrefix(m.Device, "/dev/")] = true
	}
	for _, d := range s.MountedDevices {
		used[strings.TrimPrefix(d, "/dev/")] = true
	}
	for _, sw := range s.Swaps {
		used[strings.TrimPrefix(sw, "/dev/")] = true
	}
	var out []Disk
	for _, d := range s.Disks {
		if d.SizeBytes < MinDataDiskBytes || len(d.Holders) > 0 || used[d.Name] {
			continue
		}
		inUse := false
		for _, p := range d.Partitions {
			if used[p] {
				inUse = true
			}
		}
		if !inUse {
			out = append(out, d)
		}
	}
	return out
}

// cpuName folds a CPU model for comparison: case, trademark signs and
// spacing differ between /proc/cpuinfo and how an order spells it.
func cpuName(s string) string {
	s = strings.ToLower(s)
	for _, w := range []string{"(r)", "(tm)", "®", "™"} {
		s = strings.ReplaceAll(s, w, " ")
	}
	return strings.Join(strings.Fields(s), " ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
