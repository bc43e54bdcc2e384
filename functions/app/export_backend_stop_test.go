package app_test

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/sla/events"
)

// A backend that recorded its own stop was down until the next start, even
// for less than MaxTickGap: the export must say so (backend_outage), or a
// short restart of `gpusla serve` is charged to every node as unreachable
// time. Found by the end-to-end test (functions/e2e).
func TestExportShortStoppedBackendIsAnOutage(t *testing.T) {
	w := newWorld(t)
	w.push()
	w.clock.Advance(10 * time.Second)
	stoppedAt := w.clock.Now()
	if err := w.svc.BackendStop(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(30 * time.Second) // far below MaxTickGap
	startedAt := w.clock.Now()
	if _, err := w.svc.BackendStart(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(10 * time.Second)
	if _, err := w.svc.Watchdog(t.Context()); err != nil { // a tick of the new run
		t.Fatal(err)
	}
	var outages []events.Event
	_, err := app.Export(t.Context(), w.store, app.ExportSelect{From: t0.Add(-time.Hour), To: t0.Add(time.Hour)}, func(e *events.Event) error {
		if e.Type == events.TypeBackendOutage {
			outages = append(outages, *e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(outages) != 1 || !outages[0].Start.Equal(stoppedAt) || !outages[0].End.Equal(startedAt) {
		t.Fatalf("backend outages %+v, want one from the stop %s to the start %s", outages, stoppedAt, startedAt)
	}
}
