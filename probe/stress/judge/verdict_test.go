package judge

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

const h200ID, h200Subsys = 0x2335, 0x18bf

// h200Static is what NVML reads of an H200: the ids its spec is found by.
func h200Static() *result.Static {
	return &result.Static{Name: "NVIDIA H200", DeviceID: h200ID, SubsystemID: h200Subsys}
}

func healthyH200() *result.Report {
	mon := &result.Monitor{Samples: 20, PowerMeanW: 650, PowerMinW: 645, PowerMaxW: 655, PowerFluctPct: 0.8,
		PowerLimitW: 700, TempPeakC: 55, SlowdownC: 89, SMClockMedian: 1980, SMClockMin: 1980, MaxSMClockMHz: 1980,
		EventSamples: map[string]int{"sw_power_cap": 3}, ClockEvents: result.ClockSWPowerCap}
	burn := func(p result.Precision, tf float64) result.Burn {
		return result.Burn{GPU: 0, Precision: p, Engine: "x", Launches: 200, Checked: 1e9,
			Samples: []float64{tf, tf, tf}, Median: tf, Min: tf, CV: 0.001, Monitor: mon}
	}
	peer := 1
	return &result.Report{
		GPUs:  []*result.GPU{{Index: 0, SMs: 132, CC: "9.0", Static: h200Static()}, {Index: 1, SMs: 132, CC: "9.0", Static: h200Static()}},
		Burns: []result.Burn{burn(result.FP32, 65), burn(result.FP64, 61), burn(result.TF32, 489), burn(result.BF16, 900), burn(result.FP16, 842), burn(result.FP8, 1717)},
		Bandwidth: []result.Bandwidth{
			{GPU: 0, Test: "d2d_memcpy", BestGBs: 4294, MedianGB: 4274, Bytes: 4 << 30, Reps: 10},
			{GPU: 0, Test: "d2d_kernel", BestGBs: 3950, MedianGB: 3915, Bytes: 4 << 30, Reps: 10},
			{GPU: 0, Test: "h2d", BestGBs: 55.5, MedianGB: 55.3, Bytes: 1 << 30},
			{GPU: 0, Test: "d2h", BestGBs: 55.3, MedianGB: 55.3, Bytes: 1 << 30},
			{GPU: 0, Peer: &peer, Test: "p2p", BestGBs: 397, MedianGB: 396, Bytes: 1 << 30},
		},
		Memtests: []result.Memtest{{GPU: 0, Bytes: 125 << 30, Passes: 4, Patterns: []string{"address", "inverted address", "checkerboard 0x55/0xAA", "hash"}}},
	}
}

func find(t *testing.T, cs []wire.Check, name string) wire.Check {
	t.Helper()
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q among %d", name, len(cs))
	return wire.Check{}
}

func TestJudgeHealthyH200Passes(t *testing.T) {
	cs := Report(healthyH200())
	for _, c := range cs {
		if c.Verdict != wire.Pass {
			t.Errorf("%s: %s %s %s", c.Name, c.Verdict, c.Value, c.Detail)
		}
	}
	d2d := find(t, cs, "gpu.bw.d2d")
	// A genuine H200 copies at 89 % of its datasheet and must pass anyway;
	// the % of the official figure is always shown.
	if !strings.Contains(d2d.Value, "89.5 % of the official 4800") || *d2d.Number != 4294 {
		t.Errorf("d2d value %q", d2d.Value)
	}
	if c := find(t, cs, "gpu.burn.fp32"); !strings.Contains(c.Value, "% of the official 66.9") || !strings.Contains(c.Criterion, "≥ ") {
		t.Errorf("fp32: %q / %q", c.Value, c.Criterion)
	}
	if c := find(t, cs, "gpu.burn.fp32.thermal"); !strings.Contains(c.Detail, "sw_power_cap in 3 of 20") {
		t.Errorf("power cap must be reported, not failed: %q", c.Detail)
	}
}

