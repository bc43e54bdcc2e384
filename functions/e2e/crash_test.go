package e2e

import (
	"context"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/httpapi"
)

// TestServeKilledDuringHeavyIngest: kill -9 of `gpusla serve` while 8
// clients push as fast as they can; after the restart the store opens,
// every acknowledged batch is there, nothing unacknowledged was invented
// beyond what was sent, and every node's chain continues without a break
// (the batch in flight at the kill is re-sent and answered stored or
// duplicate).
func TestServeKilledDuringHeavyIngest(t *testing.T) {
	b := newBackend(t, storeEmbedded, newFakeSlack(t), "127.0.0.1")
	nodes := registerSim(t, b.dir, "crash", 40)
	b.start()
	url := b.url(httpapi.PathBatches)
	client := &http.Client{Timeout: 5 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	var acked atomic.Int64
	var wg sync.WaitGroup
	const workers = 8
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(mine []*simNode) {
			defer wg.Done()
			for ctx.Err() == nil {
				for _, n := range mine {
					if _, err := n.push(ctx, client, url); err == nil {
						acked.Add(1)
					}
				}
			}
		}(nodes[w*len(nodes)/workers : (w+1)*len(nodes)/workers])
	}
	eventually(t, 60*time.Second, "500 batches acknowledged before the kill", func() bool { return acked.Load() >= 500 })
	b.kill() // SIGKILL, mid-write
	cancel()
	wg.Wait()
	t.Logf("killed serve after %d acknowledged batches", acked.Load())

	b.start()
	ns := b.nodes()
	inFlight := 0
	for _, n := range nodes {
		got := ns[n.id].LastSeq
		if got < n.acked {
			t.Errorf("%s: acknowledged up to seq %d, the store has only %d after kill -9", n.id, n.acked, got)
		}
		if got > n.seq {
			t.Errorf("%s: the store has seq %d, the client made only %d", n.id, got, n.seq)
		}
		if n.pending != nil {
			inFlight++
		}
	}
	// Resume: the pending batch again, then three more, all accepted.
	dupsBefore := 0
	for _, n := range nodes {
		dupsBefore += n.dups
	}
	for _, n := range nodes {
		for i := 0; i < 4; i++ {
			if _, err := n.push(context.Background(), client, url); err != nil {
				t.Fatalf("after the restart: %v", err)
			}
		}
	}
	ns = b.nodes()
	for _, n := range nodes {
		if ns[n.id].LastSeq != n.seq {
			t.Errorf("%s: store at seq %d after resuming, client at %d", n.id, ns[n.id].LastSeq, n.seq)
		}
	}
	dups := -dupsBefore
	for _, n := range nodes {
		dups += n.dups
	}
	t.Logf("%d batches were in flight at the kill; %d of them had been stored and came back as duplicates", inFlight, dups)
	b.stop()
	ev := filepath.Join(t.TempDir(), "events.jsonl")
	run(t, b.env, bin.gpusla, "export", "--data", b.dir, "--from", time.Now().Add(-2*time.Hour).UTC().Format(time.RFC3339),
		"--to", time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "-o", ev)
	checkExactlyOnce(t, ev) // no chain break, no seq stored twice
}
