package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/msg"
)

// Alert delivery is at most once per (incident, alert kind) in the normal
// case and at least once across crashes: CreateAlert is the claim, so of
// many concurrent evaluations that see the same transition only one sends.
// A failed send stays pending and is retried.
//
// Deferred (DeferAlerts, SendAlerts: serve and the ingest Lambda), the
// request that raises an alert waits only for its claim, the durable write
// of the record with no attempt yet; the record is the outbox (outbox.go).
// Each attempt is claimed with a versioned write (attempt), so the sender,
// the watchdog and a second backend never send one alert twice, and the
// alerts of one node on one channel go out in the order they were claimed.

const (
	// DefaultAlertRetry is how long a claimed, unsent alert is left alone
	// before it is tried again (Config.AlertRetry).
	DefaultAlertRetry = time.Minute
	// maxAttempts bounds retries of one alert; after that it stays pending
	// with its last error for an operator to see.
	maxAttempts = 20
	// outboxSize bounds the alerts the sender holds in memory; past it
	// they wait in the store and the sender reads them from there.
	outboxSize = 1024
)

// DeferAlerts makes ingest claim alerts without sending them: the
// watchdog's run delivers them (retryAlerts takes a record never attempted
// at once). The ingest Lambda, whose ack must not wait on Slack.
func (s *Service) DeferAlerts() { s.deferAlerts.Store(true) }

// attemptTimeout cuts one delivery attempt off well before anyone may
// retry it (alertRetry after the attempt was claimed), so a slow or hung
// channel is never sent one alert twice by two senders at once.
func (s *Service) attemptTimeout() time.Duration { return s.alertRetry * 3 / 4 }

// alertStamps reserves the claim times of n alerts about to be raised by
// one state write of node: the first is returned, the rest follow it a
// nanosecond apart, all after every earlier reservation in this process.
// It is taken after the node state the write builds on was read and before
// the write, so a transition that could only be computed from a committed
// one (a recovery from its outage) gets later times than the committed
// one's alerts, whichever request claims its alerts first; the alerts of
// one node are delivered in this order (outbox.go), and until release is
// called (the alerts are claimed, or the write failed) the sender holds
// back the node's alerts claimed later. n == 0 reserves nothing.
func (s *Service) alertStamps(node string, n int) (at time.Time, release func()) {
	if n == 0 {
		return time.Time{}, func() {}
	}
	return s.out.reserve(node, s.Now(), n)
}

// attemptResult is how one attempt at an alert ended.
type attemptResult int

const (
	delivered attemptResult = iota
	failed                  // the channel refused or did not answer: retry later
	taken                   // another sender claimed it first, or it is gone
	// notSent: the notifier sent nothing (its limit was used up, or it was
	// told to yield: notify.ErrNotSent); the attempt is given back, so it
	// is neither counted nor waited for.
	notSent
)

// attempt claims one delivery attempt of rec with a versioned write, then
// delivers it; it returns the record as stored afterwards.
// after is how long the channel's own limit stays used up (notSent only).
func (s *Service) attempt(ctx context.Context, rec store.AlertRecord) (_ store.AlertRecord, _ attemptResult, after time.Duration) {
	prev, before := rec.Version, rec.LastAttemptAt
	rec.Attempts++
	rec.LastAttemptAt = s.Now()
	if err := s.store.UpdateAlert(ctx, rec, prev); err != nil {
		return rec, taken, 0
	}
	rec.Version = prev + 1
	return s.deliver(ctx, rec, before)
}

