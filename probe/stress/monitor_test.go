package stress

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/stress/judge"
	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// fakeSampler plays back scripted readings, standing in for NVML.
type fakeSampler struct {
	mu       sync.Mutex
	readings []Reading
	errs     []error
	n        int
	static   result.Static
	busy     Busy
	links    []bool
}

func (f *fakeSampler) Static(string) (result.Static, error) { return f.static, nil }
func (f *fakeSampler) Busy(string) (Busy, error)            { return f.busy, nil }
func (f *fakeSampler) NVLinks(string) ([]bool, error) {
	return f.links, nil
}
func (f *fakeSampler) Sample(string) (Reading, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := f.n
	f.n++
	if i < len(f.errs) && f.errs[i] != nil {
		return Reading{}, f.errs[i]
	}
	if i >= len(f.readings) {
		return f.readings[len(f.readings)-1], nil
	}
	return f.readings[i], nil
}

func TestSummariseBurnReadings(t *testing.T) {
	rs := []Reading{
		{PowerW: 300, TempC: 40, SMClockMHz: 1400, ClockEvents: 0}, // ramp-up, left out of power stats
		{PowerW: 650, TempC: 52, SMClockMHz: 1980, ClockEvents: result.ClockSWPowerCap},
		{PowerW: 660, TempC: 55, SMClockMHz: 1980, ClockEvents: result.ClockSWPowerCap | result.ClockHWSlowdown},
		{PowerW: 640, TempC: 54, SMClockMHz: 1965, XIDs: []uint64{79}},
	}
	var m result.Monitor
	summarise(&m, rs)
	if m.Samples != 4 || m.PowerMeanW != 650 || m.PowerMinW != 640 || m.PowerMaxW != 660 {
		t.Fatalf("power: %+v", m)
	}
	if m.PowerFluctPct < 1.53 || m.PowerFluctPct > 1.54 {
		t.Errorf("fluctuation %g %%, want 10/650", m.PowerFluctPct)
	}
	if m.TempPeakC != 55 || m.SMClockMin != 1965 || m.SMClockMedian != 1980 {
		t.Errorf("temp/clock: %+v", m)
	}
	if m.EventSamples["sw_power_cap"] != 2 || m.EventSamples["hw_slowdown"] != 1 || len(m.XIDs) != 1 || m.XIDs[0] != 79 {
		t.Errorf("events %v xids %v", m.EventSamples, m.XIDs)
	}
}

func TestSummariseLeavesOutTheRampOfLongBurns(t *testing.T) {
	rs := []Reading{{PowerW: 120}, {PowerW: 364}, {PowerW: 463}, {PowerW: 462}, {PowerW: 463}, {PowerW: 462}}
	var m result.Monitor
	summarise(&m, rs)
	if m.PowerMinW != 462 || m.PowerFluctPct > 0.2 || len(m.PowerSamples) != 6 {
		t.Fatalf("%+v", m)
	}
}

func TestMonitorSamplesUntilCancelledAndKeepsErrors(t *testing.T) {
	f := &fakeSampler{
		readings: []Reading{{PowerW: 500, TempC: 50, SMClockMHz: 1980}},
		errs:     []error{nil, errors.New("NVML power: GPU is lost")},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *result.Monitor)
	go func() {
		done <- monitor(ctx, f, "0000:00:06.0", result.Static{PowerLimitW: 700, SlowdownC: 89}, time.Millisecond)
	}()
	waitfor.True(t, "six samples taken", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.n >= 6
	})
	cancel()
	m := <-done
	if m.Samples < 4 || m.PowerMeanW != 500 || m.PowerLimitW != 700 || m.SlowdownC != 89 {
		t.Fatalf("monitor: %+v", m)
	}
	if len(m.Errors) != 1 || m.Errors[0] != "NVML power: GPU is lost" {
		t.Errorf("errors %v", m.Errors)
	}
}

func TestMonitorGroupWithoutSampler(t *testing.T) {
	g := startMonitors(context.Background(), nil, []string{"a"}, []result.Static{{}}, time.Second)
	if out := g.stop(); len(out) != 1 || out[0] != nil {
		t.Fatalf("no sampler should give no monitor, got %v", out)
	}
}

