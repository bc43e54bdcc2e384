package stress

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
)

// The fault injection's "known wrong" word relies on hashPattern being
// mem_fill's mode 3, the splitmix64 finaliser: seed 1 at index 0 is the
// first splitmix64 output from state 0, 0xE220A8397B1DCDAF.
func TestHashPatternIsSplitmix64(t *testing.T) {
	if got := hashPattern(0, 1); got != 0x7B1DCDAF {
		t.Fatalf("hashPattern(0, 1) = %#x, want 0x7b1dcdaf", got)
	}
	// Index and seed both move the pattern.
	if hashPattern(1, 1) == hashPattern(0, 1) || hashPattern(0, 2) == hashPattern(0, 1) {
		t.Fatal("pattern ignores its index or seed")
	}
}

func TestCopyCoverage(t *testing.T) {
	for _, tc := range []struct {
		iters                  uint32
		every                  int
		wantMask               uint32
		steps, stride, n, want uint64
	}{
		{iters: 1000, every: 4, wantMask: 3, steps: 250, stride: 100, n: 1 << 20, want: 25000},
		{iters: 1001, every: 4, wantMask: 3, steps: 251, stride: 100, n: 1 << 20, want: 25100},
		{iters: 1000, every: 1, wantMask: 0, steps: 1000, stride: 5000, n: 1 << 20, want: 1 << 20}, // wraps: all
		{iters: 1000, every: 0, wantMask: math.MaxUint32, steps: 1, stride: 100, n: 1 << 20, want: 100},
		{iters: 0, every: 2, wantMask: 1, steps: 0, stride: 100, n: 1 << 20, want: 0},
		// A step count whose product with the stride would overflow.
		{iters: math.MaxUint32, every: 1, wantMask: 0, steps: math.MaxUint32, stride: 1 << 40, n: 1 << 26, want: 1 << 26},
	} {
		if m := memMask(tc.every); m != tc.wantMask {
			t.Errorf("memMask(%d) = %#x, want %#x", tc.every, m, tc.wantMask)
		}
		steps := copySteps(tc.iters, tc.every)
		if steps != tc.steps {
			t.Errorf("copySteps(%d, %d) = %d, want %d", tc.iters, tc.every, steps, tc.steps)
		}
		if got := copyCovered(steps, tc.stride, tc.n); got != tc.want {
			t.Errorf("copyCovered(%d, %d, %d) = %d, want %d", steps, tc.stride, tc.n, got, tc.want)
		}
	}
}

// Each launch must copy with a key of its own: a launch whose copy did
// not happen then leaves the previous key's words, which the check counts.
func TestLaunchKeysDiffer(t *testing.T) {
	seen := map[uint32]int{}
	for l := 0; l < 100000; l++ {
		k := launchKey(l)
		if k == 0 {
			t.Fatalf("launch %d: key 0 would copy the source unchanged", l)
		}
		if p, dup := seen[k]; dup {
			t.Fatalf("launches %d and %d share key %#x", p, l, k)
		}
		seen[k] = l
	}
}

func TestPickMix(t *testing.T) {
	trials := []PowerTrial{
		{PowerMix: PowerMix{1, true}, PowerW: 692.4},
		{PowerMix: PowerMix{4, false}, PowerW: 693.0},
		{PowerMix: PowerMix{0, false}, PowerW: 663.2},
	}
	if m, ok := pickMix(trials); !ok || m != (PowerMix{4, false}) {
		t.Fatalf("got %v %v, want the 693 W mix", m, ok)
	}
	if _, ok := pickMix([]PowerTrial{{PowerMix: PowerMix{1, true}}}); ok {
		t.Fatal("no reading: nothing to choose by")
	}
	if s := (PowerMix{2, true}).String(); s != "copy every 2 iterations, operands from shared memory" {
		t.Errorf("mix string %q", s)
	}
	if s := (PowerMix{}).String(); s != "no copy" {
		t.Errorf("mix string %q", s)
	}
}

