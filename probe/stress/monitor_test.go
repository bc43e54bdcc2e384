package stress

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeSampler plays back scripted readings, standing in for NVML.
type fakeSampler struct {
	mu       sync.Mutex
	readings []Reading
	errs     []error
	n        int
	static   Static
	busy     Busy
	links    []bool
}

func (f *fakeSampler) Static(string) (Static, error) { return f.static, nil }
func (f *fakeSampler) Busy(string) (Busy, error)     { return f.busy, nil }
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
		{PowerW: 650, TempC: 52, SMClockMHz: 1980, ClockEvents: ClockSWPowerCap},
		{PowerW: 660, TempC: 55, SMClockMHz: 1980, ClockEvents: ClockSWPowerCap | ClockHWSlowdown},
		{PowerW: 640, TempC: 54, SMClockMHz: 1965, XIDs: []uint64{79}},
	}
	var m Monitor
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
	var m Monitor
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
	done := make(chan *Monitor)
	go func() {
		done <- monitor(ctx, f, "0000:00:06.0", Static{PowerLimitW: 700, SlowdownC: 89}, time.Millisecond)
	}()
	for {
		f.mu.Lock()
		n := f.n
		f.mu.Unlock()
		if n >= 6 {
			break
		}
		time.Sleep(time.Millisecond)
	}
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
	g := startMonitors(context.Background(), nil, []string{"a"}, []Static{{}}, time.Second)
	if out := g.stop(); len(out) != 1 || out[0] != nil {
		t.Fatalf("no sampler should give no monitor, got %v", out)
	}
}
