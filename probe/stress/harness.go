package stress

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gpusla/gpusla/probe/cuda"
)

// harness is the launch loop the burns and the power test share: one
// stream, two output slots so that the GPU runs one launch while the host
// checks the other, the calibration of a launch's iteration count, and
// per-second throughput samples. What a launch is and how its output is
// checked is the caller's (launchOps).
type harness struct {
	c       *cuda.Context
	stream  *cuda.Stream
	slots   [2]*launchSlot
	out     uint64 // bytes of each slot's output, copied to the host after every launch
	cleanup []func()
	next    int // number of the next launch; calibration launches count too
}

// launchSlot is one launch in flight: its output on the device and on
// the host, and the events timing it and saying it is done.
type launchSlot struct {
	dev               cuda.DevicePtr
	host              *cuda.HostBuffer
	start, end, ready *cuda.Event
	launch            int  // -1: idle
	inject            bool // this launch corrupts one output (fault injection)
	copyBytes         uint64
}

// launchOps is what a test does per launch.
type launchOps struct {
	// kernel enqueues the timed kernel of iters iterations on s.
	kernel func(s *launchSlot, iters uint32) error
	// after, when set, enqueues work after the timed kernel and before the
	// output copy (the power test's copy check).
	after func(s *launchSlot) error
	// done is told of each finished launch and its kernel time; it checks
	// the output in s.host.
	done func(s *launchSlot, kernelSeconds float64)
}

// newHarness creates the stream and two slots of outBytes each. On error
// everything created is released.
func newHarness(c *cuda.Context, outBytes uint64) (h *harness, err error) {
	h = &harness{c: c, out: outBytes}
	defer func() {
		if err != nil {
			h.close()
		}
	}()
	if h.stream, err = c.NewStream(); err != nil {
		return nil, err
	}
	stream := h.stream
	h.cleanup = append(h.cleanup, func() { _ = stream.Synchronize(); _ = stream.Destroy() })
	for i := range h.slots {
		s := &launchSlot{launch: -1}
		if s.dev, err = h.alloc(outBytes); err != nil {
			return nil, err
		}
		if s.host, err = h.allocHost(outBytes); err != nil {
			return nil, err
		}
		for _, e := range []**cuda.Event{&s.start, &s.end, &s.ready} {
			ev, err := c.NewEvent()
			if err != nil {
				return nil, err
			}
			*e = ev
			h.cleanup = append(h.cleanup, func() { _ = ev.Destroy() })
		}
		h.slots[i] = s
	}
	return h, nil
}

// alloc allocates device memory released by close.
func (h *harness) alloc(n uint64) (cuda.DevicePtr, error) {
	p, err := h.c.Alloc(n)
	if err != nil {
		return 0, err
	}
	h.cleanup = append(h.cleanup, func() { _ = h.c.Free(p) })
	return p, nil
}

// allocHost allocates pinned host memory released by close.
func (h *harness) allocHost(n uint64) (*cuda.HostBuffer, error) {
	b, err := h.c.AllocHost(n)
	if err != nil {
		return nil, err
	}
	h.cleanup = append(h.cleanup, func() { _ = b.Free() })
	return b, nil
}

// close releases everything, newest first.
func (h *harness) close() {
	for i := len(h.cleanup) - 1; i >= 0; i-- {
		h.cleanup[i]()
	}
	h.cleanup = nil
}

// enqueue queues one launch on s: the kernel between the timing events,
// the follow-up work, the output copy and the ready event.
func (h *harness) enqueue(s *launchSlot, ops launchOps, iters uint32, inject bool) error {
	s.launch, s.inject = h.next, inject
	h.next++
	if err := s.start.Record(h.stream); err != nil {
		return err
	}
	if err := ops.kernel(s, iters); err != nil {
		return err
	}
	if err := s.end.Record(h.stream); err != nil {
		return err
	}
	if ops.after != nil {
		if err := ops.after(s); err != nil {
			return err
		}
	}
	if err := h.stream.CopyDtoH(s.host, s.dev, h.out); err != nil {
		return err
	}
	return s.ready.Record(h.stream)
}

