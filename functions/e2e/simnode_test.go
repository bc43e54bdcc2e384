package e2e

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/probe/wire"
)

// simNode pushes real signed, hash-chained batches as a probe does: one at
// a time, the same batch again until it is acknowledged (at-least-once).
type simNode struct {
	id      string
	secret  []byte
	seq     uint64 // last batch made
	prev    string // hash of batch seq
	pending []byte // batch seq's body while unacknowledged
	acked   uint64 // highest acknowledged seq
	stored  int    // acks "stored"
	dups    int    // acks "duplicate"
	signed  int64  // Unix second the pending batch was last signed at
}

// next makes the next batch (two heartbeats) unless one is pending.
func (n *simNode) next(now time.Time) []byte {
	if n.pending != nil {
		return n.pending
	}
	n.seq++
	b := &wire.Batch{V: wire.Version, ID: fmt.Sprintf("%s-%d", n.id, n.seq), Node: n.id, Probe: "e2e-sim", Seq: n.seq,
		Prev: n.prev, CreatedAt: now.UTC(), Observations: []wire.Observation{
			{At: now.Add(-time.Second).UTC(), Kind: wire.KindHeartbeat}, {At: now.UTC(), Kind: wire.KindHeartbeat}}}
	body, err := wire.Encode(b)
	if err != nil {
		panic(err)
	}
	n.prev, n.pending = wire.BodyHash(body), body
	return body
}

// push sends the pending (or a new) batch once; err is a transport error or
// a non-200 answer, and the batch stays pending.
func (n *simNode) push(ctx context.Context, c *http.Client, url string) (time.Duration, error) {
	resend := n.pending != nil
	body := n.next(time.Now())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	// A re-send signed in the same second would be the identical signed
	// request, which the backend refuses as a replay; the probe waits for
	// the next second too (probe/push): the wait is for the clock's next
	// second, which no event announces.
	if now := time.Now(); resend && now.Unix() == n.signed {
		time.Sleep(time.Unix(n.signed+1, 0).Sub(now))
	}
	signAt := time.Now()
	n.signed = signAt.Unix()
	wire.SetHeaders(req.Header, n.id, n.secret, signAt, body)
	start := time.Now()
	r, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	out, _ := io.ReadAll(r.Body)
	r.Body.Close()
	took := time.Since(start)
	if r.StatusCode != http.StatusOK {
		return took, fmt.Errorf("%s seq %d: %d %s", n.id, n.seq, r.StatusCode, out)
	}
	var ack wire.Ack
	if err := json.Unmarshal(out, &ack); err != nil {
		return took, fmt.Errorf("%s seq %d: ack %q: %v", n.id, n.seq, out, err)
	}
	switch ack.Status {
	case wire.AckStored:
		n.stored++
	case wire.AckDuplicate:
		n.dups++
	default:
		return took, fmt.Errorf("%s seq %d: ack status %q", n.id, n.seq, ack.Status)
	}
	n.pending, n.acked = nil, n.seq
	return took, nil
}

// registerSim registers count nodes straight into an embedded store in dir
// (what `gpusla node add` does, without a process per node), with the
// master key serve will find there. Serve must not be running.
func registerSim(t testing.TB, dir, prefix string, count int) []*simNode {
	t.Helper()
	return registerSimEvery(t, dir, prefix, count, 30*time.Second, 2*time.Minute)
}

// registerSimEvery is registerSim with the nodes' heartbeat interval and
// grace (short ones: a node that stops pushing is unreachable seconds later).
func registerSimEvery(t testing.TB, dir, prefix string, count int, every, grace time.Duration) []*simNode {
	t.Helper()
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i*7 + 3)
	}
	if err := os.WriteFile(filepath.Join(dir, "master.key"), []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	box, err := app.NewAESGCMBox(key)
	if err != nil {
		t.Fatal(err)
	}
	st, err := bolt.Open(filepath.Join(dir, "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := app.New(app.Config{Store: st, Notifier: noAlerts{}, Box: box, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	nodes := make([]*simNode, count)
	for i := range nodes {
		n, secret, err := svc.AddNode(context.Background(), app.NewNode{ID: fmt.Sprintf("%s-%04d", prefix, i), Provider: "E2E Compute",
			Contract: "e2e", OrderedAt: time.Now().Add(-time.Hour), GPUModel: "H200", GPUCount: 8, PricePerHour: 20,
			HeartbeatInterval: every, PushInterval: every, Grace: grace})
		if err != nil {
			t.Fatal(err)
		}
		nodes[i] = &simNode{id: n.ID, secret: secret}
	}
	return nodes
}

type noAlerts struct{}

func (noAlerts) Notify(context.Context, notify.Alert) (string, error) { return "", nil }

func (noAlerts) NotifyTicket(context.Context, notify.TicketMessage) (string, error) { return "", nil }
