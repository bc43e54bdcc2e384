package stress

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/gpusla/gpusla/probe/cuda"
	"github.com/gpusla/gpusla/probe/stress/result"
)

// The power test (`--tests power`) loads a GPU as fully as it can without
// touching a clock or power setting, after the idea of DCGM's targeted
// power test: the tensor cores and the memory system at once. The BF16
// burn alone is register-only and leaves HBM and L2 idle; on an H200 it
// draws ~620 W of 700 while cuBLAS-based burns, which stream operands
// through the memory hierarchy, reach ~695 W. The power_bf16 kernel runs
// the BF16 burn (same operands, same checked result) and copies a stream
// of 16-byte vectors through device memory beside it, XORed with a key
// that changes every launch; the copy is checked on the GPU after every
// launch. It can also reload the tensor operands from shared memory every
// iteration, as GEMM kernels do. How much of each adds the most power
// depends on the card (more copying slows the tensor work), so a short
// tuning pass (~1.7 s a mix) tries a few mixes and keeps the one NVML
// shows drawing the most; the main phase then runs that mix for the
// chosen duration, monitored like the burns.

// Tuning parameters.
var (
	// powerMixes are the mixes tried, heaviest first.
	powerMixes = []result.PowerMix{{MemEvery: 1, SharedOps: true}, {MemEvery: 2, SharedOps: true}, {MemEvery: 4, SharedOps: true}, {MemEvery: 0, SharedOps: true}, {MemEvery: 1, SharedOps: false}, {MemEvery: 2, SharedOps: false}, {MemEvery: 4, SharedOps: false}, {MemEvery: 0, SharedOps: false}}
	// defaultMix is used when no NVML reading can guide the choice.
	defaultMix = result.PowerMix{MemEvery: 4, SharedOps: true}
	// QuickPowerMixes is a two-mix tuning (~3.4 s instead of ~13.4 s) for
	// the default `gpuprobe check`: on an H200 every mix that adds memory
	// traffic reached the power cap (685–693 W), and these two — with and
	// without the shared-memory operands — were the best of each kind.
	QuickPowerMixes = []result.PowerMix{{MemEvery: 4, SharedOps: false}, {MemEvery: 4, SharedOps: true}}
	// tuneWindow is how long each mix runs; tuneTail the part at its end
	// whose readings count (NVML's power reading averages about the last
	// second, so earlier ones still hold the previous mix).
	tuneWindow   = 1500 * time.Millisecond
	tuneTail     = 500 * time.Millisecond
	tuneInterval = 200 * time.Millisecond
	// powerBufBytes is the size of each copy buffer: far beyond L2, so the
	// copy reaches HBM.
	powerBufBytes uint64 = 1 << 30
)

const powerSeed = 0x9a55

// memMask turns MemEvery into the kernel's memMask: a copy in iteration i
// when i & memMask == 0. MemEvery 0 (no copying) leaves one copy in the
// first iteration only.
func memMask(every int) uint32 {
	if every <= 0 {
		return math.MaxUint32
	}
	return uint32(every - 1)
}

// copySteps is how many vectors each thread copies in a launch of iters
// iterations.
func copySteps(iters uint32, every int) uint64 {
	if iters == 0 {
		return 0
	}
	if every <= 0 {
		return 1
	}
	return (uint64(iters) + uint64(every) - 1) / uint64(every)
}

// copyCovered is how many vectors at the front of the n-vector buffer a
// launch rewrites: thread t's j-th copy goes to (j*stride + t) mod n, so a
// launch covers the first min(steps*stride, n) vectors — all of which the
// check then verifies.
func copyCovered(steps, stride, n uint64) uint64 {
	if steps > 0 && stride > 0 && steps > n/stride {
		return n
	}
	return min(steps*stride, n)
}

// launchKey is the XOR key of a launch: different for every launch, so a
// copy that did not happen leaves the previous launch's words, which fail.
func launchKey(launch int) uint32 {
	k := uint32(launch+2) * 0x9E3779B1
	if k == 0 {
		k = 1
	}
	return k
}

// hashPattern is mem_fill's mode 3 (the splitmix64 finaliser of i + seed ×
// the golden ratio), for fault injection to write a word known to be
// wrong.
func hashPattern(i uint64, seed uint32) uint32 {
	z := i + uint64(seed)*0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return uint32(z ^ (z >> 31))
}

