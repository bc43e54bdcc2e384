package stress

import (
	"fmt"
	"math"
	"testing"

	"github.com/gpusla/gpusla/probe/stress/result"
)

// healthyOutput fills a launch's output as a correct GPU would.
func healthyOutput(k burnKernel, threads uint64) ([]float32, []float64) {
	n := threads * uint64(k.perThread)
	if k.f64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = k.expected(uint64(i)/uint64(k.perThread), i%k.perThread)
		}
		return nil, out
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(k.expected(uint64(i)/uint64(k.perThread), i%k.perThread))
	}
	return out, nil
}

func TestCompareOutputsCountsEveryWrongValue(t *testing.T) {
	for _, tc := range []struct {
		prec  result.Precision
		arch  int
		wgmma bool
	}{{result.FP32, 90, false}, {result.FP64, 70, false}, {result.FP64, 80, false}, {result.FP64, 90, false}, {result.TF32, 90, false}, {result.BF16, 80, false}, {result.FP16, 90, false},
		{result.TF32, 90, true}, {result.BF16, 90, true}, {result.FP16, 90, true}, {result.FP8, 90, true}} {
		t.Run(fmt.Sprintf("%s/sm%d/wgmma=%v", tc.prec, tc.arch, tc.wgmma), func(t *testing.T) {
			k, err := kernelFor(tc.prec, tc.arch, tc.wgmma)
			if err != nil {
				t.Fatal(err)
			}
			k.prepare(3)
			const threads = 3000 // spans several verification chunks for the wide kernels
			f32, f64 := healthyOutput(k, threads)
			if n, bad := compareOutputs(k, f32, f64, 7); n != 0 || len(bad) != 0 {
				t.Fatalf("healthy output: %d mismatches %v", n, bad)
			}
			// One flipped low bit, the same corruption --fault-inject plants.
			idx := []uint64{0, threads*uint64(k.perThread)/2 + 3, threads*uint64(k.perThread) - 1}
			for _, i := range idx {
				if k.f64 {
					f64[i] = math.Float64frombits(math.Float64bits(f64[i]) ^ 1)
				} else {
					f32[i] = math.Float32frombits(math.Float32bits(f32[i]) ^ 1)
				}
			}
			n, bad := compareOutputs(k, f32, f64, 7)
			if n != uint64(len(idx)) {
				t.Fatalf("want %d mismatches, got %d", len(idx), n)
			}
			for j, m := range bad {
				if m.Index != idx[j] || m.Launch != 7 {
					t.Errorf("mismatch %d at %d (launch %d), want %d (launch 7)", j, m.Index, m.Launch, idx[j])
				}
			}
			// NaN is never right.
			if k.f64 {
				f64[1] = math.NaN()
			} else {
				f32[1] = float32(math.NaN())
			}
			if n, _ := compareOutputs(k, f32, f64, 7); n != uint64(len(idx))+1 {
				t.Fatalf("NaN not counted: %d", n)
			}
		})
	}
}

func TestCompareOutputsKeepsOnlyTheFirstButCountsAll(t *testing.T) {
	k, _ := kernelFor(result.BF16, 90, false)
	f32, _ := healthyOutput(k, 4096)
	for i := range f32 {
		f32[i] += 1
	}
	n, bad := compareOutputs(k, f32, nil, 0)
	if n != uint64(len(f32)) || len(bad) != maxBadKept {
		t.Fatalf("counted %d of %d, kept %d (want %d)", n, len(f32), len(bad), maxBadKept)
	}
}

func TestTensorBurnsNeedAmpere(t *testing.T) {
	for _, p := range []result.Precision{result.TF32, result.BF16, result.FP16} {
		if _, err := kernelFor(p, 75, false); err == nil {
			t.Errorf("%s on 7.5: want an error saying it needs 8.0", p)
		}
	}
	if _, err := kernelFor(result.FP8, 90, false); err == nil {
		t.Error("FP8 without the wgmma kernels: want an error saying it needs sm_90a")
	}
	k, err := kernelFor(result.FP64, 75, false)
	if err != nil || k.name != "burn_fp64" {
		t.Errorf("FP64 on 7.5 should use the FMA kernel, got %q %v", k.name, err)
	}
	if k, _ := kernelFor(result.FP64, 90, false); k.name != "burn_fp64_mma" || k.perThread != mmaAcc64*4 {
		t.Errorf("FP64 on 9.0: kernel %q with %d outputs a thread", k.name, k.perThread)
	}
}

