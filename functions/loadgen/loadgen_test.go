package loadgen

import (
	"testing"
	"time"
)

// A short, bounded loadgen run of two rounds: both targets answer every
// batch in every round, and each ingested heartbeat batch costs exactly one
// store write.
func TestLoadgenSmoke(t *testing.T) {
	b, err := newLoadBench(t.Context(), t.TempDir(), 20)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	res, err := b.sweep(t.Context(), []int{4}, 200, 2, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || len(res[0]) != 2 {
		t.Fatalf("results %d×%d, want 1×2", len(res), len(res[0]))
	}
	rounds := res[0]
	var served int64
	for _, rd := range rounds {
		for _, r := range []loadResult{rd.Serve, rd.Noop} {
			if r.Errors != 0 || r.Batches == 0 || r.P99 < r.P50 {
				t.Fatalf("%s: %+v", r.Name, r)
			}
		}
		if rd.WallRatio() <= 0 || rd.CPURatio() <= 0 {
			t.Fatalf("ratios %v %v", rd.WallRatio(), rd.CPURatio())
		}
		served += rd.Serve.Batches
	}
	if got := b.ops.Total("/write"); got != served {
		t.Fatalf("ingest writes %d for %d batches: %s", got, served, b.ops)
	}
}

func TestMedianAndPeaks(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	r := func(serve, noop float64) loadRound {
		return loadRound{Serve: loadResult{PerSecond: serve}, Noop: loadResult{PerSecond: noop}}
	}
	// results[level][round]: round 1 peaks at 128 / 64, round 2 at 256 / 128.
	ps := peaks([]int{64, 128, 256}, [][]loadRound{{r(5, 30), r(5, 20)}, {r(7, 25), r(6, 24)}, {r(6, 20), r(8, 22)}})
	if len(ps) != 2 || ps[0].ServeW != 128 || ps[0].NoopW != 64 || ps[1].ServeW != 256 || ps[1].NoopW != 128 {
		t.Fatalf("peaks: %+v", ps)
	}
	if got := ps[1].Ratio(); got != 8.0/24 {
		t.Fatalf("round 2 ratio %v, want %v", got, 8.0/24)
	}
}
