package stress

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gpusla/gpusla/probe/cuda"
	"github.com/gpusla/gpusla/probe/stress/result"
)

// burnKernel describes how one burn runs on a loaded module and how its
// output is checked.
type burnKernel struct {
	prec   result.Precision
	name   string // kernel in burn.cu
	engine string // what does the work, for the report
	f64    bool   // output elements are float64 (else float32)
	// block is the threads a block (0: 256); the wgmma burns run one
	// warpgroup, 128, a block.
	block int
	// perThread is the number of output elements a thread writes.
	perThread int
	// flopsPerIter is the floating-point operations a thread does per loop
	// iteration; flopsFixed those it does once outside the loop.
	flopsPerIter, flopsFixed float64
	// params is the table the kernel reads (seeds or (a, b) pairs).
	params []float64
	// expected returns the element a thread must write at position e of
	// its outputs, given the kernel's iteration count (set by prepare).
	expected func(tid uint64, e int) float64
	// prepare computes the host reference for an iteration count.
	prepare func(iters uint32)
	// expectThread, when set, fills dst (perThread long) with everything
	// thread tid must write — a faster form of expected for the check.
	expectThread func(tid uint64, dst []float64)
}

// mmaShape is a tensor burn's geometry: each group of `group` threads (a
// warp for mma.sync, a warpgroup for wgmma) holds acc accumulators of nc
// registers a thread and, at each of its 4*iters+1 steps, runs `products`
// products of an m x n x k shape (one a mma.sync accumulator; one wgmma
// covers all 128 registers of a thread); the
// (a, b) row of the last, uniform product is chosen per group of
// paramGroup threads (a warp for mma.sync, a block for wgmma).
type mmaShape struct {
	acc, nc, m, n, k  int
	products          int
	group, paramGroup int
	block             int
}

// mmaKernel builds the description of a tensor-core burn.
func mmaKernel(prec result.Precision, name, engine string, f64 bool, sh mmaShape) burnKernel {
	params := mmaParams()
	flopsPerMMA := 2.0 * float64(sh.m*sh.n*sh.k) / float64(sh.group) // a group's product shared by its threads
	acc, nc, pg := sh.acc, sh.nc, uint64(sh.paramGroup)
	return burnKernel{
		prec: prec, name: name, engine: engine, f64: f64, block: sh.block,
		perThread:    acc * nc,
		flopsPerIter: 4 * float64(sh.products) * flopsPerMMA, // A1B1, A2B2, -A1B1, -A2B2
		flopsFixed:   float64(sh.products) * flopsPerMMA,
		params:       params,
		expected: func(tid uint64, e int) float64 {
			return mmaExpected(uint32(tid/32), uint32(tid%32), uint32(e/nc), uint32(e%nc), uint32(tid/pg), sh.k, params)
		},
		expectThread: func(tid uint64, dst []float64) {
			w, l := uint32(tid/32), uint32(tid%32)
			row := (tid / pg) % seedRows
			kab := float64(sh.k) * params[2*row] * params[2*row+1]
			for j := 0; j < acc; j++ {
				for r := 0; r < nc; r++ {
					dst[j*nc+r] = mmaC0(w, l, uint32(j), uint32(r)) + kab
				}
			}
		},
		prepare: func(uint32) {},
	}
}

// wgmmaKernel describes a wgmma burn (burn.cu's burn_wg_*): one warpgroup a
// block, 128 accumulators a thread (32 of 4 in the C0 numbering), m64n256k.
func wgmmaKernel(prec result.Precision, k int, engine string) burnKernel {
	return mmaKernel(prec, "burn_wg_"+string(prec), engine, false,
		mmaShape{acc: wgAcc / 4, nc: 4, m: 64, n: 256, k: k, products: 1, group: 128, paramGroup: 128, block: 128})
}