// The tuning recorder keeps timed readings and their errors; a window's
// power is the mean of the readings taken inside it.
func TestTuneRecorder(t *testing.T) {
	f := &fakeSampler{
		readings: []Reading{{PowerW: 600}, {PowerW: 650}, {PowerW: 690, XIDs: []uint64{79}}},
		errs:     []error{nil, errors.New("NVML power: not supported")},
	}
	r := startTuneRecorder(context.Background(), f, "0000:00:06.0", time.Millisecond)
	waitfor.True(t, "six samples taken", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.n >= 6
	})
	now := time.Now()
	rs, errs := r.stop()
	if len(rs) < 5 || len(errs) != 1 || errs[0] != "NVML power: not supported" {
		t.Fatalf("readings %d, errors %v", len(rs), errs)
	}
	if rs[0].PowerW != 600 || rs[1].PowerW != 690 || len(rs[1].XIDs) != 1 {
		t.Errorf("readings in order, the failed one left out: %+v", rs[:2])
	}
	if w := r.meanPower(now.Add(-time.Hour), now); w <= 600 || w > 690 {
		t.Errorf("mean over all readings %g", w)
	}
	if w := r.meanPower(now.Add(time.Hour), now.Add(2*time.Hour)); w != 0 {
		t.Errorf("a window without readings must give 0, got %g", w)
	}
}

func TestFoldTuning(t *testing.T) {
	res := PowerResult{Monitor: &Monitor{Samples: 20, TempPeakC: 59, EventSamples: map[string]int{"sw_power_cap": 20}}}
	foldTuning(&res, []Reading{
		{TempC: 61, ClockEvents: ClockSWPowerCap},
		{TempC: 60, ClockEvents: ClockSWPowerCap | ClockHWThermal, XIDs: []uint64{48}},
	})
	if res.TuneSamples != 2 || res.TuneEvents["sw_power_cap"] != 2 || res.TuneEvents["hw_thermal_slowdown"] != 1 {
		t.Errorf("tuning events %v of %d", res.TuneEvents, res.TuneSamples)
	}
	if res.Monitor.TempPeakC != 61 || len(res.Monitor.XIDs) != 1 || res.Monitor.EventSamples["sw_power_cap"] != 20 {
		t.Errorf("monitor %+v", res.Monitor)
	}
}

var h200Power = powerSpec{Model: "NVIDIA H200", Min: 655, Official: 700, Source: "0.95 x 690 W", Known: true}

// healthyPower is the recorded H200 run (docs/BENCHMARKS.md, Power burn).
func healthyPower() PowerResult {
	return PowerResult{GPU: 0, Engine: "x", Kernel: "power_bf16", Mix: PowerMix{4, false}, Tuned: "highest NVML power of the 8 mixes tried",
		Launches: 352, Checked: 1141899264, CopyChecked: 79053053952, Median: 540.8, CopyGBs: 1056,
		TuneSamples: 66, TuneEvents: map[string]int{"sw_power_cap": 54},
		Monitor: &Monitor{Samples: 20, PowerMeanW: 690.2, PowerMinW: 688, PowerMaxW: 693, PowerFluctPct: 0.43, PowerLimitW: 700, SteadyFrom: 3, SteadySamples: 17,
			TempPeakC: 59, SlowdownC: 89, SMClockMedian: 1868, SMClockMin: 1830, MaxSMClockMHz: 1980,
			ClockEvents: ClockSWPowerCap, EventSamples: map[string]int{"sw_power_cap": 20}}}
}

