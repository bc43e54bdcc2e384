// Package stress runs gpuprobe's load tests on NVIDIA GPUs through the CUDA
// driver (probe/cuda) and the embedded kernels (probe/kernels): compute
// burns whose every result is checked against a host-computed reference,
// device, host and peer bandwidth, and a memory pattern test, with NVML
// watched once a second during the burns. It judges the results against
// the model's calibrated spec and returns wire.Checks.
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
	"sync"
	"time"

	"github.com/gpusla/gpusla/internal/ctxsleep"
	"github.com/gpusla/gpusla/probe/cuda"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/kernels"
	"github.com/gpusla/gpusla/probe/wire"
)

// Options choose the tests and their sizes.
type Options struct {
	// Burn is the duration of each precision's burn (0: no burns).
	Burn       time.Duration
	Precisions []Precision
	// Soak is one long burn after the others whose per-second throughput
	// curve is judged for stability (soak.go); 0: none. SoakPrecision is
	// its precision ("": BF16 where the card has tensor cores, else FP32).
	Soak          time.Duration
	SoakPrecision Precision
	// Power is the main phase of the power test (tensor burn and memory
	// copy at once, power.go); 0: no power test. PowerMixes are the mixes
	// its tuning tries (nil: all eight, ~1.7 s each).
	Power      time.Duration
	PowerMixes []PowerMix
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
		Burn: 30 * time.Second, Precisions: AllPrecisions, Bandwidth: true, Memtest: true,
		MemtestFraction: 0.9, MemtestRounds: 1, CopyBytes: 4 << 30, HostBytes: 1 << 30, PeerBytes: 1 << 30, Reps: 10,
		AllReduceMaxBytes: 1 << 30,
	}
}

// GPUReport identifies one tested GPU.
type GPUReport struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	BusID string `json:"bus_id"`
	CC    string `json:"compute_capability"`
	SMs   int    `json:"sms"`
	PTX   string `json:"ptx_variant"`
	// Sanity is the wgmma kernels' sanity burn (compute capability 9.0).
	Sanity    []SanityResult `json:"wgmma_sanity,omitempty"`
	Static    *Static        `json:"nvml,omitempty"`
	Spec      string         `json:"spec,omitempty"`
	Skipped   string         `json:"skipped,omitempty"`
	NVLinks   []bool         `json:"nvlinks,omitempty"`
	NVLinkErr string         `json:"nvlink_error,omitempty"`
	deviceID  uint16
	subsysID  uint16
	info      cuda.DeviceInfo
	ctx       *cuda.Context
	mod       *cuda.Module
	arch      int
	// wantWG: the card's best variant is the arch-specific sm_90a one,
	// whose wgmma kernels it should run; wg: those that passed the sanity
	// burn; wgmmaErr: why none could be used (the PTX did not load, a
	// driver error in the sanity burn).
	wantWG   bool
	wg       map[Precision]bool
	wgmmaErr string
}

// Report is everything one run measured.
type Report struct {
	StartedAt  time.Time         `json:"started_at"`
	Seconds    float64           `json:"seconds"`
	CUDADriver int               `json:"cuda_driver_version,omitempty"`
	Monitoring string            `json:"monitoring"`
	GPUs       []*GPUReport      `json:"gpus"`
	Burns      []BurnResult      `json:"burns,omitempty"`
	Soaks      []BurnResult      `json:"soaks,omitempty"`
	Power      []PowerResult     `json:"power,omitempty"`
	Bandwidth  []BandwidthResult `json:"bandwidth,omitempty"`
	Memtests   []MemtestResult   `json:"memtests,omitempty"`
	AllReduce  *AllReduceResult  `json:"allreduce,omitempty"`
	// Topology is how each pair of tested GPUs is connected (NVML), read
	// when more than one GPU is tested; TopologyErr says why it is not.
	Topology    []TopoPair   `json:"topology,omitempty"`
	TopologyErr string       `json:"topology_error,omitempty"`
	FaultInject bool         `json:"fault_inject,omitempty"`
	Checks      []wire.Check `json:"checks"`
}

// ErrNoGPU says the machine has no usable CUDA driver or device; the
// report still holds a skipped check saying why.
var ErrNoGPU = errors.New("no CUDA GPU")

