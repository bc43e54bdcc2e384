package app

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
)

// The alert outbox. A claimed alert record is durable before the request
// that raised it is answered; from there it is delivered by exactly one
// sender at a time:
//
//   - in `gpusla serve`, by the sender goroutine (SendAlerts), which alone
//     talks to the channels, so neither ingest nor the watchdog ever waits
//     on Slack;
//   - in the Lambdas, by the watchdog's run (retryAlerts).
//
// Both keep one rule: the alerts of one node on one channel (a group) are
// delivered in the order they were claimed. A group whose oldest pending
// alert failed waits for that alert's retry; the later ones are not sent
// past it (a recovery must not arrive before the alert it closes, nor
// outside its thread). An alert given up after maxAttempts no longer holds
// its group back.

// alertGroup is the unit of delivery order: one node on one channel.
type alertGroup struct{ node, channel string }

func groupOf(r store.AlertRecord) alertGroup { return alertGroup{r.Node, r.Channel} }

// alertID is a record's key (node, incident, kind, channel).
func alertID(r store.AlertRecord) string {
	return r.Node + "\x00" + r.IncidentID + "\x00" + string(r.Kind) + "\x00" + r.Channel
}

// claimOrder orders records by claim time (then key, for records of
// other processes claimed at the same instant).
func claimOrder(a, b store.AlertRecord) int {
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(alertID(a), alertID(b))
}

// mergeAlerts returns the records of both lists once each, the newer
// version where both hold one, in claim order. (DynamoDB's pending index is
// eventually consistent: a record claimed a moment ago may be missing from
// a listing, or listed at an older version.)
func mergeAlerts(a, b []store.AlertRecord) []store.AlertRecord {
	byID := make(map[string]store.AlertRecord, len(a)+len(b))
	for _, r := range slices.Concat(a, b) {
		if old, ok := byID[alertID(r)]; !ok || r.Version > old.Version {
			byID[alertID(r)] = r
		}
	}
	out := make([]store.AlertRecord, 0, len(byID))
	for _, r := range byID {
		out = append(out, r)
	}
	slices.SortFunc(out, claimOrder)
	return out
}

// dueAt is when rec may be attempted: at once if it never was, alertRetry
// after its last attempt otherwise; given up reports an alert past
// maxAttempts.
func (s *Service) dueAt(rec store.AlertRecord) (at time.Time, givenUp bool) {
	if rec.Attempts >= maxAttempts {
		return time.Time{}, true
	}
	if rec.Attempts == 0 {
		return time.Time{}, false
	}
	return rec.LastAttemptAt.Add(s.alertRetry), false
}

// runAlerts collects the alerts one watchdog run claims, so the run sends
// them at its end in order with the older pending ones (a listing of the
// pending index might not show them yet).
type runAlerts struct {
	mu   sync.Mutex
	recs []store.AlertRecord
}

type runAlertsKey struct{}

func (r *runAlerts) add(rec store.AlertRecord) {
	r.mu.Lock()
	r.recs = append(r.recs, rec)
	r.mu.Unlock()
}

func (r *runAlerts) list() []store.AlertRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.recs)
}

// retryAlerts delivers pending alerts (claimed in this run, never
// attempted, or last attempted alertRetry ago), each group in claim order,
// stopping a group at its first alert that is not delivered, urgent heads
// first (outbox.next); a channel whose own limit is used up is left for the
// next run. With a sender running it only has the sender read the store
// again, so the watchdog never waits on a channel.
func (s *Service) retryAlerts(ctx context.Context, claimed []store.AlertRecord) error {
	if s.senderRunning.Load() {
		s.out.reloadSoon()
		return nil
	}
	pending, err := s.store.ListPendingAlerts(ctx)
	if err != nil {
		return err
	}
	run := newOutbox()
	run.load(mergeAlerts(pending, claimed), run.gen)
	now := s.Now()
	limited := map[string]bool{}
	lanes := func(ch string) (time.Time, bool) { return time.Time{}, !limited[ch] }
	for ctx.Err() == nil {
		rec, at, ok := run.next(s.dueAt, now, lanes)
		if !ok || now.Before(at) {
			return nil // the rest failed a moment ago, or are in flight
		}
		switch _, res, _ := s.attempt(ctx, rec); res {
		case delivered:
			run.pop(rec)
		case notSent:
			limited[rec.Channel] = true
		default:
			run.dropGroup(rec)
		}
	}
	return nil
}