// powerVerdict summarises a series of power readings and judges it as a
// burn's monitor.
func powerVerdict(t *testing.T, watts ...float64) (result.Monitor, wire.Check) {
	t.Helper()
	rs := make([]Reading, len(watts))
	for i, w := range watts {
		rs[i] = Reading{PowerW: w, TempC: 50, SMClockMHz: 1980}
	}
	var m result.Monitor
	summarise(&m, rs)
	rep := &result.Report{GPUs: []*result.GPU{{Index: 0}}, Burns: []result.Burn{{GPU: 0, Precision: result.FP32, Launches: 1, Checked: 1, Monitor: &m}}}
	for _, c := range judge.Report(rep) {
		if c.Name == "gpu.burn.fp32.power" {
			return m, c
		}
	}
	t.Fatal("no power check")
	return m, wire.Check{}
}

// Ramps of real burns pass: the stability criterion covers only the
// steady part after them.
func TestPowerStabilityIgnoresTheRamp(t *testing.T) {
	for _, tc := range []struct {
		name  string
		watts []float64
		from  int
	}{
		// TF32 on an H200: idle tail, launch ramp, then 463 W ±0.2 %.
		{"idle to load", []float64{120, 364, 463, 462, 463, 462}, 2},
		// The previous phase's tail happens to sit near this burn's level,
		// then the launch dip: the ramp lasts until after the dip.
		{"matching tail then dip", []float64{470, 364, 463, 462, 463, 462, 463}, 2},
		// A hotter previous phase falling to this one's level.
		{"falling from the previous phase", []float64{618, 560, 512, 513, 512, 511, 512, 512}, 2},
		// A slow card: settles only in its fifth reading.
		{"slow ramp", []float64{100, 200, 300, 500, 640, 650, 652, 648, 651, 650}, 4},
		{"steady from the start", []float64{650, 652, 648, 651}, 0},
	} {
		m, c := powerVerdict(t, tc.watts...)
		if c.Verdict != wire.Pass || m.SteadyFrom != tc.from {
			t.Errorf("%s: %s from %d (want pass from %d): %s; %s", tc.name, c.Verdict, m.SteadyFrom, tc.from, c.Value, c.Detail)
		}
		if !strings.HasPrefix(c.Criterion, "every reading of the steady part (after the ramp) within ±5 %") {
			t.Errorf("%s: criterion %q", tc.name, c.Criterion)
		}
	}
}

// A steady part that really wanders warns, however long the ramp was.
func TestPowerStabilityWarnsOnAnUnstableSteadyPart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		watts []float64
	}{
		{"oscillating", []float64{650, 560, 650, 560, 650, 560, 650, 560, 650, 560}},
		{"a dip after the ramp", []float64{120, 640, 650, 650, 651, 649, 650, 520, 650, 650}},
		{"sagging late", []float64{650, 650, 650, 650, 650, 650, 640, 620, 600, 590, 580, 580}},
	} {
		_, c := powerVerdict(t, tc.watts...)
		if c.Verdict != wire.Warn || !strings.Contains(c.Detail, "power unsteady") {
			t.Errorf("%s: %s %s; %s", tc.name, c.Verdict, c.Value, c.Detail)
		}
	}
}

// A burn too short to have a steady part is not judged, and says why.
func TestPowerStabilitySkipsBurnsWithoutASteadyPart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		watts []float64
		want  string
	}{
		// `check --quick`: a 2-second burn is all ramp (warned ±8–11 % on
		// a healthy H200 before this rule).
		{"2-second burn", []float64{150, 590}, "2 power reading(s), fewer than the 3"},
		{"still ramping", []float64{100, 300, 500, 600, 650, 652}, "still ramping in reading 4 of 6"},
	} {
		_, c := powerVerdict(t, tc.watts...)
		if c.Verdict != wire.Skipped || !strings.Contains(c.Detail, tc.want) {
			t.Errorf("%s: %s %q", tc.name, c.Verdict, c.Detail)
		}
	}
}
