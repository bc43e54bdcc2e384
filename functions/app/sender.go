package app

import (
	"context"
	"sync"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
)

// shutdownGrace bounds a send still under way when the sender is stopped:
// a request already made is let finish (and recorded, so it is not sent
// again after a restart) for this long, then cut, so that a hung channel
// cannot hold up the stop. What was only waiting (for a rate limit, a
// retry) stops at once and stays pending, not counted as an attempt.
const shutdownGrace = 5 * time.Second

// SendAlerts defers alerts (DeferAlerts) and delivers them until ctx is
// done, one send at a time per channel and the channels side by side, so a
// channel waiting out its rate limit holds back no other: each group in
// claim order, a failed alert retried alertRetry later with the rest of
// its group behind it, urgent alerts first on their channel (outbox.next;
// a routine send still waiting for the channel's limit yields to one). A
// channel whose limit is used up is not tried again before it frees.
// Records it does not hold (past outboxSize, from an earlier run of the
// process, or left to the watchdog) it reads from the store, before
// sending any other. wait returns once the sender has stopped (before the
// store closes). `gpusla serve`.
func (s *Service) SendAlerts(ctx context.Context) (wait func()) {
	s.deferAlerts.Store(true)
	s.out.reloadSoon() // what an earlier run left pending goes first
	s.senderRunning.Store(true)
	// Sends run under base, which ctx does not cut (a request under way
	// finishes and is recorded) but shutdownGrace after it does.
	base, cut := context.WithCancel(context.WithoutCancel(ctx))
	stopGrace := context.AfterFunc(ctx, func() { time.AfterFunc(shutdownGrace, cut) })
	l := &lanes{busy: map[string]*lane{}, from: map[string]time.Time{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer s.senderRunning.Store(false)
		defer cut()
		defer stopGrace()
		defer l.wg.Wait() // the sends under ctx were told to stop waiting
		for {
			if gen, ok := s.out.needsReload(); ok {
				if pending, err := s.store.ListPendingAlerts(ctx); err != nil {
					s.log.Error("alert outbox: list pending alerts", "err", err)
				} else {
					s.out.load(pending, gen)
				}
			}
			at, ok := s.dispatch(ctx, base, l)
			var timer <-chan time.Time
			var t *time.Timer
			if ok {
				t = time.NewTimer(at.Sub(s.Now()))
				timer = t.C
			}
			select {
			case <-ctx.Done():
			case <-s.out.wake:
			case <-timer:
			}
			if t != nil {
				t.Stop()
			}
			if ctx.Err() != nil {
				return
			}
		}
	}()
	return func() { <-done }
}

// lanes are the sender's channels: the send under way on each, and until
// when a channel's own limit is used up.
type lanes struct {
	mu   sync.Mutex
	busy map[string]*lane
	from map[string]time.Time
	wg   sync.WaitGroup
}

// lane is one send under way.
type lane struct {
	urgent  bool
	yield   context.CancelFunc
	yielded bool
}

func (l *lanes) state(channel string) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.from[channel], l.busy[channel] == nil
}

// dispatch starts a send on every free channel with a head due now and has
// a routine send yield to an urgent alert due on its channel; it returns
// when the next head falls due, if one will.
func (s *Service) dispatch(ctx, base context.Context, l *lanes) (time.Time, bool) {
	now := s.Now()
	l.mu.Lock()
	routine := map[string]*lane{}
	for ch, ln := range l.busy {
		if !ln.urgent && !ln.yielded {
			routine[ch] = ln
		}
	}
	l.mu.Unlock() // the outbox's lock is never taken inside the lanes' (next takes them the other way)
	for ch, ln := range routine {
		if s.out.urgentWaiting(s.dueAt, now, ch) {
			l.mu.Lock()
			ln.yield() // its wait ends, nothing sent; the urgent one goes next
			ln.yielded = true
			l.mu.Unlock()
		}
	}
	for {
		rec, at, ok := s.out.next(s.dueAt, now, l.state)
		if !ok || now.Before(at) || ctx.Err() != nil {
			return at, ok
		}
		yctx, yield := context.WithCancel(ctx) // shutdown yields too
		l.mu.Lock()
		l.busy[rec.Channel] = &lane{urgent: notify.Urgent(rec.Alert), yield: yield}
		l.mu.Unlock()
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			defer yield()
			after := s.sendHead(notify.WithYield(base, yctx), rec)
			l.mu.Lock()
			delete(l.busy, rec.Channel)
			if after > 0 {
				l.from[rec.Channel] = s.Now().Add(after)
			}
			l.mu.Unlock()
			s.out.poke()
		}()
	}
}

// sendHead attempts the oldest pending alert of its group and moves the
// group on: past it when delivered (or sent by someone else), to its retry
// time when not, left first in line when nothing was sent; it returns how
// long the channel's limit stays used up.
func (s *Service) sendHead(ctx context.Context, rec store.AlertRecord) time.Duration {
	stored, res, after := s.attempt(ctx, rec)
	if res == taken {
		fresh, err := s.store.GetAlert(ctx, rec.Node, rec.IncidentID, rec.Kind, rec.Channel)
		if err != nil {
			s.out.pop(rec) // the next listing has it back, as it stands
			return 0
		}
		if !fresh.SentAt.IsZero() {
			s.out.popSent(rec)
			return 0
		}
		stored = fresh
	}
	if res == delivered {
		s.out.popSent(rec)
		return 0
	}
	s.out.replace(stored)
	return after
}
