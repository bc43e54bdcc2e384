package stress

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/gpusla/gpusla/probe/cuda"
	"github.com/gpusla/gpusla/probe/nccl"
	"github.com/gpusla/gpusla/probe/stress/result"
)

// busFactor is nccl-tests' all-reduce bus-bandwidth factor 2(n−1)/n: the
// share of the message each rank must send and receive in an optimal
// ring, so that busbw is comparable with the links' bandwidth whatever
// the number of GPUs. One rank moves nothing: 0.
func busFactor(ranks int) float64 {
	if ranks < 2 {
		return 0
	}
	return 2 * float64(ranks-1) / float64(ranks)
}

// allReduceSizes are the message sizes from min to max bytes, doubling,
// each a whole number of elements of elem bytes.
func allReduceSizes(min, max uint64, elem int) []uint64 {
	var out []uint64
	for s := min; s <= max; s *= 2 {
		if s >= uint64(elem) && s%uint64(elem) == 0 {
			out = append(out, s)
		}
	}
	return out
}

// The input pattern: rank r's element i holds arValue(r, i, ranks), a
// small whole number, so that every partial sum in any reduction order is
// exact in float32 and in bfloat16 (whose 8 significant bits hold every
// whole number up to 256) and the result can be compared bit for bit.
// The pattern repeats every arPeriod elements, so a host chunk of a
// multiple of that length fills buffers of any size.
const arPeriod = 4096

func arModulus(ranks int) int { return max(256/max(ranks, 1)-1, 1) }

func arValue(rank, i, ranks int) int {
	return ((i%arPeriod)*7+rank*13)%arModulus(ranks) + 1
}

// arSum is the exact expected element i of the result.
func arSum(i, ranks int) int {
	s := 0
	for r := 0; r < ranks; r++ {
		s += arValue(r, i, ranks)
	}
	return s
}

// arBits encodes a whole number (≤ 256) as dt's bit pattern.
func arBits(v int, dt nccl.DataType) uint32 {
	b := math.Float32bits(float32(v))
	if dt == nccl.BFloat16 {
		return b >> 16 // exact: the low 16 mantissa bits of a small whole number are zero
	}
	return b
}

// fillPattern writes rank's pattern for elements [0, n) of dt into buf.
func fillPattern(buf []byte, rank, ranks int, dt nccl.DataType) {
	n := len(buf) / dt.Size()
	for i := 0; i < n; i++ {
		putElem(buf, i, dt, arBits(arValue(rank, i, ranks), dt))
	}
}

func putElem(buf []byte, i int, dt nccl.DataType, bits uint32) {
	switch dt {
	case nccl.BFloat16:
		buf[2*i], buf[2*i+1] = byte(bits), byte(bits>>8)
	default:
		buf[4*i], buf[4*i+1], buf[4*i+2], buf[4*i+3] = byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24)
	}
}

func getElem(buf []byte, i int, dt nccl.DataType) uint32 {
	if dt == nccl.BFloat16 {
		return uint32(buf[2*i]) | uint32(buf[2*i+1])<<8
	}
	return uint32(buf[4*i]) | uint32(buf[4*i+1])<<8 | uint32(buf[4*i+2])<<16 | uint32(buf[4*i+3])<<24
}

// checkSums compares elements [first, first+len(buf)/size) of a result
// with the exact sums; it returns the number wrong and the first one.
func checkSums(buf []byte, first, ranks int, dt nccl.DataType, want []uint32) (wrong int64, firstBad string) {
	n := len(buf) / dt.Size()
	for i := 0; i < n; i++ {
		w := want[(first+i)%arPeriod]
		if got := getElem(buf, i, dt); got != w {
			if wrong == 0 {
				firstBad = fmt.Sprintf("element %d: bits %#x, want %#x (the sum %d)", first+i, got, w, arSum(first+i, ranks))
			}
			wrong++
		}
	}
	return wrong, firstBad
}

// expectedSums is one period of the result's bit patterns.
func expectedSums(ranks int, dt nccl.DataType) []uint32 {
	w := make([]uint32, arPeriod)
	for i := range w {
		w[i] = arBits(arSum(i, ranks), dt)
	}
	return w
}

