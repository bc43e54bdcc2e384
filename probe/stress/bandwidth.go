package stress

import (
	"context"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/probe/cuda"
	"github.com/gpusla/gpusla/probe/stress/result"
)

// memKernels are the memory kernels of the loaded module.
type memKernels struct {
	fill, check, copy *cuda.Function
	grid              uint32
}

func loadMemKernels(mod *cuda.Module, info cuda.DeviceInfo) (*memKernels, error) {
	var mk memKernels
	var err error
	if mk.fill, err = mod.Function("mem_fill"); err != nil {
		return nil, err
	}
	if mk.check, err = mod.Function("mem_check"); err != nil {
		return nil, err
	}
	if mk.copy, err = mod.Function("copy_f4"); err != nil {
		return nil, err
	}
	per, err := mk.copy.BlocksPerSM(256)
	if err != nil {
		return nil, err
	}
	mk.grid = uint32(info.SMs * max(per, 1))
	return &mk, nil
}

// verifier counts pattern mismatches in device buffers with mem_check.
type verifier struct {
	c    *cuda.Context
	s    *cuda.Stream
	mk   *memKernels
	bad  cuda.DevicePtr
	host *cuda.HostBuffer
}

func newVerifier(c *cuda.Context, s *cuda.Stream, mk *memKernels) (*verifier, error) {
	v := &verifier{c: c, s: s, mk: mk}
	var err error
	if v.bad, err = c.Alloc(65 * 8); err != nil {
		return nil, err
	}
	if v.host, err = c.AllocHost(65 * 8); err != nil {
		_ = c.Free(v.bad)
		return nil, err
	}
	return v, nil
}

func (v *verifier) free() {
	_ = v.host.Free()
	_ = v.c.Free(v.bad)
}

// fill writes the pattern over n words starting at word index base.
func (v *verifier) fill(p cuda.DevicePtr, words, base uint64, seed, mode uint32) error {
	return v.s.Launch(v.mk.fill, v.mk.grid, 256, p, words, base, seed, mode)
}

// check returns the number of bad words and the word offsets of the first
// 64 (relative to p).
func (v *verifier) check(p cuda.DevicePtr, words, base uint64, seed, mode uint32) (uint64, []uint64, error) {
	if err := v.s.SetD32(v.bad, 0, 65*2); err != nil {
		return 0, nil, err
	}
	if err := v.s.Launch(v.mk.check, v.mk.grid, 256, p, words, base, seed, mode, v.bad); err != nil {
		return 0, nil, err
	}
	if err := v.s.CopyDtoH(v.host, v.bad, 65*8); err != nil {
		return 0, nil, err
	}
	if err := v.s.Synchronize(); err != nil {
		return 0, nil, err
	}
	u := v.host.Uint64s()
	n := u[0]
	first := append([]uint64(nil), u[1:1+min(n, 64)]...)
	return n, first, nil
}

// timeCopies runs op reps times, each between two events, and returns the
// best and median rate for bytes counted per op.
func timeCopies(c *cuda.Context, s *cuda.Stream, reps int, counted uint64, op func() error) (best, median float64, err error) {
	start, err := c.NewEvent()
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = start.Destroy() }()
	end, err := c.NewEvent()
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = end.Destroy() }()
	// One untimed run first: first-touch mapping, clocks ramping.
	if err := op(); err != nil {
		return 0, 0, err
	}
	var rates []float64
	for i := 0; i < reps; i++ {
		if err := start.Record(s); err != nil {
			return 0, 0, err
		}
		if err := op(); err != nil {
			return 0, 0, err
		}
		if err := end.Record(s); err != nil {
			return 0, 0, err
		}
		if err := end.Synchronize(); err != nil {
			return 0, 0, err
		}
		t, err := end.Elapsed(start)
		if err != nil {
			return 0, 0, err
		}
		rates = append(rates, float64(counted)/t/1e9)
	}
	return maxOf(rates), result.Median(rates), nil
}

