package health

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/kmsg"
	"github.com/gpusla/gpusla/probe/wire"
)

// healthy is the GPU part of the real 2×H200 recording.
func healthy(t *testing.T) *gpu.Snapshot {
	t.Helper()
	b, err := os.ReadFile("testdata/h200x2.json")
	if err != nil {
		t.Fatal(err)
	}
	var s gpu.Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func p[T any](v T) *T { return &v }

func TestHealthyH200HasNoWarnings(t *testing.T) {
	cs := Judge(Input{GPU: healthy(t), Kernel: &kmsg.Log{Source: "/dev/kmsg"}})
	for _, c := range cs {
		if c.Verdict == wire.Warn || c.Verdict == wire.Fail {
			t.Errorf("%s gpu %v: %s %s", c.Name, *c.GPU, c.Verdict, c.Detail)
		}
	}
	if len(cs) != 2*15 {
		t.Errorf("%d checks, want 15 per GPU", len(cs))
	}
}

func TestComponents(t *testing.T) {
	for _, tc := range []struct {
		name     string
		edit     func(s *gpu.Snapshot, d *gpu.Device)
		kernel   []string
		check    string
		verdict  string
		category string
		reason   string
	}{
		{"hot", func(_ *gpu.Snapshot, d *gpu.Device) { d.TemperatureC = p(uint32(82)) }, nil, "gpu.temperature", wire.Warn, wire.CategoryGPUDegraded, "only 7 °C below"},
		{"throttling hot", func(_ *gpu.Snapshot, d *gpu.Device) { d.TemperatureC = p(uint32(89)) }, nil, "gpu.temperature", wire.Fail, wire.CategoryGPUDegraded, "at or above the slowdown threshold"},
		{"hw slowdown", func(_ *gpu.Snapshot, d *gpu.Device) { d.ClockEventReasons = p(uint64(0x8 | 0x1)) }, nil, "gpu.clock_events", wire.Fail, wire.CategoryGPUDegraded, "hardware slowdown"},
		{"power brake", func(_ *gpu.Snapshot, d *gpu.Device) { d.ClockEventReasons = p(uint64(0x80)) }, nil, "gpu.clock_events", wire.Fail, wire.CategoryGPUDegraded, "hardware power brake"},
		{"sw power cap", func(_ *gpu.Snapshot, d *gpu.Device) { d.ClockEventReasons = p(uint64(0x4)) }, nil, "gpu.clock_events", wire.Warn, wire.CategoryGPUDegraded, "software power cap"},
		{"locked clocks", func(_ *gpu.Snapshot, d *gpu.Device) { d.ClockEventReasons = p(uint64(0x2)) }, nil, "gpu.clock_events", wire.Warn, wire.CategoryGPUDegraded, "application clocks"},
		{"sync boost is fine", func(_ *gpu.Snapshot, d *gpu.Device) { d.ClockEventReasons = p(uint64(0x10)) }, nil, "gpu.clock_events", wire.Pass, wire.CategoryGPUDegraded, ""},
		{"power over limit", func(_ *gpu.Snapshot, d *gpu.Device) { d.PowerUsageW = p(800.0) }, nil, "gpu.power.draw", wire.Warn, wire.CategoryGPUDegraded, "more than 110 %"},
		{"ecc off", func(_ *gpu.Snapshot, d *gpu.Device) { d.ECCEnabled = p(false) }, nil, "gpu.ecc.mode", wire.Warn, wire.CategoryGPUDegraded, "ECC is off"},
		{"ecc off after reset", func(_ *gpu.Snapshot, d *gpu.Device) { d.ECCPendingEnabled = p(false) }, nil, "gpu.ecc.mode", wire.Warn, wire.CategoryGPUDegraded, "after the next reset"},
		{"ecc dbe", func(_ *gpu.Snapshot, d *gpu.Device) { d.ECCVolatileUncorr = p(uint64(2)) }, nil, "gpu.ecc.volatile", wire.Fail, wire.CategoryGPUDegraded, "2 uncorrectable ECC errors"},
		{"ecc history", func(_ *gpu.Snapshot, d *gpu.Device) { d.ECCAggregateUncorr = p(uint64(1)) }, nil, "gpu.ecc.aggregate", wire.Warn, wire.CategoryGPUDegraded, "previously faulty"},
		{"remap failure", func(_ *gpu.Snapshot, d *gpu.Device) { d.RemappedRows = &gpu.Remap{Failure: true} }, nil, "gpu.remapped_rows", wire.Fail, wire.CategoryGPUDegraded, "run out of spare rows"},
		{"many remaps", func(_ *gpu.Snapshot, d *gpu.Device) { d.RemappedRows = &gpu.Remap{Uncorrectable: 600} }, nil, "gpu.remapped_rows", wire.Fail, wire.CategoryGPUDegraded, "600 rows"},
		{"retired pending", func(_ *gpu.Snapshot, d *gpu.Device) { d.RetiredPagesPending, d.RetiredPagesSBE = p(true), p(1) }, nil, "gpu.retired_pages", wire.Fail, wire.CategoryGPUDegraded, "pending"},
		{"some retired", func(_ *gpu.Snapshot, d *gpu.Device) { d.RetiredPagesSBE, d.RetiredPagesDBE = p(8), p(2) }, nil, "gpu.retired_pages", wire.Warn, wire.CategoryGPUDegraded, "10 pages retired"},
		{"retired full", func(_ *gpu.Snapshot, d *gpu.Device) { d.RetiredPagesSBE, d.RetiredPagesDBE = p(50), p(10) }, nil, "gpu.retired_pages", wire.Fail, wire.CategoryGPUDegraded, "due for replacement"},
		{"replays", func(_ *gpu.Snapshot, d *gpu.Device) { d.PCIeReplayCounter = p(uint64(81)) }, nil, "gpu.pcie.replays", wire.Fail, wire.CategoryGPUDegraded, "81 PCIe replays"},
		{"nvlink down", func(_ *gpu.Snapshot, d *gpu.Device) { d.NVLinks[3] = false }, nil, "gpu.nvlink", wire.Fail, wire.CategoryGPUDegraded, "link 3"},
		{"tenant process", func(_ *gpu.Snapshot, d *gpu.Device) {
			d.Processes = []gpu.Proc{{PID: 99, UsedMemoryMiB: 30000, Kind: "compute"}}
		}, nil, "gpu.processes", wire.Warn, wire.CategoryGPUDegraded, "pid 99 (compute, 30000 MiB)"},
		{"busy", func(_ *gpu.Snapshot, d *gpu.Device) { d.UtilizationGPU = p(uint32(97)) }, nil, "gpu.utilization", wire.Warn, wire.CategoryGPUDegraded, "noisy neighbour"},
		{"invisible tenant", func(_ *gpu.Snapshot, d *gpu.Device) { d.MemoryUsedMiB = p(uint64(40000)) }, nil, "gpu.memory_in_use", wire.Warn, wire.CategoryGPUDegraded, "cannot see"},
		{"nvml xid 48", func(s *gpu.Snapshot, _ *gpu.Device) {
			s.XIDs = []gpu.XIDEvent{{GPU: 0, XID: 48, At: time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)}}
		}, nil, "gpu.xid.events", wire.Fail, wire.CategoryGPUDegraded, "48 double-bit ECC error ×1"},
		{"nvml xid 13 is the app's", func(s *gpu.Snapshot, _ *gpu.Device) { s.XIDs = []gpu.XIDEvent{{GPU: 0, XID: 13}} }, nil, "gpu.xid.events", wire.Warn, wire.CategoryGPUDegraded, "graphics engine exception"},
		{"nvml xid 79", func(s *gpu.Snapshot, _ *gpu.Device) { s.XIDs = []gpu.XIDEvent{{GPU: 0, XID: 13}, {GPU: 0, XID: 79}} }, nil, "gpu.xid.events", wire.Fail, wire.CategoryGPULost, "79 GPU has fallen off the bus ×1"},
		{"unknown xid is hardware", func(s *gpu.Snapshot, _ *gpu.Device) { s.XIDs = []gpu.XIDEvent{{GPU: 0, XID: 999}} }, nil, "gpu.xid.events", wire.Fail, wire.CategoryGPUDegraded, "999 unknown XID"},
		{"xid watch failed", func(s *gpu.Snapshot, _ *gpu.Device) {
			s.XIDWatch = "XID events not watched: gpu 0: ERROR_NO_PERMISSION"
		}, nil, "gpu.xid.events", wire.Skipped, wire.CategoryGPUDegraded, "ERROR_NO_PERMISSION"},
		{"kernel xid 94", nil, []string{"[ 9.5] NVRM: Xid (PCI:0000:00:06): 94, pid=1, name=x, Contained: CE User Channel (0x9)."}, "gpu.xid.kernel_log", wire.Fail, wire.CategoryGPUDegraded, "94 contained ECC error ×1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := healthy(t)
			if tc.edit != nil {
				tc.edit(s, &s.Devices[0])
			}
			cs := Judge(Input{GPU: s, Kernel: &kmsg.Log{Source: "/dev/kmsg", Lines: tc.kernel}})
			var got *wire.Check
			for i, c := range cs {
				if c.Name == tc.check && (c.GPU == nil || *c.GPU == 0) { // machine-wide checks have no GPU
					got = &cs[i]
				}
			}
			if got == nil {
				t.Fatalf("no %s for GPU 0", tc.check)
			}
			if got.Verdict != tc.verdict || got.Category != tc.category || !strings.Contains(got.Value+" "+got.Detail, tc.reason) {
				t.Fatalf("got %s [%s] %q / %q; want %s [%s] with %q", got.Verdict, got.Category, got.Value, got.Detail, tc.verdict, tc.category, tc.reason)
			}
			// The other GPU is untouched and stays healthy.
			for _, c := range cs {
				if c.GPU != nil && *c.GPU == 1 && c.Name == tc.check && c.Verdict != wire.Pass && c.Verdict != wire.Skipped {
					t.Errorf("GPU 1 %s: %s", c.Name, c.Verdict)
				}
			}
		})
	}
}

