package main

import (
	"bytes"
	"strings"
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
	rounds, err := b.rounds(t.Context(), 4, 200, 2, 2*time.Second)
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
	if got := b.ops.Total("/write"); got != served {
		t.Fatalf("ingest writes %d for %d batches: %s", got, served, b.ops)
	}
}

// The command runs two levels end to end and prints the table and the peak.
func TestLoadgenCommand(t *testing.T) {
	cmd := newLoadgenCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--nodes", "8", "--workers", "2,4", "--rounds", "1", "--max-batches", "50", "--duration", "2s"})
	if err := cmd.ExecuteContext(t.Context()); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"  2 workers round 1 serve ", "  4 workers round 1 no-op ", "peak throughput: serve ", "store ops per ingested batch: 1.000 writes"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	cmd = newLoadgenCmd()
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--workers", "4,0"})
	if err := cmd.ExecuteContext(t.Context()); err == nil || !strings.Contains(err.Error(), "--workers") {
		t.Fatalf("--workers 4,0 gave %v", err)
	}
}

func TestMedianAndPeak(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	s, n := peak([]level{{Workers: 64, Serve: 5, Noop: 30}, {Workers: 128, Serve: 7, Noop: 25}, {Workers: 256, Serve: 6, Noop: 20}})
	if s.Workers != 128 || n.Workers != 64 {
		t.Fatalf("peak: serve at %d, no-op at %d; want 128, 64", s.Workers, n.Workers)
	}
}
