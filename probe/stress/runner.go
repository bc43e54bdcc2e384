// Package stress runs gpuprobe's load tests on NVIDIA GPUs through the CUDA
// driver (probe/cuda) and the embedded kernels (probe/kernels): compute
// burns whose every result is checked against a host-computed reference,
// device, host and peer bandwidth, a memory pattern test, the power test
// and NCCL's all-reduce, with NVML watched once a second during the burns.
//
// Steps 1 and 2 of the observation pipeline (read, judge, observe, spool,
// push) under load, in three packages as probe/gpu and probe/health keep
// reading and judging apart: this one runs the GPUs (CUDA, NVML, NCCL)
// and fills in a probe/stress/result.Report, plain data with no CUDA
// handle; probe/stress/judge turns that report and the spec database into
// checks, with no GPU, so that a report rebuilt from recorded figures is
// judged exactly like a live one. Run does both: it measures, then calls
// judge.Report.
//
// It never changes clocks, power limits or modes; it skips GPUs that other
// processes are using unless forced; cancelling the context stops every
// test at its next launch and frees what it allocated.
package stress

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gpusla/gpusla/internal/ctxsleep"
	"github.com/gpusla/gpusla/probe/cuda"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/kernels"
	"github.com/gpusla/gpusla/probe/stress/judge"
	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// Options choose the tests and their sizes.
type Options struct {
	// Burn is the duration of each precision's burn (0: no burns).
	Burn       time.Duration
	Precisions []result.Precision
	// Soak is one long burn after the others whose per-second throughput
	// curve is judged for stability (judge/soak.go); 0: none. SoakPrecision is
	// its precision ("": BF16 where the card has tensor cores, else FP32).
	Soak          time.Duration
	SoakPrecision result.Precision
	// Power is the main phase of the power test (tensor burn and memory
	// copy at once, power.go); 0: no power test. PowerMixes are the mixes
	// its tuning tries (nil: all eight, ~1.7 s each).
	Power      time.Duration
	PowerMixes []result.PowerMix
	Bandwidth  bool // device, host<->device and peer copies
	// AllReduce runs NCCL's sum all-reduce over every tested GPU from 8 B
	// to AllReduceMaxBytes (allreduce.go); skipped with the reason where
	// libnccl is absent.
	AllReduce         bool
	AllReduceMaxBytes uint64
	// AllReduceMultiGPU limits the all-reduce to runs of two GPUs or more
	// (check --full); `stress --tests allreduce` runs it on one GPU too.
	AllReduceMultiGPU bool
	Memtest           bool
	// MemtestFraction is the share of free memory the pattern test takes;
	// MemtestRounds how many times it runs the four patterns.
	MemtestFraction float64
	MemtestRounds   int
	CopyBytes       uint64 // device-to-device copy size
	HostBytes       uint64 // pinned host<->device copy size
	PeerBytes       uint64 // peer copy size
	Reps            int    // timed repetitions of each copy
	// FaultInject corrupts one result of the first launch of every burn and
	// one word of the memory test, so that the report must show errors.
	FaultInject bool
	// Force runs on GPUs that other processes are using.
	Force bool
	// GPUs limits the run to these CUDA ordinals (nil: all).
	GPUs []int
	// Sampler reads NVML; nil opens the live one (and runs without
	// monitoring, saying so, when NVML is missing).
	Sampler Sampler
	// Own records the probe's own GPU work (probe/ownwork); nil: not
	// recorded.
	Own OwnWork
	Log *slog.Logger
}

// OwnWork records the probe's own GPU work, so that idleness checks never
// judge it a tenant's: Run marks when its GPU work begins and when it has
// ended (contexts released), and before it judges whether a GPU is busy it
// waits out the NVML sample period that still covers a previous own work.
type OwnWork interface {
	Begin() (end func())
	State() gpu.OwnWork
}

// DefaultOptions is `gpuprobe stress` without flags.
func DefaultOptions() Options {
	return Options{
		Burn: 30 * time.Second, Precisions: result.AllPrecisions, Bandwidth: true, Memtest: true,
		MemtestFraction: 0.9, MemtestRounds: 1, CopyBytes: 4 << 30, HostBytes: 1 << 30, PeerBytes: 1 << 30, Reps: 10,
		AllReduceMaxBytes: 1 << 30,
	}
}