// A GPU that fell off the bus may no longer be listed by NVML (or NVML
// may not load at all): its XID 79 in the kernel log must still fail.
func TestKernelXIDForUnlistedGPU(t *testing.T) {
	log := &kmsg.Log{Source: "dmesg", Lines: []string{"[8123.4] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus."}}
	for name, s := range map[string]*gpu.Snapshot{"listed others": healthy(t), "no NVML": nil} {
		cs := KernelXIDs{}.Check(Input{GPU: s, Kernel: log})
		var found bool
		for _, c := range cs {
			if c.GPU == nil {
				found = true
				if c.Verdict != wire.Fail || c.Category != wire.CategoryGPULost || !strings.Contains(c.Detail, "PCI 3b:00, which NVML does not list") {
					t.Errorf("%s: %+v", name, c)
				}
			}
		}
		if !found {
			t.Errorf("%s: no check for the unlisted GPU in %+v", name, cs)
		}
	}
}

func TestKernelLogUnreadableIsSkipped(t *testing.T) {
	cs := KernelXIDs{}.Check(Input{Kernel: &kmsg.Log{Error: "kernel log unreadable: /dev/kmsg: permission denied; dmesg: exit status 1"}})
	if len(cs) != 1 || cs[0].Verdict != wire.Skipped || !strings.Contains(cs[0].Detail, "permission denied") {
		t.Fatalf("got %+v", cs)
	}
}