// deviceCopy measures copies inside one GPU's memory: cuMemcpyDtoD (the
// driver's copy engine path, the fastest seen on H200) and the copy_f4
// kernel; the destination is verified against the source pattern after
// each.
func deviceCopy(ctx context.Context, c *cuda.Context, s *cuda.Stream, mk *memKernels, v *verifier, gpu int, size uint64, reps int) []result.Bandwidth {
	mk2 := func(test, method string) result.Bandwidth {
		return result.Bandwidth{GPU: gpu, Test: test, Method: method, Bytes: size, Reps: reps, Counting: "read+write", BadWords: -1}
	}
	res := []result.Bandwidth{mk2("d2d_memcpy", "cuMemcpyDtoDAsync"), mk2("d2d_kernel", "copy_f4 kernel (16-byte loads/stores)")}
	fail := func(err error) []result.Bandwidth {
		for i := range res {
			if res[i].BestGBs == 0 {
				res[i].Error = err.Error()
			}
		}
		return res
	}
	src, err := c.Alloc(size)
	if err != nil {
		return fail(err)
	}
	defer func() { _ = c.Free(src) }()
	dst, err := c.Alloc(size)
	if err != nil {
		return fail(err)
	}
	defer func() { _ = c.Free(dst) }()
	words := size / 4
	const seed, mode = 0x5eed, 3
	if err := v.fill(src, words, 0, seed, mode); err != nil {
		return fail(err)
	}
	ops := []func() error{
		func() error { return s.CopyDtoD(dst, src, size) },
		func() error { return s.Launch(mk.copy, mk.grid, 256, src, dst, size/16) },
	}
	for i, op := range ops {
		if ctx.Err() != nil {
			return fail(context.Cause(ctx))
		}
		if err := s.SetD32(dst, 0, words); err != nil {
			return fail(err)
		}
		best, med, err := timeCopies(c, s, reps, 2*size, op)
		if err != nil {
			return fail(err)
		}
		res[i].BestGBs, res[i].MedianGB = best, med
		bad, _, err := v.check(dst, words, 0, seed, mode)
		if err != nil {
			return fail(err)
		}
		res[i].BadWords = int64(bad)
	}
	return res
}

// hostCopy measures pinned host<->device copies both ways and verifies
// the data that arrived.
func hostCopy(ctx context.Context, c *cuda.Context, s *cuda.Stream, v *verifier, gpu int, size uint64, reps int) []result.Bandwidth {
	h2d := result.Bandwidth{GPU: gpu, Test: "h2d", Method: "cuMemcpyHtoDAsync, pinned", Bytes: size, Reps: reps, Counting: "one-way", BadWords: -1}
	d2h := h2d
	d2h.Test, d2h.Method = "d2h", "cuMemcpyDtoHAsync, pinned"
	fail := func(err error) []result.Bandwidth {
		if h2d.BestGBs == 0 {
			h2d.Error = err.Error()
		}
		d2h.Error = err.Error()
		return []result.Bandwidth{h2d, d2h}
	}
	host, err := c.AllocHost(size)
	if err != nil {
		return fail(err)
	}
	defer func() { _ = host.Free() }()
	dev, err := c.Alloc(size)
	if err != nil {
		return fail(err)
	}
	defer func() { _ = c.Free(dev) }()
	words := size / 4
	const seed, mode = 0x4242, 3
	hw := host.Bytes()
	parallel(int(words/(1<<20))+1, func(chunk int) {
		lo := uint64(chunk) << 20
		for i := lo; i < min(lo+1<<20, words); i++ {
			putU32(hw[4*i:], memPattern(i, seed, mode))
		}
	})
	best, med, err := timeCopies(c, s, reps, size, func() error { return s.CopyHtoD(dev, host, size) })
	if err != nil {
		return fail(err)
	}
	h2d.BestGBs, h2d.MedianGB = best, med
	bad, _, err := v.check(dev, words, 0, seed, mode)
	if err != nil {
		return fail(err)
	}
	h2d.BadWords = int64(bad)
	if ctx.Err() != nil {
		return fail(context.Cause(ctx))
	}
	// Device to host: the device's own pattern, checked on the host.
	const seed2 = 0x2424
	if err := v.fill(dev, words, 0, seed2, mode); err != nil {
		return fail(err)
	}
	best, med, err = timeCopies(c, s, reps, size, func() error { return s.CopyDtoH(host, dev, size) })
	if err != nil {
		return fail(err)
	}
	d2h.BestGBs, d2h.MedianGB = best, med
	chunks := int(words/(1<<20)) + 1
	counts := make([]uint64, chunks)
	parallel(chunks, func(chunk int) {
		lo := uint64(chunk) << 20
		for i := lo; i < min(lo+1<<20, words); i++ {
			w := uint32(hw[4*i]) | uint32(hw[4*i+1])<<8 | uint32(hw[4*i+2])<<16 | uint32(hw[4*i+3])<<24
			if w != memPattern(i, seed2, mode) {
				counts[chunk]++
			}
		}
	})
	var total uint64
	for _, n := range counts {
		total += n
	}
	d2h.BadWords = int64(total)
	return []result.Bandwidth{h2d, d2h}
}

