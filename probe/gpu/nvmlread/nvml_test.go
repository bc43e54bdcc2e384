package nvmlread_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"

	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/gpu/gputest"
	"github.com/gpusla/gpusla/probe/gpu/nvmlread"
)

func p[T any](v T) *T { return &v }

// recordedH200 is the reading of the real H200 in REFERENCE.md.
func recordedH200(index int) gpu.Device {
	return gpu.Device{
		Index: index, Name: "NVIDIA H200", UUID: "GPU-8d6b5a3e-0000-4000-8000-00000000000" + string(rune('0'+index)),
		Serial: "1654123456789", BoardPartNumber: "692-2G520-0282-001", VBIOS: "96.00.A5.00.1A", Architecture: "hopper",
		PCI:            gpu.PCI{BusID: "00000000:0" + string(rune('1'+index)) + ":00.0", DeviceID: 0x233510de, SubsystemID: 0x18bf10de},
		MemoryTotalMiB: p(uint64(143771)), MemoryUsedMiB: p(uint64(0)), MemoryBusWidth: p(uint32(6016)), Cores: p(uint32(16896)),
		ComputeCapability: "9.0", MaxSMClockMHz: p(uint32(1980)), MaxMemClockMHz: p(uint32(3201)),
		SMClockMHz: p(uint32(345)), MemClockMHz: p(uint32(3201)),
		PowerUsageW: p(81.5), PowerDefaultLimitW: p(700.0), PowerEnforcedLimitW: p(700.0), PowerLimitMinW: p(200.0), PowerLimitMaxW: p(700.0),
		TemperatureC: p(uint32(34)), SlowdownThresholdC: p(uint32(89)), ShutdownThresholdC: p(uint32(95)),
		ClockEventReasons: p(uint64(1)), UtilizationGPU: p(uint32(0)), UtilizationMemory: p(uint32(0)),
		PersistenceMode: p(true), MIGMode: p(0), MIGModePending: p(0), VirtualizationMode: p(1),
		SupportedEventTypes: p(uint64(0xff9f)), PCIeReplayCounter: p(uint64(0)),
		PCIeMaxGen: p(5), PCIeGPUMaxGen: p(5), PCIeMaxWidth: p(16), PCIeCurrentGen: p(5), PCIeCurrentWidth: p(16),
		ECCEnabled: p(true), ECCPendingEnabled: p(true), ECCVolatileCorr: p(uint64(0)), ECCVolatileUncorr: p(uint64(0)),
		ECCAggregateCorr: p(uint64(0)), ECCAggregateUncorr: p(uint64(0)),
		RemappedRows:      &gpu.Remap{},
		ProcessesReadable: true,
		Unsupported:       []string{"retired_pages_sbe", "retired_pages_dbe", "retired_pages_pending", "nvlink"},
	}
}

func TestReadRoundTripsAllReadings(t *testing.T) {
	srv := dgxh200.New()
	srv.SystemGetDriverVersionFunc = func() (string, nvml.Return) { return "580.159.04", nvml.SUCCESS }
	srv.SystemGetCudaDriverVersionFunc = func() (int, nvml.Return) { return 13000, nvml.SUCCESS }
	want := []gpu.Device{recordedH200(0), recordedH200(1)}
	want[1].NVLinks = []bool{true, true, false}
	want[1].Unsupported = want[1].Unsupported[:3]
	want[1].Processes = []gpu.Proc{{PID: 4242, UsedMemoryMiB: 1024, Kind: "compute"}}
	srv.Devices = srv.Devices[:2]
	devs := make([]nvml.Device, 2)
	for i := range want {
		d := dgxh200.NewDevice(i)
		gputest.Program(&d.Device, want[i])
		devs[i] = d
	}
	srv.Devices = devs
	var waits int
	set := &mock.EventSet{
		WaitFunc: func(uint32) (nvml.EventData, nvml.Return) {
			waits++
			if waits == 1 {
				return nvml.EventData{Device: devs[1], EventType: nvml.EventTypeXidCriticalError, EventData: 79}, nvml.SUCCESS
			}
			return nvml.EventData{}, nvml.ERROR_TIMEOUT
		},
		FreeFunc: func() nvml.Return { return nvml.SUCCESS },
	}
	srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return set, nvml.SUCCESS }

	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	s, err := (&nvmlread.NVML{Lib: srv, Now: func() time.Time { return at }}).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.DriverVersion != "580.159.04" || s.CUDAVersion != "13.0" || s.XIDWatch != gpu.XIDWatchOK {
		t.Fatalf("system readings: %+v", s)
	}
	if len(s.XIDs) != 1 || s.XIDs[0] != (gpu.XIDEvent{GPU: 1, UUID: want[1].UUID, XID: 79, At: at}) {
		t.Fatalf("xid events: %+v", s.XIDs)
	}
	for i := range want {
		got := s.Devices[i]
		got.ReadMillis = 0
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("GPU %d\n got %+v\nwant %+v", i, got, want[i])
		}
	}
}

