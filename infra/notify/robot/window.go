package robot

import (
	"slices"
	"sync"
	"time"
)

// Why not golang.org/x/time/rate: a token bucket of burst b refilled at r
// admits b + r·Per messages in a window of Per, so it either sends a burst
// of N at once and admits 2N across a window's edge, or keeps N per window
// only at half the quota's throughput (b = r·Per = N/2). A burst of n alerts
// must go out at the full quota (the last within ceil(n/N) windows), so the
// limiter is the quota itself: the send times of the last N messages, and a
// new one only once the N-th most recent is more than a window old.

// margin widens each window by a sixtieth (1 s a minute, 17 ms a second):
// the robot counts arrival times, which differ from our send times by the
// network's jitter.
func (l Limit) span() time.Duration { return l.Per + l.Per/60 }

// window is one Limit's record of send times (reserved, so some may lie in
// the future), ascending.
type window struct {
	l    Limit
	sent []time.Time
}

// earliest is the first time at or after now a message may be sent: after
// every reserved one (they go in order) and more than a window after the
// N-th most recent.
func (w *window) earliest(now time.Time) time.Time {
	cut := now.Add(-w.l.span())
	i := 0
	for i < len(w.sent) && !w.sent[i].After(cut) {
		i++
	}
	w.sent = w.sent[i:]
	at := now
	if k := len(w.sent); k > 0 && w.sent[k-1].After(at) {
		at = w.sent[k-1]
	}
	if k := len(w.sent); k >= w.l.N {
		if t := w.sent[k-w.l.N].Add(w.l.span()); t.After(at) {
			at = t
		}
	}
	return at
}

// forget removes one reservation at t. Any subset of send times that keeps
// the quota keeps it too, so a cancelled reservation never lets a later one
// break it.
func (w *window) forget(t time.Time) {
	for i := len(w.sent) - 1; i >= 0; i-- {
		if w.sent[i].Equal(t) {
			w.sent = slices.Delete(w.sent, i, i+1)
			return
		}
	}
}

// quota is every Limit of one robot, shared by all its sends, with the
// routine bookings still waiting for their time (an urgent one moves them).
type quota struct {
	mu      sync.Mutex
	windows []*window
	waiting []*booking
}

func newQuota(limits []Limit) *quota {
	q := &quota{}
	for _, l := range limits {
		q.windows = append(q.windows, &window{l: l})
	}
	return q
}

// booking is one reserved send time.
type booking struct {
	q    *quota
	at   time.Time
	move func() // tells a routine waiter its time was taken; nil for an urgent booking
	once sync.Once
	// moved (under q.mu): an urgent booking took this one's turn; its time
	// is already given back, and its waiter books again.
	moved bool
}

// reserve books the first send time at or after now that keeps every
// limit; the limit that decided the time is returned for error messages.
// A routine booking (urgent false) whose time lies ahead waits in line and
// may be moved: move is then called, once, from another goroutine. An
// urgent booking first moves every routine booking still waiting, so it
// takes the earliest time the quota allows whatever routine messages other
// callers have queued (Feishu, DingTalk and WeCom count every message a
// robot sends, ticket notices included), and they book again after it.
// Dropping bookings keeps the quota (any subset of a quota-keeping set of
// send times keeps it), and each new one is placed against all that remain.
func (q *quota) reserve(now time.Time, urgent bool, move func()) (at time.Time, by Limit, b *booking) {
	q.mu.Lock()
	defer q.mu.Unlock()
	keep := q.waiting[:0]
	for _, w := range q.waiting {
		switch {
		case !w.at.After(now):
			// its time has come: it is being sent, no longer movable
		case urgent:
			w.moved = true
			q.forgetLocked(w.at)
			w.move()
		default:
			keep = append(keep, w)
		}
	}
	clear(q.waiting[len(keep):])
	q.waiting = keep
	at = now
	for _, w := range q.windows {
		if t := w.earliest(now); t.After(at) {
			at, by = t, w.l
		}
	}
	for _, w := range q.windows {
		w.sent = append(w.sent, at)
	}
	b = &booking{q: q, at: at}
	if !urgent && at.After(now) && move != nil {
		b.move = move
		q.waiting = append(q.waiting, b)
	}
	return at, by, b
}

func (q *quota) forgetLocked(at time.Time) {
	for _, w := range q.windows {
		w.forget(at)
	}
}

// cancel gives the booking back (a wait cut short, a message not sent
// after all); a moved booking has already been given back.
func (b *booking) cancel() {
	b.once.Do(func() {
		b.q.mu.Lock()
		defer b.q.mu.Unlock()
		b.q.unwaitLocked(b)
		if !b.moved {
			b.q.forgetLocked(b.at)
		}
	})
}

// keep settles the booking as spent: its time came and the message goes.
func (b *booking) keep() {
	b.once.Do(func() {
		b.q.mu.Lock()
		defer b.q.mu.Unlock()
		b.q.unwaitLocked(b)
	})
}

// wasMoved says whether an urgent booking took this one's turn.
func (b *booking) wasMoved() bool {
	b.q.mu.Lock()
	defer b.q.mu.Unlock()
	return b.moved
}

func (q *quota) unwaitLocked(b *booking) {
	if i := slices.Index(q.waiting, b); i >= 0 {
		q.waiting = slices.Delete(q.waiting, i, i+1)
	}
}
