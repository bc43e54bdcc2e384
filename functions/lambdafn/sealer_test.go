package lambdafn

import (
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
)

// The sealer function on DynamoDB (dynalite): a schedule tick seals the
// latest days of every node, each read through its receipts; the next
// tick finds them sealed; anything but a schedule event is refused.
func TestSealerSealsTheLatestDays(t *testing.T) {
	st := dynamotest.NewStore(t)
	now := time.Date(2026, 3, 20, 1, 10, 0, 0, time.UTC)
	// The table's first batch, a week before: its days since are read by
	// their receipts.
	write := now.AddDate(0, 0, -7)
	st.SetClock(func() time.Time { return write })
	if err := st.PutBatch(t.Context(), store.BatchRecord{Node: "gone", Seq: 1, ID: "b", ReceivedAt: write, Body: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	st.SetClock(func() time.Time { return now })
	for _, id := range []string{"n1", "n2"} {
		if err := st.CreateNode(t.Context(), store.Node{ID: id, Provider: "acme", Contract: "c", GPUModel: "H100", GPUCount: 8, CreatedAt: write}); err != nil {
			t.Fatal(err)
		}
	}
	f := NewSealer(st, slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return now })
	tick := json.RawMessage(`{"source":"gpusla.scheduler","schedule":"sealer","scheduled_time":"2026-03-20T01:10:00Z"}`)
	res, err := f.Handle(t.Context(), tick)
	if s, ok := res.(app.SealStats); err != nil || !ok || s.Nodes != 2 || s.Sealed != 2*app.SealBack {
		t.Fatalf("first tick: %+v, %v", res, err)
	}
	var days []time.Time
	if err := st.EachDigest(t.Context(), "n2", write, now, func(d *store.DayDigest) error { days = append(days, d.Day); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(days) != app.SealBack || !days[app.SealBack-1].Equal(time.Date(2026, 3, 19, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("n2's sealed days: %v, want the %d up to 19 March", days, app.SealBack)
	}
	res, err = f.Handle(t.Context(), tick)
	if s, ok := res.(app.SealStats); err != nil || !ok || s.Sealed != 0 || s.Already != 2*app.SealBack {
		t.Fatalf("second tick: %+v, %v", res, err)
	}
	if _, err := f.Handle(t.Context(), json.RawMessage(`{"version":"2.0","rawPath":"/v1/batches"}`)); err == nil {
		t.Fatal("an HTTP event was taken for a tick")
	}
}
