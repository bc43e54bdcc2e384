package stress

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/stress/result"
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
	trials := []result.PowerTrial{
		{PowerMix: result.PowerMix{MemEvery: 1, SharedOps: true}, PowerW: 692.4},
		{PowerMix: result.PowerMix{MemEvery: 4, SharedOps: false}, PowerW: 693.0},
		{PowerMix: result.PowerMix{MemEvery: 0, SharedOps: false}, PowerW: 663.2},
	}
	if m, ok := pickMix(trials); !ok || m != (result.PowerMix{MemEvery: 4, SharedOps: false}) {
		t.Fatalf("got %v %v, want the 693 W mix", m, ok)
	}
	if _, ok := pickMix([]result.PowerTrial{{PowerMix: result.PowerMix{MemEvery: 1, SharedOps: true}}}); ok {
		t.Fatal("no reading: nothing to choose by")
	}
	if s := (result.PowerMix{MemEvery: 2, SharedOps: true}).String(); s != "copy every 2 iterations, operands from shared memory" {
		t.Errorf("mix string %q", s)
	}
	if s := (result.PowerMix{}).String(); s != "no copy" {
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
	res := result.Power{Monitor: &result.Monitor{Samples: 20, TempPeakC: 59, EventSamples: map[string]int{"sw_power_cap": 20}}}
	foldTuning(&res, []Reading{
		{TempC: 61, ClockEvents: result.ClockSWPowerCap},
		{TempC: 60, ClockEvents: result.ClockSWPowerCap | result.ClockHWThermal, XIDs: []uint64{48}},
	})
	if res.TuneSamples != 2 || res.TuneEvents["sw_power_cap"] != 2 || res.TuneEvents["hw_thermal_slowdown"] != 1 {
		t.Errorf("tuning events %v of %d", res.TuneEvents, res.TuneSamples)
	}
	if res.Monitor.TempPeakC != 61 || len(res.Monitor.XIDs) != 1 || res.Monitor.EventSamples["sw_power_cap"] != 20 {
		t.Errorf("monitor %+v", res.Monitor)
	}
}
