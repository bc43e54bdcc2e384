package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

// A release is validated and recorded once: the field and
// the value are named, a second release at another time is a conflict, the
// same one again is accepted.
func TestReleaseNodeValidation(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	n, err := w.store.GetNode(ctx, "gz-01")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		id   string
		at   time.Time
		kind app.ErrorKind
		want string
	}{
		{"unknown node", "nope", t0, app.ENotFound, `node: "nope" is not registered`},
		{"no time", "gz-01", time.Time{}, app.EInvalid, "at: missing"},
		{"before the order", "gz-01", n.OrderedAt.Add(-time.Second), app.EInvalid, "at: " + n.OrderedAt.Add(-time.Second).Format(time.RFC3339) + " is before the node was ordered"},
		{"in the future", "gz-01", t0.Add(time.Hour), app.EInvalid, "at: " + t0.Add(time.Hour).Format(time.RFC3339) + " is in the future"},
	} {
		_, err := w.svc.ReleaseNode(ctx, app.NodeRelease{Node: c.id, At: c.at})
		if app.ErrorCode(err) != c.kind || err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v (%s), want %s %q", c.name, err, app.ErrorCode(err), c.kind, c.want)
		}
	}
	if got, _ := w.store.GetNode(ctx, "gz-01"); !got.ReleasedAt.IsZero() {
		t.Fatalf("a refused release was stored: %s", got.ReleasedAt)
	}
	at := t0.Add(2 * time.Minute) // inside the clock slack
	if _, err := w.svc.ReleaseNode(ctx, app.NodeRelease{Node: "gz-01", At: at}); err != nil {
		t.Fatalf("release within the slack: %v", err)
	}
	if _, err := w.svc.ReleaseNode(ctx, app.NodeRelease{Node: "gz-01", At: at}); err != nil {
		t.Errorf("the same release again: %v, want it accepted", err)
	}
	_, err = w.svc.ReleaseNode(ctx, app.NodeRelease{Node: "gz-01", At: at.Add(-time.Minute)})
	if app.ErrorCode(err) != app.EConflict || !strings.Contains(err.Error(), at.Format(time.RFC3339)) {
		t.Errorf("another release: %v, want a conflict naming the recorded %s", err, at.Format(time.RFC3339))
	}
	if _, err := app.ParseTime("at", "tomorrow"); err == nil || !strings.Contains(err.Error(), `at: "tomorrow" is not an RFC 3339 time`) {
		t.Errorf("ParseTime(tomorrow) = %v", err)
	}
}

// After the release the node is out of service: what was open ends at the
// release with no alert, silence and failures after it open nothing and
// alert nobody, and the export carries the release for the report.
func TestReleasedNodeRaisesNothing(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	w.push()
	// A GPU goes missing: gpu.count is definitive, so one failure opens.
	g := 0
	w.clock.Advance(time.Minute)
	w.push(append(apptest.Heartbeats(w.clock.Now(), 30*time.Second, 2), apptest.Check(w.clock.Now(),
		wire.Check{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: wire.Fail, Value: "7", GPU: &g}))...)
	if inc := w.only("gpu_lost"); !inc.Open() {
		t.Fatalf("gpu_lost incident %+v, want open", inc)
	}
	alerts := len(w.notif.Sent())
	rel := w.clock.Now().Add(30 * time.Second)
	w.clock.Set(rel.Add(10 * time.Second))
	if _, err := w.svc.ReleaseNode(ctx, app.NodeRelease{Node: "gz-01", At: rel}); err != nil {
		t.Fatal(err)
	}
	// Silent for an hour after the release, then failing again.
	w.tickUntil(rel.Add(time.Hour))
	w.push(append(apptest.Heartbeats(w.clock.Now(), 30*time.Second, 2), apptest.Check(w.clock.Now(),
		wire.Check{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: wire.Fail, Value: "6", GPU: &g}))...)
	w.tickUntil(w.clock.Now().Add(10 * time.Minute))
	if got := w.notif.Sent(); len(got) != alerts {
		t.Errorf("%d alerts after the release: %+v", len(got)-alerts, got[alerts:])
	}
	for _, inc := range w.incidents() {
		if inc.Kind == "unreachable" || inc.Open() || !inc.End.Equal(rel) {
			t.Errorf("incident after the release: %+v; want only the gpu_lost one, closed at the release %s", inc, rel)
		}
	}
	var rels []events.Event
	if _, err := app.Export(ctx, w.store, app.ExportSelect{From: t0.Add(-24 * time.Hour), To: w.clock.Now()}, func(e *events.Event) error {
		if e.Type == events.TypeNodeReleased {
			rels = append(rels, *e)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(rels) != 1 || rels[0].Node != "gz-01" || !rels[0].At.Equal(rel) || rels[0].Validate() != nil {
		t.Errorf("exported releases %+v, want one node_released of gz-01 at %s", rels, rel)
	}
}

// A node given back owes no replacement: its hardware ticket's replacement
// clock stops at the release, so the watchdog sends no breach of it when
// the deadline passes after the release; a ticket opened after the release
// is refused, naming the node and the release, and starts no clock. A
// ticket dated before the release (recorded after it) keeps its clock.
func TestTicketClocksStopAtTheRelease(t *testing.T) {
	start := ny(t, "2026-03-10 09:00:00")
	w := newDesk(t, start)
	tk := w.open(app.OpenRequest{Node: "ny-01", Priority: "sev2", Category: "hardware", Key: "hw-1", By: "cli:ops"})
	w.record(tk.ID, app.EventRequest{Type: "provider_responded", By: "cli:ops"})
	w.watch()
	rel := start.Add(2 * time.Hour)
	w.clock.Set(rel)
	if _, err := w.svc.ReleaseNode(t.Context(), app.NodeRelease{Node: "ny-01", At: rel, By: "cli:ops"}); err != nil {
		t.Fatal(err)
	}
	w.clock.Set(start.Add(13 * time.Hour)) // the 12 h replacement deadline has passed
	if res := w.watch(); res.Breaches != 0 {
		t.Fatalf("watch past the deadline of a released node's replacement: %+v, want no breach", res)
	}
	got, err := w.d.Get(t.Context(), tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tim, _, _ := w.d.Timing(&got, w.clock.Now()); tim.Replacement == nil || tim.Replacement.Status != "pending" {
		t.Fatalf("replacement %+v, want pending: its clock stopped at the release", tim.Replacement)
	}
	_, _, err = w.d.Open(t.Context(), app.OpenRequest{Node: "ny-01", Priority: "sev2", Category: "hardware", Key: "hw-2", By: "cli:ops"})
	if app.ErrorCode(err) != app.EConflict || !strings.Contains(err.Error(), "node: node ny-01 was released (given back) at "+rel.Format(time.RFC3339)) {
		t.Fatalf("a ticket after the release: %v", err)
	}
	if _, _, err := w.d.Open(t.Context(), app.OpenRequest{Node: "ny-01", Priority: "sev2", Key: "hw-3", By: "cli:ops", At: rel.Add(-time.Minute)}); err != nil {
		t.Fatalf("a ticket dated before the release: %v", err)
	}
}
