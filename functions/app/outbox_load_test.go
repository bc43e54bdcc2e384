package app

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
)

// A listing of the store taken while a send was in flight shows that alert
// as still pending (its attempt counted, not sent). If the send finishes
// before the listing is loaded, loading it must not take the delivered
// alert back: it would sit at the head of its group until its retry came
// due, holding the node's later alerts behind it (and a second send would
// only then find it delivered). TestAlertsKeepTheirOrderThroughAnOutage
// hung on this about once in twenty runs.
func TestLoadLeavesOutWhatWasDeliveredDuringTheListing(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	rec := func(kind notify.AlertKind, n int, attempts int) store.AlertRecord {
		return store.AlertRecord{Node: "gz-01", IncidentID: "unreachable@1", Kind: kind, Attempts: attempts,
			CreatedAt: at.Add(time.Duration(n)), LastAttemptAt: at, Version: int64(attempts)}
	}
	down, up := rec(notify.AlertUnreachable, 0, 1), rec(notify.AlertRecovered, 1, 0)
	o := newOutbox()
	o.load([]store.AlertRecord{down, up}, o.gen)
	listing := []store.AlertRecord{down, up} // listed while down was in flight
	o.popSent(down)                          // then its send finished
	o.load(listing, o.gen)
	head, _, ok := o.next(func(store.AlertRecord) (time.Time, bool) { return time.Time{}, false }, at,
		func(string) (time.Time, bool) { return time.Time{}, true })
	if !ok || head.Kind != notify.AlertRecovered {
		t.Fatalf("head after the load: %+v (found %v), want the recovery: the delivered alert came back", head, ok)
	}
	// Only the listing under way is filtered: a later one is the store's word.
	o.load([]store.AlertRecord{down}, o.gen)
	if o.n != 2 {
		t.Fatalf("%d records after a later listing, want 2", o.n)
	}
}