func TestJudgePowerHealthyH200(t *testing.T) {
	cs := judgePower(healthyPower(), h200Power)
	names := []string{}
	for _, c := range cs {
		names = append(names, c.Name)
		if c.Verdict != wire.Pass {
			t.Errorf("%s: %s %s %s", c.Name, c.Verdict, c.Value, c.Detail)
		}
	}
	if strings.Join(names, " ") != "gpu.power.errors gpu.power gpu.power.swing gpu.power.thermal gpu.power.xid" {
		t.Errorf("checks %v", names)
	}
	// The seed's power criterion as a number: readings 4–20 within
	// ±0.43 % of their mean.
	if sw := find(t, cs, "gpu.power.swing"); *sw.Number != 0.43 || sw.Unit != "%" || sw.Value != "±0.43 % of the 690 W mean over readings 4–20" {
		t.Errorf("gpu.power.swing %+v", sw)
	}
	p := find(t, cs, "gpu.power")
	if *p.Number != 690.2 || p.Category != wire.CategoryPerformance || !strings.Contains(p.Value, "98.6 % of the model's 700 W") ||
		!strings.Contains(p.Criterion, "≥ 655 W") {
		t.Errorf("gpu.power %q / %q", p.Value, p.Criterion)
	}
	// At the limit the power cap is expected: reported, not failed.
	if th := find(t, cs, "gpu.power.thermal"); !strings.Contains(th.Detail, "sw_power_cap in 20 of 20 samples") ||
		!strings.Contains(th.Detail, "sw_power_cap in 54 of 66 tuning readings") {
		t.Errorf("thermal detail %q", th.Detail)
	}
}

func TestJudgePowerFailures(t *testing.T) {
	mon := func(r *PowerResult, f func(m *Monitor)) {
		m := *r.Monitor
		f(&m)
		r.Monitor = &m
	}
	for _, tc := range []struct {
		name, check, verdict, category string
		mutate                         func(r *PowerResult)
		spec                           *powerSpec
		detail                         string
	}{
		{name: "card that cannot draw its power", check: "gpu.power", verdict: wire.Fail, category: wire.CategoryPerformance,
			mutate: func(r *PowerResult) { mon(r, func(m *Monitor) { m.PowerMeanW = 610 }) }},
		{name: "limit lowered by the operator", check: "gpu.power", verdict: wire.Fail, category: wire.CategoryPerformance,
			mutate: func(r *PowerResult) { mon(r, func(m *Monitor) { m.PowerMeanW, m.PowerLimitW = 495, 500 }) },
			detail: "enforced power limit 500 W is below the model's 700 W"},
		{name: "power swinging", check: "gpu.power", verdict: wire.Warn, category: wire.CategoryPerformance,
			mutate: func(r *PowerResult) { mon(r, func(m *Monitor) { m.PowerFluctPct = 7 }) }, detail: "power unsteady"},
		{name: "wrong tensor result", check: "gpu.power.errors", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *PowerResult) {
				r.Mismatches, r.FirstBad = 1, []Mismatch{{Launch: 4, Index: 7, Got: 1, Want: 2}}
			}, detail: "launch 4 element 7"},
		{name: "wrong copied word", check: "gpu.power.errors", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *PowerResult) { r.CopyBad, r.CopyFirstBad = 3, []uint64{1234} }, detail: "word offset 1234"},
		{name: "fault injection", check: "gpu.power.errors", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *PowerResult) { r.Mismatches, r.CopyBad, r.Injected = 1, 1, true }, detail: "--fault-inject"},
		{name: "driver error mid-test", check: "gpu.power.errors", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *PowerResult) { r.Error = "launch 9: CUDA_ERROR_ILLEGAL_ADDRESS (700)" }, detail: "ILLEGAL_ADDRESS"},
		{name: "could not run", check: "gpu.power", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *PowerResult) { *r = PowerResult{GPU: 0, Error: "cuMemAlloc: out of memory"} }, detail: "out of memory"},
		{name: "hardware slowdown", check: "gpu.power.thermal", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *PowerResult) {
				mon(r, func(m *Monitor) { m.EventSamples = map[string]int{"sw_power_cap": 20, "hw_slowdown": 3} })
			}, detail: "hw_slowdown in 3 of 20"},
		{name: "power brake at the cap", check: "gpu.power.thermal", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *PowerResult) {
				mon(r, func(m *Monitor) { m.EventSamples = map[string]int{"sw_power_cap": 20, "hw_power_brake": 1} })
			}, detail: "hw_power_brake in 1 of 20"},
		{name: "hardware thermal slowdown at the cap", check: "gpu.power.thermal", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *PowerResult) {
				mon(r, func(m *Monitor) { m.EventSamples = map[string]int{"sw_power_cap": 18, "hw_thermal_slowdown": 2} })
			}, detail: "hw_thermal_slowdown in 2 of 20"},
		{name: "software thermal slowdown at the cap", check: "gpu.power.thermal", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *PowerResult) {
				mon(r, func(m *Monitor) { m.EventSamples = map[string]int{"sw_thermal_slowdown": 5} })
			}, detail: "sw_thermal_slowdown in 5 of 20"},
		{name: "thermal slowdown while tuning", check: "gpu.power.thermal", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *PowerResult) { r.TuneEvents = map[string]int{"sw_power_cap": 50, "sw_thermal_slowdown": 4} },
			detail: "sw_thermal_slowdown in 4 of 66 tuning readings"},
		{name: "too hot", check: "gpu.power.thermal", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *PowerResult) { mon(r, func(m *Monitor) { m.TempPeakC = 89 }) }},
		{name: "xid", check: "gpu.power.xid", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *PowerResult) { mon(r, func(m *Monitor) { m.XIDs = []uint64{79} }) }},
		{name: "no NVML", check: "gpu.power", verdict: wire.Skipped, category: wire.CategoryPerformance,
			mutate: func(r *PowerResult) { r.Monitor = nil }, detail: "no NVML power readings"},
		{name: "unknown model", check: "gpu.power", verdict: wire.Skipped, category: wire.CategoryPerformance,
			mutate: func(r *PowerResult) {}, spec: &powerSpec{}, detail: "no calibrated power threshold"},
		{name: "old card", check: "gpu.power", verdict: wire.Skipped, category: wire.CategoryGPUDegraded,
			mutate: func(r *PowerResult) { *r = PowerResult{GPU: 0, Skipped: "needs 8.0"} }, detail: "needs 8.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := healthyPower()
			tc.mutate(&r)
			spec := h200Power
			if tc.spec != nil {
				spec = *tc.spec
			}
			c := find(t, judgePower(r, spec), tc.check)
			if c.Verdict != tc.verdict || c.Category != tc.category || !strings.Contains(c.Detail, tc.detail) {
				t.Fatalf("%s: %s/%s %q, want %s/%s with %q (%s)", tc.check, c.Verdict, c.Category, c.Detail, tc.verdict, tc.category, tc.detail, c.Value)
			}
		})
	}
}

