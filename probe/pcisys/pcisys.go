// Package pcisys reads the kernel's own view of the NVIDIA GPUs — the PCI
// devices in /sys/bus/pci/devices and the driver's
// /proc/driver/nvidia/gpus/*/information — so that NVML's answers can be
// checked against a source a preloaded library or a patched NVML cannot
// reach. Like gpu.Snapshot it is plain data, recorded in snapshots and
// judged later (probe/crosscheck).
//
// Step 1 of the observation pipeline (read, judge, observe, spool, push):
// reads the kernel's view of the GPUs, which step 2 (probe/crosscheck) holds
// NVML to.
package pcisys

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/prometheus/procfs/sysfs"
)

// NVIDIA is NVIDIA's PCI vendor id.
const NVIDIA = 0x10de

// Snapshot is the kernel's view of the NVIDIA GPUs at one moment.
type Snapshot struct {
	// Devices are the NVIDIA display controllers (PCI class 0x03) in
	// /sys/bus/pci/devices, sorted by address.
	Devices []Device `json:"devices"`
	// SysError says why /sys could not be read; ProcError why
	// /proc/driver/nvidia/gpus could not (no driver loaded, a container
	// without it): nothing is judged against a source that was not read.
	SysError  string `json:"sys_error,omitempty"`
	ProcError string `json:"proc_error,omitempty"`
	// ProcOnly are addresses the driver lists in /proc with no NVIDIA PCI
	// device behind them.
	ProcOnly []string `json:"proc_only,omitempty"`
}

// Device is one NVIDIA GPU on the PCI bus.
type Device struct {
	Address         string `json:"address"` // "0000:3b:00.0"
	Class           uint32 `json:"class"`
	Vendor          uint16 `json:"vendor"`
	Device          uint16 `json:"device"`
	SubsystemVendor uint16 `json:"subsystem_vendor"`
	SubsystemDevice uint16 `json:"subsystem_device"`
	// Link capability and state from the PCIe config space; 0 when the
	// kernel does not say.
	MaxLinkGen   int `json:"max_link_gen,omitempty"`
	MaxLinkWidth int `json:"max_link_width,omitempty"`
	CurLinkGen   int `json:"cur_link_gen,omitempty"`
	CurLinkWidth int `json:"cur_link_width,omitempty"`
	// Driver is the NVIDIA driver's information file for the device; nil
	// when it has none.
	Driver *DriverInfo `json:"driver,omitempty"`
}

// DriverInfo is /proc/driver/nvidia/gpus/ADDR/information.
type DriverInfo struct {
	Model string `json:"model"`
	UUID  string `json:"uuid,omitempty"`
	VBIOS string `json:"vbios,omitempty"`
}

// Read reads the view under root ("/" on the live machine; a fixture tree
// in tests).
func Read(root string) *Snapshot {
	s := &Snapshot{}
	fs, err := sysfs.NewFS(filepath.Join(root, "sys"))
	var devs sysfs.PciDevices
	if err == nil {
		devs, err = fs.PciDevices()
	}
	if err != nil {
		s.SysError = err.Error()
	}
	for _, d := range devs {
		if d.Vendor != NVIDIA || d.Class>>16 != 0x03 {
			continue
		}
		s.Devices = append(s.Devices, Device{
			Address: fmt.Sprintf("%04x:%02x:%02x.%x", d.Location.Segment, d.Location.Bus, d.Location.Device, d.Location.Function), Class: d.Class, Vendor: uint16(d.Vendor), Device: uint16(d.Device),
			SubsystemVendor: uint16(d.SubsystemVendor), SubsystemDevice: uint16(d.SubsystemDevice),
			MaxLinkGen: gen(d.MaxLinkSpeed), MaxLinkWidth: width(d.MaxLinkWidth),
			CurLinkGen: gen(d.CurrentLinkSpeed), CurLinkWidth: width(d.CurrentLinkWidth),
		})
	}
	sort.Slice(s.Devices, func(i, j int) bool { return s.Devices[i].Address < s.Devices[j].Address })

	dir := filepath.Join(root, "proc/driver/nvidia/gpus")
	ents, err := os.ReadDir(dir)
	if err != nil {
		s.ProcError = err.Error()
		return s
	}
	for _, e := range ents {
		info, err := readInfo(filepath.Join(dir, e.Name(), "information"))
		if err != nil {
			s.ProcError = err.Error()
			continue
		}
		addr := Normalise(e.Name())
		found := false
		for i := range s.Devices {
			if s.Devices[i].Address == addr {
				s.Devices[i].Driver, found = info, true
			}
		}
		if !found {
			s.ProcOnly = append(s.ProcOnly, addr)
		}
	}
	return s
}

// readInfo parses the driver's "Key:   value" information file.
func readInfo(path string) (*DriverInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	info := &DriverInfo{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "Model":
			info.Model = v
		case "GPU UUID":
			info.UUID = v
		case "Video BIOS":
			info.VBIOS = v
		}
	}
	if info.Model == "" {
		return nil, fmt.Errorf("%s: no Model line", path)
	}
	return info, nil
}

// gen maps a link speed in GT/s to its PCIe generation.
func gen(gts *float64) int {
	if gts == nil {
		return 0
	}
	for g, s := range map[int]float64{1: 2.5, 2: 5, 3: 8, 4: 16, 5: 32, 6: 64} {
		if *gts > s*0.99 && *gts < s*1.01 {
			return g
		}
	}
	return 0
}

func width(w *float64) int {
	if w == nil {
		return 0
	}
	return int(*w)
}

// Normalise turns a PCI address in NVML's ("00000000:3B:00.0"), CUDA's or
// the kernel's spelling into the kernel's: 4-digit domain, lower case.
func Normalise(addr string) string {
	addr = strings.ToLower(strings.TrimSpace(addr))
	parts := strings.Split(addr, ":")
	if len(parts) != 3 {
		return addr
	}
	dom := strings.TrimLeft(parts[0], "0")
	for len(dom) < 4 {
		dom = "0" + dom
	}
	return dom + ":" + parts[1] + ":" + parts[2]
}
