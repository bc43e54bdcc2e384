package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A probe whose state is lost (spool and state wiped) starts a new chain at
// seq 1 (issue 14, #1). With real `gpusla serve` and `gpuprobe run`: the
// new chain's batches keep the node reachable at once, long before its
// sequence passes the old one, and the restart is in the exported evidence.
func TestProbeStateLostIsNotAnOutage(t *testing.T) {
	b := newBackend(t, storeEmbedded, newFakeSlack(t), "127.0.0.1")
	reg := b.addNode("books-01")
	b.start()
	pr := newProbe(t, reg, snapHealthy, nil)
	pr.start()
	eventually(t, 60*time.Second, "the first chain reaches seq 15", func() bool {
		return b.nodes()["books-01"].LastSeq >= 15
	})
	pr.stop()
	old := b.nodes()["books-01"].LastSeq
	if err := os.RemoveAll(filepath.Join(pr.dir, "spool")); err != nil { // reinstalled: state and spool gone
		t.Fatal(err)
	}
	pr.start()
	eventually(t, 30*time.Second, "the new chain is accepted", func() bool {
		v := b.nodes()["books-01"]
		return v.LastSeq >= 1 && v.LastSeq < old && !v.Unreachable
	})
	// While the new chain's seq is still below the old one's, the node
	// stays reachable and nothing is open.
	deadline := time.Now().Add(time.Minute)
	for v := b.nodes()["books-01"]; v.LastSeq+3 < old && time.Now().Before(deadline); v = b.nodes()["books-01"] {
		if v.Unreachable || len(v.OpenIncidents) > 0 {
			t.Fatalf("new chain at seq %d (old %d): unreachable %v, open %v\n%s", v.LastSeq, old, v.Unreachable, v.OpenIncidents, tail(b.logs.String(), 3000))
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, inc := range b.incidents("books-01") {
		if inc.Open() {
			t.Fatalf("open incident after the restart: %+v", inc)
		}
	}
	pr.stop()
	b.stop()
	out := run(t, b.env, bin.gpusla, "export", "--data", b.dir)
	if !strings.Contains(out, `"type":"chain_restart"`) || !strings.Contains(out, "chain restarted at seq 1 after seq") {
		t.Fatalf("export has no chain_restart evidence:\n%s", tail(out, 2000))
	}
}