func TestReadRecordsErrorsAndLostGPUs(t *testing.T) {
	srv := dgxh200.New()
	d0 := dgxh200.NewDevice(0)
	rec := recordedH200(0)
	gputest.Program(&d0.Device, rec)
	d0.GetPcieReplayCounterFunc = func() (int, nvml.Return) { return 0, nvml.ERROR_UNKNOWN }
	srv.Devices = []nvml.Device{d0, nil}
	srv.DeviceGetCountFunc = func() (int, nvml.Return) { return 2, nvml.SUCCESS }
	srv.DeviceGetHandleByIndexFunc = func(i int) (nvml.Device, nvml.Return) {
		if i == 1 {
			return nil, nvml.ERROR_GPU_IS_LOST
		}
		return d0, nvml.SUCCESS
	}
	srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return nil, nvml.ERROR_NOT_SUPPORTED }
	s, err := (&nvmlread.NVML{Lib: srv}).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Devices) != 2 {
		t.Fatalf("devices: %d", len(s.Devices))
	}
	if s.Devices[0].PCIeReplayCounter != nil || !strings.Contains(strings.Join(s.Devices[0].Errors, ";"), "pcie_replay_counter: ERROR_UNKNOWN") {
		t.Errorf("failed reading not recorded: %v %v", s.Devices[0].PCIeReplayCounter, s.Devices[0].Errors)
	}
	if e := s.Devices[1].Errors; len(e) != 1 || e[0] != "handle: ERROR_GPU_IS_LOST" {
		t.Errorf("lost GPU: %+v", s.Devices[1])
	}
	if !strings.Contains(s.XIDWatch, "ERROR_NOT_SUPPORTED") {
		t.Errorf("xid watch: %q", s.XIDWatch)
	}
}

func TestReadWithoutDriver(t *testing.T) {
	lib := &mock.Interface{InitFunc: func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND }}
	_, err := (&nvmlread.NVML{Lib: lib}).Read(context.Background())
	if !gpu.IsDriverError(err) || !strings.Contains(err.Error(), "no NVIDIA driver is installed") {
		t.Fatalf("got %v", err)
	}
}

func TestShortBusID(t *testing.T) {
	for in, want := range map[string]string{
		"00000000:3B:00.0": "3b:00", "0000:3b:00": "3b:00", "0000:3b:00.0": "3b:00", "3b:00": "3b:00",
	} {
		if got := gpu.ShortBusID(in); got != want {
			t.Errorf("%s: got %s", in, got)
		}
	}
	s := &gpu.Snapshot{Devices: []gpu.Device{{Index: 0, PCI: gpu.PCI{BusID: "00000000:18:00.0"}}, {Index: 1, PCI: gpu.PCI{BusID: "00000000:3B:00.0"}}}}
	if d, ok := s.DeviceByBusID("0000:3b:00"); !ok || d.Index != 1 {
		t.Fatalf("DeviceByBusID: %+v %v", d, ok)
	}
}

func TestSMs(t *testing.T) {
	h200 := recordedH200(0)
	a100 := gpu.Device{Cores: p(uint32(6912)), ComputeCapability: "8.0"}
	if h200.SMs() != 132 || a100.SMs() != 108 || (&gpu.Device{}).SMs() != 0 {
		t.Fatalf("SMs: %d %d", h200.SMs(), a100.SMs())
	}
}