// device is one GPU as a run holds it: its part of the report, and the
// CUDA handles and kernel choices the tests run it with.
type device struct {
	*result.GPU
	info cuda.DeviceInfo
	ctx  *cuda.Context
	mod  *cuda.Module
	arch int
	// wg: the wgmma kernels that passed the sanity burn (sanity.go).
	wg map[result.Precision]bool
}

// ErrNoGPU says the machine has no usable CUDA driver or device; the
// report still holds a skipped check saying why.
var ErrNoGPU = errors.New("no CUDA GPU")

// Run executes the tests. It returns the report even when it also returns
// an error, so that what was measured before a failure is kept.
//
// A run has four steps: plan (open the driver and NVML, pick the GPUs to
// test and ready each one), run each test in turn (tests.go), judge the
// measurements into checks, and report.
func Run(ctx context.Context, o Options) (*result.Report, error) {
	r := newRunner(ctx, o)
	defer func() { r.rep.Seconds = time.Since(r.rep.StartedAt).Seconds() }()
	if err := r.openDriver(); err != nil {
		return r.rep, err
	}
	closeSampler := r.openSampler()
	defer closeSampler()
	if err := r.waitOwnWork(); err != nil {
		return r.rep, err
	}
	if o.Own != nil {
		// Deferred before the contexts' release, so it runs after it.
		defer o.Own.Begin()()
	}
	defer r.releaseGPUs()
	if err := r.plan(); err != nil {
		return r.rep, err
	}
	r.runTests()
	return r.rep, r.judge()
}

// runner is one Run: its options, the driver and sampler it opened, the
// GPUs it tests, and the report it fills in.
type runner struct {
	ctx     context.Context
	o       Options
	log     *slog.Logger
	rep     *result.Report
	drv     *cuda.Driver
	devices int // how many the driver sees
	sampler Sampler
	all     []*device       // every GPU prepared, tested or skipped
	gpus    []*device       // the ones that run
	busIDs  []string        // of gpus, for the monitors
	statics []result.Static // of gpus, for the monitors
}

func newRunner(ctx context.Context, o Options) *runner {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &runner{ctx: ctx, o: o, log: log, rep: &result.Report{StartedAt: time.Now().UTC(), FaultInject: o.FaultInject}}
}

func gpuPtr(i int) *int { return &i }

// skip records a skipped gpu.stress check: for one GPU, or for the whole
// run when gpu is nil.
func (r *runner) skip(gpu *int, reason string) {
	r.rep.Checks = append(r.rep.Checks, wire.Check{Name: "gpu.stress", Category: wire.CategoryGPUDegraded, GPU: gpu, Verdict: wire.Skipped, Detail: reason})
}

// openDriver loads the CUDA driver and counts its devices; without either
// the whole run is skipped (ErrNoGPU).
func (r *runner) openDriver() error {
	drv, err := cuda.Load()
	if err != nil {
		r.skip(nil, err.Error())
		return fmt.Errorf("%w: %v", ErrNoGPU, err)
	}
	r.drv = drv
	r.rep.CUDADriver, _ = drv.Version()
	n, err := drv.DeviceCount()
	if err != nil || n == 0 {
		if err == nil {
			err = errors.New("the driver sees no device")
		}
		r.skip(nil, err.Error())
		return fmt.Errorf("%w: %v", ErrNoGPU, err)
	}
	r.devices = n
	return nil
}

// openSampler takes Options.Sampler, or opens the live NVML one; without
// NVML the run goes on unmonitored and the report says why. The returned
// func closes what openSampler opened.
func (r *runner) openSampler() (closeSampler func()) {
	r.sampler = r.o.Sampler
	r.rep.Monitoring = "nvml"
	if r.sampler != nil {
		return func() {}
	}
	s, err := OpenNVML()
	if err != nil {
		r.rep.Monitoring = "none: " + err.Error()
		return func() {}
	}
	r.sampler = s
	return s.Close
}