// kernelFor picks the kernel of a precision from what the module holds:
// the variant chosen by compute capability decides, and a kernel that the
// variant lacks makes the burn skip with that reason. wgmma says the
// module is the sm_90a variant and this precision's wgmma kernel passed
// the sanity burn (sanity.go); otherwise the tensor burns use mma.sync.
func kernelFor(prec result.Precision, arch int, wgmma bool) (burnKernel, error) {
	warp := func(acc, nc, m, n, k int) mmaShape {
		return mmaShape{acc: acc, nc: nc, m: m, n: n, k: k, products: acc, group: 32, paramGroup: 32, block: 256}
	}
	switch prec {
	case result.FP32:
		var ref []float32
		return burnKernel{
			prec: prec, name: "burn_fp32", engine: "FFMA chains",
			perThread: fmaChains, flopsPerIter: 2 * fmaChains * fmaUnroll,
			params:  fmaSeeds(),
			prepare: func(iters uint32) { ref = fmaExpected32(int(iters) * fmaUnroll) },
			expected: func(tid uint64, e int) float64 {
				return float64(ref[(tid%seedRows)*fmaChains+uint64(e)])
			},
		}, nil
	case result.FP64:
		if arch >= 80 {
			// Tensor-core FP64: Hopper's m16n8k16 runs at twice the FMA
			// rate; Ampere's m8n8k4 likewise on A100-class cards.
			if arch >= 90 {
				return mmaKernel(prec, "burn_fp64_mma", "DMMA m16n8k16", true, warp(mmaAcc64, 4, 16, 8, 16)), nil
			}
			return mmaKernel(prec, "burn_fp64_mma", "DMMA m8n8k4", true, warp(mmaAcc64, 2, 8, 8, 4)), nil
		}
		var ref []float64
		return burnKernel{
			prec: prec, name: "burn_fp64", engine: "DFMA chains", f64: true,
			perThread: fmaChains, flopsPerIter: 2 * fmaChains * fmaUnroll,
			params:  fmaSeeds(),
			prepare: func(iters uint32) { ref = fmaExpected64(int(iters) * fmaUnroll) },
			expected: func(tid uint64, e int) float64 {
				return ref[(tid%seedRows)*fmaChains+uint64(e)]
			},
		}, nil
	case result.TF32, result.BF16, result.FP16:
		if arch < 80 {
			return burnKernel{}, fmt.Errorf("%s tensor-core burn needs compute capability 8.0 or newer", prec)
		}
		k := 16
		if prec == result.TF32 {
			k = 8
		}
		if wgmma {
			return wgmmaKernel(prec, k, fmt.Sprintf("wgmma m64n256k%d (HGMMA)", k)), nil
		}
		return mmaKernel(prec, "burn_"+string(prec), fmt.Sprintf("HMMA m16n8k%d", k), false, warp(mmaAcc, 4, 16, 8, k)), nil
	case result.FP8:
		if !wgmma {
			return burnKernel{}, errors.New("fp8 burn needs the wgmma kernels of the sm_90a PTX, which only compute capability 9.0 runs")
		}
		return wgmmaKernel(prec, 32, "wgmma m64n256k32 E4M3 + E5M2 (QGMMA)"), nil
	}
	return burnKernel{}, fmt.Errorf("unknown precision %q", prec)
}

// launchTarget is how long one kernel launch should run: long enough that
// launch and copy gaps vanish, short enough for per-second samples and a
// prompt stop on SIGINT.
const launchTarget = 100 * time.Millisecond

// burnRun is a burn's kernel set up on a context: the harness, the launch
// and check of each launch (which add to the result), and the grid's size.
type burnRun struct {
	h       *harness
	ops     launchOps
	threads uint64
}

// setupBurn looks k's kernel up in mod, sizes the grid by occupancy,
// allocates the outputs and the parameter table, and returns the launch
// operations; each checked launch is counted into res. A kernel the module
// lacks sets res.Skipped and returns a nil run; other errors are returned.
func setupBurn(c *cuda.Context, mod *cuda.Module, info cuda.DeviceInfo, k burnKernel, res *result.Burn) (*burnRun, error) {
	fn, err := mod.Function(k.name)
	if err != nil {
		if cuda.IsNotFound(err) {
			res.Skipped = fmt.Sprintf("kernel %s not in this PTX variant", k.name)
			return nil, nil
		}
		return nil, err
	}
	block := k.block
	if block == 0 {
		block = 256
	}
	perSM, err := fn.BlocksPerSM(block)
	if err != nil {
		return nil, err
	}
	if perSM < 1 {
		perSM = 1
	}
	grid := info.SMs * perSM
	res.Grid = grid
	threads := uint64(grid) * uint64(block)
	elems := threads * uint64(k.perThread)
	esize := uint64(4)
	if k.f64 {
		esize = 8
	}

	// Parameter table, in the element type the kernel reads.
	var ptab []byte
	if k.f64 {
		ptab = make([]byte, 8*len(k.params))
		for i, v := range k.params {
			putU64(ptab[8*i:], math.Float64bits(v))
		}
	} else {
		ptab = make([]byte, 4*len(k.params))
		for i, v := range k.params {
			putU32(ptab[4*i:], math.Float32bits(float32(v)))
		}
	}

	h, err := newHarness(c, elems*esize)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*burnRun, error) { h.close(); return nil, err }
	paramHost, err := h.allocHost(uint64(len(ptab)))
	if err != nil {
		return fail(err)
	}
	copy(paramHost.Bytes(), ptab)
	paramDev, err := h.alloc(uint64(len(ptab)))
	if err != nil {
		return fail(err)
	}
	if err := h.stream.CopyHtoD(paramDev, paramHost, uint64(len(ptab))); err != nil {
		return fail(err)
	}

	// The injected element: one in the middle of the grid, away from the
	// edges a bounds bug would touch.
	injectAt := int64(elems/2 + 3)
	launches := 0 // checked launches; the report numbers them from 0
	ops := launchOps{
		kernel: func(s *launchSlot, iters uint32) error {
			at := int64(-1)
			if s.inject {
				at = injectAt
				res.Injected = true
			}
			return h.stream.Launch(fn, uint32(grid), uint32(block), s.dev, paramDev, uint32(seedRows-1), iters, at)
		},
		done: func(s *launchSlot, _ float64) {
			var n uint64
			var bad []result.Mismatch
			if k.f64 {
				n, bad = compareOutputs(k, nil, s.host.Float64s()[:elems], launches)
			} else {
				n, bad = compareOutputs(k, s.host.Float32s()[:elems], nil, launches)
			}
			launches++
			res.Launches++
			res.Mismatches += n
			for _, m := range bad {
				if len(res.FirstBad) < maxBadKept {
					res.FirstBad = append(res.FirstBad, m)
				}
			}
			res.Checked += elems
		},
	}
	return &burnRun{h: h, ops: ops, threads: threads}, nil
}

