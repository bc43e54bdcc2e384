package nvmlread

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gpusla/gpusla/internal/ctxsleep"
	"github.com/gpusla/gpusla/probe/gpu"
)

// NVML reads snapshots through an nvml.Interface: nvml.New() on a real
// machine, go-nvml's mock package in tests.
type NVML struct {
	Lib nvml.Interface
	// XIDWait is how long Read waits for XID events after reading the
	// devices. Zero only drains what already arrived during the read.
	XIDWait time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	Log *slog.Logger
	// Own tells what GPU work the probe itself is doing or last did
	// (probe/ownwork); nil: none. Read asks before and after reading, so a
	// read that overlaps the probe's own work is known to.
	Own func() gpu.OwnWork
	// Sleep waits for d or until ctx ends (ctxsleep.Sleep when nil).
	Sleep func(ctx context.Context, d time.Duration) error
	// ConfirmBusy makes Read look again at a GPU whose utilisation
	// samples average BusyPct or more: it waits one more UtilWindow and
	// reads the samples of that window, keeping the first window's in
	// Device.UtilizationEarlier. A tenant's work goes on and shows in both;
	// a one-off burst just before the read (seen on a freshly started H200:
	// 8 % over 5 s, then 0 %) does not, so it is never judged a neighbour.
	ConfirmBusy bool
}

// New returns a reader of the system's NVML library.
func New() *NVML { return &NVML{Lib: nvml.New(), ConfirmBusy: true} }

func (n *NVML) now() time.Time {
	if n.Now != nil {
		return n.Now().UTC()
	}
	return time.Now().UTC()
}

// sleep waits d or until ctx ends, through NVML.Sleep when tests set it.
func (n *NVML) sleep(ctx context.Context, d time.Duration) error {
	if n.Sleep != nil {
		return n.Sleep(ctx, d)
	}
	return ctxsleep.Sleep(ctx, d)
}

// initError turns a failed nvml.Init into a message a person understands
// without knowing NVML's return codes.
func initError(ret nvml.Return) error {
	reason := ret.Error()
	switch ret {
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		reason = "the NVIDIA driver library libnvidia-ml.so.1 was not found: no NVIDIA driver is installed on this machine (ERROR_LIBRARY_NOT_FOUND)"
	case nvml.ERROR_DRIVER_NOT_LOADED:
		reason = "the NVIDIA kernel driver is not loaded (ERROR_DRIVER_NOT_LOADED)"
	case nvml.ERROR_NO_PERMISSION:
		reason = "no permission to talk to the NVIDIA driver (ERROR_NO_PERMISSION)"
	case nvml.ERROR_LIB_RM_VERSION_MISMATCH:
		reason = "the NVIDIA driver library and kernel module versions differ; reboot or reinstall the driver (ERROR_LIB_RM_VERSION_MISMATCH)"
	}
	return &gpu.DriverError{Op: "init", Code: int(ret), Reason: reason}
}

// Read initialises NVML, reads every GPU and the XID events delivered
// meanwhile, and shuts NVML down again.
func (n *NVML) Read(ctx context.Context) (*gpu.Snapshot, error) {
	start := time.Now()
	var own gpu.OwnWork
	if n.Own != nil {
		own = n.Own()
	}
	// Wait out the sample period that still covers the probe's own work,
	// rather than judge the probe's own load a tenant's.
	since, wait := gpu.UtilSince(own, n.now())
	if wait > 0 {
		if err := n.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
	if ret := n.Lib.Init(); ret != nvml.SUCCESS {
		return nil, initError(ret)
	}
	defer n.Lib.Shutdown()

	s := &gpu.Snapshot{TakenAt: n.now()}
	if v, ret := n.Lib.SystemGetDriverVersion(); ret == nvml.SUCCESS {
		s.DriverVersion = v
	}
	if v, ret := n.Lib.SystemGetNVMLVersion(); ret == nvml.SUCCESS {
		s.NVMLVersion = v
	}
	if v, ret := n.Lib.SystemGetCudaDriverVersion(); ret == nvml.SUCCESS {
		s.CUDAVersion = fmt.Sprintf("%d.%d", v/1000, (v%1000)/10)
	}
	count, ret := n.Lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return nil, &gpu.DriverError{Op: "device count", Code: int(ret), Reason: ret.Error()}
	}

	handles := make([]nvml.Device, 0, count)
	s.Devices = make([]gpu.Device, count)
	for i := 0; i < count; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, ret := n.Lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			// A GPU that NVML counts but cannot open is typically one that
			// fell off the bus; record it so the judge sees it as lost.
			s.Devices[i] = gpu.Device{Index: i, Errors: []string{"handle: " + ret.Error()}}
			handles = append(handles, nil)
			continue
		}
		handles = append(handles, d)
	}

	// Register for XID events before reading, so errors raised while we
	// read are not missed.
	w, werr := WatchXIDs(n.Lib, handles)
	if werr != nil {
		s.XIDWatch = werr.Error()
	} else {
		s.XIDWatch = gpu.XIDWatchOK
		defer w.Close()
	}

	for i, h := range handles {
		if h == nil {
			continue
		}
		s.Devices[i] = readDevice(i, h, since)
	}
	if n.ConfirmBusy {
		if err := n.confirmBusy(ctx, handles, s.Devices); err != nil {
			return nil, err
		}
	}
	if w != nil {
		evs, err := w.Drain(ctx, n.XIDWait)
		if err != nil {
			s.XIDWatch = err.Error()
		}
		for _, e := range evs {
			e.At = n.now()
			s.XIDs = append(s.XIDs, e)
		}
	}
	s.ReadMillis = time.Since(start).Milliseconds()
	if n.Own != nil {
		after := n.Own()
		after.Running = after.Running || own.Running || after.Begun != own.Begun
		s.OwnWork = &after
	}
	return s, nil
}