// waitOwnWork waits out the NVML sample period that still covers the
// probe's own previous GPU work, so that the busy check below never takes
// it for a tenant's.
func (r *runner) waitOwnWork() error {
	if r.o.Own == nil {
		return nil
	}
	if _, wait := gpu.UtilSince(r.o.Own.State(), time.Now()); wait > 0 {
		if err := ctxsleep.Sleep(r.ctx, wait); err != nil {
			return fmt.Errorf("stopped: %w", err)
		}
	}
	return nil
}

// releaseGPUs frees every context the run retained, tested or skipped.
func (r *runner) releaseGPUs() {
	for _, g := range r.all {
		if g.ctx != nil {
			_ = g.ctx.Bind()
			_ = g.ctx.Synchronize()
			_ = g.mod.Unload()
			_ = g.ctx.Release()
		}
	}
}

// plan decides which GPUs run: every one the driver sees (or those
// Options.GPUs names) that is neither in use nor unable to load the
// kernels. With more than one, it reads how they are connected.
func (r *runner) plan() error {
	want := map[int]bool{}
	for _, g := range r.o.GPUs {
		want[g] = true
	}
	for i := 0; i < r.devices; i++ {
		if len(want) > 0 && !want[i] {
			continue
		}
		g, err := r.prepareGPU(i)
		if err != nil {
			return err
		}
		if g != nil {
			r.gpus = append(r.gpus, g)
		}
	}
	if len(r.gpus) == 0 {
		return ErrNoGPU
	}
	r.busIDs = make([]string, len(r.gpus))
	r.statics = make([]result.Static, len(r.gpus))
	for i, g := range r.gpus {
		r.busIDs[i] = g.BusID
		if g.Static != nil {
			r.statics[i] = *g.Static
		}
	}
	if len(r.gpus) > 1 {
		r.rep.Topology, r.rep.TopologyErr = readPairs(r.sampler, r.gpus, r.busIDs)
	}
	return nil
}

// prepareGPU adds GPU i to the report and readies it to run: its NVML
// readings, its context, its kernels. It returns nil, with the reason in
// a skipped check, for a GPU that is in use or cannot load the kernels.
func (r *runner) prepareGPU(i int) (*device, error) {
	info, err := r.drv.Device(i)
	if err != nil {
		return nil, fmt.Errorf("GPU %d: %w", i, err)
	}
	g := &device{GPU: &result.GPU{Index: i, Name: info.Name, BusID: info.PCIBusID, CC: fmt.Sprintf("%d.%d", info.CCMajor, info.CCMinor), SMs: info.SMs}, info: info}
	r.rep.GPUs = append(r.rep.GPUs, g.GPU)
	r.all = append(r.all, g)
	if r.sampler != nil && !r.readNVML(g) {
		return nil, nil
	}
	if spec, ok := judge.SpecFor(g.IDs()); ok {
		g.Spec = spec.Model
	}
	if g.ctx, err = r.drv.Retain(i); err != nil {
		return nil, fmt.Errorf("GPU %d: %w", i, err)
	}
	if err := g.ctx.Bind(); err != nil {
		return nil, fmt.Errorf("GPU %d: %w", i, err)
	}
	t0 := time.Now()
	if err := loadModule(r.drv, g); err != nil {
		g.Skipped = err.Error()
		r.skip(gpuPtr(i), g.Skipped)
		return nil, nil
	}
	r.log.Info("GPU ready", "gpu", i, "name", info.Name, "cc", g.CC, "ptx", g.PTX, "wgmma", g.wgmmaSummary(), "jit", time.Since(t0).Round(time.Millisecond))
	return g, nil
}

// readNVML reads what NVML knows of g before the tests: its static
// readings and ids (for the spec), whether others use it, and its
// NVLinks (judged at once). It returns false, with the reason in a
// skipped check, when g is in use and Options.Force is off.
func (r *runner) readNVML(g *device) bool {
	busID := g.info.PCIBusID
	if st, err := r.sampler.Static(busID); err == nil {
		g.Static = &st
	}
	if b, err := r.sampler.Busy(busID); err == nil && (len(b.OtherPIDs) > 0 || b.UtilizationPct > 10) && !r.o.Force {
		g.Skipped = fmt.Sprintf("in use: other compute processes %v, utilisation %.0f %% (use --force to test anyway)", b.OtherPIDs, b.UtilizationPct)
		r.skip(gpuPtr(g.Index), g.Skipped)
		return false
	}
	var err error
	g.NVLinks, err = r.sampler.NVLinks(busID)
	if err != nil {
		g.NVLinkErr = err.Error()
	}
	if c, ok := judge.NVLinks(g.Index, g.NVLinks, err); ok {
		r.rep.Checks = append(r.rep.Checks, c)
	}
	return true
}

