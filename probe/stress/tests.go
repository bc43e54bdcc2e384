package stress

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gpusla/gpusla/probe/stress/result"
)

// runTests runs each test that Options asks for, in this order: the
// burns, the soak, the power test, bandwidth, the NCCL all-reduce, and the
// memory pattern test. A cancelled context starts no further test.
func (r *runner) runTests() {
	o := r.o
	// 1. Burns, every GPU at once, one precision after another.
	if o.Burn > 0 {
		for _, p := range o.Precisions {
			if r.ctx.Err() != nil {
				break
			}
			r.rep.Burns = append(r.rep.Burns, r.burnPhase("burn", func(int) result.Precision { return p }, o.Burn)...)
		}
	}
	// 1a. The soak: one long burn, its per-second curve judged (judge/soak.go).
	if o.Soak > 0 && r.ctx.Err() == nil {
		r.rep.Soaks = r.burnPhase("soak", func(arch int) result.Precision { return soakPrecision(o.SoakPrecision, arch) }, o.Soak)
	}
	// 1b. The power test, every GPU at once.
	if o.Power > 0 && r.ctx.Err() == nil {
		r.rep.Power = r.powerPhase()
	}
	// 2. Bandwidth inside each GPU, over PCIe and between peers.
	if o.Bandwidth {
		r.bandwidthPhase()
	}
	// 2a. NCCL all-reduce over every GPU at once.
	if o.AllReduce && (len(r.gpus) > 1 || !o.AllReduceMultiGPU) && r.ctx.Err() == nil {
		r.rep.AllReduce = r.allReducePhase()
	}
	// 3. Memory pattern test, every GPU at once.
	if o.Memtest && r.ctx.Err() == nil {
		r.rep.Memtests = r.memtestPhase()
	}
}