// confirmBusy gives every GPU whose samples average BusyPct or more a
// second window (see NVML.ConfirmBusy): one wait for all of them, then the
// samples newer than the first window's last.
func (n *NVML) confirmBusy(ctx context.Context, handles []nvml.Device, devs []gpu.Device) error {
	var busy []int
	for i, d := range devs {
		if handles[i] != nil && len(d.UtilizationSamples) > 0 && gpu.MeanUtil(d.UtilizationSamples) >= gpu.BusyPct {
			busy = append(busy, i)
		}
	}
	if len(busy) == 0 {
		return nil
	}
	if err := n.sleep(ctx, gpu.UtilWindow); err != nil {
		return err
	}
	for _, i := range busy {
		d := &devs[i]
		first := d.UtilizationSamples
		d.UtilizationSamples, d.UtilizationSince = nil, time.Time{}
		readUtilSamples(&reader{d: d}, handles[i], first[len(first)-1].At)
		d.UtilizationEarlier = first
	}
	return nil
}

// sampleValue decodes one NVML sample value of the given type.
func sampleValue(t nvml.ValueType, v [8]byte) (float64, bool) {
	switch t {
	case nvml.VALUE_TYPE_DOUBLE:
		return math.Float64frombits(binary.LittleEndian.Uint64(v[:])), true
	case nvml.VALUE_TYPE_UNSIGNED_INT:
		return float64(binary.LittleEndian.Uint32(v[:])), true
	case nvml.VALUE_TYPE_UNSIGNED_LONG, nvml.VALUE_TYPE_UNSIGNED_LONG_LONG:
		return float64(binary.LittleEndian.Uint64(v[:])), true
	case nvml.VALUE_TYPE_SIGNED_LONG_LONG:
		return float64(int64(binary.LittleEndian.Uint64(v[:]))), true
	case nvml.VALUE_TYPE_SIGNED_INT:
		return float64(int32(binary.LittleEndian.Uint32(v[:]))), true
	case nvml.VALUE_TYPE_UNSIGNED_SHORT:
		return float64(binary.LittleEndian.Uint16(v[:])), true
	}
	return 0, false
}

// readUtilSamples reads NVML's utilisation samples newer than since. None
// in the window (ERROR_NOT_FOUND) leaves the device without samples, as
// does a driver that has none; UtilizationGPU is then judged.
func readUtilSamples(r *reader, h nvml.Device, since time.Time) {
	vt, ss, ret := h.GetSamples(nvml.GPU_UTILIZATION_SAMPLES, uint64(max(since.UnixMicro(), 0)))
	if ret == nvml.ERROR_NOT_FOUND || !r.ok("utilization_samples", ret) {
		return
	}
	var out []gpu.UtilSample
	for _, x := range ss {
		at := time.UnixMicro(int64(x.TimeStamp)).UTC()
		v, ok := sampleValue(vt, x.SampleValue)
		if !ok || v < 0 || v > 100 {
			r.d.Errors = append(r.d.Errors, fmt.Sprintf("utilization_samples: value type %d, sample %v not a percentage", vt, x.SampleValue))
			return
		}
		if at.After(since) {
			out = append(out, gpu.UtilSample{At: at, Pct: v})
		}
	}
	if len(out) > 0 {
		r.d.UtilizationSamples, r.d.UtilizationSince = out, since.UTC()
	}
}

// reader collects one device's readings and what was unavailable.
type reader struct {
	d *gpu.Device
}

