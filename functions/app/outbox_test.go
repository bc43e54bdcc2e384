package app_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/waitfor"
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

// gatedSender is a world whose notifier is a gate, with serve's sender
// running; cancel stops the sender, wait waits for it.
func gatedSender(t *testing.T) (*world, *gateNotifier, context.CancelFunc, func()) {
	gate := &gateNotifier{t: t, entered: make(chan notify.Alert, 16), release: make(chan struct{})}
	w := newWorldConfig(t, func(c *app.Config) { c.Notifier = gate })
	ctx, cancel := context.WithCancel(t.Context())
	return w, gate, cancel, w.svc.SendAlerts(ctx)
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

// With the notifier stuck, Ingest still acks (the
// alerts' claims are stored first); once it is released every alert is
// delivered exactly once, and a later watchdog run sends nothing again.
// Order is shown with channels, never with timing.
func TestAlertsNeverHoldUpTheAck(t *testing.T) {
	w, gate, cancel, wait := gatedSender(t)
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

// switchNotifier is a channel that can be down; it records what it
// delivered, with the thread each alert went into, and every call's
// context deadline.
type switchNotifier struct {
	mu        sync.Mutex
	down      bool
	sent      []notify.Alert
	calls     int
	deadlines []time.Duration // how long each call was given (0: no deadline)
	// ticketDeadlines: the same for ticket notices.
	ticketDeadlines []time.Duration
	n               int
}

func (s *switchNotifier) setDown(down bool) { s.mu.Lock(); s.down = down; s.mu.Unlock() }

func (s *switchNotifier) Notify(ctx context.Context, a notify.Alert) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	left := time.Duration(0)
	if dl, ok := ctx.Deadline(); ok {
		left = time.Until(dl)
	}
	s.deadlines = append(s.deadlines, left)
	if s.down {
		return "", errors.New("slack: 503 service unavailable")
	}
	s.sent = append(s.sent, a)
	if a.Thread != "" {
		return a.Thread, nil
	}
	s.n++
	return fmt.Sprintf("thread-%d", s.n), nil
}

func (s *switchNotifier) NotifyTicket(ctx context.Context, _ notify.TicketMessage) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	left := time.Duration(0)
	if dl, ok := ctx.Deadline(); ok {
		left = time.Until(dl)
	}
	s.ticketDeadlines = append(s.ticketDeadlines, left)
	return "thread-t", nil
}

func (s *switchNotifier) delivered() []notify.Alert {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sent)
}

// Through a Slack outage, the alerts of a node arrive
// once each and in the order they were raised, whoever delivers them (serve's
// sender; the Lambdas' watchdog). The outage covers an unreachable incident
// (raised by the watchdog), its recovery (raised at ingest) and a GPU
// incident; one more GPU incident is raised after Slack is back but before
// the failed alerts' retry is due. Before the outbox kept order, the retry
// went in store-key order (the recovery before the alert it closes, outside
// its thread) and the sender sent the newest alert ahead of the pending ones.
func TestAlertsKeepTheirOrderThroughAnOutage(t *testing.T) {
	for _, mode := range []string{"sender", "watchdog"} {
		t.Run(mode, func(t *testing.T) {
			slack := &switchNotifier{}
			w := newWorldConfig(t, func(c *app.Config) { c.Notifier = slack })
			if mode == "sender" {
				ctx, cancel := context.WithCancel(t.Context())
				wait := w.svc.SendAlerts(ctx)
				defer wait()
				defer cancel()
			} else {
				w.svc.DeferAlerts()
			}
			w.push()
			slack.setDown(true)
			w.tickUntil(t0.Add(2 * time.Minute)) // unreachable, its alert fails
			w.push()                             // recovered
			now := w.clock.Now()
			w.push(append(heartbeatsAt(now), checkObs(now, wire.Check{Name: "gpu.burn.fp32.errors",
				Category: wire.CategoryGPUDegraded, Verdict: wire.Fail, GPU: gpu(0), Value: "3 wrong of 1000"}))...)
			if mode == "sender" {
				waitfor.True(t, "the sender tried the unreachable alert", func() bool { slack.mu.Lock(); defer slack.mu.Unlock(); return slack.calls > 0 })
			}
			slack.setDown(false)
			w.clock.Advance(10 * time.Second)
			now = w.clock.Now()
			w.push(append(heartbeatsAt(now), checkObs(now, wire.Check{Name: "gpu.burn.fp32.errors",
				Category: wire.CategoryGPUDegraded, Verdict: wire.Fail, GPU: gpu(1), Value: "1 wrong of 1000"}))...)
			w.liveTicks(2) // the retry is due

			want := []notify.AlertKind{notify.AlertUnreachable, notify.AlertRecovered, notify.AlertDegraded, notify.AlertDegraded}
			waitfor.True(t, "all four alerts delivered", func() bool { return len(slack.delivered()) >= len(want) })
			w.liveTicks(5) // nothing is sent again
			if mode == "sender" {
				waitfor.True(t, "nothing pending", func() bool { p, _ := w.store.ListPendingAlerts(t.Context()); return len(p) == 0 })
			}
			got := slack.delivered()
			kinds := make([]notify.AlertKind, len(got))
			for i, a := range got {
				kinds[i] = a.Kind
			}
			if !slices.Equal(kinds, want) {
				t.Fatalf("delivered %v, want %v once each in the order raised", kinds, want)
			}
			if got[1].Thread == "" || got[1].IncidentID != got[0].IncidentID {
				t.Fatalf("the recovery %+v was not sent in its incident's thread", got[1])
			}
			if got[2].Failed[0].GPU == nil || *got[2].Failed[0].GPU != 0 || *got[3].Failed[0].GPU != 1 {
				t.Fatalf("GPU alerts out of order: %+v then %+v", got[2].Failed, got[3].Failed)
			}
			if p, _ := w.store.ListPendingAlerts(t.Context()); len(p) != 0 {
				t.Fatalf("still pending: %+v", p)
			}
		})
	}
}