// queue hands a claimed, never attempted record to the sender, if one
// runs; otherwise it waits in the store for the watchdog.
func (s *Service) queue(rec store.AlertRecord) {
	if !s.senderRunning.Load() {
		return
	}
	if full := s.out.add(rec); full {
		s.log.Warn("alert outbox full; the sender reads this one from the store", "node", rec.Node, "incident", rec.IncidentID, "kind", rec.Kind)
	}
}

// outbox is the sender's in-memory view of the pending alerts: per group,
// in claim order. At most outboxSize records; beyond that (reload) the
// store is the queue, read again once there is room, and nothing new is
// taken in before then, so no group's later alert is held while an earlier
// one is only in the store.
type outbox struct {
	mu     sync.Mutex
	groups map[alertGroup][]store.AlertRecord
	n      int
	reload bool
	// gen counts the reasons to reload (a request, a record left to the
	// store); a listing taken at gen answers only those up to gen.
	gen  uint64
	wake chan struct{}
	// sent holds the alerts popped as delivered since the last load.
	sent map[string]bool
	// lastStamp is the latest claim time handed out (reserve); claiming
	// holds, per node, the claim times reserved by state writes whose
	// alerts are not claimed yet, by reservation.
	lastStamp time.Time
	claiming  map[string]map[uint64]time.Time
	nextRes   uint64
}

func newOutbox() *outbox {
	return &outbox{groups: map[alertGroup][]store.AlertRecord{}, wake: make(chan struct{}, 1), claiming: map[string]map[uint64]time.Time{}}
}

// reserve hands out the claim times of n alerts of node (alertStamps) and
// holds back the node's alerts claimed later until release.
func (o *outbox) reserve(node string, now time.Time, n int) (time.Time, func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	at := now
	if !at.After(o.lastStamp) {
		at = o.lastStamp.Add(time.Nanosecond)
	}
	o.lastStamp = at.Add(time.Duration(n-1) * time.Nanosecond)
	o.nextRes++
	id := o.nextRes
	if o.claiming[node] == nil {
		o.claiming[node] = map[uint64]time.Time{}
	}
	o.claiming[node][id] = at
	var once sync.Once
	return at, func() {
		once.Do(func() {
			o.mu.Lock()
			delete(o.claiming[node], id)
			if len(o.claiming[node]) == 0 {
				delete(o.claiming, node)
			}
			o.mu.Unlock()
			o.poke()
		})
	}
}

// heldBackLocked: an alert of rec's node raised before it is still being
// claimed.
func (o *outbox) heldBackLocked(rec store.AlertRecord) bool {
	for _, at := range o.claiming[rec.Node] {
		if at.Before(rec.CreatedAt) {
			return true
		}
	}
	return false
}

func (o *outbox) poke() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// reloadSoon has the sender read the pending alerts from the store.
func (o *outbox) reloadSoon() {
	o.mu.Lock()
	o.reload = true
	o.gen++
	o.mu.Unlock()
	o.poke()
}

// needsReload: a reload was asked for and there is room for what it reads;
// gen is to be handed to load with the listing taken now.
func (o *outbox) needsReload() (gen uint64, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.gen, o.reload && o.n < outboxSize/2
}

// add takes a new claim. While a reload is due, or when the outbox is full
// (then it says so), it leaves the record to that reload, which reads it
// from the store in order with the rest.
func (o *outbox) add(rec store.AlertRecord) (full bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	defer o.poke()
	if o.reload || o.n >= outboxSize {
		full = !o.reload
		o.reload = true
		o.gen++ // a listing under way may have missed it
		return full
	}
	o.insertLocked(rec)
	return false
}

func (o *outbox) insertLocked(rec store.AlertRecord) {
	g := groupOf(rec)
	q := o.groups[g]
	for i, r := range q {
		if alertID(r) == alertID(rec) {
			if rec.Version > r.Version {
				q[i] = rec
			}
			return
		}
	}
	i, _ := slices.BinarySearchFunc(q, rec, claimOrder)
	o.groups[g] = slices.Insert(q, i, rec)
	o.n++
}

// load merges the store's pending records, listed at gen: the oldest
// outboxSize of all (so every group holds a prefix of its pending alerts).
// More left in the store, or a record left to the store after the listing
// began, keep reload set.
func (o *outbox) load(pending []store.AlertRecord, gen uint64) {
	slices.SortFunc(pending, claimOrder)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reload = o.gen != gen
	// A send that finished while the store was being listed is in the
	// listing as still pending (att counted, not sent): taken back in, it
	// would wait out a whole retry interval before anyone noticed it went,
	// holding its group behind it. What this process delivered since the
	// last load is left out; older deliveries are not in the listing.
	sent := o.sent
	o.sent = nil
	pending = slices.DeleteFunc(pending, func(r store.AlertRecord) bool { return sent[alertID(r)] })
	for i, rec := range pending {
		if o.n >= outboxSize {
			o.reload = o.reload || len(pending) > i
			break
		}
		o.insertLocked(rec)
	}
}

