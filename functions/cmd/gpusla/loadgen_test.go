package main

import (
	"bytes"
	"strings"
	"testing"
)

// The command runs two levels end to end and prints the table and the peak.
func TestLoadgenCommand(t *testing.T) {
	cmd := newLoadgenCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--nodes", "8", "--workers", "2,4", "--rounds", "1", "--max-batches", "50", "--duration", "2s"})
	if err := cmd.ExecuteContext(t.Context()); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"round 1   2 workers serve ", "round 1   4 workers no-op ", "round 1 peak: serve ", "peak throughput, serve / no-op: median ", "store ops per ingested batch: 1.000 writes"} {
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