// ok records a non-success return under the reading's name and reports
// whether the value may be used.
func (r *reader) ok(name string, ret nvml.Return) bool {
	switch ret {
	case nvml.SUCCESS:
		return true
	case nvml.ERROR_NOT_SUPPORTED, nvml.ERROR_FUNCTION_NOT_FOUND:
		r.d.Unsupported = append(r.d.Unsupported, name)
	default:
		r.d.Errors = append(r.d.Errors, name+": "+ret.Error())
	}
	return false
}

func ptr[T any](v T) *T { return &v }

// readDevice reads everything NVML tells of one GPU, one concern after
// another. A reading NVML does not support or fails is recorded by name
// (reader.ok) and the rest still read, so one missing value never hides
// the others.
func readDevice(index int, h nvml.Device, since time.Time) gpu.Device {
	start := time.Now()
	d := gpu.Device{Index: index}
	r := &reader{d: &d}
	r.readIdentity(h)
	r.readMemoryAndCompute(h)
	r.readClocks(h)
	r.readPower(h)
	r.readThermal(h)
	r.readUtilization(h, since)
	r.readModes(h)
	r.readPCIe(h)
	r.readMemoryErrors(h)
	r.readNVLinks(h)
	r.readProcesses(h)
	d.ReadMillis = time.Since(start).Milliseconds()
	return d
}

// readIdentity reads what the card says it is: name, UUID, serial, board
// part number, VBIOS, architecture and PCI ids.
func (r *reader) readIdentity(h nvml.Device) {
	d := r.d
	if v, ret := h.GetName(); r.ok("name", ret) {
		d.Name = v
	}
	if v, ret := h.GetUUID(); r.ok("uuid", ret) {
		d.UUID = v
	}
	if v, ret := h.GetSerial(); r.ok("serial", ret) {
		d.Serial = v
	}
	if v, ret := h.GetBoardPartNumber(); r.ok("board_part_number", ret) {
		d.BoardPartNumber = v
	}
	if v, ret := h.GetVbiosVersion(); r.ok("vbios", ret) {
		d.VBIOS = v
	}
	if v, ret := h.GetArchitecture(); r.ok("architecture", ret) {
		d.Architecture = archName(v)
	}
	if p, ret := h.GetPciInfo(); r.ok("pci", ret) {
		d.PCI = gpu.PCI{BusID: cString(p.BusId[:]), DeviceID: p.PciDeviceId, SubsystemID: p.PciSubSystemId}
	}
}

// readMemoryAndCompute reads the card's size: memory total and in use,
// memory bus width, cores and compute capability.
func (r *reader) readMemoryAndCompute(h nvml.Device) {
	d := r.d
	if m, ret := h.GetMemoryInfo(); r.ok("memory", ret) {
		d.MemoryTotalMiB = ptr(m.Total >> 20)
		d.MemoryUsedMiB = ptr(m.Used >> 20)
	}
	if v, ret := h.GetMemoryBusWidth(); r.ok("memory_bus_width", ret) {
		d.MemoryBusWidth = ptr(v)
	}
	if v, ret := h.GetNumGpuCores(); r.ok("gpu_cores", ret) {
		d.Cores = ptr(uint32(v))
	}
	if major, minor, ret := h.GetCudaComputeCapability(); r.ok("compute_capability", ret) {
		d.ComputeCapability = fmt.Sprintf("%d.%d", major, minor)
	}
}

// readClocks reads the SM and memory clocks: their maximum and now.
func (r *reader) readClocks(h nvml.Device) {
	d := r.d
	if v, ret := h.GetMaxClockInfo(nvml.CLOCK_SM); r.ok("max_sm_clock", ret) {
		d.MaxSMClockMHz = ptr(v)
	}
	if v, ret := h.GetMaxClockInfo(nvml.CLOCK_MEM); r.ok("max_mem_clock", ret) {
		d.MaxMemClockMHz = ptr(v)
	}
	if v, ret := h.GetClockInfo(nvml.CLOCK_SM); r.ok("sm_clock", ret) {
		d.SMClockMHz = ptr(v)
	}
	if v, ret := h.GetClockInfo(nvml.CLOCK_MEM); r.ok("mem_clock", ret) {
		d.MemClockMHz = ptr(v)
	}
}

