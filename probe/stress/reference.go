package stress

import (
	"math"
	"runtime"
	"sync"
)

// The burn kernels' work is deterministic; these functions compute on the
// host exactly what a healthy GPU must produce, bit for bit (see
// probe/kernels/burn.cu for the kernels they mirror).

// Kernel geometry shared with burn.cu.
const (
	fmaChains = 8   // CHAINS: independent FMA chains a thread
	fmaUnroll = 16  // UNROLL: FMA steps per chain per loop iteration
	mmaAcc    = 8   // ACC: accumulators a warp in the f32 tensor burns
	mmaAcc64  = 4   // ACC64: accumulators a warp in the FP64 tensor burn
	wgAcc     = 128 // WG_ACC: FP32 accumulators a thread in the wgmma burns
	seedRows  = 16  // rows of seeds; thread t (or warp w) uses row t % seedRows
)

// splitmix is a tiny deterministic generator, so that the seeds (and with
// them the expected results) are the same on every run and machine.
type splitmix uint64

func (s *splitmix) next() uint64 {
	*s += 0x9E3779B97F4A7C15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// unit returns a float64 in [0, 1).
func (s *splitmix) unit() float64 { return float64(s.next()>>11) / (1 << 53) }

// fmaSeeds returns seedRows*fmaChains (x0, c) pairs laid out as the kernel
// reads them: c in [-1.99, -1.4] keeps x <- x*x + c inside [c, c*c + c],
// which lies inside [-2, 2], so the orbit never overflows, and for these c
// it is chaotic, so every bit keeps changing.
func fmaSeeds() []float64 {
	g := splitmix(0x6770757072 /* "gpupr" */)
	out := make([]float64, 0, seedRows*fmaChains*2)
	for i := 0; i < seedRows*fmaChains; i++ {
		c := -1.4 - 0.59*g.unit()
		x := c + (c*c)*g.unit() // in [c, c + c*c]
		out = append(out, x, c)
	}
	return out
}

// fma32 is the IEEE-754 single-precision fused multiply-add round(a*b + c),
// computed exactly. a*b is exact in float64 (24+24 bits); the float64 sum
// s = p + c may round, and rounding s again to float32 could then differ
// from rounding the exact value once ("double rounding") when s falls
// exactly halfway between two float32s. TwoSum gives the exact error e of
// the sum; in that halfway case the sign of e says which way the exact
// value lies, and nudging s one float64 ulp that way makes the second
// rounding correct.
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	s := p + float64(c)
	// TwoSum (Knuth): s + e == p + c exactly.
	bv := s - p
	e := (p - (s - bv)) + (float64(c) - bv)
	if e != 0 && isFloat32Midpoint(s) {
		if e > 0 {
			s = math.Nextafter(s, math.Inf(1))
		} else {
			s = math.Nextafter(s, math.Inf(-1))
		}
	}
	return float32(s)
}

// isFloat32Midpoint reports whether a float64 in float32's normal range
// lies exactly halfway between two adjacent float32 values: its 29 low
// mantissa bits (those float32 drops) are exactly 1 followed by zeros.
func isFloat32Midpoint(s float64) bool {
	bits := math.Float64bits(s)
	return bits&(1<<29-1) == 1<<28
}

// fmaExpected32 runs every chain of the seeds through steps FMA steps and
// returns the final values in the kernel's layout (row, chain).
func fmaExpected32(steps int) []float32 {
	seeds := fmaSeeds()
	out := make([]float32, seedRows*fmaChains)
	parallel(len(out), func(i int) {
		x, c := float32(seeds[2*i]), float32(seeds[2*i+1])
		for n := 0; n < steps; n++ {
			x = fma32(x, x, c)
		}
		out[i] = x
	})
	return out
}

// fmaExpected64 is fmaExpected32 in double precision, where Go's math.FMA
// is the exact IEEE operation.
func fmaExpected64(steps int) []float64 {
	seeds := fmaSeeds()
	out := make([]float64, seedRows*fmaChains)
	parallel(len(out), func(i int) {
		x, c := seeds[2*i], seeds[2*i+1]
		for n := 0; n < steps; n++ {
			x = math.FMA(x, x, c)
		}
		out[i] = x
	})
	return out
}

// mmaParams returns seedRows (a, b) pairs of small integers (3..15), exact
// in BF16, FP16, TF32, FP8 E4M3 and FP64, with |K*a*b| small enough that
// every partial sum stays exact in the accumulator (for FP8, K = 32:
// 32*15*15 + 128 < 2^13).
func mmaParams() []float64 {
	g := splitmix(0x6d6d61)
	out := make([]float64, 0, 2*seedRows)
	for i := 0; i < seedRows; i++ {
		a := float64(3 + g.next()%13) // 3..15
		b := float64(3 + g.next()%13)
		if g.next()&1 == 1 {
			b = -b
		}
		out = append(out, a, b)
	}
	return out
}

// mmaC0 is the accumulator's starting value (burn.cu's c0f): element r of
// accumulator j of lane l in warp w.
func mmaC0(w, l, j, r uint32) float64 {
	return float64(int32((w*131+l*7+j*17+r*3)&255) - 128)
}

// mmaExpected is what element r of accumulator j of lane l in warp w holds
// after the tensor burn: C0 + K*a*b (K is the shape's inner dimension), with
// (a, b) from params row group % seedRows (group: the warp for mma.sync,
// the block for wgmma).
func mmaExpected(w, l, j, r, group uint32, k int, params []float64) float64 {
	row := group % seedRows
	return mmaC0(w, l, j, r) + float64(k)*params[2*row]*params[2*row+1]
}

// parallel runs f(0..n-1) on all CPUs.
func parallel(n int, f func(i int)) {
	workers := runtime.NumCPU()
	if workers > n {
		workers = n
	}
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// memPattern mirrors burn.cu's pattern(): the 32-bit word expected at word
// index i of the tested range.
func memPattern(i uint64, seed, mode uint32) uint32 {
	switch mode {
	case 0:
		return uint32(i) ^ uint32(i>>32) ^ seed
	case 1:
		return ^(uint32(i) ^ uint32(i>>32) ^ seed)
	case 2:
		if i&1 == 1 {
			return 0xAAAAAAAA ^ seed
		}
		return 0x55555555 ^ seed
	default:
		z := i + uint64(seed)*0x9E3779B97F4A7C15
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		return uint32(z ^ (z >> 31))
	}
}