func TestJudgeFailures(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mutate   func(r *result.Report)
		check    string
		verdict  string
		category string
	}{
		{"cut-down memory", func(r *result.Report) {
			r.Bandwidth[0].BestGBs, r.Bandwidth[1].BestGBs = 3300, 3100
		}, "gpu.bw.d2d", wire.Fail, wire.CategoryPerformance},
		{"throttled FP32", func(r *result.Report) { r.Burns[0].Median = 40 }, "gpu.burn.fp32", wire.Fail, wire.CategoryPerformance},
		{"unsteady BF16", func(r *result.Report) { r.Burns[3].CV = 0.08 }, "gpu.burn.bf16", wire.Warn, wire.CategoryPerformance},
		{"one wrong value", func(r *result.Report) {
			r.Burns[1].Mismatches = 1
			r.Burns[1].FirstBad = []result.Mismatch{{Launch: 3, Index: 99, Got: 1, Want: 2}}
		}, "gpu.burn.fp64.errors", wire.Fail, wire.CategoryGPUDegraded},
		{"driver error mid-burn", func(r *result.Report) { r.Burns[2].Error = "cuda cuEventSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (700)" }, "gpu.burn.tf32.errors", wire.Fail, wire.CategoryGPUDegraded},
		{"hardware slowdown", func(r *result.Report) {
			m := *r.Burns[0].Monitor
			m.EventSamples = map[string]int{"hw_slowdown": 2}
			r.Burns[0].Monitor = &m
		}, "gpu.burn.fp32.thermal", wire.Fail, wire.CategoryGPUDegraded},
		{"too hot", func(r *result.Report) {
			m := *r.Burns[0].Monitor
			m.TempPeakC = 90
			r.Burns[0].Monitor = &m
		}, "gpu.burn.fp32.thermal", wire.Fail, wire.CategoryGPUDegraded},
		{"power swinging", func(r *result.Report) {
			m := *r.Burns[0].Monitor
			m.PowerFluctPct = 9
			r.Burns[0].Monitor = &m
		}, "gpu.burn.fp32.power", wire.Warn, wire.CategoryPerformance},
		{"xid", func(r *result.Report) {
			m := *r.Burns[0].Monitor
			m.XIDs = []uint64{48}
			r.Burns[0].Monitor = &m
		}, "gpu.burn.fp32.xid", wire.Fail, wire.CategoryGPUDegraded},
		{"slow PCIe", func(r *result.Report) { r.Bandwidth[2].BestGBs = 26 }, "gpu.bw.h2d", wire.Fail, wire.CategoryPerformance},
		{"slow peer link", func(r *result.Report) { r.Bandwidth[4].BestGBs = 200 }, "gpu.bw.p2p.0-1", wire.Fail, wire.CategoryPerformance},
		{"corrupted copy", func(r *result.Report) { r.Bandwidth[0].BadWords = 5 }, "gpu.bw.d2d_memcpy.data", wire.Fail, wire.CategoryGPUDegraded},
		{"bad memory", func(r *result.Report) {
			r.Memtests[0].BadWords, r.Memtests[0].BadAddrs = 2, []string{"0x7f0000001000"}
		}, "gpu.memtest", wire.Fail, wire.CategoryGPUDegraded},
		{"unknown model", func(r *result.Report) { r.GPUs[0].Static.DeviceID = 0x1234 }, "gpu.burn.fp32", wire.Skipped, wire.CategoryPerformance},
		{"skipped burn", func(r *result.Report) { r.Burns[2] = result.Burn{GPU: 0, Precision: result.TF32, Skipped: "needs 8.0"} }, "gpu.burn.tf32", wire.Skipped, wire.CategoryGPUDegraded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := healthyH200()
			tc.mutate(r)
			c := find(t, Report(r), tc.check)
			if c.Verdict != tc.verdict || c.Category != tc.category {
				t.Fatalf("%s: %s/%s, want %s/%s (%s %s)", tc.check, c.Verdict, c.Category, tc.verdict, tc.category, c.Value, c.Detail)
			}
		})
	}
}

func TestJudgeDeviceBandwidthTakesTheBetterMethod(t *testing.T) {
	r := healthyH200()
	r.Bandwidth[0].BestGBs = 3000 // the driver copy slow, the kernel fine
	r.Bandwidth[1].BestGBs = 4200
	if c := find(t, Report(r), "gpu.bw.d2d"); c.Verdict != wire.Pass || *c.Number != 4200 {
		t.Fatalf("%s %v", c.Verdict, *c.Number)
	}
}