func TestSampleStats(t *testing.T) {
	med, min, cv := sampleStats([]float64{10, 60, 62, 58, 60})
	if med != 60 || min != 58 {
		t.Errorf("median %g min %g (the ramp-up sample must be left out)", med, min)
	}
	if cv <= 0 || cv > 0.03 {
		t.Errorf("cv %g", cv)
	}
	if m, _, c := sampleStats([]float64{5}); m != 5 || c != 0 {
		t.Errorf("one sample: median %g cv %g", m, c)
	}
}

// BenchmarkCompareOutputs measures the host check of one BF16 launch as it
// is on an H200 (132 SMs × 4 blocks × 256 threads × 32 outputs = 4.3 M
// values): it must stay well under the ~100 ms the next launch runs.
func BenchmarkCompareOutputs(b *testing.B) {
	k, _ := kernelFor(result.BF16, 90, false)
	f32, _ := healthyOutput(k, 132*4*256)
	b.SetBytes(int64(4 * len(f32)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n, _ := compareOutputs(k, f32, nil, 0); n != 0 {
			b.Fatal(n)
		}
	}
}

// The wgmma burns' host model: one warpgroup a block, 128 values a thread,
// the uniform step's (a, b) chosen per block, the FLOPs of m64n256kK.
func TestWgmmaKernelGeometry(t *testing.T) {
	for _, tc := range []struct {
		prec result.Precision
		k    int
		name string
	}{{result.TF32, 8, "burn_wg_tf32"}, {result.BF16, 16, "burn_wg_bf16"}, {result.FP16, 16, "burn_wg_fp16"}, {result.FP8, 32, "burn_wg_fp8"}} {
		kn, err := kernelFor(tc.prec, 90, true)
		if err != nil {
			t.Fatal(err)
		}
		if kn.name != tc.name || kn.block != 128 || kn.perThread != wgAcc {
			t.Errorf("%s: kernel %s, block %d, %d values a thread", tc.prec, kn.name, kn.block, kn.perThread)
		}
		perThreadMMA := 2.0 * 64 * 256 * float64(tc.k) / 128
		if kn.flopsPerIter != 4*perThreadMMA || kn.flopsFixed != perThreadMMA {
			t.Errorf("%s: %g FLOPs an iteration, %g fixed; want %g, %g", tc.prec, kn.flopsPerIter, kn.flopsFixed, 4*perThreadMMA, perThreadMMA)
		}
		// Every thread of a block shares its block's (a, b); the next block
		// takes the next row.
		want := make([]float64, kn.perThread)
		for _, tid := range []uint64{0, 127, 128, 128*16 + 5} {
			kn.expectThread(tid, want)
			p := kn.params
			row := (tid / 128) % seedRows
			for e := range want {
				c0 := mmaC0(uint32(tid/32), uint32(tid%32), uint32(e/4), uint32(e%4))
				if w := c0 + float64(tc.k)*p[2*row]*p[2*row+1]; want[e] != w || kn.expected(tid, e) != w {
					t.Fatalf("%s thread %d element %d: expectThread %g, expected %g, want %g", tc.prec, tid, e, want[e], kn.expected(tid, e), w)
				}
			}
		}
	}
}

// The soak runs BF16 where the card has tensor cores, else FP32, unless
// asked for another.
func TestSoakPrecision(t *testing.T) {
	if soakPrecision("", 90) != result.BF16 || soakPrecision("", 75) != result.FP32 || soakPrecision(result.FP64, 90) != result.FP64 {
		t.Error("soak precision")
	}
}
