package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
)

// WatchdogResult says what one watchdog run did, for logs and tests.
type WatchdogResult struct {
	Nodes       int
	Transitions int
	UpSince     time.Time // since when this backend has been up without a gap
}

// Watchdog is the every-minute run: it records the backend's own
// liveness, lets the SLA engine open unreachable incidents for nodes whose
// heartbeats are overdue past the grace period (backdated to when the next
// heartbeat was due), alerts once for a node whose delivery target passed
// with the node not delivered (delivery.go), repairs incident records a
// crash may have lost, and retries undelivered alerts. Concurrent runs are safe: every state change
// is a versioned write.
func (s *Service) Watchdog(ctx context.Context) (WatchdogResult, error) {
	now := s.Now()
	var res WatchdogResult
	up, err := s.beat(ctx, now)
	if err != nil {
		return res, fmt.Errorf("watchdog: %w", err)
	}
	res.UpSince = up
	nodes, err := s.store.ListNodes(ctx)
	if err != nil {
		return res, fmt.Errorf("watchdog: %w", err)
	}
	var errs []error
	// The run's own alerts are claimed as it goes and sent at its end, in
	// order with the older pending ones of their node.
	run := &runAlerts{}
	ctx = context.WithValue(ctx, runAlertsKey{}, run)
	for _, n := range nodes {
		res.Nodes++
		k, err := s.checkNode(ctx, n, now, up)
		res.Transitions += k
		if err != nil {
			errs = append(errs, fmt.Errorf("node %s: %w", n.ID, err))
		}
	}
	if err := s.retryAlerts(ctx, run.list()); err != nil {
		errs = append(errs, fmt.Errorf("retry alerts: %w", err))
	}
	return res, errors.Join(errs...)
}

// checkNode ticks one node's state: overdue heartbeats open (or a release
// closes) incidents, an undelivered node past its target is alerted on
// once, and a state with nothing to change is only checked for records to
// repair. The first read may come from a cheap, possibly stale replica;
// anything to write, repair or alert is decided on a consistent one.
func (s *Service) checkNode(ctx context.Context, n store.Node, now, upSince time.Time) (int, error) {
	th := s.Thresholds(n)
	stale, _ := s.store.(store.StaleStateReader)
	var (
		heard, usedStale bool
		trs              []incident.Transition
		stamp            time.Time
		release          func()
	)
	state := versioned[store.NodeState]{
		read: func(ctx context.Context, attempt int) (store.NodeState, error) {
			var st store.NodeState
			var err error
			usedStale = stale != nil && attempt == 0
			if usedStale {
				st, err = stale.GetStateStale(ctx, n.ID)
			} else {
				st, err = s.store.GetState(ctx, n.ID)
			}
			heard = err == nil
			if errors.Is(err, store.ErrNotFound) {
				return store.NodeState{Node: n.ID, AcceptanceKnown: true}, nil
			}
			return st, err
		},
		write: func(ctx context.Context, st store.NodeState) (store.NodeState, error) {
			// The alerts' stamps are reserved before the write, so that they
			// follow the order of the writes; a lost write gives them back.
			stamp, release = s.alertStamps(n.ID, len(trs))
			v, err := s.store.PutState(ctx, st, st.Version)
			if err != nil {
				release()
				return st, err
			}
			st.Version = v
			return st, nil
		},
	}
	_, err := update(ctx, "watchdog node "+n.ID, state, func(st *store.NodeState) error {
		if !heard {
			// Never heard from: no heartbeat to be overdue, but its
			// delivery may be.
			return s.deliveryDue(ctx, n, st, now, usedStale)
		}
		trs = s.tick(n, st, now, upSince, th)
		if usedStale && (len(trs) > 0 || openIncident(&st.Eval) || openFleet(st)) {
			// Something to write or to repair: decide it on a strongly
			// consistent read, never on a possibly stale one.
			return errReread
		}
		if err := s.deliveryDue(ctx, n, st, now, usedStale); !errors.Is(err, errUnchanged) {
			return err
		}
		if len(trs) == 0 {
			s.repair(ctx, n, *st)
			return errUnchanged
		}
		st.UpdatedAt = now
		return nil
	})
	if err != nil || len(trs) == 0 || release == nil {
		return 0, err
	}
	s.apply(ctx, n, effects{transitions: trs, stamp: stamp, release: release})
	return len(trs), nil
}