// laneState says of a channel from when a send may start on it (its own
// limit used up until then) and whether it is free (no send of its own
// under way).
type laneState func(channel string) (from time.Time, free bool)

// next returns the group head to send next, of those whose channel is
// free: the ones due by now first, and of those the urgent ones
// (notify.Urgent) before routine ones, so a wake-up alert never queues
// behind notices on its channel; then the earliest due, then claim order.
// at is when it is due (its retry time, or its channel's). Heads given up
// are dropped on the way.
func (o *outbox) next(dueAt func(store.AlertRecord) (time.Time, bool), now time.Time, lanes laneState) (best store.AlertRecord, bestAt time.Time, found bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.eachHeadLocked(dueAt, func(head store.AlertRecord, at time.Time) {
		from, free := lanes(head.Channel)
		if !free {
			return
		}
		if from.After(at) {
			at = from
		}
		if !found || sendsBefore(head, at, best, bestAt, now) {
			best, bestAt, found = head, at, true
		}
	})
	return best, bestAt, found
}

// sendsBefore orders two heads for next.
func sendsBefore(a store.AlertRecord, aAt time.Time, b store.AlertRecord, bAt time.Time, now time.Time) bool {
	if ra, rb := !aAt.After(now), !bAt.After(now); ra != rb {
		return ra
	} else if ra {
		if ua, ub := notify.Urgent(a.Alert), notify.Urgent(b.Alert); ua != ub {
			return ua
		}
	}
	if !aAt.Equal(bAt) {
		return aAt.Before(bAt)
	}
	return claimOrder(a, b) < 0
}

// urgentWaiting says whether an urgent head on channel is due by now (the
// sender then has a routine send still waiting on that channel yield).
func (o *outbox) urgentWaiting(dueAt func(store.AlertRecord) (time.Time, bool), now time.Time, channel string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	found := false
	o.eachHeadLocked(dueAt, func(head store.AlertRecord, at time.Time) {
		found = found || head.Channel == channel && notify.Urgent(head.Alert) && !at.After(now)
	})
	return found
}

// eachHeadLocked calls f with every group's head that may be sent (not
// held back) and when it is due, dropping heads given up or sent.
func (o *outbox) eachHeadLocked(dueAt func(store.AlertRecord) (time.Time, bool), f func(head store.AlertRecord, at time.Time)) {
	for g, q := range o.groups {
		for len(q) > 0 {
			at, givenUp := dueAt(q[0])
			if !givenUp && q[0].SentAt.IsZero() {
				if !o.heldBackLocked(q[0]) { // else its release wakes the sender
					f(q[0], at)
				}
				break
			}
			q = q[1:]
			o.n--
		}
		if len(q) == 0 {
			delete(o.groups, g)
		} else {
			o.groups[g] = q
		}
	}
}

// dropGroup forgets rec's group (a watchdog run stops it at a failure).
func (o *outbox) dropGroup(rec store.AlertRecord) {
	o.mu.Lock()
	defer o.mu.Unlock()
	g := groupOf(rec)
	o.n -= len(o.groups[g])
	delete(o.groups, g)
}

// pop removes rec, its group's head.
func (o *outbox) pop(rec store.AlertRecord) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.popLocked(rec)
}

// popSent is pop for a head known delivered (by this send or another):
// a listing under way that still shows it pending does not bring it back
// (load).
func (o *outbox) popSent(rec store.AlertRecord) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.sent == nil {
		o.sent = map[string]bool{}
	}
	o.sent[alertID(rec)] = true
	o.popLocked(rec)
}

func (o *outbox) popLocked(rec store.AlertRecord) {
	g := groupOf(rec)
	if q := o.groups[g]; len(q) > 0 && alertID(q[0]) == alertID(rec) {
		if len(q) == 1 {
			delete(o.groups, g)
		} else {
			o.groups[g] = q[1:]
		}
		o.n--
	}
}

// replace puts the stored version of a group's head back in its place.
func (o *outbox) replace(rec store.AlertRecord) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if q := o.groups[groupOf(rec)]; len(q) > 0 && alertID(q[0]) == alertID(rec) {
		q[0] = rec
	}
}