// Run executes the tests. It returns the report even when it also returns
// an error, so that what was measured before a failure is kept.
func Run(ctx context.Context, o Options) (*Report, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rep := &Report{StartedAt: time.Now().UTC(), FaultInject: o.FaultInject}
	defer func() { rep.Seconds = time.Since(rep.StartedAt).Seconds() }()
	skipAll := func(reason string) {
		rep.Checks = append(rep.Checks, wire.Check{Name: "gpu.stress", Category: wire.CategoryGPUDegraded, Verdict: wire.Skipped, Detail: reason})
	}
	drv, err := cuda.Load()
	if err != nil {
		skipAll(err.Error())
		return rep, fmt.Errorf("%w: %v", ErrNoGPU, err)
	}
	rep.CUDADriver, _ = drv.Version()
	n, err := drv.DeviceCount()
	if err != nil || n == 0 {
		if err == nil {
			err = errors.New("the driver sees no device")
		}
		skipAll(err.Error())
		return rep, fmt.Errorf("%w: %v", ErrNoGPU, err)
	}

	sampler := o.Sampler
	rep.Monitoring = "nvml"
	if sampler == nil {
		s, err := OpenNVML()
		if err != nil {
			rep.Monitoring = "none: " + err.Error()
		} else {
			defer s.Close()
			sampler = s
		}
	}

	want := map[int]bool{}
	for _, g := range o.GPUs {
		want[g] = true
	}
	if o.Own != nil {
		if _, wait := gpu.UtilSince(o.Own.State(), time.Now()); wait > 0 {
			if err := ctxsleep.Sleep(ctx, wait); err != nil {
				return rep, fmt.Errorf("stopped: %w", err)
			}
		}
		// Deferred before the contexts' release, so it runs after it.
		defer o.Own.Begin()()
	}
	var gpus []*GPUReport // the ones that run
	defer func() {
		for _, g := range rep.GPUs {
			if g.ctx != nil {
				_ = g.ctx.Bind()
				_ = g.ctx.Synchronize()
				_ = g.mod.Unload()
				_ = g.ctx.Release()
			}
		}
	}()
	for i := 0; i < n; i++ {
		if len(want) > 0 && !want[i] {
			continue
		}
		info, err := drv.Device(i)
		if err != nil {
			return rep, fmt.Errorf("GPU %d: %w", i, err)
		}
		g := &GPUReport{Index: i, Name: info.Name, BusID: info.PCIBusID, CC: fmt.Sprintf("%d.%d", info.CCMajor, info.CCMinor), SMs: info.SMs, info: info}
		rep.GPUs = append(rep.GPUs, g)
		if sampler != nil {
			if st, err := sampler.Static(info.PCIBusID); err == nil {
				g.Static, g.deviceID, g.subsysID = &st, st.DeviceID, st.SubsystemID
			}
			if b, err := sampler.Busy(info.PCIBusID); err == nil && (len(b.OtherPIDs) > 0 || b.UtilizationPct > 10) && !o.Force {
				g.Skipped = fmt.Sprintf("in use: other compute processes %v, utilisation %.0f %% (use --force to test anyway)", b.OtherPIDs, b.UtilizationPct)
				rep.Checks = append(rep.Checks, wire.Check{Name: "gpu.stress", Category: wire.CategoryGPUDegraded, GPU: gpuPtr(i), Verdict: wire.Skipped, Detail: g.Skipped})
				continue
			}
			g.NVLinks, err = sampler.NVLinks(info.PCIBusID)
			if err != nil {
				g.NVLinkErr = err.Error()
			}
			if c, ok := judgeNVLinks(i, g.NVLinks, err); ok {
				rep.Checks = append(rep.Checks, c)
			}
		}
		if spec, ok := SpecFor(g.deviceID, g.subsysID); ok {
			g.Spec = spec.Model
		}
		if g.ctx, err = drv.Retain(i); err != nil {
			return rep, fmt.Errorf("GPU %d: %w", i, err)
		}
		if err := g.ctx.Bind(); err != nil {
			return rep, fmt.Errorf("GPU %d: %w", i, err)
		}
		t0 := time.Now()
		if err := loadModule(drv, g); err != nil {
			g.Skipped = err.Error()
			rep.Checks = append(rep.Checks, wire.Check{Name: "gpu.stress", Category: wire.CategoryGPUDegraded, GPU: gpuPtr(i), Verdict: wire.Skipped, Detail: g.Skipped})
			continue
		}
		log.Info("GPU ready", "gpu", i, "name", info.Name, "cc", g.CC, "ptx", g.PTX, "wgmma", g.wgmmaSummary(), "jit", time.Since(t0).Round(time.Millisecond))
		gpus = append(gpus, g)
	}
	if len(gpus) == 0 {
		return rep, ErrNoGPU
	}

	busIDs := make([]string, len(gpus))
	statics := make([]Static, len(gpus))
	for i, g := range gpus {
		busIDs[i] = g.BusID
		if g.Static != nil {
			statics[i] = *g.Static
		}
	}
	if len(gpus) > 1 {
		rep.Topology, rep.TopologyErr = readPairs(sampler, gpus, busIDs)
	}
	// eachGPU runs f on every GPU at once, each on its own locked thread
	// with its context current.
	eachGPU := func(f func(g *GPUReport) error) error {
		var wg sync.WaitGroup
		errs := make([]error, len(gpus))
		for i, g := range gpus {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := g.ctx.Bind(); err != nil {
					errs[i] = err
					return
				}
				errs[i] = f(g)
			}()
		}
		wg.Wait()
		return errors.Join(errs...)
	}

	// 1. Burns, every GPU at once, one precision after another.
	// burnPhase burns every GPU at once for d, each with the precision
	// pick chooses for its architecture.
	burnPhase := func(kind string, pick func(arch int) Precision, d time.Duration) []BurnResult {
		results := make([]BurnResult, len(gpus))
		mg := startMonitors(ctx, sampler, busIDs, statics, time.Second)
		_ = eachGPU(func(g *GPUReport) error {
			idx := indexOf(gpus, g)
			p := pick(g.arch)
			fallback := g.fallbackReason(p)
			k, err := kernelFor(p, g.arch, g.wg[p])
			if err != nil {
				why := err.Error()
				if fallback != "" {
					why += "; " + fallback
				}
				results[idx] = BurnResult{GPU: g.Index, Precision: p, Skipped: why}
				return nil
			}
			results[idx] = burn(ctx, g.ctx, g.mod, g.info, k, d, o.FaultInject)
			if fallback != "" {
				results[idx].Fallback = fallback + "; ran the mma.sync kernel " + k.name
			}
			return nil
		})
		mons := mg.stop()
		for i := range results {
			if results[i].Skipped == "" && mons[i] != nil {
				results[i].Monitor = mons[i]
			}
			r := results[i]
			log.Info(kind, "gpu", r.GPU, "precision", r.Precision, "tflops", fmt.Sprintf("%.1f", r.Median), "cv", fmt.Sprintf("%.4f", r.CV), "wrong", r.Mismatches, "launches", r.Launches, "skipped", r.Skipped, "error", r.Error)
		}
		return results
	}
	if o.Burn > 0 {
		for _, p := range o.Precisions {
			if ctx.Err() != nil {
				break
			}
			rep.Burns = append(rep.Burns, burnPhase("burn", func(int) Precision { return p }, o.Burn)...)
		}
	}

	// 1a. The soak: one long burn, its per-second curve judged (soak.go).
	if o.Soak > 0 && ctx.Err() == nil {
		rep.Soaks = burnPhase("soak", func(arch int) Precision { return soakPrecision(o.SoakPrecision, arch) }, o.Soak)
	}

	// 1b. The power test, every GPU at once.
	if o.Power > 0 && ctx.Err() == nil {
		results := make([]PowerResult, len(gpus))
		_ = eachGPU(func(g *GPUReport) error {
			idx := indexOf(gpus, g)
			results[idx] = runPower(ctx, g, sampler, statics[idx], o.Power, o.PowerMixes, o.FaultInject)
			return nil
		})
		for _, r := range results {
			w := 0.0
			if r.Monitor != nil {
				w = r.Monitor.PowerMeanW
			}
			log.Info("power", "gpu", r.GPU, "mix", r.Mix.String(), "power_w", fmt.Sprintf("%.0f", w), "tflops", fmt.Sprintf("%.1f", r.Median), "copy_gbs", fmt.Sprintf("%.0f", r.CopyGBs), "wrong", r.Mismatches, "copy_bad", r.CopyBad, "skipped", r.Skipped, "error", r.Error)
		}
		rep.Power = results
	}

	// 2. Bandwidth inside each GPU and over PCIe, one GPU at a time so
	// that GPUs sharing a PCIe switch do not share its bandwidth.
	if o.Bandwidth {
		for _, g := range gpus {
			if ctx.Err() != nil {
				break
			}
			done := make(chan []BandwidthResult)
			go func() {
				var out []BandwidthResult
				defer func() { done <- out }()
				if err := g.ctx.Bind(); err != nil {
					out = append(out, BandwidthResult{GPU: g.Index, Test: "d2d_memcpy", Error: err.Error()})
					return
				}
				s, mk, v, err := memSetup(g)
				if err != nil {
					out = append(out, BandwidthResult{GPU: g.Index, Test: "d2d_memcpy", Error: err.Error()})
					return
				}
				defer func() { v.free(); _ = s.Destroy() }()
				out = append(out, deviceCopy(ctx, g.ctx, s, mk, v, g.Index, o.CopyBytes, o.Reps)...)
				out = append(out, hostCopy(ctx, g.ctx, s, v, g.Index, o.HostBytes, o.Reps)...)
			}()
			res := <-done
			for _, r := range res {
				log.Info("bandwidth", "gpu", r.GPU, "test", r.Test, "best_gbs", fmt.Sprintf("%.1f", r.BestGBs), "median_gbs", fmt.Sprintf("%.1f", r.MedianGB), "bad_words", r.BadWords, "error", r.Error)
			}
			rep.Bandwidth = append(rep.Bandwidth, res...)
		}
		if len(gpus) > 1 && ctx.Err() == nil {
			res := peerCopies(ctx, drv, gpus, o.PeerBytes, o.Reps)
			for _, r := range res {
				log.Info("p2p", "from", r.GPU, "to", r.Peer, "best_gbs", fmt.Sprintf("%.1f", r.BestGBs), "bad_words", r.BadWords, "error", r.Error, "skipped", r.Skipped)
			}
			rep.Bandwidth = append(rep.Bandwidth, res...)
		}
	}

	// 2a. NCCL all-reduce over every GPU at once.
	if o.AllReduce && (len(gpus) > 1 || !o.AllReduceMultiGPU) && ctx.Err() == nil {
		r := runAllReduce(ctx, gpus, o.AllReduceMaxBytes)
		for _, row := range r.Rows {
			log.Info("allreduce", "dtype", row.DType, "bytes", row.Bytes, "time_us", fmt.Sprintf("%.1f", row.Micros), "algbw_gbs", fmt.Sprintf("%.1f", row.AlgGBs), "busbw_gbs", fmt.Sprintf("%.1f", row.BusGBs), "wrong", row.Wrong)
		}
		if r.Skipped != "" || r.Error != "" {
			log.Info("allreduce", "skipped", r.Skipped, "error", r.Error)
		}
		rep.AllReduce = &r
	}

	// 3. Memory pattern test, every GPU at once.
	if o.Memtest && ctx.Err() == nil {
		results := make([]MemtestResult, len(gpus))
		_ = eachGPU(func(g *GPUReport) error {
			idx := indexOf(gpus, g)
			s, _, v, err := memSetup(g)
			if err != nil {
				results[idx] = MemtestResult{GPU: g.Index, Error: err.Error()}
				return nil
			}
			defer func() { v.free(); _ = s.Destroy() }()
			results[idx] = memtest(ctx, g.ctx, s, v, g.Index, o.MemtestFraction, max(o.MemtestRounds, 1), o.FaultInject)
			return nil
		})
		for _, r := range results {
			log.Info("memtest", "gpu", r.GPU, "gib", float64(r.Bytes)/(1<<30), "passes", r.Passes, "bad_words", r.BadWords, "gbs", fmt.Sprintf("%.0f", r.GBs), "error", r.Error)
		}
		rep.Memtests = results
	}

	if ctx.Err() != nil {
		markInterrupted(rep, context.Cause(ctx))
	}
	rep.Checks = append(rep.Checks, Judge(rep)...)
	if ctx.Err() != nil {
		return rep, fmt.Errorf("stopped: %w", context.Cause(ctx))
	}
	return rep, nil
}

