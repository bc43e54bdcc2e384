// Package host checks the machine around the GPUs: CPUs, memory, disks,
// CPU steal, kernel and driver versions. Everything is read from /proc and
// /sys under a configurable root, so tests run on fixture trees in
// testdata/ and judge them exactly like a live machine.
//
// Steps 1 and 2 of the observation pipeline (read, judge, observe, spool,
// push): reads the host from /proc and /sys and judges it.
package host

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gpusla/gpusla/internal/ctxsleep"
)

// Snapshot is every raw host reading of one moment.
type Snapshot struct {
	TakenAt       time.Time `json:"taken_at"`
	KernelRelease string    `json:"kernel_release,omitempty"`
	KernelVersion string    `json:"kernel_version,omitempty"`
	// NVIDIADriver is the loaded kernel module's version from
	// /proc/driver/nvidia/version ("" when no module is loaded).
	NVIDIADriver string `json:"nvidia_driver,omitempty"`
	CPUs         int    `json:"cpus"`
	CPUModel     string `json:"cpu_model,omitempty"`
	MemTotalKiB  uint64 `json:"mem_total_kib"`
	// Two samples of /proc/stat's aggregate "cpu" line, StealWindowMS apart.
	CPUBefore     CPUTimes `json:"cpu_times_before"`
	CPUAfter      CPUTimes `json:"cpu_times_after"`
	StealWindowMS int64    `json:"steal_window_ms"`
	Mounts        []Mount  `json:"mounts"`
	Disks         []Disk   `json:"block_devices"`
	Swaps         []string `json:"swaps,omitempty"`
	// MountedDevices are every /dev device in the mount table, including
	// filesystems left out of Mounts (squashfs images, bind mounts), so a
	// disk in use is never reported as unmounted.
	MountedDevices []string `json:"mounted_devices,omitempty"`
	Errors         []string `json:"errors,omitempty"`
}

// CPUTimes is the aggregate cpu line of /proc/stat, in clock ticks.
type CPUTimes struct {
	User    uint64 `json:"user"`
	Nice    uint64 `json:"nice"`
	System  uint64 `json:"system"`
	Idle    uint64 `json:"idle"`
	IOWait  uint64 `json:"iowait"`
	IRQ     uint64 `json:"irq"`
	SoftIRQ uint64 `json:"softirq"`
	Steal   uint64 `json:"steal"`
}

// Total is the sum of the times (guest time is already inside user).
func (c CPUTimes) Total() uint64 {
	return c.User + c.Nice + c.System + c.Idle + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal
}

// Mount is one mounted real filesystem with its space.
type Mount struct {
	Device     string `json:"device"`
	Path       string `json:"path"`
	FSType     string `json:"fstype"`
	SizeBytes  uint64 `json:"size_bytes"`
	AvailBytes uint64 `json:"avail_bytes"` // free to unprivileged users, as df shows
	Error      string `json:"error,omitempty"`
}

// Disk is a whole block device from /sys/block.
type Disk struct {
	Name       string   `json:"name"`
	SizeBytes  uint64   `json:"size_bytes"`
	Partitions []string `json:"partitions,omitempty"`
	Holders    []string `json:"holders,omitempty"` // LVM, RAID, dm-crypt users of the disk or its partitions
}

// Reader reads a Snapshot.
type Reader struct {
	// Root is prefixed to every /proc and /sys path ("" or "/" for the
	// live machine, a fixture tree in tests).
	Root string
	// StealWindow is the time between the two /proc/stat samples.
	StealWindow time.Duration
	// Statfs returns a filesystem's size and available bytes. nil uses
	// statfs(2) on Root+path.
	Statfs func(path string) (size, avail uint64, err error)
	// Sleep waits between the samples (tests use it to change the tree).
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
}

func (r Reader) path(p string) string { return filepath.Join(r.rootDir(), p) }

func (r Reader) rootDir() string {
	if r.Root == "" {
		return "/"
	}
	return r.Root
}

