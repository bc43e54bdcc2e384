package e2e

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/probe/wire"
)

// A probe whose state is lost (spool and state wiped) starts a new chain at
// seq 1. With real `gpusla serve` and `gpuprobe run`: the
// new chain's batches keep the node reachable at once, long before its
// sequence passes the old one, and the restart is in the exported evidence.
func TestProbeStateLostIsNotAnOutage(t *testing.T) {
	b, _, pr := startBooksNode(t, "books-01")
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
	// stays reachable and nothing is open: watched every 200 ms until the
	// seq catches up (the event that ends the watch) or a minute passes. A
	// loaded machine makes fewer looks (a weaker check), never a failure.
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

// One wrong probe clock, sent to a real `gpusla serve` next
// to a real `gpuprobe run`: observations dated in year 0001 and an hour
// ahead are set aside with evidence; first_heartbeat_at stays the node's
// real first heartbeat, no outage opens, and the export holds neither.
func TestWrongProbeClockIsSetAside(t *testing.T) {
	b, reg, pr := startBooksNode(t, "books-02")
	eventually(t, 60*time.Second, "the probe's first batches", func() bool { return b.nodes()["books-02"].LastSeq >= 3 })
	first := b.nodes()["books-02"].FirstHeartbeatAt
	now := time.Now().UTC()
	batch := &wire.Batch{V: wire.Version, ID: "books-02-wrong-clock", Node: "books-02", Probe: "e2e", Seq: 1 << 20,
		Prev: strings.Repeat("0", 64), CreatedAt: now, Observations: []wire.Observation{
			{At: now, Kind: wire.KindHeartbeat},
			{At: time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC), Kind: wire.KindHeartbeat},
			{At: now.Add(time.Hour), Kind: wire.KindHeartbeat}}}
	body, err := wire.Encode(batch)
	if err != nil {
		t.Fatal(err)
	}
	ts, sig := wire.Sign([]byte(reg.Secret), now, body) // the probe signs with the secret file's text
	req, _ := http.NewRequest("POST", b.url(httpapi.PathBatches), bytes.NewReader(body))
	req.Header.Set(wire.HeaderNode, "books-02")
	req.Header.Set(wire.HeaderTimestamp, ts)
	req.Header.Set(wire.HeaderSignature, sig)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("wrong-clock batch: %d", resp.StatusCode)
	}
	// A deliberate pause, not a wait: past heartbeat + grace a wrongly
	// opened outage would show. A loaded machine can only hide it (a
	// weaker check), never fail a right backend.
	time.Sleep(5 * time.Second)
	v := b.nodes()["books-02"]
	if !v.FirstHeartbeatAt.Equal(first) || v.LastHeartbeatAt.After(time.Now().Add(time.Minute)) || v.Unreachable || len(v.OpenIncidents) > 0 {
		t.Fatalf("after a wrong clock: first heartbeat %s (was %s), last %s, unreachable %v, open %v",
			v.FirstHeartbeatAt, first, v.LastHeartbeatAt, v.Unreachable, v.OpenIncidents)
	}
	pr.stop()
	b.stop()
	out := run(t, b.env, bin.gpusla, "export", "--data", b.dir)
	if strings.Contains(out, `"at":"0001-01-01`) || strings.Contains(out, now.Add(time.Hour).Format("2006-01-02T15:04:05")) {
		t.Fatalf("export holds the wrong-clock observations:\n%s", tail(out, 2000))
	}
}

// startBooksNode registers a node on a fresh embedded backend and runs
// serve and a healthy probe for it.
func startBooksNode(t *testing.T, id string) (*backend, registered, *probe) {
	b := newBackend(t, storeEmbedded, newFakeSlack(t), "127.0.0.1")
	reg := b.addNode(id)
	b.start()
	pr := newProbe(t, reg, snapHealthy, nil)
	pr.start()
	return b, reg, pr
}