// readPower reads the draw now and the power limits (default, enforced,
// and the range they may be set in), in watts.
func (r *reader) readPower(h nvml.Device) {
	d := r.d
	watts := func(mw uint32) *float64 { return ptr(float64(mw) / 1000) }
	if v, ret := h.GetPowerUsage(); r.ok("power_usage", ret) {
		d.PowerUsageW = watts(v)
	}
	if v, ret := h.GetPowerManagementDefaultLimit(); r.ok("power_default_limit", ret) {
		d.PowerDefaultLimitW = watts(v)
	}
	if v, ret := h.GetEnforcedPowerLimit(); r.ok("power_enforced_limit", ret) {
		d.PowerEnforcedLimitW = watts(v)
	}
	if lo, hi, ret := h.GetPowerManagementLimitConstraints(); r.ok("power_limit_constraints", ret) {
		d.PowerLimitMinW, d.PowerLimitMaxW = watts(lo), watts(hi)
	}
}

// readThermal reads the temperature, its slowdown and shutdown
// thresholds, and why the clocks are held down now (clock-event reasons).
func (r *reader) readThermal(h nvml.Device) {
	d := r.d
	if v, ret := h.GetTemperature(nvml.TEMPERATURE_GPU); r.ok("temperature", ret) {
		d.TemperatureC = ptr(v)
	}
	if v, ret := h.GetTemperatureThreshold(nvml.TEMPERATURE_THRESHOLD_SLOWDOWN); r.ok("slowdown_threshold", ret) {
		d.SlowdownThresholdC = ptr(v)
	}
	if v, ret := h.GetTemperatureThreshold(nvml.TEMPERATURE_THRESHOLD_SHUTDOWN); r.ok("shutdown_threshold", ret) {
		d.ShutdownThresholdC = ptr(v)
	}
	reasons, ret := h.GetCurrentClocksEventReasons()
	if ret == nvml.ERROR_FUNCTION_NOT_FOUND {
		// Drivers before 535 only know the older name of the same reading.
		reasons, ret = h.GetCurrentClocksThrottleReasons()
	}
	if r.ok("clock_event_reasons", ret) {
		d.ClockEventReasons = ptr(reasons)
	}
}

// readUtilization reads the utilisation now and its samples newer than
// since (readUtilSamples).
func (r *reader) readUtilization(h nvml.Device, since time.Time) {
	if u, ret := h.GetUtilizationRates(); r.ok("utilization", ret) {
		r.d.UtilizationGPU, r.d.UtilizationMemory = ptr(u.Gpu), ptr(u.Memory)
	}
	readUtilSamples(r, h, since)
}

// readModes reads how the card is set up: persistence, MIG (now and
// pending), virtualization, and which events it can report.
func (r *reader) readModes(h nvml.Device) {
	d := r.d
	if v, ret := h.GetPersistenceMode(); r.ok("persistence_mode", ret) {
		d.PersistenceMode = ptr(v == nvml.FEATURE_ENABLED)
	}
	if cur, pending, ret := h.GetMigMode(); r.ok("mig_mode", ret) {
		d.MIGMode, d.MIGModePending = ptr(cur), ptr(pending)
	}
	if v, ret := h.GetVirtualizationMode(); r.ok("virtualization_mode", ret) {
		d.VirtualizationMode = ptr(int(v))
	}
	if v, ret := h.GetSupportedEventTypes(); r.ok("supported_event_types", ret) {
		d.SupportedEventTypes = ptr(v)
	}
}

// readPCIe reads the PCIe link: replays, and its generation and width,
// the most the slot and the GPU allow and now.
func (r *reader) readPCIe(h nvml.Device) {
	d := r.d
	if v, ret := h.GetPcieReplayCounter(); r.ok("pcie_replay_counter", ret) {
		d.PCIeReplayCounter = ptr(uint64(v))
	}
	if v, ret := h.GetMaxPcieLinkGeneration(); r.ok("pcie_max_gen", ret) {
		d.PCIeMaxGen = ptr(v)
	}
	if v, ret := h.GetGpuMaxPcieLinkGeneration(); r.ok("pcie_gpu_max_gen", ret) {
		d.PCIeGPUMaxGen = ptr(v)
	}
	if v, ret := h.GetMaxPcieLinkWidth(); r.ok("pcie_max_width", ret) {
		d.PCIeMaxWidth = ptr(v)
	}
	if v, ret := h.GetCurrPcieLinkGeneration(); r.ok("pcie_current_gen", ret) {
		d.PCIeCurrentGen = ptr(v)
	}
	if v, ret := h.GetCurrPcieLinkWidth(); r.ok("pcie_current_width", ret) {
		d.PCIeCurrentWidth = ptr(v)
	}
}

