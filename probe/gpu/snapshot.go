// Package gpu reads the raw state of every NVIDIA GPU through NVML into a
// Snapshot: plain data that can be written to JSON, judged later, and
// replayed in tests. Nothing here decides whether a reading is good; that
// is authn's and health's job. Keeping reading and judging apart is what
// lets `gpuprobe check --snapshot FILE` judge a recorded machine exactly as
// it judges the live one.
//
// The data of step 1 of the observation pipeline (read, judge, observe,
// spool, push): the GPU snapshot that probe/gpu/nvmlread reads and step 2
// judges.
package gpu

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
)

// Source yields the current GPU snapshot. The live implementation is NVML;
// tests use go-nvml's mock behind the same reader, or recorded snapshots.
type Source interface {
	Read(ctx context.Context) (*Snapshot, error)
}

// Snapshot is every raw GPU reading of one moment.
type Snapshot struct {
	TakenAt       time.Time `json:"taken_at"`
	DriverVersion string    `json:"driver_version,omitempty"`
	NVMLVersion   string    `json:"nvml_version,omitempty"`
	// CUDAVersion is the newest CUDA the driver supports, e.g. "13.0".
	CUDAVersion string   `json:"cuda_version,omitempty"`
	Devices     []Device `json:"devices"`
	// XIDs are the XID events NVML delivered while the snapshot was taken.
	XIDs []XIDEvent `json:"xid_events,omitempty"`
	// XIDWatch says whether XID events were listened for at all (and why
	// not), so "no events" is not mistaken for "not watched".
	XIDWatch string `json:"xid_watch,omitempty"`
	// ReadMillis is how long the whole read took.
	ReadMillis int64 `json:"read_ms"`
	// OwnWork is the GPU work the probe itself was doing, or last did,
	// around this read, so that the idleness checks do not take the
	// probe's own load for a tenant's (nil: none known).
	OwnWork *OwnWork `json:"own_work,omitempty"`
}

// OwnWork is what the probe knows of its own GPU work (probe/ownwork
// records it; the reader copies it into the snapshot).
type OwnWork struct {
	// Running: the probe's own GPU work (a stress job, `gpuprobe check`'s
	// stress group in another probe process) was running at some moment
	// of the read, so the GPUs' utilisation, processes and memory in use
	// were partly the probe's own.
	Running bool `json:"running,omitempty"`
	// EndedAt is when the probe's last GPU work ended (zero: unknown or
	// never).
	EndedAt time.Time `json:"ended_at,omitzero"`
	// PIDs are the probe's own processes: never counted as tenants.
	PIDs []uint32 `json:"pids,omitempty"`
	// Begun counts the GPU works the probe began (in this process); a
	// change between two readings means one began in between.
	Begun uint64 `json:"-"`
}

// UtilSample is one of NVML's timestamped GPU utilisation samples: the %
// of the sample period (1/6 s to 1 s by product) in which a kernel ran,
// over the period ending at At.
type UtilSample struct {
	At  time.Time `json:"at"`
	Pct float64   `json:"pct"`
}

// XID watch states recorded in Snapshot.XIDWatch.
const (
	XIDWatchOK = "registered"
)

// XIDEvent is one XID critical error delivered by NVML.
type XIDEvent struct {
	GPU  int       `json:"gpu"`
	UUID string    `json:"uuid,omitempty"`
	XID  uint64    `json:"xid"`
	At   time.Time `json:"at"`
}