// deliveryDue alerts once on a node whose delivery target passed with the
// node not delivered; on a stale read it asks for a consistent one first.
// It never writes the state: errUnchanged, or errReread.
func (s *Service) deliveryDue(ctx context.Context, n store.Node, st *store.NodeState, now time.Time, stale bool) error {
	v, overdue := s.deliveryOverdue(n, st, now)
	if overdue && stale {
		return errReread
	}
	if overdue {
		s.alertDeliveryOverdue(ctx, n, v)
	}
	return errUnchanged
}

// tick is the engine's verdict on the node's silence as of now: the
// transitions of overdue heartbeats and, for a node given back, of its
// release. While the backend itself was down nobody could hear the node,
// so no node is charged for it: its silence counts from when the backend
// came back at the earliest.
func (s *Service) tick(n store.Node, st *store.NodeState, now, upSince time.Time, th incident.Thresholds) []incident.Transition {
	last := st.Eval.LastReceived
	if !last.IsZero() && !upSince.IsZero() && last.Add(n.HeartbeatInterval).Before(upSince) {
		last = upSince.Add(-n.HeartbeatInterval)
	}
	tickAt := now
	if n.Released(now) {
		// Given back: overdue only if it was before the release (the
		// report's trailing gap needs more than the tolerance before the
		// period's end), and whatever is open ends at the release.
		tickAt = n.ReleasedAt.Add(-time.Nanosecond)
	}
	trs := st.Eval.Tick(tickAt, last, n.HeartbeatInterval, th)
	if n.Released(now) {
		trs = append(trs, st.Eval.Release(n.ReleasedAt)...)
	}
	return trs
}

// openIncident reports whether the state holds an open incident (which
// repair may have to act on).
func openIncident(ev *incident.State) bool {
	if ev.Unreachable != nil {
		return true
	}
	for _, h := range ev.Checks {
		if h != nil && h.Open {
			return true
		}
	}
	return false
}

// openFleet reports whether a streak below the fleet is open (fleet.go).
func openFleet(st *store.NodeState) bool {
	for _, sk := range st.Fleet {
		if sk.Open {
			return true
		}
	}
	return false
}

// RepairGrace is how long after a state write the watchdog waits before it
// recreates an open incident's missing record (repair).
const RepairGrace = time.Minute

