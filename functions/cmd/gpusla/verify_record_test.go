package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/wire/acceptance"
	"github.com/gpusla/gpusla/sla/trial"
)

// A node's acceptance record through `gpusla verify`: who, when, the soak
// (shortened, said so), each criterion with its figure, the key; a record
// signed for another key is refused with --key.
func TestVerifyAcceptanceRecord(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	v := 4077.4
	rows := trial.Judge(trial.Node{Model: "H200 SXM", GPUs: 1, Results: []trial.Result{{Name: "gpu.bw.d2d", Verdict: "pass", Number: &v, Unit: "GB/s"}}})
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	m := &acceptance.Manifest{Node: "n1", Hostname: "gpu-01", Probe: "v1.2", Started: start, Finished: start.Add(5 * time.Minute),
		WallSeconds: 300, PlannedSeconds: 310, Soak: acceptance.Soak{PlannedSeconds: 180, SeedSeconds: 1800, Shortened: true},
		Rows: rows, Verdict: acceptance.VerdictOf(rows)}
	var zip bytes.Buffer
	if _, err := acceptance.Write(&zip, m, []acceptance.File{{Name: acceptance.ReportMD, Data: []byte("# trial\n")}}, key); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "acceptance.zip")
	os.WriteFile(path, zip.Bytes(), 0o644)
	out, err := runCLI(t, "verify", path)
	for _, w := range []string{`acceptance record of node "n1" on host "gpu-01", probe v1.2`, "soak 3m0s (shortened: the seed's is 30m0s)",
		"memory_bandwidth   pass           84.95 %", "burn_30min         not measured", "verdict incomplete", "signed by key " + m.KeyID, "OK: the node's signature"} {
		if !strings.Contains(out, w) {
			t.Errorf("verify lacks %q:\n%s", w, out)
		}
	}
	if err != nil {
		t.Errorf("verify: %v", err)
	}
	if out, err := runCLI(t, "verify", "--key", "00112233445566778899aabbccddeeff", path); err == nil || !strings.Contains(out, "MISMATCH manifest.json: signed by key") {
		t.Errorf("another key: %v\n%s", err, out)
	}
}