// loadModule loads the newest PTX variant the card can run; when the
// driver rejects it (an older driver than the PTX needs, say), the next
// older variant is tried, and the report says which one ran. The sm_90a
// variant's wgmma kernels are then sanity-burned (sanity.go): a driver
// error there may leave the context unusable, so the context is released,
// retained afresh, and the portable sm_90 variant loaded instead.
func loadModule(drv *cuda.Driver, g *GPUReport) error {
	best, err := kernels.Select(g.info.CCMajor, g.info.CCMinor)
	if err != nil {
		return err
	}
	all, err := kernels.Variants()
	if err != nil {
		return err
	}
	cc := g.info.CCMajor*10 + g.info.CCMinor
	g.wantWG = best.Specific
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
				g.wgmmaErr = err.Error()
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
			g.wgmmaErr = "a wgmma sanity burn ended in a driver error, so the GPU's context was started afresh with the portable PTX"
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
			errs = append(errs, errors.New(g.wgmmaErr))
			continue
		}
		return nil
	}
	return errors.Join(errs...)
}

// wgmmaSummary says in the log which wgmma kernels the burns use.
func (g *GPUReport) wgmmaSummary() string {
	if !g.wantWG {
		return "none (not compute capability 9.0)"
	}
	var used []string
	for _, p := range wgmmaPrecisions {
		if g.wg[p] {
			used = append(used, string(p))
		}
	}
	s := fmt.Sprintf("%d of %d passed the sanity burn %v", len(used), len(wgmmaPrecisions), used)
	if g.wgmmaErr != "" {
		s += "; " + g.wgmmaErr
	}
	return s
}

