package app_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/sla/events"
)

// A node's export reads only the bodies received while an observation made
// in the window could have been: a body the store still keeps from long
// after the window is not even decoded, and one received in the reach is.
func TestExportReadsOnlyTheBatchesThatCanHoldTheWindow(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 1, 0)
	n := store.Node{ID: "gz-01", Contract: "cn-example", GPUCount: 8, OrderedAt: from, HeartbeatInterval: 30 * time.Second, PushInterval: time.Minute}
	if err := st.CreateNode(ctx, n); err != nil {
		t.Fatal(err)
	}
	keep := time.Now().Add(1000 * 24 * time.Hour)
	put := func(seq uint64, recv time.Time) {
		t.Helper()
		// Not a batch at all: decoding it fails the export.
		if err := st.PutBatch(ctx, store.BatchRecord{Node: n.ID, Seq: seq, ID: "b", ReceivedAt: recv, Body: []byte("not a batch"), ExpiresAt: keep}); err != nil {
			t.Fatal(err)
		}
	}
	export := func() error {
		_, err := app.Export(ctx, st, app.ExportSelect{From: from, To: to}, func(*events.Event) error { return nil })
		return err
	}
	put(1, to.Add(events.MaxObservationAge))                 // received when nothing made in March can arrive
	put(2, from.Add(-events.MaxObservationLead-time.Second)) // received before anything of March was made
	if err := export(); err != nil {
		t.Fatalf("export read a body outside the reach of the window: %v", err)
	}
	put(3, to.Add(events.MaxObservationAge-time.Second)) // a spool drained 100 days late: read
	if err := export(); err == nil || !strings.Contains(err.Error(), "stored batch 3") {
		t.Fatalf("export of a window whose reach holds a broken body = %v, want the body's error", err)
	}
}