func TestUnsupportedReadingsAreSkipped(t *testing.T) {
	s := healthy(t)
	d := &s.Devices[0]
	d.TemperatureC, d.ClockEventReasons, d.PCIeReplayCounter, d.PowerUsageW, d.ECCEnabled, d.RemappedRows, d.NVLinks = nil, nil, nil, nil, nil, nil, nil
	d.ProcessesReadable = false
	for _, c := range Judge(Input{GPU: s}) {
		if c.GPU != nil && *c.GPU == 0 && c.Verdict != wire.Skipped && c.Verdict != wire.Pass {
			t.Errorf("%s: %s %s", c.Name, c.Verdict, c.Detail)
		}
	}
}

func tenantChecks(s *gpu.Snapshot) map[string]wire.Check {
	out := map[string]wire.Check{}
	for _, c := range (Tenants{}).Check(Input{GPU: s}) {
		if *c.GPU == 0 {
			out[c.Name] = c
		}
	}
	return out
}

// The probe's own processes and load are never a tenant's.
func TestTenantsLeaveOutTheProbesOwnWork(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 10, 0, time.UTC)
	ended := at.Add(-5 * time.Second)
	base := func() *gpu.Snapshot {
		s := healthy(t)
		s.TakenAt = at
		d := &s.Devices[0]
		d.MemoryUsedMiB = p(uint64(120000))
		d.Processes = []gpu.Proc{{PID: 4242, UsedMemoryMiB: 119000, Kind: "compute"}}
		d.UtilizationGPU = p(uint32(98)) // NVML's rate still shows the burn
		d.UtilizationSamples = []gpu.UtilSample{
			{At: ended.Add(time.Second), Pct: 99}, // the burn's tail
			{At: ended.Add(2500 * time.Millisecond), Pct: 1},
			{At: ended.Add(3 * time.Second), Pct: 0},
		}
		s.OwnWork = &gpu.OwnWork{EndedAt: ended, PIDs: []uint32{4242}}
		return s
	}

	cs := tenantChecks(base())
	if c := cs["gpu.processes"]; c.Verdict != wire.Pass || *c.Number != 0 || !strings.Contains(c.Value, "own 1 left out") {
		t.Errorf("own process counted: %+v", c)
	}
	if c := cs["gpu.utilization"]; c.Verdict != wire.Pass || *c.Number != 0.5 || !strings.Contains(c.Value, "mean of 2 NVML samples") {
		t.Errorf("utilisation judged over the burn's tail: %+v", c)
	}
	if c := cs["gpu.memory_in_use"]; c.Verdict != wire.Pass || *c.Number != 1000 {
		t.Errorf("own memory counted: %+v", c)
	}

	// A tenant next to the probe is still a tenant, and its load counts.
	s := base()
	s.Devices[0].Processes = append(s.Devices[0].Processes, gpu.Proc{PID: 777, UsedMemoryMiB: 500, Kind: "compute"})
	s.Devices[0].UtilizationSamples[2].Pct = 60
	cs = tenantChecks(s)
	if c := cs["gpu.processes"]; c.Verdict != wire.Warn || !strings.Contains(c.Detail, "pid 777") || strings.Contains(c.Detail, "4242") {
		t.Errorf("tenant: %+v", c)
	}
	if c := cs["gpu.utilization"]; c.Verdict != wire.Warn {
		t.Errorf("busy GPU: %+v", c)
	}

	// No samples: NVML's rate is judged, unless it may still cover the
	// probe's own work.
	s = base()
	s.Devices[0].UtilizationSamples = nil
	s.OwnWork.EndedAt = at.Add(-time.Second)
	if c := tenantChecks(s)["gpu.utilization"]; c.Verdict != wire.Skipped || !strings.Contains(c.Detail, "ended 1s before the read") {
		t.Errorf("rate right after own work: %+v", c)
	}
	s.OwnWork.EndedAt = at.Add(-time.Minute)
	if c := tenantChecks(s)["gpu.utilization"]; c.Verdict != wire.Warn || !strings.Contains(c.Value, "utilisation rate") {
		t.Errorf("rate long after own work: %+v", c)
	}

	// While the probe's own stress job runs, idleness is not judged.
	s = base()
	s.OwnWork.Running = true
	for _, name := range []string{"gpu.processes", "gpu.utilization", "gpu.memory_in_use"} {
		if c := tenantChecks(s)[name]; c.Verdict != wire.Skipped || c.Detail != OwnStressRunning {
			t.Errorf("%s during own stress: %+v", name, c)
		}
	}
}