// eachGPU runs f on every tested GPU at once, each on its own locked
// thread with its context current.
func (r *runner) eachGPU(f func(g *device) error) error {
	var wg sync.WaitGroup
	errs := make([]error, len(r.gpus))
	for i, g := range r.gpus {
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

// burnPhase burns every GPU at once for d, each with the precision pick
// chooses for its architecture, with NVML watched once a second.
func (r *runner) burnPhase(kind string, pick func(arch int) result.Precision, d time.Duration) []result.Burn {
	results := make([]result.Burn, len(r.gpus))
	mg := startMonitors(r.ctx, r.sampler, r.busIDs, r.statics, time.Second)
	_ = r.eachGPU(func(g *device) error {
		results[indexOf(r.gpus, g)] = r.burnOne(g, pick(g.arch), d)
		return nil
	})
	mons := mg.stop()
	for i := range results {
		if results[i].Skipped == "" && mons[i] != nil {
			results[i].Monitor = mons[i]
		}
		b := results[i]
		r.log.Info(kind, "gpu", b.GPU, "precision", b.Precision, "tflops", fmt.Sprintf("%.1f", b.Median), "cv", fmt.Sprintf("%.4f", b.CV), "wrong", b.Mismatches, "launches", b.Launches, "skipped", b.Skipped, "error", b.Error)
	}
	return results
}

// burnOne burns g with precision p for d: with the wgmma kernel where it
// passed the sanity burn, else the mma.sync one, saying why; skipped where
// the card has no kernel for p.
func (r *runner) burnOne(g *device, p result.Precision, d time.Duration) result.Burn {
	fallback := g.fallbackReason(p)
	k, err := kernelFor(p, g.arch, g.wg[p])
	if err != nil {
		why := err.Error()
		if fallback != "" {
			why += "; " + fallback
		}
		return result.Burn{GPU: g.Index, Precision: p, Skipped: why}
	}
	res := burn(r.ctx, g.ctx, g.mod, g.info, k, d, r.o.FaultInject)
	if fallback != "" {
		res.Fallback = fallback + "; ran the mma.sync kernel " + k.name
	}
	return res
}

// powerPhase runs the power test (power.go) on every GPU at once.
func (r *runner) powerPhase() []result.Power {
	results := make([]result.Power, len(r.gpus))
	_ = r.eachGPU(func(g *device) error {
		idx := indexOf(r.gpus, g)
		results[idx] = runPower(r.ctx, g, r.sampler, r.statics[idx], r.o.Power, r.o.PowerMixes, r.o.FaultInject)
		return nil
	})
	for _, p := range results {
		w := 0.0
		if p.Monitor != nil {
			w = p.Monitor.PowerMeanW
		}
		r.log.Info("power", "gpu", p.GPU, "mix", p.Mix.String(), "power_w", fmt.Sprintf("%.0f", w), "tflops", fmt.Sprintf("%.1f", p.Median), "copy_gbs", fmt.Sprintf("%.0f", p.CopyGBs), "wrong", p.Mismatches, "copy_bad", p.CopyBad, "skipped", p.Skipped, "error", p.Error)
	}
	return results
}

// bandwidthPhase measures bandwidth inside each GPU and over PCIe one GPU
// at a time, so that GPUs sharing a PCIe switch do not share its
// bandwidth, then the peer copies between every pair.
func (r *runner) bandwidthPhase() {
	for _, g := range r.gpus {
		if r.ctx.Err() != nil {
			break
		}
		res := r.deviceBandwidth(g)
		for _, b := range res {
			r.log.Info("bandwidth", "gpu", b.GPU, "test", b.Test, "best_gbs", fmt.Sprintf("%.1f", b.BestGBs), "median_gbs", fmt.Sprintf("%.1f", b.MedianGB), "bad_words", b.BadWords, "error", b.Error)
		}
		r.rep.Bandwidth = append(r.rep.Bandwidth, res...)
	}
	if len(r.gpus) > 1 && r.ctx.Err() == nil {
		res := peerCopies(r.ctx, r.drv, r.gpus, r.o.PeerBytes, r.o.Reps)
		for _, b := range res {
			r.log.Info("p2p", "from", b.GPU, "to", b.Peer, "best_gbs", fmt.Sprintf("%.1f", b.BestGBs), "bad_words", b.BadWords, "error", b.Error, "skipped", b.Skipped)
		}
		r.rep.Bandwidth = append(r.rep.Bandwidth, res...)
	}
}

// deviceBandwidth runs g's device-to-device and host<->device copies on a
// goroutine of its own, locked to a thread with g's context current.
func (r *runner) deviceBandwidth(g *device) []result.Bandwidth {
	done := make(chan []result.Bandwidth)
	go func() {
		var out []result.Bandwidth
		defer func() { done <- out }()
		if err := g.ctx.Bind(); err != nil {
			out = append(out, result.Bandwidth{GPU: g.Index, Test: "d2d_memcpy", Error: err.Error()})
			return
		}
		s, mk, v, err := memSetup(g)
		if err != nil {
			out = append(out, result.Bandwidth{GPU: g.Index, Test: "d2d_memcpy", Error: err.Error()})
			return
		}
		defer func() { v.free(); _ = s.Destroy() }()
		out = append(out, deviceCopy(r.ctx, g.ctx, s, mk, v, g.Index, r.o.CopyBytes, r.o.Reps)...)
		out = append(out, hostCopy(r.ctx, g.ctx, s, v, g.Index, r.o.HostBytes, r.o.Reps)...)
	}()
	return <-done
}

// allReducePhase runs NCCL's sum all-reduce over every tested GPU at once
// (allreduce.go).
func (r *runner) allReducePhase() *result.AllReduce {
	res := runAllReduce(r.ctx, r.gpus, r.o.AllReduceMaxBytes)
	for _, row := range res.Rows {
		r.log.Info("allreduce", "dtype", row.DType, "bytes", row.Bytes, "time_us", fmt.Sprintf("%.1f", row.Micros), "algbw_gbs", fmt.Sprintf("%.1f", row.AlgGBs), "busbw_gbs", fmt.Sprintf("%.1f", row.BusGBs), "wrong", row.Wrong)
	}
	if res.Skipped != "" || res.Error != "" {
		r.log.Info("allreduce", "skipped", res.Skipped, "error", res.Error)
	}
	return &res
}

// memtestPhase runs the memory pattern test on every GPU at once.
func (r *runner) memtestPhase() []result.Memtest {
	results := make([]result.Memtest, len(r.gpus))
	_ = r.eachGPU(func(g *device) error {
		idx := indexOf(r.gpus, g)
		s, _, v, err := memSetup(g)
		if err != nil {
			results[idx] = result.Memtest{GPU: g.Index, Error: err.Error()}
			return nil
		}
		defer func() { v.free(); _ = s.Destroy() }()
		results[idx] = memtest(r.ctx, g.ctx, s, v, g.Index, r.o.MemtestFraction, max(r.o.MemtestRounds, 1), r.o.FaultInject)
		return nil
	})
	for _, m := range results {
		r.log.Info("memtest", "gpu", m.GPU, "gib", float64(m.Bytes)/(1<<30), "passes", m.Passes, "bad_words", m.BadWords, "gbs", fmt.Sprintf("%.0f", m.GBs), "error", m.Error)
	}
	return results
}
