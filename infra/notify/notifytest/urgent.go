package notifytest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/robot"
)

// gatedSleep is a sleep that really waits, on the case's manual clock:
// each sleeper blocks until the test moves the clock to its time (or its
// context ends), so a test can hold many sends waiting for the quota at
// once, as side-by-side callers do, and see what each waits for.
type gatedSleep struct {
	clock   *Clock
	mu      sync.Mutex
	sleep   map[*int]sleeper // the sleepers now waiting
	calls   int
	changed chan struct{} // closed and replaced on every change
	moved   chan struct{} // closed and replaced when the clock moves
}

type sleeper struct {
	until time.Time
	ctx   context.Context
}

func newGatedSleep(c *Clock) *gatedSleep {
	return &gatedSleep{clock: c, sleep: map[*int]sleeper{}, changed: make(chan struct{}), moved: make(chan struct{})}
}

func (g *gatedSleep) changedLocked() { close(g.changed); g.changed = make(chan struct{}) }

// Sleep is the poster's sleep.
func (g *gatedSleep) Sleep(ctx context.Context, d time.Duration) error {
	g.mu.Lock()
	until := g.clock.Now().Add(d)
	me := new(int)
	g.sleep[me] = sleeper{until, ctx}
	g.calls++
	g.changedLocked()
	defer func() { delete(g.sleep, me); g.changedLocked(); g.mu.Unlock() }()
	for {
		if !g.clock.Now().Before(until) {
			return nil
		}
		moved := g.moved
		g.mu.Unlock()
		select {
		case <-ctx.Done():
			g.mu.Lock()
			return ctx.Err()
		case <-moved:
		}
		g.mu.Lock()
	}
}

// await blocks until cond holds of the number of sleep calls and the
// sleepers (a failure guard, not a timing), and returns the sleepers.
func (g *gatedSleep) await(t *testing.T, what string, cond func(calls int, s []sleeper) bool) []sleeper {
	t.Helper()
	guard := time.After(time.Minute)
	for {
		g.mu.Lock()
		s := make([]sleeper, 0, len(g.sleep))
		for _, x := range g.sleep {
			s = append(s, x)
		}
		ok, ch, calls := cond(g.calls, s), g.changed, g.calls
		g.mu.Unlock()
		if ok {
			return s
		}
		select {
		case <-ch:
		case <-guard:
			t.Fatalf("%s: %d sleeps, %d asleep", what, calls, len(s))
		}
	}
}

// advance moves the clock to at and wakes the sleepers whose time came.
func (g *gatedSleep) advance(at time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if d := at.Sub(g.clock.Now()); d > 0 {
		_ = g.clock.Sleep(context.Background(), d)
	}
	close(g.moved)
	g.moved = make(chan struct{})
}

// poke tells await that something it may be waiting on happened.
func (g *gatedSleep) poke() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.changedLocked()
}

// drain runs the clock for the n sends still under way until each has
// returned its error to errs: once every one of them is asleep, the clock
// moves to the earliest time one waits for, never past a sleeper's time
// (so no message goes later than it was booked, as on a real clock).
func (g *gatedSleep) drain(t *testing.T, n int, errs <-chan error) {
	t.Helper()
	for n > 0 {
		s := g.await(t, "the sends asleep or done", func(_ int, s []sleeper) bool { return len(s) == n || len(errs) > 0 })
		if len(errs) > 0 {
			if err := <-errs; err != nil {
				t.Fatalf("send: %v", err)
			}
			n--
			continue
		}
		first := s[0].until
		for _, x := range s {
			if x.until.Before(first) {
				first = x.until
			}
		}
		g.advance(first)
	}
}

// urgentTag marks the urgent send's context, so the test tells its sleep.
type urgentTag struct{}

// ticketN is ticket notice i of a burst.
func ticketN(i int) notify.TicketMessage {
	m := ticketMsg()
	m.Ticket = fmt.Sprintf("T-%04d", i)
	return m
}

// freeAt is the first time the quota allows a message after the requests
// the service has seen.
func freeAt(h *harness, limits []robot.Limit) time.Time {
	free := h.clock.Now()
	reqs := h.rcv.Requests()
	for _, q := range limits {
		if k := len(reqs) - q.N; k >= 0 {
			if at := reqs[k].At.Add(q.Per + q.Per/60); at.After(free) {
				free = at
			}
		}
	}
	return free
}

// urgentAhead: with the quota used up and a burst of N ticket
// notices from N callers side by side (the ticket watch and the Slack
// commands send them outside the alert outbox) all waiting for it, an
// urgent alert (AsUrgent, a lost GPU) is booked at the first time the
// quota allows, not behind the burst, which would be a whole window
// later: the ticket notices book again behind it and are all delivered
// too, none refused by the service as over its quota.
func urgentAhead(t *testing.T, c Case, l robot.Limit) {
	h := setup(t, c, c.Service.Secret())
	h.p.MaxWait = 24 * time.Hour
	fill(t, h, l)
	free := freeAt(h, c.Limits)
	g := newGatedSleep(h.clock)
	h.p.Sleep = g.Sleep
	k := l.N
	errs := make(chan error, k)
	for i := range k {
		go func() { _, err := h.n.NotifyTicket(t.Context(), ticketN(i)); errs <- err; g.poke() }()
	}
	g.await(t, "the ticket notices waiting", func(calls int, s []sleeper) bool { return calls == k && len(s) == k })
	urgent := make(chan error, 1)
	a := burstAlert(l.N)
	a.Node = "gz-99"
	uctx := context.WithValue(notify.AsUrgent(t.Context()), urgentTag{}, true)
	go func() { _, err := h.n.Notify(uctx, a); urgent <- err }()
	// Settled: the urgent alert asleep until its booking, and every notice
	// asleep too, none of them woken (moved) and not yet booked again.
	s := g.await(t, "the urgent alert and the notices booked", func(_ int, s []sleeper) bool {
		tagged := false
		for _, x := range s {
			if x.ctx.Err() != nil {
				return false
			}
			tagged = tagged || x.ctx.Value(urgentTag{}) != nil
		}
		return tagged && len(s) == k+1
	})
	var booked time.Time
	for _, x := range s {
		if x.ctx.Value(urgentTag{}) != nil {
			booked = x.until
		}
	}
	if booked.Sub(free) > l.Per/60 {
		t.Fatalf("the urgent alert is booked for %s; the quota frees at %s: it is queued behind the ticket notices", booked, free)
	}
	g.advance(booked)
	if err := <-urgent; err != nil {
		t.Fatalf("urgent alert: %v", err)
	}
	var at time.Time
	for _, r := range h.rcv.Requests() {
		if strings.Contains(r.Shown, "gz-99") {
			at = r.At
		}
	}
	if at.IsZero() || at.Sub(free) > l.Per/60 {
		t.Fatalf("the urgent alert went at %s; the quota frees at %s", at, free)
	}
	g.drain(t, k, errs)
	accepted := 0
	for _, r := range h.rcv.Requests() {
		if r.OverQuota {
			t.Fatalf("the service refused a message at %s as over its quota", r.At)
		}
		if r.Accepted {
			accepted++
		}
	}
	if want := l.N + k + 1; accepted != want {
		t.Fatalf("%d messages accepted, want %d", accepted, want)
	}
}
