package app_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store/storetest"
)

// Concurrent events on one ticket (the API, Slack and the watch at once)
// are all kept: each writer that loses the versioned write reads the
// winner's ticket and adds its event to it. The same idempotency key sent
// concurrently is recorded once and answered as a repeat to the others.
func TestConcurrentEventsOnOneTicketAllKept(t *testing.T) {
	start := sh(t, "2026-03-10 10:00:00")
	w := newDesk(t, start)
	tk := w.open(app.OpenRequest{Node: "gz-01", Priority: "P3", Summary: "fan noise"})
	w.clock.Advance(time.Minute)
	const n = 12
	storetest.Parallel(t, n, func(i int) error {
		_, err := w.d.Record(t.Context(), tk.ID, app.EventRequest{Type: "customer_replied", Key: fmt.Sprintf("reply-%d", i)})
		return err
	})
	repeats := make(chan bool, n)
	storetest.Parallel(t, n, func(int) error {
		rec, err := w.d.Record(t.Context(), tk.ID, app.EventRequest{Type: "provider_responded", Key: "same"})
		repeats <- rec.Repeat
		return err
	})
	close(repeats)
	first := 0
	for r := range repeats {
		if !r {
			first++
		}
	}
	got, err := w.d.Get(t.Context(), tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Events) != n+1 || first != 1 {
		t.Fatalf("%d events (want %d) and %d first recordings of the same key (want 1)", len(got.Events), n+1, first)
	}
	if got.Version < int64(1+n+1) {
		t.Fatalf("version %d after at least %d writes", got.Version, 1+n+1)
	}
}
