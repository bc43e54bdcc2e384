package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/probe/wire"
)

// gateNotifier blocks every Notify until release is closed, announcing
// each call on entered first; a call made inside an ingest request (its
// context carries inRequest) is an error and does not block.
type gateNotifier struct {
	t       *testing.T
	entered chan notify.Alert
	release chan struct{}
}

type inRequest struct{}

func (g *gateNotifier) Notify(ctx context.Context, a notify.Alert) (string, error) {
	if ctx.Value(inRequest{}) != nil {
		g.t.Errorf("alert %s %s sent inside the ingest request: the ack waited for it", a.Kind, a.IncidentID)
		return "thread", nil
	}
	g.entered <- a
	<-g.release
	return "thread-" + a.IncidentID, nil
}

func (g *gateNotifier) NotifyTicket(context.Context, notify.TicketMessage) (string, error) {
	return "", nil
}

// twoGPUsFail is the batch after five minutes of passing checks in which
// a burn finds wrong values on two GPUs: two incidents, two alerts.
func twoGPUsFail(w *world) (wire.Observation, []wire.Observation) {
	for i := 0; i < 5; i++ {
		now := w.clock.Now()
		w.push(append(heartbeatsAt(now), checkObs(now, wire.Check{Name: "gpu.temperature", Category: wire.CategoryGPUDegraded, Verdict: wire.Pass, GPU: gpu(0)}))...)
		w.clock.Advance(time.Minute)
	}
	now := w.clock.Now()
	fail := checkObs(now,
		wire.Check{Name: "gpu.burn.fp32.errors", Category: wire.CategoryGPUDegraded, Verdict: wire.Fail, GPU: gpu(0), Value: "3 wrong of 1000"},
		wire.Check{Name: "gpu.burn.fp32.errors", Category: wire.CategoryGPUDegraded, Verdict: wire.Fail, GPU: gpu(1), Value: "1 wrong of 1000"})
	return fail, heartbeatsAt(now)
}

// Issue 16, point 6: with the notifier stuck, Ingest still acks (the
// alerts' claims are stored first); once it is released every alert is
// delivered exactly once, and a later watchdog run sends nothing again.
// Order is shown with channels, never with timing.
func TestAlertsNeverHoldUpTheAck(t *testing.T) {
	gate := &gateNotifier{t: t, entered: make(chan notify.Alert, 16), release: make(chan struct{})}
	w := newWorldConfig(t, func(c *app.Config) { c.Notifier = gate })
	ctx, cancel := context.WithCancel(t.Context())
	wait := w.svc.SendAlerts(ctx)
	fail, hb := twoGPUsFail(w)

	now := w.clock.Now()
	_, body := w.p.Batch(now, append(hb, fail)...)
	acked := make(chan wire.Ack, 1)
	go func() {
		ack, err := w.svc.Ingest(context.WithValue(t.Context(), inRequest{}, true), w.p.Request(now, body))
		if err != nil {
			t.Errorf("ingest: %v", err)
		}
		acked <- ack
	}()
	first := <-gate.entered // the sender is inside Notify, blocked
	ack := <-acked          // and the ack came all the same
	if ack.Status != wire.AckStored {
		t.Fatalf("ack %+v, want stored", ack)
	}
	pending, err := w.store.ListPendingAlerts(t.Context())
	if err != nil || len(pending) != 2 {
		t.Fatalf("the ack came before both alerts' records were stored: %d pending, %v", len(pending), err)
	}

	close(gate.release)
	second := <-gate.entered
	if first.IncidentID == second.IncidentID || first.Kind != notify.AlertDegraded || second.Kind != notify.AlertDegraded {
		t.Fatalf("alerts %s %s and %s %s, want the two incidents' degraded alerts", first.Kind, first.IncidentID, second.Kind, second.IncidentID)
	}
	cancel()
	wait() // the sender has recorded what it sent
	w.clock.Advance(5 * time.Minute)
	if _, err := w.svc.Watchdog(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := len(gate.entered); n != 0 {
		t.Fatalf("%d alerts sent again after delivery", n)
	}
	for _, inc := range w.incidents() {
		rec, err := w.store.GetAlert(t.Context(), "gz-01", inc.ID, notify.AlertDegraded, "")
		if err != nil || rec.SentAt.IsZero() || rec.Attempts != 1 {
			t.Fatalf("alert of %s: %+v %v, want sent on the first attempt", inc.ID, rec, err)
		}
	}
}

// Without a sender (the ingest Lambda), a deferred alert waits for the
// watchdog's run, which sends it at once and once.
func TestDeferredAlertsGoWithTheWatchdog(t *testing.T) {
	w := newWorld(t)
	w.svc.DeferAlerts()
	fail, hb := twoGPUsFail(w)
	w.push(append(hb, fail)...)
	if n := len(w.notif.Sent()); n != 0 {
		t.Fatalf("%d alerts sent during ingest, want none (deferred)", n)
	}
	for range 2 {
		if _, err := w.svc.Watchdog(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if n := w.notif.Count(notify.AlertDegraded); n != 2 {
		t.Fatalf("%d degraded alerts after two watchdog runs, want 2 (one per incident, once): %+v", n, w.notif.Sent())
	}
}
