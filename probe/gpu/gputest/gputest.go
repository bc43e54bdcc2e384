// Package gputest turns recorded GPU snapshots into go-nvml mock
// libraries, so that code reading NVML (gpu.NVML, the daemon's jobs) can be
// tested on real recorded readings without a GPU. It is for tests only.
//
// For tests of steps 1 and 2 of the observation pipeline (read, judge,
// observe, spool, push): a recorded snapshot stands in for NVML.
package gputest

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"

	"github.com/gpusla/gpusla/probe/gpu"
)

// Library is go-nvml's mock DGX H200 server with its devices replaced by
// the snapshot's, its driver and CUDA versions set from it, and an event set
// that delivers the snapshot's XID events once.
func Library(s *gpu.Snapshot) nvml.Interface {
	srv := dgxh200.New()
	srv.SystemGetDriverVersionFunc = func() (string, nvml.Return) { return s.DriverVersion, nvml.SUCCESS }
	srv.SystemGetNVMLVersionFunc = func() (string, nvml.Return) { return s.NVMLVersion, nvml.SUCCESS }
	srv.SystemGetCudaDriverVersionFunc = func() (int, nvml.Return) {
		var major, minor int
		if _, err := fmt.Sscanf(s.CUDAVersion, "%d.%d", &major, &minor); err != nil {
			return 0, nvml.ERROR_NOT_SUPPORTED
		}
		return major*1000 + minor*10, nvml.SUCCESS
	}
	devs := make([]nvml.Device, len(s.Devices))
	for i, rec := range s.Devices {
		d := dgxh200.NewDevice(i)
		Program(&d.Device, rec)
		devs[i] = d
	}
	srv.Devices = devs
	pending := append([]gpu.XIDEvent(nil), s.XIDs...)
	set := &mock.EventSet{
		WaitFunc: func(uint32) (nvml.EventData, nvml.Return) {
			if len(pending) == 0 {
				return nvml.EventData{}, nvml.ERROR_TIMEOUT
			}
			e := pending[0]
			pending = pending[1:]
			return nvml.EventData{Device: devs[e.GPU], EventType: nvml.EventTypeXidCriticalError, EventData: e.XID}, nvml.SUCCESS
		},
		FreeFunc: func() nvml.Return { return nvml.SUCCESS },
	}
	srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return set, nvml.SUCCESS }
	return srv
}

// ret returns SUCCESS for a reading that is there, NOT_SUPPORTED otherwise.
func ret(ok bool) nvml.Return {
	if ok {
		return nvml.SUCCESS
	}
	return nvml.ERROR_NOT_SUPPORTED
}

func val[T any](v *T) (T, nvml.Return) {
	if v == nil {
		var z T
		return z, nvml.ERROR_NOT_SUPPORTED
	}
	return *v, nvml.SUCCESS
}

func mw(w *float64) (uint32, nvml.Return) {
	if w == nil {
		return 0, nvml.ERROR_NOT_SUPPORTED
	}
	return uint32(*w * 1000), nvml.SUCCESS
}

func enable(b *bool) nvml.EnableState {
	if b != nil && *b {
		return nvml.FEATURE_ENABLED
	}
	return nvml.FEATURE_DISABLED
}