func TestListenXIDsDeliversUntilCancelled(t *testing.T) {
	srv := dgxh200.New()
	d0 := dgxh200.NewDevice(0)
	gputest.Program(&d0.Device, recordedH200(0))
	srv.Devices = []nvml.Device{d0}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var waits int
	set := &mock.EventSet{
		WaitFunc: func(timeout uint32) (nvml.EventData, nvml.Return) {
			waits++
			switch waits {
			case 1:
				return nvml.EventData{Device: d0, EventType: nvml.EventTypeXidCriticalError, EventData: 48}, nvml.SUCCESS
			case 2:
				return nvml.EventData{Device: d0, EventType: nvml.EventTypeSingleBitEccError}, nvml.SUCCESS // not an XID
			case 4:
				cancel()
			}
			return nvml.EventData{}, nvml.ERROR_TIMEOUT
		},
		FreeFunc: func() nvml.Return { return nvml.SUCCESS },
	}
	srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return set, nvml.SUCCESS }
	var got []gpu.XIDEvent
	err := nvmlread.ListenXIDs(ctx, srv, func() time.Time { return time.Unix(0, 0) }, func(e gpu.XIDEvent) { got = append(got, e) })
	if err != context.Canceled {
		t.Fatalf("stopped with %v", err)
	}
	if len(got) != 1 || got[0].XID != 48 || got[0].GPU != 0 || got[0].UUID == "" {
		t.Fatalf("events: %+v", got)
	}
}

// Utilisation is read from NVML's timestamped samples, and only those
// taken after the probe's own last GPU work had settled count: a read soon
// after it waits first, and the burn's tail is left out.
func TestReadJudgesOnlyUtilisationAfterOwnWork(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	rec := recordedH200(0)
	rec.UtilizationGPU = p(uint32(97)) // the rate still shows the burn
	rec.UtilizationSamples = []gpu.UtilSample{
		{At: at.Add(-time.Second), Pct: 100},          // the probe's own burn
		{At: at.Add(time.Second), Pct: 96},            // its tail, within the settle time
		{At: at.Add(2 * time.Second), Pct: 0},         // idle
		{At: at.Add(2500 * time.Millisecond), Pct: 2}, // idle
	}
	srv := dgxh200.New()
	d := dgxh200.NewDevice(0)
	gputest.Program(&d.Device, rec)
	srv.Devices = []nvml.Device{d}
	srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return nil, nvml.ERROR_NOT_SUPPORTED }
	ended := at.Add(-500 * time.Millisecond)
	var waited time.Duration
	calls := 0
	n := &nvmlread.NVML{Lib: srv, Now: func() time.Time { return at },
		Own: func() gpu.OwnWork {
			calls++
			return gpu.OwnWork{EndedAt: ended, PIDs: []uint32{7}, Begun: 1}
		},
		Sleep: func(_ context.Context, d time.Duration) error { waited = d; return nil }}
	s, err := n.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 || s.OwnWork == nil || s.OwnWork.Running || !s.OwnWork.EndedAt.Equal(ended) {
		t.Fatalf("own work %+v after %d calls", s.OwnWork, calls)
	}
	// Settled 2 s after the end, plus one whole sample period: 2.5 s from now.
	if waited != 2500*time.Millisecond {
		t.Errorf("waited %v, want 2.5s", waited)
	}
	got := s.Devices[0].UtilizationSamples
	if len(got) != 2 || got[0].Pct != 0 || got[1].Pct != 2 || !s.Devices[0].UtilizationSince.Equal(ended.Add(gpu.OwnWorkSettle)) {
		t.Errorf("samples %+v since %v", got, s.Devices[0].UtilizationSince)
	}

	// Own work that began during the read makes the whole read overlap it.
	calls = 0
	n.Own = func() gpu.OwnWork { calls++; return gpu.OwnWork{Begun: uint64(calls)} }
	if s, err := n.Read(context.Background()); err != nil || !s.OwnWork.Running {
		t.Fatalf("overlap not seen: %+v %v", s.OwnWork, err)
	}
}

