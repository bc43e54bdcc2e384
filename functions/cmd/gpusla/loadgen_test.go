package main

import (
	"testing"
	"time"
)

// A short, bounded loadgen run: both targets answer every batch, and each
// ingested heartbeat batch costs exactly one store write.
func TestLoadgenSmoke(t *testing.T) {
	res, ops, err := runLoadgen(t.Context(), t.TempDir(), 20, 4, 200, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Errors != 0 || r.Batches == 0 || r.P99 < r.P50 {
			t.Fatalf("%s: %+v", r.Name, r)
		}
	}
	if got := ops.Total("/write") - 20; got != res[0].Batches {
		t.Fatalf("ingest writes %d for %d batches: %s", got, res[0].Batches, ops)
	}
}