// readMemoryErrors reads what the memory has suffered: the ECC mode and,
// with ECC on, its error counters; remapped rows; retired pages.
func (r *reader) readMemoryErrors(h nvml.Device) {
	d := r.d
	if cur, pending, ret := h.GetEccMode(); r.ok("ecc_mode", ret) {
		d.ECCEnabled = ptr(cur == nvml.FEATURE_ENABLED)
		d.ECCPendingEnabled = ptr(pending == nvml.FEATURE_ENABLED)
		// Counters only mean something with ECC on.
		r.readECCCounters(h)
	}
	if corr, unc, pending, failure, ret := h.GetRemappedRows(); r.ok("remapped_rows", ret) {
		d.RemappedRows = &gpu.Remap{Correctable: corr, Uncorrectable: unc, Pending: pending, Failure: failure}
	}
	// Page retirement is the pre-Ampere mechanism; Hopper answers "not
	// supported" and uses row remapping instead.
	if v, ret := h.GetRetiredPages(nvml.PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS); r.ok("retired_pages_sbe", ret) {
		d.RetiredPagesSBE = ptr(len(v))
	}
	if v, ret := h.GetRetiredPages(nvml.PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR); r.ok("retired_pages_dbe", ret) {
		d.RetiredPagesDBE = ptr(len(v))
	}
	if v, ret := h.GetRetiredPagesPendingStatus(); r.ok("retired_pages_pending", ret) {
		d.RetiredPagesPending = ptr(v == nvml.FEATURE_ENABLED)
	}
}

// readECCCounters reads the corrected and uncorrected ECC errors since
// the driver loaded (volatile) and over the card's life (aggregate).
func (r *reader) readECCCounters(h nvml.Device) {
	d := r.d
	if v, ret := h.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_CORRECTED, nvml.VOLATILE_ECC); r.ok("ecc_volatile_corrected", ret) {
		d.ECCVolatileCorr = ptr(v)
	}
	if v, ret := h.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_UNCORRECTED, nvml.VOLATILE_ECC); r.ok("ecc_volatile_uncorrected", ret) {
		d.ECCVolatileUncorr = ptr(v)
	}
	if v, ret := h.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_CORRECTED, nvml.AGGREGATE_ECC); r.ok("ecc_aggregate_corrected", ret) {
		d.ECCAggregateCorr = ptr(v)
	}
	if v, ret := h.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_UNCORRECTED, nvml.AGGREGATE_ECC); r.ok("ecc_aggregate_uncorrected", ret) {
		d.ECCAggregateUncorr = ptr(v)
	}
}

// readNVLinks reads whether each NVLink is up. Links are numbered from 0;
// the first "not supported" ends the list (a GPU without NVLink answers
// so for link 0).
func (r *reader) readNVLinks(h nvml.Device) {
	for link := 0; link < nvml.NVLINK_MAX_LINKS; link++ {
		st, ret := h.GetNvLinkState(link)
		if ret != nvml.SUCCESS {
			if link == 0 {
				r.ok("nvlink", ret)
			}
			break
		}
		r.d.NVLinks = append(r.d.NVLinks, st == nvml.FEATURE_ENABLED)
	}
}

// readProcesses lists the compute and graphics processes on the GPU;
// ProcessesReadable says whether both lists could be read.
func (r *reader) readProcesses(h nvml.Device) {
	d := r.d
	d.ProcessesReadable = true
	for _, kind := range []struct {
		name string
		get  func() ([]nvml.ProcessInfo, nvml.Return)
	}{{"compute", h.GetComputeRunningProcesses}, {"graphics", h.GetGraphicsRunningProcesses}} {
		ps, ret := kind.get()
		if !r.ok(kind.name+"_processes", ret) {
			d.ProcessesReadable = false
			continue
		}
		for _, p := range ps {
			d.Processes = append(d.Processes, gpu.Proc{PID: p.Pid, UsedMemoryMiB: p.UsedGpuMemory >> 20, Kind: kind.name})
		}
	}
}

func cString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}

func archName(a nvml.DeviceArchitecture) string {
	switch a {
	case nvml.DEVICE_ARCH_KEPLER:
		return "kepler"
	case nvml.DEVICE_ARCH_MAXWELL:
		return "maxwell"
	case nvml.DEVICE_ARCH_PASCAL:
		return "pascal"
	case nvml.DEVICE_ARCH_VOLTA:
		return "volta"
	case nvml.DEVICE_ARCH_TURING:
		return "turing"
	case nvml.DEVICE_ARCH_AMPERE:
		return "ampere"
	case nvml.DEVICE_ARCH_ADA:
		return "ada"
	case nvml.DEVICE_ARCH_HOPPER:
		return "hopper"
	case nvml.DEVICE_ARCH_BLACKWELL:
		return "blackwell"
	}
	return fmt.Sprintf("arch-%d", a)
}