func TestJudgeNVLinks(t *testing.T) {
	if c, ok := NVLinks(0, []bool{true, true, false}, nil); !ok || c.Verdict != wire.Fail || c.Value != "2 of 3 links active" {
		t.Errorf("partial links: %v %+v", ok, c)
	}
	if _, ok := NVLinks(0, nil, nil); ok {
		t.Error("a GPU without NVLink needs no check")
	}
	if c, _ := NVLinks(0, []bool{true, true}, nil); c.Verdict != wire.Pass {
		t.Errorf("all links: %+v", c)
	}
}

func TestSpecsAreComplete(t *testing.T) {
	keys := []string{"fp32", "fp64", "tf32", "bf16", "fp16", "d2d", "h2d", "d2h", "p2p"}
	n := 0
	for _, m := range specdb.Default().Models {
		sub := uint16(0)
		if len(m.SubsystemIDs) > 0 {
			sub = m.SubsystemIDs[0]
		}
		s, ok := SpecFor(m.DeviceIDs[0], sub)
		if !ok {
			continue
		}
		n++
		id := m.DeviceIDs[0]
		for _, k := range keys {
			if _, has := s.Min[k]; !has && !m.Measured() {
				continue // derived from the datasheet only where it has the figure
			}
			if s.Official[k] <= 0 || s.Min[k] <= 0 || s.Source[k] == "" {
				t.Errorf("%#x %s: %s has official %g, min %g, source %q", id, s.Model, k, s.Official[k], s.Min[k], s.Source[k])
			}
			if s.Min[k] > s.Official[k] {
				t.Errorf("%#x %s: threshold %g above the official %g", id, k, s.Min[k], s.Official[k])
			}
		}
	}
	if n != len(specdb.Default().Models) {
		t.Errorf("stress thresholds for %d of %d models: every model needs some", n, len(specdb.Default().Models))
	}
	if _, ok := SpecFor(0x1b80, 0); ok { // a GTX 1080: no stress thresholds
		t.Error("a model without stress thresholds must give no spec")
	}
}

func TestChecksAreValidWire(t *testing.T) {
	r := healthyH200()
	r.Burns[0].Mismatches = 1
	b := wire.Batch{V: wire.Version, ID: "x", Node: "n", Seq: 1, CreatedAt: r.StartedAt.AddDate(1, 0, 0),
		Observations: []wire.Observation{{At: r.StartedAt.AddDate(1, 0, 0), Kind: wire.KindCheck, Checks: Report(r)}}}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
}

// The FP32 burn must fit the reported SMs at the clock seen: a card that
// reports 132 SMs but has 114 (an H100 PCIe's count) cannot reach it.
func TestBurnFitsSMsTimesClock(t *testing.T) {
	for _, tc := range []struct {
		tflops  float64
		verdict string
	}{
		{65, wire.Pass},             // healthy H200: 0.97 of 66.9
		{65 * 114 / 132, wire.Warn}, // 114 working SMs: 0.84
		{50, wire.Fail},             // 0.75
	} {
		r := healthyH200()
		r.Burns[0].Median = tc.tflops
		c := find(t, Report(r), "gpu.burn.fp32.fit")
		if c.Verdict != tc.verdict {
			t.Errorf("%.1f TFLOP/s: %s (%s), want %s", tc.tflops, c.Verdict, c.Value, tc.verdict)
		}
	}
	// Throttled clocks lower the limit with them: a burn at 1500 MHz is
	// judged against 1500 MHz, not the max.
	r := healthyH200()
	mon := *r.Burns[0].Monitor
	mon.SMClockMedian = 1500
	r.Burns[0].Monitor, r.Burns[0].Median = &mon, 65*1500.0/1980
	if c := find(t, Report(r), "gpu.burn.fp32.fit"); c.Verdict != wire.Pass {
		t.Errorf("throttled but whole: %+v", c)
	}
}