// wait waits for s's launch and returns its kernel time; s is idle after.
func (h *harness) wait(s *launchSlot) (float64, error) {
	if err := s.ready.Synchronize(); err != nil {
		return 0, fmt.Errorf("launch %d: %w", s.launch, err)
	}
	kt, err := s.end.Elapsed(s.start)
	if err != nil {
		return 0, fmt.Errorf("launch %d: %w", s.launch, err)
	}
	return kt, nil
}

// calibrate finds the iteration count that fills launchTarget; with
// check, the calibration launches' outputs are checked (done is called)
// like any other.
func (h *harness) calibrate(ctx context.Context, ops launchOps, check bool) (uint32, error) {
	return calibrateIters(ctx, func(iters uint32) (float64, error) {
		s := h.slots[0]
		if err := h.enqueue(s, ops, iters, false); err != nil {
			return 0, err
		}
		kt, err := h.wait(s)
		if err != nil {
			return 0, err
		}
		if check {
			ops.done(s, kt)
		}
		s.launch = -1
		return kt, nil
	})
}

// Calibration limits: a launch shorter than minCalibrationTime is too
// short to scale from (timer resolution, launch overhead), so the count
// grows 16-fold until one is long enough — at most up to maxIters, the
// most a launch may run (the kernels take a 32-bit count).
const (
	startIters         = 64
	maxIters           = 1 << 30
	minCalibrationTime = 0.005
)

// errTimerStuck says launches of the most iterations still took no time:
// the timing is broken, so no throughput can be computed from it.
var errTimerStuck = errors.New("calibration: a launch of the most iterations took no measurable time")

// calibrateIters returns the iteration count whose launch takes about
// launchTarget, given timeOne, which runs one launch of n iterations and
// returns its kernel time in seconds. The first launch (which loads the
// kernel) is not used. It stops at maxIters however short the launches
// stay, and at the context's end.
func calibrateIters(ctx context.Context, timeOne func(iters uint32) (float64, error)) (uint32, error) {
	iters := uint64(startIters)
	if _, err := timeOne(uint32(iters)); err != nil {
		return 0, err
	}
	for {
		if ctx.Err() != nil {
			return 0, fmt.Errorf("interrupted while calibrating: %w", context.Cause(ctx))
		}
		t, err := timeOne(uint32(iters))
		if err != nil {
			return 0, err
		}
		if t >= minCalibrationTime || iters >= maxIters {
			if t <= 0 || math.IsNaN(t) {
				return 0, errTimerStuck
			}
			scaled := float64(iters) * launchTarget.Seconds() / t
			return uint32(math.Max(1, math.Min(scaled, maxIters))), nil
		}
		iters = min(iters*16, maxIters)
	}
}

// run runs launches of iters iterations for d, two in flight, and returns
// the throughput of each second (the FLOPs of the launches finished in it
// over their kernel time). inject marks the first launch for fault
// injection. It stops early when the context ends; the launches in flight
// are still waited for and checked.
func (h *harness) run(ctx context.Context, d time.Duration, iters uint32, flopsPerLaunch float64, inject bool, ops launchOps) ([]float64, error) {
	var samples []float64
	begin := time.Now()
	deadline := begin.Add(d)
	for i, s := range h.slots {
		if err := h.enqueue(s, ops, iters, inject && i == 0); err != nil {
			return samples, err
		}
	}
	var bucketFlops, bucketTime float64
	nextSample := begin.Add(time.Second)
	pending := len(h.slots)
	for cur := 0; pending > 0; cur = (cur + 1) % len(h.slots) {
		s := h.slots[cur]
		if s.launch < 0 {
			continue
		}
		kt, err := h.wait(s)
		if err != nil {
			return samples, err
		}
		pending--
		ops.done(s, kt)
		s.launch = -1
		bucketFlops += flopsPerLaunch
		bucketTime += kt
		now := time.Now()
		if now.After(nextSample) && bucketTime > 0 {
			samples = append(samples, bucketFlops/bucketTime/1e12)
			bucketFlops, bucketTime = 0, 0
			for !nextSample.After(now) {
				nextSample = nextSample.Add(time.Second)
			}
		}
		if now.Before(deadline) && ctx.Err() == nil {
			if err := h.enqueue(s, ops, iters, false); err != nil {
				return samples, err
			}
			pending++
		}
	}
	if bucketTime > 0.5 || len(samples) == 0 && bucketTime > 0 {
		samples = append(samples, bucketFlops/bucketTime/1e12)
	}
	return samples, nil
}