var patternNames = []string{"address", "inverted address", "checkerboard 0x55/0xAA", "hash"}

// memtestChunk is the allocation unit: big enough to keep the kernels
// efficient, small enough to take nearly all free memory.
const memtestChunk = 1 << 30

// memtest fills most free memory with each pattern and reads it back.
// fraction is the share of free memory taken (the rest stays for the
// driver and other contexts). inject overwrites one word after the first
// fill so that the count proves the check works.
func memtest(ctx context.Context, c *cuda.Context, s *cuda.Stream, v *verifier, gpu int, fraction float64, rounds int, inject bool) (res result.Memtest) {
	res = result.Memtest{GPU: gpu, Patterns: patternNames}
	free, _, err := c.MemInfo()
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.FreeAt = free
	want := uint64(float64(free) * fraction)
	var chunks []cuda.DevicePtr
	defer func() {
		for _, p := range chunks {
			_ = c.Free(p)
		}
	}()
	for res.Bytes+memtestChunk <= want {
		p, err := c.Alloc(memtestChunk)
		if err != nil {
			break // fragmentation or another context took some: test what we have
		}
		chunks = append(chunks, p)
		res.Bytes += memtestChunk
	}
	if len(chunks) == 0 {
		res.Skipped = fmt.Sprintf("less than %d MiB free", memtestChunk>>20)
		return res
	}
	begin := time.Now()
	words := uint64(memtestChunk / 4)
	for round := 0; round < rounds; round++ {
		for mode := uint32(0); mode < uint32(len(patternNames)); mode++ {
			if ctx.Err() != nil {
				res.Error = "interrupted: " + context.Cause(ctx).Error()
				return res
			}
			seed := uint32(round)*0x01000193 + 0x9e37
			for i, p := range chunks {
				if err := v.fill(p, words, uint64(i)*words, seed, mode); err != nil {
					res.Error = err.Error()
					return res
				}
			}
			if inject && round == 0 && mode == 0 {
				// Fault injection: one word in the middle chunk made wrong.
				p := chunks[len(chunks)/2] + cuda.DevicePtr(4*12345)
				if err := s.SetD32(p, ^memPattern(uint64(len(chunks)/2)*words+12345, seed, mode), 1); err != nil {
					res.Error = err.Error()
					return res
				}
				res.Injected = true
			}
			for i, p := range chunks {
				n, first, err := v.check(p, words, uint64(i)*words, seed, mode)
				if err != nil {
					res.Error = err.Error()
					return res
				}
				res.BadWords += n
				for _, off := range first {
					if len(res.BadAddrs) < 32 {
						res.BadAddrs = append(res.BadAddrs, fmt.Sprintf("0x%x", uint64(p)+4*off))
					}
				}
			}
			res.Passes++
		}
	}
	res.Seconds = time.Since(begin).Seconds()
	if res.Seconds > 0 {
		res.GBs = float64(res.Bytes) * 2 * float64(res.Passes) / res.Seconds / 1e9
	}
	return res
}