// apply derives the incident records of committed transitions and alerts
// on them. Errors are logged, not returned: the state is committed, and the
// watchdog repairs a missing open incident record and retries alerts.
func (s *Service) apply(ctx context.Context, n store.Node, fx effects) {
	now := s.Now()
	stamp := fx.stamp
	if fx.release != nil {
		defer fx.release()
	}
	if stamp.IsZero() {
		var release func()
		stamp, release = s.alertStamps(n.ID, len(fx.transitions))
		defer release()
	}
	for i, t := range coalesce(fx.transitions) {
		id := store.CheckIncidentID(string(t.Kind), t.Since, t.Check)
		log := s.log.With("node", n.ID, "incident", id, "op", t.Op)
		var inc store.Incident
		var err error
		sameCause := false // a reclassification that only moved the parts of a gap, not its cause
		prevCause := ""    // the cause a reclassification replaces, which its correction names
		// Counted or not is the contract's verdict on the kind and cause,
		// the same the report gives (the engine's t.Counted knows only
		// whose fault a gap was, not what the contract counts).
		counted, reason := s.counts(n, t.Kind, t.Cause)
		switch t.Op {
		case incident.Open:
			inc = store.Incident{Node: n.ID, ID: id, Kind: string(t.Kind), Check: t.Check, Start: t.Since, ConfirmedAt: now, Counted: counted,
				Reason: reason, Cause: t.Cause, Evidence: t.Evidence, EvidenceText: keptWhy(t), Failed: fx.failed[t.Key()], Split: t.Split, UpdatedAt: now}
			if err = s.store.CreateIncident(ctx, inc); errors.Is(err, store.ErrExists) {
				// Made already: by a retry of this batch (then it holds these
				// checks), or by the watchdog's repair, which knows only the
				// state and so no failed checks: add ours to it.
				inc, err = s.addFailed(ctx, inc)
			}
		case incident.Record:
			// Found after the fact, shorter than the grace: on the books,
			// closed, and never alerted on (the alert waits for the grace).
			inc = store.Incident{Node: n.ID, ID: id, Kind: string(t.Kind), Start: t.Since, End: t.At, ConfirmedAt: now, Counted: counted,
				Reason: reason, Cause: t.Cause, Evidence: t.Evidence, EvidenceText: keptWhy(t), Split: t.Split, UpdatedAt: now}
			if err = s.store.CreateIncident(ctx, inc); errors.Is(err, store.ErrExists) {
				err = nil // a retry of this batch recorded it already
			}
		case incident.Close:
			inc, err = s.updateIncident(ctx, n.ID, id, t, func(i *store.Incident) {
				i.End, i.Cause, i.Counted, i.Reason, i.UpdatedAt = t.At, t.Cause, counted, reason, now
				if t.Split != nil {
					i.Split = t.Split
				}
			})
		case incident.Reclassify:
			inc, err = s.updateIncident(ctx, n.ID, id, t, func(i *store.Incident) {
				sameCause, prevCause = i.Cause == t.Cause, i.Cause
				i.Cause, i.Counted, i.Reason, i.ReclassifiedAt, i.UpdatedAt = t.Cause, counted, reason, now, now
				i.Evidence, i.EvidenceText = t.Evidence, keptWhy(t)
				if t.Split != nil {
					i.Split = t.Split
				}
			})
		}
		if err != nil {
			log.Error("incident record", "err", err)
			continue
		}
		log.Info("incident "+string(t.Op), "kind", t.Kind, "since", t.Since, "at", t.At, "cause", t.Cause, "counted", counted)
		if sameCause || t.Op == incident.Record || recordedAfterTheFact(inc) {
			continue // the record has the new parts, or was never news: nothing to tell
		}
		if fx.holdAlert() {
			continue // past the node's alerts this hour: told once, by heldAlerts
		}
		s.alert(ctx, n, t, inc, prevCause, stamp.Add(time.Duration(i)*time.Nanosecond))
	}
	s.heldAlerts(ctx, n, fx)
}

// recordedAfterTheFact reports whether inc is a gap recorded after it ended
// (incident.Record: its evidence carries the grace to judge it by), never
// alerted on, so none of its reclassifications is news either.
func recordedAfterTheFact(inc store.Incident) bool {
	return inc.Split != nil && inc.Split.Grace > 0
}

// keptWhy is a transition's evidence as the sentence the record keeps
// (store.Incident.EvidenceText): nil for one rebuilt from a record, which
// has its English only, or whose sentence a record cannot hold (then the
// English is all the record has, and the pages show it as stored).
func keptWhy(t incident.Transition) *msg.Kept {
	if t.Why.IsZero() || t.Why.String() != t.Evidence {
		return nil
	}
	k, err := msg.Keep(t.Why)
	if err != nil {
		return nil
	}
	return k
}