// interruptedBW applies keepFaults to the checks of an interrupted copy.
func interruptedBW(r BandwidthResult, cs []wire.Check) []wire.Check {
	if r.Interrupted != "" {
		return keepFaults(cs, r.Interrupted)
	}
	return cs
}

func indexOf(gpus []*GPUReport, g *GPUReport) int {
	for i, x := range gpus {
		if x == g {
			return i
		}
	}
	return -1
}

func memSetup(g *GPUReport) (*cuda.Stream, *memKernels, *verifier, error) {
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

// Judge turns the measurements of a report into checks.
func Judge(rep *Report) []wire.Check {
	byIndex := map[int]*GPUReport{}
	for _, g := range rep.GPUs {
		byIndex[g.Index] = g
	}
	specOf := func(gpu int) (Spec, bool) {
		if g, ok := byIndex[gpu]; ok {
			return SpecFor(g.deviceID, g.subsysID)
		}
		return Spec{}, false
	}
	var out []wire.Check
	for _, g := range rep.GPUs {
		if c, ok := judgeSanity(g); ok {
			out = append(out, c)
		}
	}
	for _, b := range rep.Burns {
		spec, ok := specOf(b.GPU)
		cs := judgeBurn("gpu.burn."+string(b.Precision), b, spec, ok)
		if b.Interrupted != "" {
			cs = keepFaults(cs, b.Interrupted)
		} else if c, ok := judgeFit(b, byIndex[b.GPU]); ok {
			cs = append(cs, c)
		}
		out = append(out, cs...)
	}
	for _, b := range rep.Soaks {
		spec, ok := specOf(b.GPU)
		cs := judgeSoak(b, spec, ok)
		if b.Interrupted != "" {
			cs = keepFaults(cs, b.Interrupted)
		}
		out = append(out, cs...)
	}
	// Device bandwidth is judged on the better of the two copy methods:
	// both move the same bytes, and a healthy card must reach the
	// threshold with at least one.
	bestD2D := map[int]BandwidthResult{}
	for _, r := range rep.Bandwidth {
		spec, ok := specOf(r.GPU)
		switch r.Test {
		case "d2d_memcpy", "d2d_kernel":
			if cur, seen := bestD2D[r.GPU]; !seen || r.BestGBs > cur.BestGBs || cur.Error != "" || cur.Interrupted != "" {
				bestD2D[r.GPU] = r
			}
			if r.BadWords != 0 {
				c := judgeBandwidth(r, "d2d", spec, ok)
				out = append(out, interruptedBW(r, c[1:])...)
			}
		case "h2d", "d2h", "p2p":
			out = append(out, interruptedBW(r, judgeBandwidth(r, r.Test, spec, ok))...)
		}
	}
	for _, g := range rep.GPUs {
		if r, seen := bestD2D[g.Index]; seen {
			spec, ok := specOf(g.Index)
			c := judgeBandwidth(r, "d2d", spec, ok)[:1]
			c[0].Name = "gpu.bw.d2d"
			out = append(out, interruptedBW(r, c)...)
		}
	}
	for _, m := range rep.Memtests {
		c := []wire.Check{judgeMemtest(m)}
		if m.Interrupted != "" {
			c = keepFaults(c, m.Interrupted)
		}
		out = append(out, c...)
	}
	if len(rep.GPUs) > 0 {
		var topoErr error
		if rep.TopologyErr != "" {
			topoErr = errors.New(rep.TopologyErr)
		}
		fs, model := fabricSpecOf(byIndex[rep.GPUs[0].Index])
		if c, ok := judgeTopology(rep.Topology, topoErr, fs); ok {
			out = append(out, c)
		}
		if r := rep.AllReduce; r != nil {
			cs := judgeAllReduce(*r, rep.Topology, topoErr, fs, model)
			if r.Interrupted != "" {
				cs = keepFaults(cs, r.Interrupted)
			}
			out = append(out, cs...)
		}
	}
	for _, p := range rep.Power {
		cs := judgePower(p, powerSpecOf(byIndex[p.GPU]))
		if p.Interrupted != "" {
			cs = keepFaults(cs, p.Interrupted)
		}
		out = append(out, cs...)
	}
	return out
}