func TestUtilSince(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		own   gpu.OwnWork
		since time.Time
		wait  time.Duration
	}{
		{gpu.OwnWork{}, now.Add(-gpu.UtilWindow), 0},
		{gpu.OwnWork{Running: true, EndedAt: now}, now.Add(-gpu.UtilWindow), 0},
		{gpu.OwnWork{EndedAt: now.Add(-time.Minute)}, now.Add(-gpu.UtilWindow), 0},
		{gpu.OwnWork{EndedAt: now.Add(-4 * time.Second)}, now.Add(-2 * time.Second), 0},
		{gpu.OwnWork{EndedAt: now}, now.Add(2 * time.Second), 3 * time.Second},
		{gpu.OwnWork{EndedAt: now.Add(time.Hour)}, now.Add(time.Hour + 2*time.Second), 3 * time.Second}, // a clock step: bounded
	} {
		since, wait := gpu.UtilSince(tc.own, now)
		if !since.Equal(tc.since) || wait != tc.wait {
			t.Errorf("%+v: since %v wait %v, want %v %v", tc.own, since, wait, tc.since, tc.wait)
		}
	}
}

// TestBusyWindowIsConfirmed: a GPU whose utilisation samples average busy
// is read again one window later. A burst just before the read (a freshly
// started H200 showed 8 % over 5 s, then nothing) is judged by the second
// window; a tenant's load shows in both; an idle first window costs no wait.
func TestBusyWindowIsConfirmed(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	sample := func(d time.Duration, pct float64) gpu.UtilSample { return gpu.UtilSample{At: at.Add(d), Pct: pct} }
	for _, tc := range []struct {
		name          string
		samples       []gpu.UtilSample
		wantWait      bool
		wantEarlier   int
		wantLatestPct float64
	}{
		{"burst, then idle", []gpu.UtilSample{sample(-4*time.Second, 0), sample(-3*time.Second, 100), sample(-2*time.Second, 0),
			sample(-time.Second, 0), sample(2*time.Second, 0), sample(4*time.Second, 0)}, true, 4, 0},
		{"a tenant's load", []gpu.UtilSample{sample(-4*time.Second, 60), sample(-2*time.Second, 70),
			sample(2*time.Second, 65), sample(4*time.Second, 80)}, true, 2, 72.5},
		{"idle", []gpu.UtilSample{sample(-4*time.Second, 0), sample(-2*time.Second, 3), sample(2*time.Second, 90)}, false, 0, 1.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := at
			rec := recordedH200(0)
			rec.UtilizationSamples = tc.samples
			srv := dgxh200.New()
			d := dgxh200.NewDevice(0)
			gputest.Program(&d.Device, rec)
			// NVML only has the samples taken so far.
			all := d.Device.GetSamplesFunc
			d.Device.GetSamplesFunc = func(st nvml.SamplingType, last uint64) (nvml.ValueType, []nvml.Sample, nvml.Return) {
				vt, ss, ret := all(st, last)
				var seen []nvml.Sample
				for _, x := range ss {
					if x.TimeStamp <= uint64(now.UnixMicro()) {
						seen = append(seen, x)
					}
				}
				if len(seen) == 0 {
					return vt, nil, nvml.ERROR_NOT_FOUND
				}
				return vt, seen, ret
			}
			srv.Devices = []nvml.Device{d}
			srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return nil, nvml.ERROR_NOT_SUPPORTED }
			waited := time.Duration(0)
			n := &nvmlread.NVML{Lib: srv, Now: func() time.Time { return now }, ConfirmBusy: true,
				Sleep: func(_ context.Context, d time.Duration) error { waited += d; now = now.Add(d); return nil }}
			s, err := n.Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			dev := s.Devices[0]
			if (waited > 0) != tc.wantWait || (tc.wantWait && waited != gpu.UtilWindow) {
				t.Errorf("waited %v, want a wait: %v", waited, tc.wantWait)
			}
			if len(dev.UtilizationEarlier) != tc.wantEarlier {
				t.Errorf("earlier window %+v, want %d samples", dev.UtilizationEarlier, tc.wantEarlier)
			}
			if got := gpu.MeanUtil(dev.UtilizationSamples); got != tc.wantLatestPct {
				t.Errorf("judged window %+v averages %v, want %v", dev.UtilizationSamples, got, tc.wantLatestPct)
			}
		})
	}
}
