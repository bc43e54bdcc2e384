package judge

import (
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

var h200Power = powerSpec{Model: "NVIDIA H200", Min: 655, Official: 700, Source: "0.95 x 690 W", Known: true}

// healthyPower is the recorded H200 run (docs/BENCHMARKS.md, Power burn).
func healthyPower() result.Power {
	return result.Power{GPU: 0, Engine: "x", Kernel: "power_bf16", Mix: result.PowerMix{MemEvery: 4, SharedOps: false}, Tuned: "highest NVML power of the 8 mixes tried",
		Launches: 352, Checked: 1141899264, CopyChecked: 79053053952, Median: 540.8, CopyGBs: 1056,
		TuneSamples: 66, TuneEvents: map[string]int{"sw_power_cap": 54},
		Monitor: &result.Monitor{Samples: 20, PowerMeanW: 690.2, PowerMinW: 688, PowerMaxW: 693, PowerFluctPct: 0.43, PowerLimitW: 700, SteadyFrom: 3, SteadySamples: 17,
			TempPeakC: 59, SlowdownC: 89, SMClockMedian: 1868, SMClockMin: 1830, MaxSMClockMHz: 1980,
			ClockEvents: result.ClockSWPowerCap, EventSamples: map[string]int{"sw_power_cap": 20}}}
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
	mon := func(r *result.Power, f func(m *result.Monitor)) {
		m := *r.Monitor
		f(&m)
		r.Monitor = &m
	}
	for _, tc := range []struct {
		name, check, verdict, category string
		mutate                         func(r *result.Power)
		spec                           *powerSpec
		detail                         string
	}{
		{name: "card that cannot draw its power", check: "gpu.power", verdict: wire.Fail, category: wire.CategoryPerformance,
			mutate: func(r *result.Power) { mon(r, func(m *result.Monitor) { m.PowerMeanW = 610 }) }},
		{name: "limit lowered by the operator", check: "gpu.power", verdict: wire.Fail, category: wire.CategoryPerformance,
			mutate: func(r *result.Power) { mon(r, func(m *result.Monitor) { m.PowerMeanW, m.PowerLimitW = 495, 500 }) },
			detail: "enforced power limit 500 W is below the model's 700 W"},
		{name: "power swinging", check: "gpu.power", verdict: wire.Warn, category: wire.CategoryPerformance,
			mutate: func(r *result.Power) { mon(r, func(m *result.Monitor) { m.PowerFluctPct = 7 }) }, detail: "power unsteady"},
		{name: "wrong tensor result", check: "gpu.power.errors", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *result.Power) {
				r.Mismatches, r.FirstBad = 1, []result.Mismatch{{Launch: 4, Index: 7, Got: 1, Want: 2}}
			}, detail: "launch 4 element 7"},
		{name: "wrong copied word", check: "gpu.power.errors", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *result.Power) { r.CopyBad, r.CopyFirstBad = 3, []uint64{1234} }, detail: "word offset 1234"},
		{name: "fault injection", check: "gpu.power.errors", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *result.Power) { r.Mismatches, r.CopyBad, r.Injected = 1, 1, true }, detail: "--fault-inject"},
		{name: "driver error mid-test", check: "gpu.power.errors", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *result.Power) { r.Error = "launch 9: CUDA_ERROR_ILLEGAL_ADDRESS (700)" }, detail: "ILLEGAL_ADDRESS"},
		{name: "could not run", check: "gpu.power", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *result.Power) { *r = result.Power{GPU: 0, Error: "cuMemAlloc: out of memory"} }, detail: "out of memory"},
		{name: "hardware slowdown", check: "gpu.power.thermal", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *result.Power) {
				mon(r, func(m *result.Monitor) { m.EventSamples = map[string]int{"sw_power_cap": 20, "hw_slowdown": 3} })
			}, detail: "hw_slowdown in 3 of 20"},
		{name: "power brake at the cap", check: "gpu.power.thermal", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *result.Power) {
				mon(r, func(m *result.Monitor) { m.EventSamples = map[string]int{"sw_power_cap": 20, "hw_power_brake": 1} })
			}, detail: "hw_power_brake in 1 of 20"},
		{name: "hardware thermal slowdown at the cap", check: "gpu.power.thermal", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *result.Power) {
				mon(r, func(m *result.Monitor) { m.EventSamples = map[string]int{"sw_power_cap": 18, "hw_thermal_slowdown": 2} })
			}, detail: "hw_thermal_slowdown in 2 of 20"},
		{name: "software thermal slowdown at the cap", check: "gpu.power.thermal", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *result.Power) {
				mon(r, func(m *result.Monitor) { m.EventSamples = map[string]int{"sw_thermal_slowdown": 5} })
			}, detail: "sw_thermal_slowdown in 5 of 20"},
		{name: "thermal slowdown while tuning", check: "gpu.power.thermal", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *result.Power) { r.TuneEvents = map[string]int{"sw_power_cap": 50, "sw_thermal_slowdown": 4} },
			detail: "sw_thermal_slowdown in 4 of 66 tuning readings"},
		{name: "too hot", check: "gpu.power.thermal", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *result.Power) { mon(r, func(m *result.Monitor) { m.TempPeakC = 89 }) }},
		{name: "xid", check: "gpu.power.xid", verdict: wire.Fail, category: wire.CategoryGPUDegraded,
			mutate: func(r *result.Power) { mon(r, func(m *result.Monitor) { m.XIDs = []uint64{79} }) }},
		{name: "no NVML", check: "gpu.power", verdict: wire.Skipped, category: wire.CategoryPerformance,
			mutate: func(r *result.Power) { r.Monitor = nil }, detail: "no NVML power readings"},
		{name: "unknown model", check: "gpu.power", verdict: wire.Skipped, category: wire.CategoryPerformance,
			mutate: func(r *result.Power) {}, spec: &powerSpec{}, detail: "no calibrated power threshold"},
		{name: "old card", check: "gpu.power", verdict: wire.Skipped, category: wire.CategoryGPUDegraded,
			mutate: func(r *result.Power) { *r = result.Power{GPU: 0, Skipped: "needs 8.0"} }, detail: "needs 8.0"},
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
	r.Power = []result.Power{healthyPower()}
	p := healthyPower()
	p.Monitor = &result.Monitor{Samples: 20, PowerMeanW: 600, PowerLimitW: 700}
	p.GPU = 1
	r.Power = append(r.Power, p)
	cs := Report(r)
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