func TestPowerCapUnderOwnStressIsExpected(t *testing.T) {
	s := healthy(t)
	s.Devices[0].ClockEventReasons = p(uint64(reasonSWPowerCap))
	s.OwnWork = &gpu.OwnWork{Running: true}
	c := (ClockEvents{}).Check(Input{GPU: s})[0]
	if c.Verdict != wire.Pass || !strings.Contains(c.Detail, OwnStressRunning) {
		t.Errorf("%+v", c)
	}
	s.Devices[0].ClockEventReasons = p(uint64(reasonSWPowerCap | reasonHWThermal))
	if c := (ClockEvents{}).Check(Input{GPU: s})[0]; c.Verdict != wire.Fail || !strings.Contains(c.Detail, "hardware thermal") {
		t.Errorf("a thermal slowdown fails even under own load: %+v", c)
	}
	s.OwnWork = nil
	s.Devices[0].ClockEventReasons = p(uint64(reasonSWPowerCap))
	if c := (ClockEvents{}).Check(Input{GPU: s})[0]; c.Verdict != wire.Warn {
		t.Errorf("power cap with no own load: %+v", c)
	}
}

// TestBusyPctIsTheIdleLimit ties the reader's confirmation threshold to the
// limit judged here, so a window the judge would warn on is always read twice.
func TestBusyPctIsTheIdleLimit(t *testing.T) {
	if gpu.BusyPct != IdleUtilizationPct {
		t.Fatalf("gpu.BusyPct %v, IdleUtilizationPct %v: they must agree", gpu.BusyPct, IdleUtilizationPct)
	}
}