// liveTicks runs the watchdog every minute n times, the node pushing
// before each.
func (w *world) liveTicks(n int) {
	w.t.Helper()
	for range n {
		w.clock.Advance(time.Minute)
		w.push()
		if _, err := w.svc.Watchdog(w.t.Context()); err != nil {
			w.t.Fatal(err)
		}
	}
}

// Every attempt at a channel carries a deadline inside the retry interval,
// so a hung channel is given up on before anyone may try the alert again
// (two senders never have one alert in flight at once).
func TestAlertAttemptsAreCutOffBeforeTheirRetry(t *testing.T) {
	slack := &switchNotifier{}
	retry := 40 * time.Second
	w := newWorldConfig(t, func(c *app.Config) { c.Notifier = slack; c.AlertRetry = retry })
	w.svc.DeferAlerts()
	w.push()
	w.tickUntil(t0.Add(2 * time.Minute))
	slack.mu.Lock()
	defer slack.mu.Unlock()
	if len(slack.deadlines) == 0 {
		t.Fatal("no alert was attempted")
	}
	for i, d := range slack.deadlines {
		if d <= 0 || d > retry*3/4 {
			t.Fatalf("attempt %d had %v to run, want a deadline within 3/4 of the %v retry interval", i, d, retry)
		}
	}
}

// With serve's sender running, the watchdog hands pending alerts to the
// sender and never calls a channel itself: a Slack that hangs holds up
// neither its run (which also finds unreachable nodes) nor sends one alert
// a second time while the first attempt is still in flight.
func TestWatchdogNeverWaitsOnTheChannel(t *testing.T) {
	w, gate, cancel, wait := gatedSender(t)
	fail, hb := twoGPUsFail(w)
	w.push(append(hb, fail)...)
	first := <-gate.entered // the sender is stuck in Notify with the first alert
	for range 3 {
		w.clock.Advance(2 * time.Minute) // long past any retry interval
		w.push()
		done := make(chan error, 1)
		go func() { _, err := w.svc.Watchdog(t.Context()); done <- err }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case a := <-gate.entered:
			t.Fatalf("the watchdog sent %s %s while the sender still had %s in flight", a.Kind, a.IncidentID, first.IncidentID)
		}
	}
	close(gate.release)
	second := <-gate.entered
	cancel()
	wait()
	if second.IncidentID == first.IncidentID || len(gate.entered) != 0 {
		t.Fatalf("alerts after the release: %s, then %d more; want the other incident's alert once", second.IncidentID, len(gate.entered))
	}
}

// hookStore runs after once, the first time a node state is written while
// it is armed, right after the write.
type hookStore struct {
	store.Store
	mu    sync.Mutex
	after func()
}

func (h *hookStore) arm(f func()) { h.mu.Lock(); h.after = f; h.mu.Unlock() }

func (h *hookStore) PutState(ctx context.Context, st store.NodeState, prev int64) (int64, error) {
	v, err := h.Store.PutState(ctx, st, prev)
	h.mu.Lock()
	f := h.after
	h.after = nil
	h.mu.Unlock()
	if err == nil && f != nil {
		f()
	}
	return v, err
}

// A recovery computed from an outage the watchdog has just written, and
// claimed before the watchdog got to claim the outage's alert, still goes
// out after that alert and in its thread: the sender holds a node's alerts
// back while an earlier state write of it is still claiming its own.
func TestRecoveryWaitsForTheAlertItCloses(t *testing.T) {
	slack := &switchNotifier{}
	var hooked *hookStore
	w := newWorldConfig(t, func(c *app.Config) {
		c.Notifier = slack
		hooked = &hookStore{Store: c.Store}
		c.Store = hooked
	})
	ctx, cancel := context.WithCancel(t.Context())
	wait := w.svc.SendAlerts(ctx)
	defer wait()
	defer cancel()
	w.push()
	w.clock.Advance(2 * time.Minute)
	hooked.arm(func() {
		// The watchdog has written the outage and not claimed its alert:
		// the node comes back now.
		w.push()
		// Give a sender that does not wait every chance to send the
		// recovery first (one that waits is not held up by this): a
		// bounded look for what must not happen, which a loaded machine
		// can only shorten (a weaker check), never turn into a failure.
		for deadline := time.Now().Add(2 * time.Second); len(slack.delivered()) == 0 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	})
	if _, err := w.svc.Watchdog(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitfor.True(t, "both alerts delivered", func() bool { return len(slack.delivered()) >= 2 })
	got := slack.delivered()
	if len(got) != 2 || got[0].Kind != notify.AlertUnreachable || got[1].Kind != notify.AlertRecovered || got[1].Thread == "" {
		kinds := []string{}
		for _, a := range got {
			kinds = append(kinds, string(a.Kind)+"(thread "+a.Thread+")")
		}
		t.Fatalf("delivered %v, want the unreachable alert, then its recovery in its thread", kinds)
	}
}