// coalesce drops a reclassification or a close that a later one of the
// same incident in the same batch supersedes: one observation after
// another can move a gap's cause twice (a heartbeat says "alive", the next
// connectivity check says "network"), or its end (a drained spool's
// heartbeats, read in the batch's order, end it at the drain's receipt,
// then one made closer to the drain shows the node connected earlier), and
// Slack should hear only the conclusion: the recovery's length as the
// books hold it after the batch, never one they no longer hold.
func coalesce(trs []incident.Transition) []incident.Transition {
	out := trs[:0:0]
	for i, t := range trs {
		if t.Op == incident.Reclassify || t.Op == incident.Close {
			superseded := false
			for _, u := range trs[i+1:] {
				if u.Op == t.Op && u.Kind == t.Kind && u.Check == t.Check && u.Since.Equal(t.Since) {
					superseded = true
					break
				}
			}
			if superseded {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// updateIncident applies change to the stored incident with a versioned
// write; a record lost to a crash is recreated from the transition.
func (s *Service) updateIncident(ctx context.Context, node, id string, t incident.Transition, change func(*store.Incident)) (store.Incident, error) {
	fresh := func() store.Incident {
		return store.Incident{Node: node, ID: id, Kind: string(t.Kind), Check: t.Check, Start: t.Since, ConfirmedAt: s.Now(), Evidence: t.Evidence,
			EvidenceText: keptWhy(t)}
	}
	return update(ctx, "update incident "+id, s.incidentRecord(node, id, fresh), func(inc *store.Incident) error {
		change(inc)
		return nil
	})
}

// addFailed gives the stored incident want.Failed if it has none, with a
// versioned write (a record otherwise never loses or replaces its failed
// checks), and returns the record as stored.
func (s *Service) addFailed(ctx context.Context, want store.Incident) (store.Incident, error) {
	return update(ctx, "add failed checks to incident "+want.ID, s.incidentRecord(want.Node, want.ID, nil), func(inc *store.Incident) error {
		if len(inc.Failed) > 0 || len(want.Failed) == 0 {
			return errUnchanged
		}
		inc.Failed, inc.UpdatedAt = want.Failed, s.Now()
		return nil
	})
}

// openingAlert is the alert kind that starts an incident's thread.
func openingAlert(kind string) notify.AlertKind {
	switch kind {
	case string(incident.Unreachable):
		return notify.AlertUnreachable
	case notify.DeliveryKind:
		return notify.AlertDeliveryOverdue
	}
	return notify.AlertDegraded
}

// alert claims the alert of one transition, raised at (alertStamps); prev
// is the cause a reclassification replaces.
func (s *Service) alert(ctx context.Context, n store.Node, t incident.Transition, inc store.Incident, prev string, at time.Time) {
	if n.Released(s.Now()) {
		// Given back: the renter no longer rents it, so nothing about it is
		// news; the records still say how its period ended.
		s.log.Info("no alert: the node is released", "node", n.ID, "incident", inc.ID, "op", t.Op, "released_at", n.ReleasedAt)
		return
	}
	a := notify.Alert{Node: n.ID, Provider: n.Provider, IncidentID: inc.ID, IncidentKind: inc.Kind, Since: inc.Start,
		Failed: inc.Failed, Counted: inc.Counted, Reason: inc.Reason, Cause: t.Cause}
	why := t.Why
	if why.IsZero() && t.Evidence != "" {
		why = msg.Plain(t.Evidence) // rebuilt from a record: its English is all there is
	}
	key := notify.AlertKind("")
	switch t.Op {
	case incident.Open:
		a.Kind = openingAlert(inc.Kind)
		key = a.Kind
		// The engine's evidence of a check incident begins with the first
		// failing check, which Failed already shows with its values; keep
		// only the part that says how it was confirmed.
		if len(a.Failed) > 0 {
			why = t.Confirmed()
			if i := strings.LastIndex(t.Evidence, "; "); t.Why.IsZero() && i >= 0 {
				why = msg.Plain(t.Evidence[i+2:])
			}
		}
		if inc.Kind == string(incident.Unreachable) {
			// The backend knows only its own silence: whose fault the gap
			// is waits for what the node recorded meanwhile.
			why = chantext.PendingCause(why)
		}
	case incident.Close:
		a.Kind, a.Until, a.Duration = notify.AlertRecovered, t.At, t.At.Sub(inc.Start)
		a.Failed = nil // the opening alert listed them; the recovery says how it ended
		key = a.Kind
	case incident.Reclassify:
		// Each distinct new cause is told once, as a correction of the
		// cause said before.
		a.Kind, a.PrevCause = notify.AlertReclassified, prev
		key = notify.AlertKind(string(notify.AlertReclassified) + ":" + t.Cause)
	}
	s.inContractWords(ctx, n, inc, t.Op, &a)
	// Written once, in the contract's language and on its clock, as every
	// channel shows it.
	a.Detail = chantext.EvidenceText(a.Lang, a.Zone, why)
	now := at
	channels := s.alertChannels(n.Contract, a)
	if len(channels) == 0 {
		s.log.Info("no alert channel routes this alert", "node", n.ID, "incident", inc.ID, "kind", key)
		return
	}
	eachChannel(ctx, channels, func(ctx context.Context, ch string) {
		s.claimAndSend(ctx, store.AlertRecord{Node: n.ID, IncidentID: inc.ID, Kind: key, Channel: ch, CreatedAt: now,
			LastAttemptAt: now, Attempts: 1, Alert: a})
	})
}

// claimAndSend claims rec (put-if-absent: of several evaluations that see
// the same thing only one claims it) and sends it, or queues it when
// alerts are deferred; inside a watchdog run it is left to the run, which
// sends its alerts at the end, in order.
func (s *Service) claimAndSend(ctx context.Context, rec store.AlertRecord) {
	run, inRun := ctx.Value(runAlertsKey{}).(*runAlerts)
	deferred := s.deferAlerts.Load() || inRun
	if deferred {
		rec.LastAttemptAt, rec.Attempts = time.Time{}, 0 // queued, not attempted
	}
	if err := s.store.CreateAlert(ctx, rec); errors.Is(err, store.ErrExists) {
		return // someone else claimed it: no duplicate
	} else if err != nil {
		s.log.Error("claim alert", "node", rec.Node, "incident", rec.IncidentID, "kind", rec.Kind, "channel", rec.Channel, "err", err)
		return
	}
	rec.Version = 1
	if inRun {
		run.add(rec) // the watchdog sends it at the end of its run, in order
	}
	if deferred {
		s.queue(rec)
		return
	}
	s.deliver(ctx, rec, time.Time{})
}

// deliver sends a claimed alert record on its channel and records the
// outcome; the attempt is cut off after attemptTimeout. When the notifier
// sent nothing (notify.ErrNotSent) the attempt is given back: Attempts and
// LastAttemptAt (before it) as they were, the reason in LastErr. The
// outcome is written even when ctx is done: what was sent is known.
func (s *Service) deliver(ctx context.Context, rec store.AlertRecord, before time.Time) (_ store.AlertRecord, _ attemptResult, after time.Duration) {
	a := rec.Alert
	if open := openingAlert(a.IncidentKind); rec.Kind != open {
		if first, err := s.store.GetAlert(ctx, rec.Node, rec.IncidentID, open, rec.Channel); err == nil {
			a.Thread = first.Thread
		}
	}
	// kind as the alert names it (gpu_lost, not the claim's "degraded");
	// the claim's key beside it where they differ.
	log := s.log.With("node", rec.Node, "incident", rec.IncidentID, "kind", chantext.Tag(rec.Alert), "channel", rec.Channel)
	if string(rec.Kind) != chantext.Tag(rec.Alert) {
		log = log.With("alert", rec.Kind)
	}
	thread, err := "", error(nil)
	if nt, nerr := s.notifierOf(rec.Channel); nerr != nil {
		err = nerr
	} else {
		actx, cancel := context.WithTimeout(ctx, s.attemptTimeout())
		if notify.Urgent(a) {
			// Booked ahead of routine messages other callers (the ticket
			// watch, another channel's lane) have waiting on this robot.
			actx = notify.AsUrgent(actx)
		}
		thread, err = nt.Notify(actx, a)
		cancel()
	}
	prev, res := rec.Version, delivered
	if err != nil {
		// The channels redact their own errors; this is the second line,
		// for a channel that forgot: last_error is answered to API keys.
		err = notify.Redact(err)
	}
	switch {
	case errors.Is(err, notify.ErrNotSent):
		rec.LastErr, res = err.Error(), notSent
		rec.Attempts, rec.LastAttemptAt, after = rec.Attempts-1, before, notify.RetryAfter(err)
		log.Info("alert not sent yet; it stays first in line", "err", err)
	case err != nil:
		rec.LastErr, res = err.Error(), failed
		log.Warn("alert not delivered; it is retried", "attempt", rec.Attempts, "err", err)
	default:
		rec.SentAt, rec.LastErr = s.Now(), ""
		if rec.Thread == "" {
			rec.Thread = thread
		}
		if a.Thread != "" && rec.Thread == "" {
			rec.Thread = a.Thread
		}
		log.Info("alert sent")
	}
	if err := s.store.UpdateAlert(context.WithoutCancel(ctx), rec, prev); err != nil {
		log.Error("record alert outcome", "err", err)
		return rec, res, after
	}
	rec.Version = prev + 1
	return rec, res, after
}