// Program sets every NVML call that gpu.NVML makes on a go-nvml mock
// device so that it answers what rec records: a recorded reading becomes a
// device the reader can read again.
func Program(m *mock.Device, rec gpu.Device) {
	var busID [32]int8
	for i, c := range rec.PCI.BusID {
		busID[i] = int8(c)
	}
	m.GetNameFunc = func() (string, nvml.Return) { return rec.Name, nvml.SUCCESS }
	m.GetUUIDFunc = func() (string, nvml.Return) { return rec.UUID, nvml.SUCCESS }
	m.GetSerialFunc = func() (string, nvml.Return) { return rec.Serial, nvml.SUCCESS }
	m.GetBoardPartNumberFunc = func() (string, nvml.Return) { return rec.BoardPartNumber, nvml.SUCCESS }
	m.GetVbiosVersionFunc = func() (string, nvml.Return) { return rec.VBIOS, nvml.SUCCESS }
	m.GetArchitectureFunc = func() (nvml.DeviceArchitecture, nvml.Return) {
		for a, name := range map[nvml.DeviceArchitecture]string{nvml.DEVICE_ARCH_VOLTA: "volta", nvml.DEVICE_ARCH_TURING: "turing",
			nvml.DEVICE_ARCH_AMPERE: "ampere", nvml.DEVICE_ARCH_ADA: "ada", nvml.DEVICE_ARCH_HOPPER: "hopper", nvml.DEVICE_ARCH_BLACKWELL: "blackwell"} {
			if name == rec.Architecture {
				return a, nvml.SUCCESS
			}
		}
		return 0, nvml.ERROR_NOT_SUPPORTED
	}
	m.GetPciInfoFunc = func() (nvml.PciInfo, nvml.Return) {
		return nvml.PciInfo{BusId: busID, PciDeviceId: rec.PCI.DeviceID, PciSubSystemId: rec.PCI.SubsystemID}, nvml.SUCCESS
	}
	m.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) {
		if rec.MemoryTotalMiB == nil || rec.MemoryUsedMiB == nil {
			return nvml.Memory{}, nvml.ERROR_NOT_SUPPORTED
		}
		return nvml.Memory{Total: *rec.MemoryTotalMiB << 20, Used: *rec.MemoryUsedMiB << 20}, nvml.SUCCESS
	}
	m.GetMemoryBusWidthFunc = func() (uint32, nvml.Return) { return val(rec.MemoryBusWidth) }
	m.GetNumGpuCoresFunc = func() (int, nvml.Return) { v, r := val(rec.Cores); return int(v), r }
	m.GetCudaComputeCapabilityFunc = func() (int, int, nvml.Return) {
		var major, minor int
		if _, err := fmt.Sscanf(rec.ComputeCapability, "%d.%d", &major, &minor); err != nil {
			return 0, 0, nvml.ERROR_NOT_SUPPORTED
		}
		return major, minor, nvml.SUCCESS
	}
	m.GetMaxClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c == nvml.CLOCK_SM {
			return val(rec.MaxSMClockMHz)
		}
		return val(rec.MaxMemClockMHz)
	}
	m.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c == nvml.CLOCK_SM {
			return val(rec.SMClockMHz)
		}
		return val(rec.MemClockMHz)
	}
	m.GetPowerUsageFunc = func() (uint32, nvml.Return) { return mw(rec.PowerUsageW) }
	m.GetPowerManagementDefaultLimitFunc = func() (uint32, nvml.Return) { return mw(rec.PowerDefaultLimitW) }
	m.GetEnforcedPowerLimitFunc = func() (uint32, nvml.Return) { return mw(rec.PowerEnforcedLimitW) }
	m.GetPowerManagementLimitConstraintsFunc = func() (uint32, uint32, nvml.Return) {
		lo, r := mw(rec.PowerLimitMinW)
		hi, _ := mw(rec.PowerLimitMaxW)
		return lo, hi, r
	}
	m.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return val(rec.TemperatureC) }
	m.GetTemperatureThresholdFunc = func(t nvml.TemperatureThresholds) (uint32, nvml.Return) {
		if t == nvml.TEMPERATURE_THRESHOLD_SLOWDOWN {
			return val(rec.SlowdownThresholdC)
		}
		return val(rec.ShutdownThresholdC)
	}
	m.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) { return val(rec.ClockEventReasons) }
	m.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
		if rec.UtilizationGPU == nil || rec.UtilizationMemory == nil {
			return nvml.Utilization{}, nvml.ERROR_NOT_SUPPORTED
		}
		return nvml.Utilization{Gpu: *rec.UtilizationGPU, Memory: *rec.UtilizationMemory}, nvml.SUCCESS
	}
	m.GetSamplesFunc = func(t nvml.SamplingType, lastSeen uint64) (nvml.ValueType, []nvml.Sample, nvml.Return) {
		if t != nvml.GPU_UTILIZATION_SAMPLES {
			return 0, nil, nvml.ERROR_NOT_SUPPORTED
		}
		var out []nvml.Sample
		for _, u := range rec.UtilizationSamples {
			if ts := uint64(u.At.UnixMicro()); ts > lastSeen {
				x := nvml.Sample{TimeStamp: ts}
				binary.LittleEndian.PutUint32(x.SampleValue[:], uint32(u.Pct))
				out = append(out, x)
			}
		}
		if len(out) == 0 {
			return nvml.VALUE_TYPE_UNSIGNED_INT, nil, nvml.ERROR_NOT_FOUND
		}
		return nvml.VALUE_TYPE_UNSIGNED_INT, out, nvml.SUCCESS
	}
	m.GetPersistenceModeFunc = func() (nvml.EnableState, nvml.Return) {
		return enable(rec.PersistenceMode), ret(rec.PersistenceMode != nil)
	}
	m.GetMigModeFunc = func() (int, int, nvml.Return) {
		if rec.MIGMode == nil || rec.MIGModePending == nil {
			return 0, 0, nvml.ERROR_NOT_SUPPORTED
		}
		return *rec.MIGMode, *rec.MIGModePending, nvml.SUCCESS
	}
	m.GetVirtualizationModeFunc = func() (nvml.GpuVirtualizationMode, nvml.Return) {
		v, r := val(rec.VirtualizationMode)
		return nvml.GpuVirtualizationMode(v), r
	}
	m.GetSupportedEventTypesFunc = func() (uint64, nvml.Return) { return val(rec.SupportedEventTypes) }
	m.GetPcieReplayCounterFunc = func() (int, nvml.Return) { v, r := val(rec.PCIeReplayCounter); return int(v), r }
	m.GetMaxPcieLinkGenerationFunc = func() (int, nvml.Return) { return val(rec.PCIeMaxGen) }
	m.GetGpuMaxPcieLinkGenerationFunc = func() (int, nvml.Return) { return val(rec.PCIeGPUMaxGen) }
	m.GetMaxPcieLinkWidthFunc = func() (int, nvml.Return) { return val(rec.PCIeMaxWidth) }
	m.GetCurrPcieLinkGenerationFunc = func() (int, nvml.Return) { return val(rec.PCIeCurrentGen) }
	m.GetCurrPcieLinkWidthFunc = func() (int, nvml.Return) { return val(rec.PCIeCurrentWidth) }
	m.GetEccModeFunc = func() (nvml.EnableState, nvml.EnableState, nvml.Return) {
		return enable(rec.ECCEnabled), enable(rec.ECCPendingEnabled), ret(rec.ECCEnabled != nil)
	}
	m.GetTotalEccErrorsFunc = func(t nvml.MemoryErrorType, c nvml.EccCounterType) (uint64, nvml.Return) {
		switch {
		case t == nvml.MEMORY_ERROR_TYPE_CORRECTED && c == nvml.VOLATILE_ECC:
			return val(rec.ECCVolatileCorr)
		case t == nvml.MEMORY_ERROR_TYPE_UNCORRECTED && c == nvml.VOLATILE_ECC:
			return val(rec.ECCVolatileUncorr)
		case t == nvml.MEMORY_ERROR_TYPE_CORRECTED:
			return val(rec.ECCAggregateCorr)
		}
		return val(rec.ECCAggregateUncorr)
	}
	m.GetRemappedRowsFunc = func() (int, int, bool, bool, nvml.Return) {
		if rec.RemappedRows == nil {
			return 0, 0, false, false, nvml.ERROR_NOT_SUPPORTED
		}
		r := rec.RemappedRows
		return r.Correctable, r.Uncorrectable, r.Pending, r.Failure, nvml.SUCCESS
	}
	m.GetRetiredPagesFunc = func(c nvml.PageRetirementCause) ([]uint64, nvml.Return) {
		n := rec.RetiredPagesSBE
		if c == nvml.PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR {
			n = rec.RetiredPagesDBE
		}
		if n == nil {
			return nil, nvml.ERROR_NOT_SUPPORTED
		}
		return make([]uint64, *n), nvml.SUCCESS
	}
	m.GetRetiredPagesPendingStatusFunc = func() (nvml.EnableState, nvml.Return) {
		return enable(rec.RetiredPagesPending), ret(rec.RetiredPagesPending != nil)
	}
	m.GetNvLinkStateFunc = func(link int) (nvml.EnableState, nvml.Return) {
		if link >= len(rec.NVLinks) {
			return 0, nvml.ERROR_NOT_SUPPORTED
		}
		return enable(&rec.NVLinks[link]), nvml.SUCCESS
	}
	procs := func(kind string) func() ([]nvml.ProcessInfo, nvml.Return) {
		return func() ([]nvml.ProcessInfo, nvml.Return) {
			if !rec.ProcessesReadable {
				return nil, nvml.ERROR_NO_PERMISSION
			}
			var out []nvml.ProcessInfo
			for _, pr := range rec.Processes {
				if pr.Kind == kind {
					out = append(out, nvml.ProcessInfo{Pid: pr.PID, UsedGpuMemory: pr.UsedMemoryMiB << 20})
				}
			}
			return out, nvml.SUCCESS
		}
	}
	m.GetComputeRunningProcessesFunc = procs("compute")
	m.GetGraphicsRunningProcessesFunc = procs("graphics")
	m.RegisterEventsFunc = func(uint64, nvml.EventSet) nvml.Return { return nvml.SUCCESS }
}

// Recorded reads the GPU part of a recorded snapshot file (a
// `gpuprobe snapshot` JSON) for tests that judge NVML readings alone.
func Recorded(tb testing.TB, path string) *gpu.Snapshot {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var s struct {
		GPU *gpu.Snapshot `json:"gpu"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if s.GPU == nil {
		tb.Fatalf("%s holds no GPU readings", path)
	}
	return s.GPU
}