// TestConfirmedBurstPassesAndSaysSo: a busy first window that the second
// one did not confirm passes, and the value says what was seen.
func TestConfirmedBurstPassesAndSaysSo(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 10, 0, time.UTC)
	s := healthy(t)
	s.TakenAt = at
	d := &s.Devices[0]
	d.UtilizationEarlier = []gpu.UtilSample{{At: at.Add(-8 * time.Second), Pct: 0}, {At: at.Add(-7 * time.Second), Pct: 40}}
	d.UtilizationSamples = []gpu.UtilSample{{At: at.Add(-2 * time.Second), Pct: 0}, {At: at.Add(-time.Second), Pct: 1}}
	c := tenantChecks(s)["gpu.utilization"]
	if c.Verdict != wire.Pass || !strings.Contains(c.Value, "averaged 20 %, so it was read again") {
		t.Errorf("unconfirmed burst: %+v", c)
	}
	d.UtilizationSamples[1].Pct = 30
	if c := tenantChecks(s)["gpu.utilization"]; c.Verdict != wire.Warn {
		t.Errorf("confirmed load: %+v", c)
	}
}

// On a cluster the renter runs, a process of one of its pods (marked by
// probe/kube) is the renter's own work: not a tenant, its load and memory
// not judged; a process in no pod beside it is still a tenant.
func TestTenantsLeaveOutTheRentersPods(t *testing.T) {
	s := healthy(t)
	d := &s.Devices[0]
	d.MemoryUsedMiB = p(uint64(80000))
	d.UtilizationGPU = p(uint32(97))
	d.Processes = []gpu.Proc{{PID: 101, UsedMemoryMiB: 40000, Kind: "compute", Pod: "4a1f9c2e-7b3d-4e5f-9a8b-0c1d2e3f4a5b"},
		{PID: 102, UsedMemoryMiB: 39000, Kind: "compute", Pod: "4a1f9c2e-7b3d-4e5f-9a8b-0c1d2e3f4a5b"}}
	cs := tenantChecks(s)
	if c := cs["gpu.processes"]; c.Verdict != wire.Pass || *c.Number != 0 || !strings.Contains(c.Value, "2 of the renter's own Kubernetes pods left out") {
		t.Errorf("the renter's pods counted as tenants: %+v", c)
	}
	for _, n := range []string{"gpu.utilization", "gpu.memory_in_use"} {
		if c := cs[n]; c.Verdict != wire.Skipped || c.Detail != RenterPodsRunning {
			t.Errorf("%s judged under the renter's own load: %+v", n, c)
		}
	}
	d.Processes = append(d.Processes, gpu.Proc{PID: 777, UsedMemoryMiB: 500, Kind: "compute"})
	if c := tenantChecks(s)["gpu.processes"]; c.Verdict != wire.Warn || *c.Number != 1 || !strings.Contains(c.Detail, "pid 777") || strings.Contains(c.Detail, "pid 101") {
		t.Errorf("a process in no pod beside the renter's: %+v", c)
	}
}