// AllReduce options and their defaults.
const (
	arMinBytes     = 8
	arChunk        = 16 << 20 // host staging chunk, a multiple of the pattern's period
	arWarmup       = 5
	arMinIters     = 20 // nccl-tests' default
	arMaxIters     = 2000
	arTargetPerRow = 100 * time.Millisecond
)

// arRank is one GPU's buffers.
type arRank struct {
	g          *device
	stream     *cuda.Stream
	send, recv cuda.DevicePtr
	host       *cuda.HostBuffer
}

// runAllReduce measures every size from 8 B to maxBytes for float32 and
// bfloat16 over gpus and checks every element of every result.
func runAllReduce(ctx context.Context, gpus []*device, maxBytes uint64) (r result.AllReduce) {
	for _, g := range gpus {
		r.GPUs = append(r.GPUs, g.Index)
	}
	r.NVLS = "off (NCCL_NVLS_ENABLE=0)"
	lib, err := nccl.Load()
	if err != nil {
		r.Skipped = err.Error()
		return r
	}
	r.Library, r.NCCL = lib.Path, nccl.VersionString(lib.Version)
	// NCCL's calls for several communicators must come from one thread.
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		allReduceOn(ctx, lib, gpus, maxBytes, &r)
	}()
	<-done
	return r
}

func allReduceOn(ctx context.Context, lib *nccl.Library, gpus []*device, maxBytes uint64, r *result.AllReduce) {
	ranks := make([]*arRank, len(gpus))
	defer func() {
		for _, k := range ranks {
			if k == nil {
				continue
			}
			_ = k.g.ctx.Bind()
			_ = k.stream.Synchronize()
			_ = k.g.ctx.Free(k.send)
			_ = k.g.ctx.Free(k.recv)
			_ = k.host.Free()
			_ = k.stream.Destroy()
		}
	}()
	// Buffers: a send and a receive buffer of the largest size on every
	// GPU, no more than a quarter of the smallest free memory.
	for _, g := range gpus {
		if err := g.ctx.Bind(); err != nil {
			r.Error = err.Error()
			return
		}
		free, _, err := g.ctx.MemInfo()
		if err != nil {
			r.Error = err.Error()
			return
		}
		for maxBytes > arChunk && maxBytes > free/4 {
			maxBytes /= 2
		}
	}
	for i, g := range gpus {
		_ = g.ctx.Bind()
		k := &arRank{g: g}
		var err error
		if k.stream, err = g.ctx.NewStream(); err == nil {
			if k.send, err = g.ctx.Alloc(maxBytes); err == nil {
				if k.recv, err = g.ctx.Alloc(maxBytes); err == nil {
					k.host, err = g.ctx.AllocHost(arChunk)
				}
			}
		}
		ranks[i] = k
		if err != nil {
			r.Error = fmt.Sprintf("GPU %d: %v", g.Index, err)
			return
		}
	}
	devs := make([]int, len(gpus))
	for i, g := range gpus {
		devs[i] = g.Index
	}
	comms, err := lib.InitAll(devs)
	if err != nil {
		r.Error = err.Error()
		return
	}
	defer func() { _ = comms.Destroy() }()
	bufs := make([]nccl.Buffer, len(ranks))
	for i, k := range ranks {
		bufs[i] = nccl.Buffer{Send: uint64(k.send), Recv: uint64(k.recv), Stream: k.stream.Handle()}
	}
	for _, dt := range []nccl.DataType{nccl.Float32, nccl.BFloat16} {
		if err := fillInputs(ranks, dt, maxBytes); err != nil {
			r.Error = err.Error()
			return
		}
		want := expectedSums(len(ranks), dt)
		for _, size := range allReduceSizes(arMinBytes, maxBytes, dt.Size()) {
			if ctx.Err() != nil {
				r.Error = fmt.Sprintf("stopped: %v", context.Cause(ctx))
				return
			}
			row, err := timeAllReduce(comms, ranks, bufs, size, dt)
			if err == nil {
				err = comms.AsyncError()
			}
			if err != nil {
				r.Error = fmt.Sprintf("%s %d B: %v", dt, size, err)
				return
			}
			for _, k := range ranks {
				wrong, first, err := verifyRank(k, size, len(ranks), dt, want)
				if err != nil {
					r.Error = fmt.Sprintf("%s %d B: read back GPU %d: %v", dt, size, k.g.Index, err)
					return
				}
				if wrong > 0 && r.FirstBad == "" {
					r.FirstBad = fmt.Sprintf("%s %d B on GPU %d: %s", dt, size, k.g.Index, first)
				}
				row.Wrong += wrong
				r.Checked += int64(size) / int64(dt.Size())
			}
			r.Wrong += row.Wrong
			r.Rows = append(r.Rows, row)
		}
	}
}

