package stress

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactFMA32 rounds a*b+c once to float32 through arbitrary precision.
func exactFMA32(a, b, c float32) float32 {
	x := new(big.Float).SetPrec(200).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetPrec(200).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetPrec(200).SetFloat64(float64(c)))
	f, _ := x.Float32()
	return f
}

func TestFMA32MatchesExactRounding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		a := float32(r.Float64()*4 - 2)
		b := float32(r.Float64()*4 - 2)
		if i%2 == 0 {
			b = a // the burn squares
		}
		c := float32(-1.4 - 0.59*r.Float64())
		if got, want := fma32(a, b, c), exactFMA32(a, b, c); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fma32(%g, %g, %g) = %g, want %g", a, b, c, got, want)
		}
	}
}

// The double-rounding case: a*b+c lies just above a float32 midpoint by
// less than a float64 ulp, so float64 rounding lands on the midpoint and
// a second rounding to even would go the wrong way.
func TestFMA32DoubleRoundingCase(t *testing.T) {
	a := float32(1 + 1.0/(1<<12)) // 1 + 2^-12
	b := float32(1 + 1.0/(1<<12)) // product 1 + 2^-11 + 2^-24
	c := float32(1.0 / (1 << 30)) // nudges past the midpoint by a hair
	got, want := fma32(a, b, c-c), exactFMA32(a, b, 0)
	if got != want {
		t.Fatalf("exact product: got %g want %g", got, want)
	}
	got, want = fma32(a, b, c), exactFMA32(a, b, c)
	if math.Float32bits(got) != math.Float32bits(want) {
		t.Fatalf("fma32 = %x, want %x", math.Float32bits(got), math.Float32bits(want))
	}
}

func TestFMAOrbitStaysBounded(t *testing.T) {
	for _, v := range fmaExpected32(100000) {
		if math.IsNaN(float64(v)) || math.Abs(float64(v)) > 2 {
			t.Fatalf("orbit left [-2, 2]: %g", v)
		}
	}
	for _, v := range fmaExpected64(100000) {
		if math.IsNaN(v) || math.Abs(v) > 2 {
			t.Fatalf("orbit left [-2, 2]: %g", v)
		}
	}
}

func TestMMAExpectedIsExactInFloat32(t *testing.T) {
	p := mmaParams()
	for w := uint32(0); w < 64; w++ {
		for l := uint32(0); l < 32; l++ {
			for j := uint32(0); j < mmaAcc; j++ {
				for r := uint32(0); r < 4; r++ {
					for _, k := range []int{8, 16, 32} {
						v := mmaExpected(w, l, j, r, w/4, k, p)
						if float64(float32(v)) != v || v != math.Trunc(v) {
							t.Fatalf("expected value %g is not an exact float32 integer", v)
						}
						// FP8 accumulation on Hopper keeps about 14 bits
						// (burn.cu): the K = 32 result must stay below 2^13.
						if k == 32 && math.Abs(v) >= 1<<13 {
							t.Fatalf("FP8 expected value %g not below 2^13", v)
						}
					}
				}
			}
		}
	}
}
