package main

import (
	"testing"
	"time"
)

// A short, bounded loadgen run of two rounds: both targets answer every
// batch in every round, and each ingested heartbeat batch costs exactly one
// store write.
func TestLoadgenSmoke(t *testing.T) {
	rounds, ops, err := runLoadgen(t.Context(), t.TempDir(), 20, 4, 200, 2, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 2 {
		t.Fatalf("%d rounds, want 2", len(rounds))
	}
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
	if got := ops.Total("/write"); got != served {
		t.Fatalf("ingest writes %d for %d batches: %s", got, served, ops)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
