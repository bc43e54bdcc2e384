package notifytest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/robot"
)

// runQuota is the part of the suite about the robot's quota:
// a burst delivered in full at the quota's pace against a service that
// refuses what comes past it, a wait cut short that gives its booking back,
// and a deadline no wait runs past.
func runQuota(t *testing.T, c Case) {
	if len(c.Limits) == 0 {
		return
	}
	per := c.Limits[0] // the per-minute quota: the delivery bound is stated in it
	for _, l := range c.Limits {
		if l.Per > per.Per {
			per = l
		}
	}
	t.Run("BurstAllDeliveredInOrderWithinTheBound", func(t *testing.T) { burst(t, c, 2*per.N+5, per) })
	t.Run("CutWaitGivesItsBookingBack", func(t *testing.T) { cutWait(t, c, per) })
	t.Run("NoWaitPastTheDeadline", func(t *testing.T) { deadline(t, c, per) })
	t.Run("UrgentBookedAheadOfWaitingTicketNotices", func(t *testing.T) { urgentAhead(t, c, per) })
}

// burstAlert is alert i of a burst over five nodes: node i%5's (i/5)th.
func burstAlert(i int) notify.Alert {
	a := opening()
	a.Node = fmt.Sprintf("gz-%02d", i%5)
	a.IncidentID = fmt.Sprintf("gpu_lost@20261130T1000%02d.000Z", i/5)
	return a
}

// burst sends n alerts at once the way the outbox does (one after another
// on the channel; a message the notifier did not send because the quota is
// used up is sent again once it frees, notify.RetryAfter) and checks that
// the service accepted every one, refused none as over its quota, in the
// order given (so each node's order holds), the last within
// ceil(n/N)·Per + 60 s of the first (docs/alerts.md, "Delivery bound").
func burst(t *testing.T, c Case, n int, l robot.Limit) {
	h := setup(t, c, c.Service.Secret())
	for i := range n {
		for try := 0; ; try++ {
			_, err := h.n.Notify(t.Context(), burstAlert(i))
			if err == nil {
				break
			}
			if !errors.Is(err, notify.ErrNotSent) || notify.RetryAfter(err) <= 0 || try > 3 {
				t.Fatalf("alert %d: %v", i, err)
			}
			_ = h.clock.Sleep(t.Context(), notify.RetryAfter(err)) // the outbox's lane waits
		}
	}
	var accepted []Request
	for _, r := range h.rcv.Requests() {
		if r.OverQuota {
			t.Fatalf("the service refused a message at %s as over its quota", r.At)
		}
		if r.Accepted {
			accepted = append(accepted, r)
		}
	}
	if len(accepted) != n {
		t.Fatalf("%d messages accepted, want %d", len(accepted), n)
	}
	for i, r := range accepted {
		if want := burstAlert(i); !strings.Contains(r.Shown, want.Node) || !strings.Contains(r.Shown, want.IncidentID) {
			t.Fatalf("message %d shows %q, want %s's incident %s (the order given)", i, r.Shown, want.Node, want.IncidentID)
		}
	}
	bound := time.Duration((n+l.N-1)/l.N)*l.Per + 60*time.Second
	if last := accepted[n-1].At.Sub(t0); last > bound {
		t.Fatalf("the last of %d messages went out %s after the first; the bound is %s", n, last, bound)
	}
	// At the quota's pace: the first N at once, not spread over the window.
	if at := accepted[min(n, l.N)-1].At.Sub(t0); at >= l.Per/2 && len(c.Limits) == 1 {
		t.Fatalf("message %d of the burst waited %s; the quota allows it at once", l.N, at)
	}
}

// cutWait fills the quota, then makes 50 sends whose wait for it is cut
// short (told to yield): each returns ErrNotSent, sends nothing and gives
// its booking back, so the next message goes out as soon as the quota
// frees, not 50 bookings later.
func cutWait(t *testing.T, c Case, l robot.Limit) {
	h := setup(t, c, c.Service.Secret())
	h.p.MaxWait = 24 * time.Hour
	fill(t, h, l)
	free := h.rcv.Requests()[0].At.Add(l.Per) // the earliest the quota lets the next one go
	yielded, yield := context.WithCancel(t.Context())
	yield()
	for i := range 50 {
		_, err := h.n.Notify(notify.WithYield(t.Context(), yielded), burstAlert(l.N+i))
		if !errors.Is(err, notify.ErrNotSent) {
			t.Fatalf("a send told to yield while waiting: %v, want ErrNotSent", err)
		}
	}
	if got := len(h.rcv.Requests()); got != l.N {
		t.Fatalf("%d requests, want %d: a send that yielded reached the service", got, l.N)
	}
	if _, err := h.n.Notify(t.Context(), burstAlert(0)); err != nil {
		t.Fatal(err)
	}
	reqs := h.rcv.Requests()
	if at := reqs[len(reqs)-1].At; at.Sub(free) > l.Per/30 || !reqs[len(reqs)-1].Accepted {
		t.Fatalf("the next message went at %s (accepted %v); the quota frees at %s: the cut waits kept their bookings",
			at, reqs[len(reqs)-1].Accepted, free)
	}
}

// deadline: with the quota used up and an attempt cut off 22.5 s from now
// (a retry interval of 30 s), the notifier does not begin a wait that
// would not end in time: it returns at once, a NotSentError saying when
// the quota frees, and keeps no booking.
func deadline(t *testing.T, c Case, l robot.Limit) {
	h := setup(t, c, c.Service.Secret())
	fill(t, h, l)
	slept := len(h.clock.Slept)
	ctx, cancel := context.WithTimeout(t.Context(), 22500*time.Millisecond)
	defer cancel()
	_, err := h.n.Notify(ctx, burstAlert(l.N))
	after := notify.RetryAfter(err)
	if !errors.Is(err, notify.ErrNotSent) || after <= 0 || after > l.Per+l.Per/30 {
		t.Fatalf("Notify with the quota used up and 22.5 s left: %v (retry after %s), want ErrNotSent with the time until the quota frees", err, after)
	}
	for _, d := range h.clock.Slept[slept:] {
		t.Fatalf("it waited %s though the wait could not end before the attempt's deadline", d)
	}
	h.noCredential(err)
}

// fill uses up the quota: N messages at once.
func fill(t *testing.T, h *harness, l robot.Limit) {
	t.Helper()
	for i := range l.N {
		if _, err := h.n.Notify(t.Context(), burstAlert(i)); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
}