// Device holds the readings of one GPU. Pointer fields are nil when the
// driver said the reading is not supported on this GPU (listed in
// Unsupported) or the read failed (reason in Errors): a missing reading
// must never look like a zero reading.
type Device struct {
	Index           int    `json:"index"`
	Name            string `json:"name"`
	UUID            string `json:"uuid,omitempty"`
	Serial          string `json:"serial,omitempty"`
	BoardPartNumber string `json:"board_part_number,omitempty"`
	VBIOS           string `json:"vbios,omitempty"`
	Architecture    string `json:"architecture,omitempty"`

	PCI PCI `json:"pci"`

	MemoryTotalMiB *uint64 `json:"memory_total_mib,omitempty"`
	MemoryUsedMiB  *uint64 `json:"memory_used_mib,omitempty"`
	MemoryBusWidth *uint32 `json:"memory_bus_width_bits,omitempty"`
	Cores          *uint32 `json:"gpu_cores,omitempty"`
	// ComputeCapability as "major.minor".
	ComputeCapability string `json:"compute_capability,omitempty"`

	MaxSMClockMHz  *uint32 `json:"max_sm_clock_mhz,omitempty"`
	MaxMemClockMHz *uint32 `json:"max_mem_clock_mhz,omitempty"`
	SMClockMHz     *uint32 `json:"sm_clock_mhz,omitempty"`
	MemClockMHz    *uint32 `json:"mem_clock_mhz,omitempty"`

	PowerUsageW         *float64 `json:"power_usage_w,omitempty"`
	PowerDefaultLimitW  *float64 `json:"power_default_limit_w,omitempty"`
	PowerEnforcedLimitW *float64 `json:"power_enforced_limit_w,omitempty"`
	PowerLimitMinW      *float64 `json:"power_limit_min_w,omitempty"`
	PowerLimitMaxW      *float64 `json:"power_limit_max_w,omitempty"`
	TemperatureC        *uint32  `json:"temperature_c,omitempty"`
	SlowdownThresholdC  *uint32  `json:"slowdown_threshold_c,omitempty"`
	ShutdownThresholdC  *uint32  `json:"shutdown_threshold_c,omitempty"`
	ClockEventReasons   *uint64  `json:"clock_event_reasons,omitempty"`
	UtilizationGPU      *uint32  `json:"utilization_gpu_pct,omitempty"`
	UtilizationMemory   *uint32  `json:"utilization_memory_pct,omitempty"`
	// UtilizationSamples are NVML's timestamped utilisation samples newer
	// than UtilizationSince (the read's window: the last few seconds, and
	// never before the probe's own GPU work ended); nil when the driver
	// offers none (then UtilizationGPU, NVML's latest rate, is judged).
	UtilizationSamples []UtilSample `json:"utilization_samples,omitempty"`
	UtilizationSince   time.Time    `json:"utilization_since,omitzero"`
	// UtilizationEarlier is the first window's samples when they averaged
	// busy and a second window was read to confirm it (NVML.ConfirmBusy);
	// UtilizationSamples is then that second window.
	UtilizationEarlier  []UtilSample `json:"utilization_earlier,omitempty"`
	PersistenceMode     *bool        `json:"persistence_mode,omitempty"`
	MIGMode             *int         `json:"mig_mode,omitempty"`         // current: 0 disabled, 1 enabled
	MIGModePending      *int         `json:"mig_mode_pending,omitempty"` // after the next reset
	VirtualizationMode  *int         `json:"virtualization_mode,omitempty"`
	SupportedEventTypes *uint64      `json:"supported_event_types,omitempty"`
	PCIeReplayCounter   *uint64      `json:"pcie_replay_counter,omitempty"`
	PCIeMaxGen          *int         `json:"pcie_max_gen,omitempty"`     // the link's max, GPU and slot together
	PCIeGPUMaxGen       *int         `json:"pcie_gpu_max_gen,omitempty"` // what the GPU itself supports
	PCIeMaxWidth        *int         `json:"pcie_max_width,omitempty"`
	PCIeCurrentGen      *int         `json:"pcie_current_gen,omitempty"`
	PCIeCurrentWidth    *int         `json:"pcie_current_width,omitempty"`
	ECCEnabled          *bool        `json:"ecc_enabled,omitempty"`
	ECCPendingEnabled   *bool        `json:"ecc_pending_enabled,omitempty"`
	ECCVolatileCorr     *uint64      `json:"ecc_volatile_corrected,omitempty"`
	ECCVolatileUncorr   *uint64      `json:"ecc_volatile_uncorrected,omitempty"`
	ECCAggregateCorr    *uint64      `json:"ecc_aggregate_corrected,omitempty"`
	ECCAggregateUncorr  *uint64      `json:"ecc_aggregate_uncorrected,omitempty"`
	RemappedRows        *Remap       `json:"remapped_rows,omitempty"`
	RetiredPagesSBE     *int         `json:"retired_pages_sbe,omitempty"`
	RetiredPagesDBE     *int         `json:"retired_pages_dbe,omitempty"`
	RetiredPagesPending *bool        `json:"retired_pages_pending,omitempty"`
	NVLinks             []bool       `json:"nvlinks,omitempty"` // state per link, true = active
	Processes           []Proc       `json:"processes,omitempty"`
	ProcessesReadable   bool         `json:"processes_readable"`
	Unsupported         []string     `json:"unsupported,omitempty"`
	Errors              []string     `json:"errors,omitempty"`
	ReadMillis          int64        `json:"read_ms"`
}