// pickMix returns the mix of the trial drawing the most power; ok is
// false when no trial has a reading.
func pickMix(trials []result.PowerTrial) (result.PowerMix, bool) {
	var best result.PowerMix
	bestW := 0.0
	for _, t := range trials {
		if t.PowerW > bestW {
			best, bestW = t.PowerMix, t.PowerW
		}
	}
	return best, bestW > 0
}

// tuneRecorder samples one GPU every tuneInterval while the mixes are
// tried, keeping the readings with the time they were taken.
type tuneRecorder struct {
	mu     sync.Mutex
	at     []time.Time
	rs     []Reading
	errs   []string
	cancel context.CancelFunc
	done   chan struct{}
}

func startTuneRecorder(ctx context.Context, s Sampler, busID string, interval time.Duration) *tuneRecorder {
	ctx, cancel := context.WithCancel(ctx)
	r := &tuneRecorder{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				rd, err := s.Sample(busID)
				r.mu.Lock()
				if err != nil {
					if len(r.errs) < 5 {
						r.errs = append(r.errs, err.Error())
					}
				} else {
					r.at, r.rs = append(r.at, time.Now()), append(r.rs, rd)
				}
				r.mu.Unlock()
			}
		}
	}()
	return r
}

// meanPower is the mean power of the readings taken in [from, to]; 0 when
// none was.
func (r *tuneRecorder) meanPower(from, to time.Time) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var sum float64
	n := 0
	for i, at := range r.at {
		if !at.Before(from) && !at.After(to) {
			sum += r.rs[i].PowerW
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// stop ends the sampling and returns every reading taken.
func (r *tuneRecorder) stop() ([]Reading, []string) {
	r.cancel()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rs, r.errs
}

// foldTuning adds to the result what the tuning readings saw that matters
// for the verdicts: XIDs and the temperature peak go into the main phase's
// monitor (they count whenever they happen), clock-event reasons are
// counted apart (TuneEvents of TuneSamples), as the readings are 5 a
// second; the power statistics stay the main phase's own.
func foldTuning(res *result.Power, rs []Reading) {
	res.TuneSamples = len(rs)
	for _, r := range rs {
		if res.Monitor != nil {
			res.Monitor.XIDs = append(res.Monitor.XIDs, r.XIDs...)
			res.Monitor.TempPeakC = math.Max(res.Monitor.TempPeakC, r.TempC)
		}
		for _, rn := range reasonNames {
			if r.ClockEvents&rn.bit != 0 {
				if res.TuneEvents == nil {
					res.TuneEvents = map[string]int{}
				}
				res.TuneEvents[rn.name]++
			}
		}
	}
}

// powerRig is the power test's state on one GPU, on the launch harness
// the burns use.
type powerRig struct {
	h       *harness
	fn      *cuda.Function
	check   *cuda.Function
	k       burnKernel
	grid    int
	threads uint64
	elems   uint64
	params  cuda.DevicePtr
	src     cuda.DevicePtr
	dst     cuda.DevicePtr
	vectors uint64 // 16-byte vectors in each copy buffer
	bad     cuda.DevicePtr
	badHost *cuda.HostBuffer
	res     *result.Power
	mix     result.PowerMix // the mix the launches being enqueued run
	copyGBs []float64
}

// runPower runs the power test on one GPU whose context is current: tune
// (when a sampler can read power), then the main phase of d with NVML
// monitored every second.
func runPower(ctx context.Context, g *device, s Sampler, st result.Static, d time.Duration, mixes []result.PowerMix, inject bool) (res result.Power) {
	if len(mixes) == 0 {
		mixes = powerMixes
	}
	res = result.Power{GPU: g.Index, Engine: "BF16 mma.sync m16n8k16 + device-memory copy", Kernel: "power_bf16", CopyBytes: powerBufBytes}
	if g.arch < 80 {
		res.Skipped = "the power test needs the tensor-core kernels (compute capability 8.0 or newer)"
		return res
	}
	rig := &powerRig{res: &res}
	defer rig.close()
	if err := rig.setup(g); err != nil {
		if cuda.IsNotFound(err) {
			res.Skipped = "kernel power_bf16 not in this PTX variant"
		} else {
			res.Error = err.Error()
		}
		return res
	}

	res.Mix, res.Tuned = defaultMix, "default (no NVML reading to tune by)"
	if s != nil {
		rec := startTuneRecorder(ctx, s, g.BusID, tuneInterval)
		for _, mix := range mixes {
			if ctx.Err() != nil {
				break
			}
			t0 := time.Now()
			ph, err := rig.run(ctx, mix, tuneWindow, false)
			if err != nil {
				rec.stop()
				res.Error = err.Error()
				return res
			}
			t1 := time.Now()
			res.Tuning = append(res.Tuning, result.PowerTrial{PowerMix: mix, PowerW: rec.meanPower(t1.Add(-tuneTail), t1),
				TFLOPS: result.Median(ph.tflops), CopyGBs: result.Median(ph.copyGBs), Seconds: t1.Sub(t0).Seconds()})
		}
		tuneReadings, _ := rec.stop()
		if mix, ok := pickMix(res.Tuning); ok {
			res.Mix, res.Tuned = mix, fmt.Sprintf("highest NVML power of the %d mixes tried", len(res.Tuning))
		}
		defer func() { foldTuning(&res, tuneReadings) }()
	}
	if ctx.Err() != nil {
		res.Error = "interrupted: " + context.Cause(ctx).Error()
		return res
	}

	var mon *result.Monitor
	var wg sync.WaitGroup
	mctx, stopMon := context.WithCancel(ctx)
	if s != nil {
		wg.Add(1)
		go func() { defer wg.Done(); mon = monitor(mctx, s, g.BusID, st, time.Second) }()
	}
	begin := time.Now()
	ph, err := rig.run(ctx, res.Mix, d, inject)
	stopMon()
	wg.Wait()
	res.Monitor = mon
	res.Seconds = time.Since(begin).Seconds()
	if err != nil {
		res.Error = err.Error()
	}
	res.Samples = ph.tflops
	res.Median, _, _ = sampleStats(ph.tflops)
	res.CopyGBs = result.Median(ph.copyGBs)
	if err := rig.readCopyCheck(); err != nil && res.Error == "" {
		res.Error = err.Error()
	}
	if ctx.Err() != nil && res.Error == "" {
		res.Error = "interrupted: " + context.Cause(ctx).Error()
	}
	return res
}

// setup loads the kernels and allocates everything the test uses on the
// harness, which close releases.
func (r *powerRig) setup(g *device) error {
	var err error
	if r.fn, err = g.mod.Function("power_bf16"); err != nil {
		return err
	}
	if r.check, err = g.mod.Function("power_check"); err != nil {
		return err
	}
	fill, err := g.mod.Function("mem_fill")
	if err != nil {
		return err
	}
	if r.k, err = kernelFor(result.BF16, g.arch, false); err != nil { // power_bf16 does the mma.sync BF16 burn's work
		return err
	}
	perSM, err := r.fn.BlocksPerSM(256)
	if err != nil {
		return err
	}
	r.grid = g.info.SMs * max(perSM, 1)
	r.res.Grid = r.grid
	r.threads = uint64(r.grid) * 256
	r.elems = r.threads * uint64(r.k.perThread)
	r.vectors = powerBufBytes / 16
	if r.vectors <= r.threads {
		return fmt.Errorf("copy buffer of %d vectors not larger than the grid's %d threads", r.vectors, r.threads)
	}
	if r.h, err = newHarness(g.ctx, r.elems*4); err != nil {
		return err
	}
	h := r.h
	ptab, err := h.allocHost(uint64(4 * len(r.k.params)))
	if err != nil {
		return err
	}
	for i, v := range r.k.params {
		putU32(ptab.Bytes()[4*i:], math.Float32bits(float32(v)))
	}
	if r.params, err = h.alloc(ptab.Size()); err != nil {
		return err
	}
	if err := h.stream.CopyHtoD(r.params, ptab, ptab.Size()); err != nil {
		return err
	}
	for _, p := range []*cuda.DevicePtr{&r.src, &r.dst} {
		if *p, err = h.alloc(powerBufBytes); err != nil {
			return err
		}
	}
	if r.bad, err = h.alloc(65 * 8); err != nil {
		return err
	}
	if r.badHost, err = h.allocHost(65 * 8); err != nil {
		return err
	}
	if err := h.stream.SetD32(r.bad, 0, 65*2); err != nil {
		return err
	}
	if err := h.stream.Launch(fill, uint32(r.grid), 256, r.src, powerBufBytes/4, uint64(0), uint32(powerSeed), uint32(3)); err != nil {
		return err
	}
	return h.stream.Synchronize()
}

// close releases what setup allocated.
func (r *powerRig) close() {
	if r.h != nil {
		r.h.close()
	}
}

// ops are the power test's launches: the kernel of the current mix, the
// copy check of what it wrote, and the tensor output checked on the host.
// inject corrupts one tensor output element (in the kernel) and one copied
// word (written over it before the check).
func (r *powerRig) ops() launchOps {
	stream := r.h.stream
	var covered uint64
	return launchOps{
		kernel: func(sl *launchSlot, iters uint32) error {
			key := launchKey(sl.launch)
			at := int64(-1)
			if sl.inject {
				at = int64(r.elems/2 + 3)
			}
			steps := copySteps(iters, r.mix.MemEvery)
			flags := uint32(0)
			if r.mix.SharedOps {
				flags |= 1
			}
			covered = copyCovered(steps, r.threads, r.vectors)
			sl.copyBytes = 2 * 16 * steps * r.threads // read + write, wrapping included
			return stream.Launch(r.fn, uint32(r.grid), 256, sl.dev, r.params, uint32(seedRows-1), iters, at,
				r.src, r.dst, r.vectors, key, memMask(r.mix.MemEvery), flags)
		},
		after: func(sl *launchSlot) error {
			key := launchKey(sl.launch)
			words := covered * 4
			if sl.inject {
				w := words/2 + 1
				if err := stream.SetD32(r.dst+cuda.DevicePtr(4*w), hashPattern(w, powerSeed)^key^1, 1); err != nil {
					return err
				}
				r.res.Injected = true
			}
			if err := stream.Launch(r.check, uint32(r.grid), 256, r.dst, words, uint32(powerSeed), key, r.bad); err != nil {
				return err
			}
			r.res.CopyChecked += words
			return nil
		},
		done: func(sl *launchSlot, kt float64) {
			n, bad := compareOutputs(r.k, sl.host.Float32s()[:r.elems], nil, sl.launch)
			r.res.Mismatches += n
			r.res.Checked += r.elems
			for _, m := range bad {
				if len(r.res.FirstBad) < maxBadKept {
					r.res.FirstBad = append(r.res.FirstBad, m)
				}
			}
			r.res.Launches++
			if kt > 0 {
				r.copyGBs = append(r.copyGBs, float64(sl.copyBytes)/kt/1e9)
			}
		},
	}
}

// phase is what one run of launches measured.
type phase struct {
	tflops  []float64 // per second
	copyGBs []float64 // per launch
}

// run calibrates the iteration count of a mix to launchTarget, then runs
// launches for d, two in flight, checking every tensor output on the host
// while the next launch runs.
func (r *powerRig) run(ctx context.Context, mix result.PowerMix, d time.Duration, inject bool) (phase, error) {
	r.mix, r.copyGBs = mix, nil
	ops := r.ops()
	iters, err := r.h.calibrate(ctx, ops, true)
	if err != nil {
		return phase{}, err
	}
	r.copyGBs = nil // the calibration launches are checked, not measured
	flops := float64(r.threads) * (r.k.flopsPerIter*float64(iters) + r.k.flopsFixed)
	tflops, err := r.h.run(ctx, d, iters, flops, inject, ops)
	return phase{tflops: tflops, copyGBs: r.copyGBs}, err
}

// readCopyCheck reads the copy check's counter, which every launch's
// check added to.
func (r *powerRig) readCopyCheck() error {
	if err := r.h.stream.CopyDtoH(r.badHost, r.bad, 65*8); err != nil {
		return err
	}
	if err := r.h.stream.Synchronize(); err != nil {
		return err
	}
	u := r.badHost.Uint64s()
	r.res.CopyBad = u[0]
	r.res.CopyFirstBad = append([]uint64(nil), u[1:1+min(u[0], 64)]...)
	return nil
}