// burn runs one precision on the current context for d. inject >= 0
// corrupts that element of the first launch's output (fault injection).
func burn(ctx context.Context, c *cuda.Context, mod *cuda.Module, info cuda.DeviceInfo, k burnKernel, d time.Duration, inject bool) (res result.Burn) {
	res = result.Burn{GPU: info.Ordinal, Precision: k.prec, Engine: k.engine, Kernel: k.name}
	fail := func(err error) result.Burn { res.Error = err.Error(); return res }
	r, err := setupBurn(c, mod, info, k, &res)
	if err != nil {
		return fail(err)
	}
	if r == nil {
		return res
	}
	defer r.h.close()

	// Calibrate on unchecked launches: the host reference depends on the
	// iteration count, which is what calibration finds.
	iters, err := r.h.calibrate(ctx, r.ops, false)
	if err != nil {
		return fail(err)
	}
	k.prepare(iters)
	flopsPerLaunch := float64(r.threads) * (k.flopsPerIter*float64(iters) + k.flopsFixed)

	begin := time.Now()
	res.Samples, err = r.h.run(ctx, d, iters, flopsPerLaunch, inject, r.ops)
	if err != nil {
		return fail(err)
	}
	res.Seconds = time.Since(begin).Seconds()
	res.Median, res.Min, res.CV = sampleStats(res.Samples)
	if ctx.Err() != nil {
		res.Error = "interrupted: " + context.Cause(ctx).Error()
	}
	return res
}

// maxBadKept bounds the mismatches kept for the report; all are counted.
const maxBadKept = 16

// compareOutputs checks one launch's output (f32 or f64, whichever the
// kernel writes) element by element, bit for bit, against k's reference.
// It returns how many differ and the first few. The work is split over all
// CPUs so that checking keeps up with the GPU, which runs the next launch
// meanwhile. A NaN never equals its reference, so it is always counted.
func compareOutputs(k burnKernel, f32 []float32, f64 []float64, launch int) (uint64, []result.Mismatch) {
	n := uint64(len(f32))
	if k.f64 {
		n = uint64(len(f64))
	}
	const chunk = 1 << 16
	nChunks := int((n + chunk - 1) / chunk)
	if nChunks == 0 {
		return 0, nil
	}
	bad := make([][]result.Mismatch, nChunks)
	counts := make([]uint64, nChunks)
	per := uint64(k.perThread)
	parallel(nChunks, func(ci int) {
		lo := uint64(ci) * chunk
		hi := min(lo+chunk, n)
		want := make([]float64, per)
		wantBits := make([]uint64, per)
		cur := ^uint64(0)
		for i := lo; i < hi; i++ {
			tid, e := i/per, i%per
			if tid != cur {
				cur = tid
				if k.expectThread != nil {
					k.expectThread(tid, want)
				} else {
					for x := range want {
						want[x] = k.expected(tid, x)
					}
				}
				for x, v := range want {
					if k.f64 {
						wantBits[x] = math.Float64bits(v)
					} else {
						wantBits[x] = uint64(math.Float32bits(float32(v)))
					}
				}
			}
			var got float64
			var ok bool
			if k.f64 {
				got = f64[i]
				ok = math.Float64bits(got) == wantBits[e]
			} else {
				got = float64(f32[i])
				ok = uint64(math.Float32bits(f32[i])) == wantBits[e]
			}
			if !ok {
				counts[ci]++
				if len(bad[ci]) < maxBadKept {
					bad[ci] = append(bad[ci], result.Mismatch{Launch: launch, Index: i, Got: got, Want: want[e]})
				}
			}
		}
	})
	var total uint64
	var first []result.Mismatch
	for ci := range counts {
		total += counts[ci]
		for _, m := range bad[ci] {
			if len(first) < maxBadKept {
				first = append(first, m)
			}
		}
	}
	return total, first
}

// sampleStats returns the median, minimum and coefficient of variation of
// per-second samples, leaving out the first (clock ramp-up) when there are
// three or more.
func sampleStats(s []float64) (median, min, cv float64) {
	if len(s) >= 3 {
		s = s[1:]
	}
	if len(s) == 0 {
		return 0, 0, 0
	}
	return result.Median(s), minOf(s), result.CV(s)
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
func putU64(b []byte, v uint64) { putU32(b, uint32(v)); putU32(b[4:], uint32(v>>32)) }
