package usage

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"

	"github.com/gpusla/gpusla/probe/wire"
)

// notDisks are block devices no bill charges as a disk: loop devices,
// RAM disks, optical drives, floppies, and the device-mapper and md
// devices built on top of real disks (whose disks are listed themselves).
var notDisks = []string{"loop", "ram", "zram", "sr", "fd", "dm-", "md"}

// virtualVendors are the SCSI vendor strings hypervisors give their
// emulated disks.
var virtualVendors = []string{"QEMU", "VMware", "Msft", "Google", "Amazon", "Red Hat", "Xen", "VBOX", "VirtIO", "Nutanix", "ORACLE"}

// readDisks reads every whole disk of /sys/block (through procfs's
// blockdevice): size, the rotational flag, vendor and model, whether it is
// a hypervisor's disk, and whether it holds the root filesystem.
func readDisks(r Reader) ([]wire.Check, error) {
	fs, err := blockdevice.NewFS(r.path("proc"), r.path("sys"))
	if err != nil {
		return nil, err
	}
	names, err := fs.SysBlockDevices()
	if err != nil {
		return nil, fmt.Errorf("/sys/block: %w", err)
	}
	guest := underHypervisor(r)
	system := r.systemDisks(names)
	var out []wire.Check
	var errs []string
	for _, name := range names {
		if slices.ContainsFunc(notDisks, func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		size, err := fs.SysBlockDeviceSize(name)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s size: %v", name, err))
			continue
		}
		if size == 0 {
			continue // an empty slot: no medium
		}
		rot, err := fs.SysBlockDeviceRotational(name)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s rotational: %v", name, err))
			continue
		}
		vendor := r.attr("sys", "block", name, "device", "vendor")
		model := r.attr("sys", "block", name, "device", "model")
		virtual := guest || strings.HasPrefix(name, "vd") || strings.HasPrefix(name, "xvd") ||
			slices.ContainsFunc(virtualVendors, func(v string) bool { return strings.EqualFold(vendor, v) })
		kind := "SSD"
		if rot == 1 {
			kind = "HDD"
			if virtual {
				kind = "rotational flag set (virtual disk)"
			}
		}
		value := bytesText(size) + ", " + kind
		if system[name] {
			value += ", system disk"
		}
		out = append(out, reading(PrefixDisk+name, value, float64(size), "bytes", map[string]string{
			"size_bytes": u64(size), "rotational": flag(rot == 1), "virtual": flag(virtual), "system": flag(system[name]),
			"vendor": vendor, "model": model}))
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return out, nil
}

// attr reads a one-line sysfs attribute, "" when absent.
func (r Reader) attr(p ...string) string {
	b, err := os.ReadFile(r.path(p...))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// underHypervisor: a guest's CPUs carry the hypervisor flag; every disk of
// a guest is the hypervisor's, whatever it calls itself.
func underHypervisor(r Reader) bool {
	fs, err := procfs.NewFS(r.path("proc"))
	if err != nil {
		return false
	}
	cpus, err := fs.CPUInfo()
	if err != nil || len(cpus) == 0 {
		return false
	}
	return slices.Contains(cpus[0].Flags, "hypervisor")
}

// systemDisks finds the disk (or disks, under LVM or RAID) that hold the
// root filesystem: the device number of the "/" mount (procfs's mountinfo)
// matched to a disk, a partition, or a device-mapper or md device whose
// slaves are partitions of disks. A root the kernel gives no block device
// (overlay in a container, btrfs) falls back to the mount's source.
func (r Reader) systemDisks(disks []string) map[string]bool {
	out := map[string]bool{}
	fs, err := procfs.NewFS(r.path("proc"))
	if err != nil {
		return out
	}
	mounts, err := fs.GetMounts()
	if err != nil {
		return out
	}
	var root *procfs.MountInfo
	for _, m := range mounts {
		if m.MountPoint == "/" {
			root = m // the last one mounted over / is the one in use
		}
	}
	if root == nil {
		return out
	}
	// owner maps a device number and a block name (disk, partition,
	// dm-N, mdN) to the disks below it.
	byDev, byName := map[string]string{}, map[string]string{}
	for _, d := range disks {
		byDev[r.attr("sys", "block", d, "dev")] = d
		byName[d] = d
		subs, _ := os.ReadDir(r.path("sys", "block", d))
		for _, s := range subs {
			if _, err := os.Stat(r.path("sys", "block", d, s.Name(), "partition")); err == nil {
				byDev[r.attr("sys", "block", d, s.Name(), "dev")] = d
				byName[s.Name()] = d
			}
		}
	}
	var mark func(name string, depth int)
	mark = func(name string, depth int) {
		if depth > 4 {
			return
		}
		if d, ok := byName[name]; ok && !strings.HasPrefix(d, "dm-") && !strings.HasPrefix(d, "md") {
			out[d] = true
			return
		}
		slaves, _ := os.ReadDir(r.path("sys", "block", name, "slaves"))
		for _, s := range slaves {
			mark(s.Name(), depth+1)
		}
	}
	if name, ok := byDev[root.MajorMinorVer]; ok {
		mark(name, 0)
	} else if src, ok := strings.CutPrefix(root.Source, "/dev/"); ok {
		if link, err := filepath.EvalSymlinks(r.path("dev", src)); err == nil {
			src = filepath.Base(link)
		}
		mark(filepath.Base(src), 0)
	}
	return out
}
