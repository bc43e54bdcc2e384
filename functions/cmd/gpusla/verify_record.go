package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/replacement"
)

// verifyRecord checks a node's acceptance record and prints what it says:
// who, when, how long the soak ran, and each criterion's verdict.
func verifyRecord(cmd *cobra.Command, f io.ReaderAt, size int64, name, keyID string) error {
	res, err := replacement.VerifyRecord(f, size, keyID)
	if err != nil {
		return fmt.Errorf("verify %s: %w", name, err)
	}
	out := mismatches(cmd, res.Problems)
	m := res.Manifest
	node := m.Node
	if node == "" {
		node = "(no node id)"
	}
	soak := time.Duration(m.Soak.PlannedSeconds * float64(time.Second)).String()
	if m.Soak.Shortened {
		soak += fmt.Sprintf(" (shortened: the seed's is %s)", time.Duration(m.Soak.SeedSeconds*float64(time.Second)))
	}
	fmt.Fprintf(out, "%s: acceptance record of node %q on host %q, probe %s, %s to %s (%.0f s; planned %.0f s); soak %s; %d files checked\n",
		name, node, m.Hostname, m.Probe, m.Started.Format(time.RFC3339), m.Finished.Format(time.RFC3339), m.WallSeconds, m.PlannedSeconds, soak, res.Files)
	if r := m.Replayed; r != nil {
		fmt.Fprintf(out, "REPLAYED from the recorded snapshot %q (sha256 %s, taken %s on host %q by probe %s): nothing in this record was measured on a card\n",
			r.File, r.SHA256, r.TakenAt.Format(time.RFC3339), r.Hostname, r.Probe)
	}
	for _, r := range m.Rows {
		fig := ""
		if r.Value != nil {
			fig = " " + strconv.FormatFloat(r.Shown, 'f', r.Digits, 64) + " " + r.Unit
		}
		fmt.Fprintf(out, "  %-18s %-14s%s\n", r.Key, r.Verdict, fig)
	}
	fmt.Fprintf(out, "verdict %s\nsigned by key %s\n", m.Verdict, m.KeyID)
	if !res.OK() {
		return fmt.Errorf("%s does not verify: %d mismatch(es)", name, len(res.Problems))
	}
	fmt.Fprintln(out, "OK: the node's signature and every file match the manifest")
	return nil
}