func (r Reader) statfs(p string) (uint64, uint64, error) {
	if r.Statfs != nil {
		return r.Statfs(p)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(r.path(p), &st); err != nil {
		return 0, 0, err
	}
	bs := uint64(st.Bsize)
	return st.Blocks * bs, st.Bavail * bs, nil
}

// Read takes the snapshot. Unreadable parts are listed in Errors rather
// than failing the whole read: a host check that cannot read one file
// should still report the others.
func (r Reader) Read(ctx context.Context) (*Snapshot, error) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	s := &Snapshot{TakenAt: now().UTC()}
	fail := func(what string, err error) { s.Errors = append(s.Errors, fmt.Sprintf("%s: %v", what, err)) }

	if b, err := os.ReadFile(r.path("proc/sys/kernel/osrelease")); err == nil {
		s.KernelRelease = strings.TrimSpace(string(b))
	} else {
		fail("kernel release", err)
	}
	if b, err := os.ReadFile(r.path("proc/version")); err == nil {
		s.KernelVersion = strings.TrimSpace(string(b))
	} else {
		fail("kernel version", err)
	}
	if b, err := os.ReadFile(r.path("proc/driver/nvidia/version")); err == nil {
		s.NVIDIADriver = parseDriverVersion(string(b))
	} else if !os.IsNotExist(err) {
		fail("nvidia driver version", err)
	}
	if b, err := os.ReadFile(r.path("proc/cpuinfo")); err == nil {
		s.CPUs, s.CPUModel = parseCPUInfo(b)
	} else {
		fail("cpuinfo", err)
	}
	if b, err := os.ReadFile(r.path("proc/meminfo")); err == nil {
		s.MemTotalKiB, err = parseMemTotal(b)
		if err != nil {
			fail("meminfo", err)
		}
	} else {
		fail("meminfo", err)
	}
	if err := r.readMounts(s); err != nil {
		fail("mounts", err)
	}
	if err := r.readDisks(s); err != nil {
		fail("block devices", err)
	}
	if b, err := os.ReadFile(r.path("proc/swaps")); err == nil {
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for _, l := range lines[1:] {
			if f := strings.Fields(l); len(f) > 0 {
				s.Swaps = append(s.Swaps, f[0])
			}
		}
	}

	// Steal last: it waits, and everything else is already read.
	before, err := r.readCPUTimes()
	if err != nil {
		fail("cpu times", err)
		return s, nil
	}
	sleep := r.Sleep
	if sleep == nil {
		sleep = ctxsleep.Sleep
	}
	start := time.Now()
	if err := sleep(ctx, r.StealWindow); err != nil {
		return nil, err
	}
	after, err := r.readCPUTimes()
	if err != nil {
		fail("cpu times", err)
		return s, nil
	}
	s.CPUBefore, s.CPUAfter = before, after
	s.StealWindowMS = time.Since(start).Milliseconds()
	return s, nil
}