// PCI identifies the card on the bus. The ids are NVML's 32-bit form:
// device id in the high half, vendor (0x10de) in the low half.
type PCI struct {
	BusID       string `json:"bus_id"`
	DeviceID    uint32 `json:"device_id"`
	SubsystemID uint32 `json:"subsystem_id"`
}

// Remap is the row-remapping state of HBM cards (Ampere and later).
type Remap struct {
	Correctable   int  `json:"correctable"`
	Uncorrectable int  `json:"uncorrectable"`
	Pending       bool `json:"pending"`
	Failure       bool `json:"failure"`
}

// Proc is a process holding a context on the GPU.
type Proc struct {
	PID           uint32 `json:"pid"`
	UsedMemoryMiB uint64 `json:"used_memory_mib"`
	Kind          string `json:"kind"` // "compute" or "graphics"
	// Pod is the UID of the renter's own Kubernetes pod the process runs
	// in (probe/kube): the renter's work, never a tenant. Empty outside
	// Kubernetes, or where pods are not taken as the renter's.
	Pod string `json:"pod,omitempty"`
}

// SMs is the streaming-multiprocessor count, derived from the core count:
// NVML reports cores but not SMs for a whole GPU. 0 when unknown.
func (d *Device) SMs() int {
	if d.Cores == nil {
		return 0
	}
	perSM := 0
	switch d.ComputeCapability {
	case "6.0", "7.0", "7.2", "7.5", "8.0":
		perSM = 64 // GP100, Volta, Turing, GA100
	case "8.6", "8.7", "8.9", "9.0", "10.0", "10.3", "12.0":
		perSM = 128
	}
	if perSM == 0 {
		return 0
	}
	return int(*d.Cores) / perSM
}

// DeviceID16 is the 16-bit PCI device id (0x2335 for an H200 SXM).
func (p PCI) DeviceID16() uint16 { return uint16(p.DeviceID >> 16) }

// VendorID is the PCI vendor id (0x10de for NVIDIA).
func (p PCI) VendorID() uint16 { return uint16(p.DeviceID & 0xffff) }

// ShortBusID normalises a PCI bus id to "bb:dd" (bus and device, lower
// case, no domain and function), the part that NVML's
// "00000000:3B:00.0" and the kernel log's "0000:3b:00" have in common.
func ShortBusID(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	if i := strings.LastIndexByte(id, '.'); i >= 0 {
		id = id[:i]
	}
	parts := strings.Split(id, ":")
	if len(parts) >= 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, ":")
}

// DeviceByBusID finds the GPU at a PCI bus id in any of the usual spellings.
func (s *Snapshot) DeviceByBusID(id string) (*Device, bool) {
	want := ShortBusID(id)
	for i := range s.Devices {
		if ShortBusID(s.Devices[i].PCI.BusID) == want {
			return &s.Devices[i], true
		}
	}
	return nil, false
}

// DriverError is returned when NVML cannot be used at all: no driver, no
// library, no permission. Its message is meant to be shown as is.
type DriverError struct {
	Op     string
	Code   int
	Reason string
}

func (e *DriverError) Error() string {
	return fmt.Sprintf("NVML %s: %s", e.Op, e.Reason)
}

// ErrorText is a driver error's message as one of the probe's sentences,
// where its reason is one ("NVML init: the NVIDIA kernel driver is not
// loaded …"); false for any other message (NVML's own words).
func ErrorText(msg string) (wire.Text, bool) {
	rest, ok := strings.CutPrefix(msg, "NVML ")
	op, reason, cut := strings.Cut(rest, ": ")
	if !ok || !cut || strings.Contains(op, " ") || !wire.Known(reason) {
		return wire.Text{}, false
	}
	return wire.T("NVML %s: %s", op, wire.T(reason)), true
}

// Missing says why the reading of that name (as listed in Unsupported and
// Errors: "memory", "gpu_cores", "pci", …) is absent, for the skipped
// check that needed it.
func (d *Device) Missing(name string) string { return d.MissingText(name).String() }

// MissingText is Missing as one of the probe's sentences.
func (d *Device) MissingText(name string) wire.Text {
	for _, u := range d.Unsupported {
		if u == name {
			return wire.T("%s: not supported by this GPU or driver", name)
		}
	}
	for _, e := range d.Errors {
		if strings.HasPrefix(e, name+": ") {
			return wire.T("NVML could not read %s", e)
		}
	}
	return wire.T("%s: not in the readings", name)
}