// The threshold comes from the spec database, found by PCI ids, and the
// report's power results are judged with everything else.
func TestJudgeReportPowerUsesSpecDB(t *testing.T) {
	db := specdb.Default()
	if s := powerSpecFrom(db, h200ID, h200Subsys); !s.Known || s.Min != 655 || s.Official != 700 || !strings.Contains(s.Source, "690 W") {
		t.Fatalf("H200 power spec %+v", s)
	}
	if s := powerSpecFrom(db, 0x1b80, 0); s.Known {
		t.Errorf("a model without stress.power must give no threshold: %+v", s)
	}
	r := healthyH200()
	r.Power = []PowerResult{healthyPower()}
	p := healthyPower()
	p.Monitor = &Monitor{Samples: 20, PowerMeanW: 600, PowerLimitW: 700}
	p.GPU = 1
	r.Power = append(r.Power, p)
	cs := Judge(r)
	var got []string
	for _, c := range cs {
		if c.Name == "gpu.power" {
			got = append(got, c.Verdict)
		}
	}
	if strings.Join(got, ",") != "pass,fail" {
		t.Fatalf("gpu.power verdicts %v, want pass for 690 W and fail for 600 W", got)
	}
	if p := powerSpecOf(nil); p.Known {
		t.Error("no GPU report: no threshold")
	}
	// The checks are valid on the wire, units and categories included.
	b := wire.Batch{V: wire.Version, ID: "x", Node: "n", Seq: 1, CreatedAt: r.StartedAt.AddDate(1, 0, 0),
		Observations: []wire.Observation{{At: r.StartedAt.AddDate(1, 0, 0), Kind: wire.KindCheck, Checks: cs}}}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
}