var versionRe = regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?$`)

func parseDriverVersion(s string) string {
	// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu ..." or
	// "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "NVRM version:") {
			continue
		}
		for _, w := range strings.Fields(line) {
			if versionRe.MatchString(w) {
				return w
			}
		}
	}
	return ""
}

func parseCPUInfo(b []byte) (n int, model string) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "processor":
			n++
		case "model name":
			if model == "" {
				model = strings.TrimSpace(v)
			}
		}
	}
	return n, model
}

func parseMemTotal(b []byte) (uint64, error) {
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "MemTotal:") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			break
		}
		v, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("MemTotal %q: %w", f[1], err)
		}
		return v, nil
	}
	return 0, fmt.Errorf("no MemTotal line")
}

func (r Reader) readCPUTimes() (CPUTimes, error) {
	b, err := os.ReadFile(r.path("proc/stat"))
	if err != nil {
		return CPUTimes{}, err
	}
	return ParseCPUTimes(b)
}

// ParseCPUTimes reads the aggregate "cpu" line of /proc/stat.
func ParseCPUTimes(b []byte) (CPUTimes, error) {
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "cpu" {
			continue
		}
		if len(f) < 9 {
			return CPUTimes{}, fmt.Errorf("/proc/stat cpu line has %d fields, want at least 8 values", len(f)-1)
		}
		var v [8]uint64
		for i := range v {
			n, err := strconv.ParseUint(f[i+1], 10, 64)
			if err != nil {
				return CPUTimes{}, fmt.Errorf("/proc/stat cpu field %d %q: %w", i+1, f[i+1], err)
			}
			v[i] = n
		}
		return CPUTimes{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]}, nil
	}
	return CPUTimes{}, fmt.Errorf("/proc/stat has no cpu line")
}

// pseudo filesystems never hold data.
var pseudoFS = map[string]bool{
	"proc": true, "sysfs": true, "devtmpfs": true, "devpts": true, "tmpfs": true, "cgroup": true,
	"cgroup2": true, "securityfs": true, "debugfs": true, "tracefs": true, "pstore": true,
	"bpf": true, "mqueue": true, "hugetlbfs": true, "configfs": true, "fusectl": true,
	"autofs": true, "binfmt_misc": true, "efivarfs": true, "rpc_pipefs": true, "nsfs": true,
	"squashfs": true, "ramfs": true, "selinuxfs": true,
}

func (r Reader) readMounts(s *Snapshot) error {
	b, err := os.ReadFile(r.path("proc/self/mounts"))
	if err != nil {
		if b, err = os.ReadFile(r.path("proc/mounts")); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		dev, path, fstype := unescape(f[0]), unescape(f[1]), f[2]
		if strings.HasPrefix(dev, "/dev/") && !slices.Contains(s.MountedDevices, dev) {
			s.MountedDevices = append(s.MountedDevices, dev)
		}
		if pseudoFS[fstype] || seen[path] {
			continue
		}
		if path != "/" && (strings.HasPrefix(path, "/proc") || strings.HasPrefix(path, "/sys") ||
			strings.HasPrefix(path, "/dev") || strings.HasPrefix(path, "/run") || strings.HasPrefix(path, "/snap/")) {
			continue
		}
		// Bind mounts of single files (container runtimes mount
		// /etc/hosts and friends) are not disks.
		if strings.HasPrefix(path, "/etc/") {
			continue
		}
		seen[path] = true
		if dev == "/dev/root" {
			// The kernel's alias for the root device; the disk behind it
			// is named on the kernel command line.
			if real := r.rootDevice(); real != "" {
				dev = real
			}
		}
		m := Mount{Device: dev, Path: path, FSType: fstype}
		size, avail, err := r.statfs(path)
		if err != nil {
			m.Error = err.Error()
		}
		m.SizeBytes, m.AvailBytes = size, avail
		s.Mounts = append(s.Mounts, m)
	}
	sort.Slice(s.Mounts, func(i, j int) bool { return s.Mounts[i].Path < s.Mounts[j].Path })
	return nil
}

// rootDevice resolves root= on the kernel command line to /dev/NAME.
func (r Reader) rootDevice() string {
	b, err := os.ReadFile(r.path("proc/cmdline"))
	if err != nil {
		return ""
	}
	for _, f := range strings.Fields(string(b)) {
		v, ok := strings.CutPrefix(f, "root=")
		if !ok {
			continue
		}
		for _, kind := range []string{"UUID", "PARTUUID", "LABEL", "PARTLABEL"} {
			if id, ok := strings.CutPrefix(v, kind+"="); ok {
				link, err := os.Readlink(r.path("dev/disk/by-" + strings.ToLower(kind) + "/" + id))
				if err != nil {
					return ""
				}
				return "/dev/" + filepath.Base(link)
			}
		}
		if strings.HasPrefix(v, "/dev/") {
			return v
		}
	}
	return ""
}

// unescape undoes the octal escapes of /proc/mounts (space is \040).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				out.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		out.WriteByte(s[i])
	}
	return out.String()
}

// diskPrefixes are the block devices that are physical or virtual disks
// (not loop, ram, zram, optical or device-mapper nodes).
var diskPrefixes = []string{"nvme", "sd", "vd", "xvd", "hd"}

func (r Reader) readDisks(s *Snapshot) error {
	dir := r.path("sys/block")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		ok := false
		for _, p := range diskPrefixes {
			if strings.HasPrefix(name, p) {
				ok = true
			}
		}
		if !ok {
			continue
		}
		d := Disk{Name: name}
		if b, err := os.ReadFile(filepath.Join(dir, name, "size")); err == nil {
			sectors, perr := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
			if perr != nil {
				s.Errors = append(s.Errors, fmt.Sprintf("block device %s size %q: %v", name, strings.TrimSpace(string(b)), perr))
			}
			d.SizeBytes = sectors * 512 // /sys/block sizes are in 512-byte sectors whatever the device's block size
		}
		d.Holders = append(d.Holders, listDir(filepath.Join(dir, name, "holders"))...)
		subs, _ := os.ReadDir(filepath.Join(dir, name))
		for _, sub := range subs {
			if _, err := os.Stat(filepath.Join(dir, name, sub.Name(), "partition")); err == nil {
				d.Partitions = append(d.Partitions, sub.Name())
				d.Holders = append(d.Holders, listDir(filepath.Join(dir, name, sub.Name(), "holders"))...)
			}
		}
		s.Disks = append(s.Disks, d)
	}
	return nil
}

func listDir(p string) []string {
	es, err := os.ReadDir(p)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		if strings.HasPrefix(e.Name(), ".") {
			continue // .keep files that hold empty fixture folders in git
		}
		out = append(out, e.Name())
	}
	return out
}
