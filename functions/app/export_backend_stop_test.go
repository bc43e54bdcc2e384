package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
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
	if err := w.svc.BackendStop(t.Context(), w.clock.Now()); err != nil {
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

// StoppedSince: the backend is down from its recorded stop on only when
// the run that ended last recorded that stop and until is after it; a run
// that stopped and was followed by another, a run still ticking (or
// crashed: no stop recorded) and an until at or before the stop give none.
func TestStoppedSince(t *testing.T) {
	t0 := time.Date(2026, 11, 10, 2, 0, 0, 0, time.UTC)
	stopped := store.BackendRun{ID: "serve@1", Start: t0.Add(-time.Hour), LastTick: t0, Stopped: true}
	live := store.BackendRun{ID: "serve@2", Start: t0.Add(time.Hour), LastTick: t0.Add(2 * time.Hour)}
	for _, c := range []struct {
		name  string
		runs  []store.BackendRun
		until time.Time
		want  bool
	}{
		{"stopped, a record two days later", []store.BackendRun{stopped}, t0.Add(48 * time.Hour), true},
		{"until at the stop", []store.BackendRun{stopped}, t0, false},
		{"until before the stop", []store.BackendRun{stopped}, t0.Add(-time.Minute), false},
		{"restarted after the stop", []store.BackendRun{stopped, live}, t0.Add(48 * time.Hour), false},
		{"an older stopped run beside a later live one", []store.BackendRun{live, stopped}, t0.Add(48 * time.Hour), false},
		{"never stopped (crash, Lambda)", []store.BackendRun{{ID: "lambda@1", Start: t0.Add(-time.Hour), LastTick: t0}}, t0.Add(48 * time.Hour), false},
		{"no run", nil, t0, false},
	} {
		o, ok := app.StoppedSince(c.runs, c.until)
		if ok != c.want {
			t.Errorf("%s: %v, want %v", c.name, ok, c.want)
			continue
		}
		if ok && (!o.Start.Equal(t0) || !o.End.Equal(c.until) || !strings.Contains(o.Summary, "serve@1 stopped there")) {
			t.Errorf("%s: %+v, want %v to %v naming serve@1", c.name, o, t0, c.until)
		}
	}
}
