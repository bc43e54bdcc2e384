package app_test

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/batchform"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

// A spool that dropped batches says so in its next batch: the drop is
// evidence, the batch is kept in full, the seq jump it explains is not
// reported again as a gap, and the export carries a batch_dropped event.
func TestSpoolDropIsEvidenceAndExported(t *testing.T) {
	w := newWorld(t)
	w.push() // seq 1
	w.clock.Advance(time.Minute)
	// Seqs 2..4 were dropped by the spool; seq 5 reports it.
	w.p.Seq = 4
	now := w.clock.Now()
	b := &wire.Batch{V: wire.Version, ID: "gz-01-b5", Node: "gz-01", Probe: "t", Seq: 5, Prev: w.p.Prev, CreatedAt: now,
		Dropped:      &wire.Drop{Batches: 3, FromSeq: 2, ToSeq: 4, Reason: "spool full"},
		Observations: []wire.Observation{{At: now, Kind: wire.KindHeartbeat}}}
	body, err := wire.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Ingest(t.Context(), w.p.Request(now, body)); err != nil {
		t.Fatal(err)
	}
	ev, err := w.store.ListEvidence(t.Context(), "gz-01", t0, t0.Add(time.Hour))
	if err != nil || len(ev) != 1 || ev[0].Kind != store.EvidenceDrop {
		t.Fatalf("evidence %+v, %v: want exactly one drop (the seq jump is explained)", ev, err)
	}
	rec, err := w.store.GetBatch(t.Context(), "gz-01", 5)
	if err != nil || !slices.Contains(rec.Why, "drop") {
		t.Fatalf("batch 5 %+v, %v: want kept for the drop", rec.Why, err)
	}
	// Kept with its decoded form, which is the body's batch.
	if fromBody, err := wire.Decode(rec.Body); err != nil || !bytes.Equal(rec.Form, batchform.Append(nil, fromBody)) {
		t.Fatalf("batch 5's form (%d bytes) is not its body's batch (%v)", len(rec.Form), err)
	}
	var drops []events.Event
	if _, err := app.Export(t.Context(), w.store, app.ExportSelect{From: t0.Add(-time.Hour), To: t0.Add(time.Hour)}, func(e *events.Event) error {
		if e.Type == events.TypeBatchDropped {
			drops = append(drops, *e)
		}
		return e.Validate()
	}); err != nil {
		t.Fatal(err)
	}
	if len(drops) != 1 || drops[0].FromSeq != 2 || drops[0].ToSeq != 4 || drops[0].Batches != 3 || drops[0].Reason != "spool full" {
		t.Fatalf("exported drops %+v", drops)
	}
}

// A jump in seq with no drop report is a gap: evidence, not a reject.
func TestSeqGapWithoutDropIsEvidence(t *testing.T) {
	w := newWorld(t)
	w.push()
	w.clock.Advance(time.Minute)
	w.p.Seq = 6
	if ack := w.push(); ack.Status != wire.AckStored {
		t.Fatalf("ack %+v", ack)
	}
	ev, _ := w.store.ListEvidence(t.Context(), "gz-01", t0, t0.Add(time.Hour))
	if len(ev) != 1 || ev[0].Kind != store.EvidenceSeqGap || ev[0].Seq != 7 {
		t.Fatalf("evidence %+v, want one seq gap at 7", ev)
	}
}

// A node that pushes faster than the signature memory covers: a captured
// request replayed inside the timestamp window, while the node is down, is
// not a sign of life — the outage stays open.
func TestOldRequestReplayedDoesNotEndAnOutage(t *testing.T) {
	w := newWorld(t)
	n, secret, err := w.svc.AddNode(t.Context(), app.NewNode{ID: "fast-01", Provider: "acme", Contract: "c", OrderedAt: t0, GPUCount: 1,
		HeartbeatInterval: 5 * time.Second, PushInterval: 10 * time.Second, Grace: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w.p.Node, w.p.Secret, w.p.Seq, w.p.Prev = n.ID, secret, 0, ""
	var first app.IngestRequest
	for i := 0; i < 12; i++ {
		now := w.clock.Now()
		_, body := w.p.Batch(now, wire.Observation{At: now, Kind: wire.KindHeartbeat})
		r := w.p.Request(now, body)
		if i == 0 {
			first = r
		}
		if _, err := w.svc.Ingest(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		w.clock.Advance(10 * time.Second)
	}
	// Silent for a minute: unreachable.
	for i := 0; i < 6; i++ {
		w.clock.Advance(10 * time.Second)
		if _, err := w.svc.Watchdog(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	open := func() bool {
		st, _ := w.store.GetState(t.Context(), "fast-01")
		return st.Eval.Unreachable != nil
	}
	if !open() {
		t.Fatal("no unreachable incident after a minute of silence")
	}
	if _, err := w.svc.Ingest(t.Context(), first); err != nil {
		t.Fatalf("replayed old request: %v", err)
	}
	if !open() {
		t.Fatal("a replayed old request closed the outage")
	}
	if w.notif.Count(notify.AlertRecovered) != 0 {
		t.Fatalf("alerts %+v", w.notif.Sent())
	}
}