// A Hopper tensor burn that fell back to mma.sync (its wgmma kernel failed
// the sanity burn) is held to the mma.sync threshold, and says why; the
// same figure without the fallback fails the wgmma threshold.
func TestFallbackBurnIsJudgedByItsEngine(t *testing.T) {
	rep := healthyH200()
	rep.Burns[3].Median, rep.Burns[3].Engine = 652, "HMMA m16n8k16"
	rep.Burns[3].Fallback = "the wgmma kernel burn_wg_bf16 failed the sanity burn (1 wrong of 6488064 values), so it is not used; ran the mma.sync kernel burn_bf16"
	c := find(t, Report(rep), "gpu.burn.bf16")
	if c.Verdict != wire.Pass || !strings.Contains(c.Criterion, "≥ 587") || !strings.Contains(c.Detail, "failed the sanity burn") {
		t.Errorf("fallback BF16: %s %q %q", c.Verdict, c.Criterion, c.Detail)
	}
	rep.Burns[3].Fallback = ""
	if c := find(t, Report(rep), "gpu.burn.bf16"); c.Verdict != wire.Fail || !strings.Contains(c.Criterion, "≥ 766") {
		t.Errorf("wgmma BF16 at the mma.sync rate: %s %q", c.Verdict, c.Criterion)
	}
	// FP8 is judged against its own threshold, beside the datasheet FP8.
	rep = healthyH200()
	if c := find(t, Report(rep), "gpu.burn.fp8"); c.Verdict != wire.Pass || !strings.Contains(c.Value, "% of the official 1978.9") {
		t.Errorf("fp8: %s %q", c.Verdict, c.Value)
	}
	rep.Burns[5].Median = 1500 // between the 1460 fail and the 1545 warn level
	if c := find(t, Report(rep), "gpu.burn.fp8"); c.Verdict != wire.Warn {
		t.Errorf("fp8 at 1500: %s %q", c.Verdict, c.Detail)
	}
	rep.Burns[5].Median = 296 // an H20's FP8 rate on an H200's ids
	if c := find(t, Report(rep), "gpu.burn.fp8"); c.Verdict != wire.Fail {
		t.Errorf("fp8 at 296: %s", c.Verdict)
	}
}

// A report written as JSON (`gpuprobe stress --json`) and read back is
// judged exactly as the live one: the results hold everything the
// judging reads.
func TestRecordedReportIsJudgedAsTheLiveOne(t *testing.T) {
	live := healthyH200()
	live.GPUs[0].NVLinks = []bool{true, false}
	live.GPUs[1] = hopper(map[result.Precision]result.Sanity{result.FP8: {Error: "boom"}})
	live.GPUs[1].Index, live.GPUs[1].SMs, live.GPUs[1].Static = 1, 132, h200Static()
	live.GPUs[1].WgmmaErr = "load sm_90a PTX: CUDA_ERROR_UNSUPPORTED_PTX_VERSION"
	live.Soaks = []result.Burn{live.Burns[3]}
	live.Power = []result.Power{healthyPower()}
	live.AllReduce = arReport([]result.TopoPair{{A: 0, B: 1, Path: "NV18", Links: 18}}, 360, 0).AllReduce
	live.Burns[1].Interrupted = "stopped before it finished (context canceled)"
	b, err := json.Marshal(live)
	if err != nil {
		t.Fatal(err)
	}
	var recorded result.Report
	if err := json.Unmarshal(b, &recorded); err != nil {
		t.Fatal(err)
	}
	want, got := Report(live), Report(&recorded)
	if len(want) < 40 {
		t.Fatalf("only %d checks: the report judges too little to compare", len(want))
	}
	if !reflect.DeepEqual(want, got) {
		for i := range min(len(want), len(got)) {
			if !reflect.DeepEqual(want[i], got[i]) {
				t.Fatalf("check %d: live %+v, recorded %+v", i, want[i], got[i])
			}
		}
		t.Fatalf("live %d checks, recorded %d", len(want), len(got))
	}
	if c := find(t, got, "gpu.wgmma"); c.Verdict != wire.Warn || !strings.Contains(c.Detail, "UNSUPPORTED_PTX_VERSION") {
		t.Errorf("the recorded report lost the wgmma sanity burn: %+v", c)
	}
}