// fillInputs writes every rank's pattern into its send buffer and clears
// its receive buffer, so that a result left from the previous data type
// can never pass for a new one.
func fillInputs(ranks []*arRank, dt nccl.DataType, size uint64) error {
	for i, k := range ranks {
		if err := k.g.ctx.Bind(); err != nil {
			return err
		}
		fillPattern(k.host.Bytes(), i, len(ranks), dt)
		for off := uint64(0); off < size; off += arChunk {
			n := min(arChunk, size-off)
			if err := k.stream.CopyHtoD(k.send+cuda.DevicePtr(off), k.host, n); err != nil {
				return err
			}
		}
		if err := k.stream.SetD32(k.recv, 0xffffffff, size/4); err != nil {
			return err
		}
		if err := k.stream.Synchronize(); err != nil {
			return err
		}
	}
	return nil
}

// syncAll waits for every rank's stream.
func syncAll(ranks []*arRank) error {
	var errs []error
	for _, k := range ranks {
		if err := k.g.ctx.Bind(); err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, k.stream.Synchronize())
	}
	return errors.Join(errs...)
}

// timeAllReduce is one row: warm-up, a calibration operation, then a
// timed run of operations long enough for a steady figure.
func timeAllReduce(comms *nccl.Comms, ranks []*arRank, bufs []nccl.Buffer, size uint64, dt nccl.DataType) (result.AllReduceRow, error) {
	count := size / uint64(dt.Size())
	row := result.AllReduceRow{DType: dt.String(), Bytes: size, Count: count}
	run := func(n int) (time.Duration, error) {
		t0 := time.Now()
		for i := 0; i < n; i++ {
			if err := comms.AllReduce(bufs, count, dt); err != nil {
				return 0, err
			}
		}
		err := syncAll(ranks)
		return time.Since(t0), err
	}
	if _, err := run(arWarmup); err != nil {
		return row, err
	}
	one, err := run(1)
	if err != nil {
		return row, err
	}
	row.Iters = itersFor(one)
	d, err := run(row.Iters)
	if err != nil {
		return row, err
	}
	sec := d.Seconds() / float64(row.Iters)
	row.Micros = sec * 1e6
	row.AlgGBs = float64(size) / sec / 1e9
	row.BusGBs = row.AlgGBs * busFactor(len(ranks))
	return row, nil
}

// itersFor is how many operations make a row of about arTargetPerRow,
// given one took d; never fewer than nccl-tests' 20.
func itersFor(d time.Duration) int {
	if d <= 0 {
		return arMaxIters
	}
	n := int(arTargetPerRow / d)
	return min(max(n, arMinIters), arMaxIters)
}

// verifyRank reads k's result back in chunks and compares every element.
func verifyRank(k *arRank, size uint64, ranks int, dt nccl.DataType, want []uint32) (wrong int64, first string, err error) {
	if err := k.g.ctx.Bind(); err != nil {
		return 0, "", err
	}
	for off := uint64(0); off < size; off += arChunk {
		n := min(arChunk, size-off)
		if err := k.stream.CopyDtoH(k.host, k.recv+cuda.DevicePtr(off), n); err != nil {
			return wrong, first, err
		}
		if err := k.stream.Synchronize(); err != nil {
			return wrong, first, err
		}
		w, f := checkSums(k.host.Bytes()[:n], int(off)/dt.Size(), ranks, dt, want)
		if w > 0 && first == "" {
			first = f
		}
		wrong += w
	}
	return wrong, first, nil
}
