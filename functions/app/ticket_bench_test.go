package app_test

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
)

// BenchmarkTicketWatch100: one watchdog tick over 100 open tickets with
// nothing new to say (the steady state, every minute), with the store
// operations a tick costs.
func BenchmarkTicketWatch100(b *testing.B) {
	t := &testing.T{}
	opened := time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC)
	w := newDesk(t, opened)
	for i := 0; i < 100; i++ {
		if _, _, err := w.d.Open(b.Context(), app.OpenRequest{Node: "gz-01", Priority: "P3"}); err != nil {
			b.Fatal(err)
		}
	}
	w.clock.Set(opened.Add(time.Minute))
	if _, err := w.d.Watch(b.Context()); err != nil { // sends the opened notices
		b.Fatal(err)
	}
	before := w.store.Ops()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res, err := w.d.Watch(b.Context()); err != nil || res.Tickets != 100 || res.Sent != 0 {
			b.Fatalf("%+v %v", res, err)
		}
	}
	b.StopTimer()
	after := w.store.Ops()
	b.ReportMetric(float64(after.Total("/read")-before.Total("/read"))/float64(b.N), "reads/op")
	b.ReportMetric(float64(after.Total("/query")-before.Total("/query"))/float64(b.N), "queries/op")
	b.ReportMetric(float64(after.Total("/write")-before.Total("/write"))/float64(b.N), "writes/op")
}
