package stress

import (
	"context"
	"errors"
	"testing"
)

// timer fakes a GPU whose launches take perIter seconds an iteration,
// counting the launches.
type timer struct {
	perIter float64
	calls   int
	last    uint32
}

func (f *timer) timeOne(iters uint32) (float64, error) {
	f.calls++
	f.last = iters
	return float64(iters) * f.perIter, nil
}

func TestCalibrateScalesToLaunchTarget(t *testing.T) {
	for _, perIter := range []float64{1e-3, 1e-6, 1e-9} {
		f := &timer{perIter: perIter}
		iters, err := calibrateIters(context.Background(), f.timeOne)
		if err != nil {
			t.Fatalf("perIter %g: %v", perIter, err)
		}
		got := float64(iters) * perIter
		if got < 0.9*launchTarget.Seconds() || got > 1.1*launchTarget.Seconds() {
			t.Errorf("perIter %g: %d iterations take %g s, want about %v", perIter, iters, got, launchTarget)
		}
	}
}

// A timer that never advances (or a GPU so fast that even maxIters takes
// no time) used to reset the loop forever and let the count wrap to 0.
func TestCalibrateStopsAtTheCap(t *testing.T) {
	f := &timer{perIter: 0}
	_, err := calibrateIters(context.Background(), f.timeOne)
	if !errors.Is(err, errTimerStuck) {
		t.Fatalf("err = %v, want errTimerStuck", err)
	}
	if f.calls > 10 || f.last != maxIters {
		t.Fatalf("%d launches, last of %d iterations; want at most 10, ending at %d", f.calls, f.last, maxIters)
	}

	// Positive but tiny: the count is capped, never 0 and never wrapped.
	f = &timer{perIter: 1e-15}
	iters, err := calibrateIters(context.Background(), f.timeOne)
	if err != nil || iters != maxIters {
		t.Fatalf("tiny launches: %d iterations, %v; want %d", iters, err, maxIters)
	}
}

func TestCalibrateHonoursTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := calibrateIters(ctx, func(uint32) (float64, error) {
		calls++
		cancel() // cancelled while the first launch runs
		return 0, nil
	})
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the context's cancellation", err)
	}
	if calls != 1 {
		t.Fatalf("%d launches after cancellation, want 1", calls)
	}
}

func TestCalibratePassesLaunchErrors(t *testing.T) {
	boom := errors.New("launch failed")
	n := 0
	_, err := calibrateIters(context.Background(), func(uint32) (float64, error) {
		n++
		if n == 2 {
			return 0, boom
		}
		return 0, nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
}
