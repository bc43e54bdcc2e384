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

// quota is every Limit of one robot, shared by all its sends.
type quota struct {
	mu      sync.Mutex
	windows []*window
}

func newQuota(limits []Limit) *quota {
	q := &quota{}
	for _, l := range limits {
		q.windows = append(q.windows, &window{l: l})
	}
	return q
}

// reserve books the first send time at or after now that keeps every
// limit, and returns it with cancel, which gives the booking back (a wait
// cut short, a message not sent after all). The limit that decided the time
// is returned for error messages.
func (q *quota) reserve(now time.Time) (at time.Time, by Limit, cancel func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	at = now
	for _, w := range q.windows {
		if t := w.earliest(now); t.After(at) {
			at, by = t, w.l
		}
	}
	for _, w := range q.windows {
		w.sent = append(w.sent, at)
	}
	var once sync.Once
	return at, by, func() {
		once.Do(func() {
			q.mu.Lock()
			defer q.mu.Unlock()
			for _, w := range q.windows {
				w.forget(at)
			}
		})
	}
}
