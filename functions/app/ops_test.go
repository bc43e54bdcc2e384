package app_test

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
)

// TestOpsPerNode simulates three node-hours at the default schedule — a push
// of two heartbeats every 60 s, a health check batch every 5 min, the
// watchdog every minute — and counts the store operations: the inputs of the
// AWS cost model. It pins what the cost design promises: a heartbeat push is
// one write, a watchdog run over a healthy node writes nothing for it.
func TestOpsPerNode(t *testing.T) {
	w := newWorld(t)
	// The world's node already exists; count from here.
	before := w.store.Ops()
	const minutes = 3 * 60 // × 240 for a 30-day month
	checkPushes := 0
	for i := 0; i < minutes; i++ {
		now := w.clock.Now()
		obs := []wire.Observation{{At: now.Add(-30 * time.Second), Kind: wire.KindHeartbeat}, {At: now, Kind: wire.KindHeartbeat}}
		if i%5 == 0 {
			obs = append(obs, wire.Observation{At: now, Kind: wire.KindCheck, Checks: []wire.Check{
				{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Pass, Value: "8", Criterion: "8"},
				{Name: "net.internet", Category: wire.CategoryConnectivity, Verdict: wire.Pass}}})
			checkPushes++
		}
		w.push(obs...)
		w.clock.Advance(time.Minute)
		if _, err := w.svc.Watchdog(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	ops := w.store.Ops()
	for k, v := range before {
		ops[k] -= v
	}
	t.Logf("three node-hours (%d pushes, %d with checks, %d watchdog runs): %s", minutes, checkPushes, minutes, ops)
	if got := ops["PutState/write"]; got != minutes {
		t.Errorf("state writes %d, want one per push (%d)", got, minutes)
	}
	// All checks pass and nothing is pending: of the check batches only the
	// node's first (its delivery evidence) is stored; the rest are not
	// evidence (docs/backend.md).
	if got := ops["PutBatch/write"]; got != 1 {
		t.Errorf("batch bodies stored %d, want only the first of the %d pushes with all-pass checks", got, checkPushes)
	}
	// Writes beyond state + check batches: the backend's liveness record,
	// once per watchdog run (shared by all nodes), nothing per node.
	other := ops.Total("/write") - ops["PutState/write"] - ops["PutBatch/write"] - ops["PutBackendRun/write"]
	if other != 0 {
		t.Errorf("%d other writes in quiet hours: %s", other, ops)
	}
	if got := ops["PutBackendRun/write"]; got > minutes+1 {
		t.Errorf("backend liveness writes %d, want at most one per watchdog run", got)
	}
	if n := len(w.notif.Sent()); n != 0 {
		t.Errorf("healthy hours alerted %d times", n)
	}
}