// judge turns the measurements into checks; a cancelled run first marks
// what the cancellation cut short, and reports that it was stopped.
func (r *runner) judge() error {
	if r.ctx.Err() != nil {
		r.rep.MarkInterrupted(context.Cause(r.ctx))
	}
	r.rep.Checks = append(r.rep.Checks, judge.Report(r.rep)...)
	if r.ctx.Err() != nil {
		return fmt.Errorf("stopped: %w", context.Cause(r.ctx))
	}
	return nil
}

// loadModule loads the newest PTX variant the card can run; when the
// driver rejects it (an older driver than the PTX needs, say), the next
// older variant is tried, and the report says which one ran. The sm_90a
// variant's wgmma kernels are then sanity-burned (sanity.go): a driver
// error there may leave the context unusable, so the context is released,
// retained afresh, and the portable sm_90 variant loaded instead.
func loadModule(drv *cuda.Driver, g *device) error {
	best, err := kernels.Select(g.info.CCMajor, g.info.CCMinor)
	if err != nil {
		return err
	}
	all, err := kernels.Variants()
	if err != nil {
		return err
	}
	cc := g.info.CCMajor*10 + g.info.CCMinor
	g.WgmmaWanted = best.Specific
	var errs []error
	for i := len(all) - 1; i >= 0; i-- {
		v := all[i]
		if !v.Runs(cc) || v.Arch > best.Arch {
			continue
		}
		mod, err := g.ctx.LoadPTX(v.PTX)
		if err != nil {
			err = fmt.Errorf("load %s PTX: %w", v.Name(), err)
			if v.Specific {
				g.WgmmaErr = err.Error()
			}
			errs = append(errs, err)
			continue
		}
		g.mod, g.arch = mod, v.Arch
		g.PTX = fmt.Sprintf("%s (%s)", v.Name(), v.Source)
		if len(errs) > 0 {
			g.PTX += "; " + errors.Join(errs...).Error()
		}
		if v.Specific && runSanity(g) {
			g.WgmmaErr = "a wgmma sanity burn ended in a driver error, so the GPU's context was started afresh with the portable PTX"
			g.wg = nil
			_ = g.mod.Unload()
			g.mod = nil
			_ = g.ctx.Release()
			if g.ctx, err = drv.Retain(g.Index); err != nil {
				return err
			}
			if err := g.ctx.Bind(); err != nil {
				return err
			}
			errs = append(errs, errors.New(g.WgmmaErr))
			continue
		}
		return nil
	}
	return errors.Join(errs...)
}

// wgmmaSummary says in the log which wgmma kernels the burns use.
func (g *device) wgmmaSummary() string {
	if !g.WgmmaWanted {
		return "none (not compute capability 9.0)"
	}
	var used []string
	for _, p := range result.WgmmaPrecisions {
		if g.wg[p] {
			used = append(used, string(p))
		}
	}
	s := fmt.Sprintf("%d of %d passed the sanity burn %v", len(used), len(result.WgmmaPrecisions), used)
	if g.WgmmaErr != "" {
		s += "; " + g.WgmmaErr
	}
	return s
}

func indexOf(gpus []*device, g *device) int {
	for i, x := range gpus {
		if x == g {
			return i
		}
	}
	return -1
}

func memSetup(g *device) (*cuda.Stream, *memKernels, *verifier, error) {
	mk, err := loadMemKernels(g.mod, g.info)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := g.ctx.NewStream()
	if err != nil {
		return nil, nil, nil, err
	}
	v, err := newVerifier(g.ctx, s, mk)
	if err != nil {
		_ = s.Destroy()
		return nil, nil, nil, err
	}
	return s, mk, v, nil
}