// repair recreates the record of an incident the state says is open but
// that a crash between the state write and the record write lost.
//
// A state written less than RepairGrace ago is left alone: its writer is
// most likely deriving the records right now, with the failed checks and
// measured values only it has (the state holds neither), and a record and
// alert made here first would lack them. If the writer did die, the next
// run after the grace repairs; if it was only slow, it adds its failed
// checks to the record found (apply).
func (s *Service) repair(ctx context.Context, n store.Node, st store.NodeState) {
	if s.Now().Sub(st.UpdatedAt) < RepairGrace {
		return
	}
	var open []store.Incident
	if g := st.Eval.Unreachable; g != nil {
		open = append(open, store.Incident{Kind: string(incident.Unreachable), Start: g.Since, Cause: g.Cause, Evidence: g.Evidence, EvidenceText: g.Why})
	}
	for key, h := range st.Eval.Checks {
		if h != nil && h.Open {
			kind, check := incident.SplitKey(key, h)
			open = append(open, store.Incident{Kind: string(kind), Check: check, Start: h.Since, Cause: incident.CauseCheck, Evidence: h.Evidence})
		}
	}
	for key, sk := range st.Fleet {
		if sk.Open {
			why := msg.New("slower than its siblings: %s %d runs in a row below the fleet threshold from %s (record recreated from the node's state)",
				msg.Plain(key), sk.Runs, msg.At(sk.Start, time.UTC))
			inc := store.Incident{Kind: string(incident.PerformanceBelowSpec), Check: key, Start: sk.Start, Cause: incident.CauseCheck, Evidence: why.String()}
			inc.EvidenceText, _ = msg.Keep(why) // every argument is one a record keeps
			open = append(open, inc)
		}
	}
	for _, inc := range open {
		inc.Node, inc.ID = n.ID, store.CheckIncidentID(inc.Kind, inc.Start, inc.Check)
		inc.Counted, inc.Reason = s.counts(n, incident.Kind(inc.Kind), inc.Cause)
		if _, err := s.store.GetIncident(ctx, n.ID, inc.ID); !errors.Is(err, store.ErrNotFound) {
			continue
		}
		inc.ConfirmedAt, inc.UpdatedAt = s.Now(), s.Now()
		if err := s.store.CreateIncident(ctx, inc); err == nil {
			s.log.Warn("recreated a lost incident record", "node", n.ID, "incident", inc.ID)
			t := incident.Transition{Op: incident.Open, Kind: incident.Kind(inc.Kind), Check: inc.Check, Since: inc.Start, At: inc.Start,
				Cause: inc.Cause, Counted: inc.Counted, Evidence: inc.Evidence, Why: inc.EvidenceSentence()}
			at, release := s.alertStamps(n.ID, 1)
			s.alert(ctx, n, t, inc, "", at)
			release()
		}
	}
}

// beat records that this backend is alive now and returns since when it has
// been up without a gap longer than MaxTickGap.
func (s *Service) beat(ctx context.Context, now time.Time) (time.Time, error) {
	runs, err := s.store.ListBackendRuns(ctx, now.Add(-MaxTickGap), now.Add(time.Second))
	if err != nil {
		return time.Time{}, err
	}
	var cur *store.BackendRun
	for i := range runs {
		r := &runs[i]
		if r.Stopped || !strings.HasPrefix(r.ID, s.backendID+"@") || now.Sub(r.LastTick) > MaxTickGap {
			continue
		}
		if cur == nil || r.LastTick.After(cur.LastTick) {
			cur = r
		}
	}
	if cur == nil {
		return s.BackendStart(ctx)
	}
	if now.After(cur.LastTick) {
		prev := cur.Version
		cur.LastTick = now
		if _, err := s.store.PutBackendRun(ctx, *cur, prev); err != nil && !errors.Is(err, store.ErrConflict) {
			return time.Time{}, err // a conflict means another watchdog just ticked it
		}
	}
	return cur.Start, nil
}

// BackendStart records the start of a new backend run (`gpusla serve` calls
// it when it starts; the watchdog when it finds no live run).
func (s *Service) BackendStart(ctx context.Context) (time.Time, error) {
	now := s.Now()
	r := store.BackendRun{ID: s.backendID + "@" + now.Format("20060102T150405.000000000Z"), Start: now, LastTick: now}
	if _, err := s.store.PutBackendRun(ctx, r, 0); err != nil && !errors.Is(err, store.ErrConflict) {
		return time.Time{}, fmt.Errorf("record backend start: %w", err)
	}
	return now, nil
}

// BackendStop marks this backend's live runs stopped at at, when it stopped
// taking requests (`gpusla serve` on exit: when its listener closed, before
// the drain of the requests in flight), which may be a while before now:
// from at on no node could reach it, so its downtime begins there.
func (s *Service) BackendStop(ctx context.Context, at time.Time) error {
	runs, err := s.store.ListBackendRuns(ctx, at.Add(-MaxTickGap), s.Now().Add(time.Second))
	if err != nil {
		return err
	}
	for _, r := range runs {
		if r.Stopped || !strings.HasPrefix(r.ID, s.backendID+"@") {
			continue
		}
		prev := r.Version
		r.LastTick, r.Stopped = interval.Latest(at, r.Start), true
		if _, err := s.store.PutBackendRun(ctx, r, prev); err != nil {
			return fmt.Errorf("record backend stop: %w", err)
		}
	}
	return nil
}
