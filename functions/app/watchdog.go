package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/incident"
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

func (s *Service) checkNode(ctx context.Context, n store.Node, now, upSince time.Time) (int, error) {
	th := s.Thresholds(n)
	stale, _ := s.store.(store.StaleStateReader)
	for attempt := 0; attempt < maxRetries; attempt++ {
		var st store.NodeState
		var err error
		usedStale := stale != nil && attempt == 0
		if usedStale {
			st, err = stale.GetStateStale(ctx, n.ID)
		} else {
			st, err = s.store.GetState(ctx, n.ID)
		}
		if errors.Is(err, store.ErrNotFound) {
			// Never heard from: no heartbeat to be overdue, but its delivery
			// may be (decided on a strongly consistent read).
			v, overdue := s.deliveryOverdue(n, &store.NodeState{AcceptanceKnown: true}, now)
			if overdue && usedStale {
				continue
			}
			if overdue {
				s.alertDeliveryOverdue(ctx, n, v)
			}
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		last := st.Eval.LastReceived
		// While the backend itself was down nobody could hear the node, so
		// no node is charged for it: count the node's silence from when the
		// backend came back at the earliest.
		if !last.IsZero() && !upSince.IsZero() && last.Add(n.HeartbeatInterval).Before(upSince) {
			last = upSince.Add(-n.HeartbeatInterval)
		}
		prev := st.Version
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
		dv, overdue := s.deliveryOverdue(n, &st, now)
		if usedStale && (len(trs) > 0 || openIncident(&st.Eval) || openFleet(&st) || overdue) {
			// Something to write, to repair or to alert: decide it on a
			// strongly consistent read, never on a possibly stale one.
			continue
		}
		if overdue {
			s.alertDeliveryOverdue(ctx, n, dv)
		}
		if len(trs) == 0 {
			s.repair(ctx, n, st)
			return 0, nil
		}
		st.UpdatedAt = now
		stamp, release := s.alertStamps(n.ID, len(trs))
		if _, err := s.store.PutState(ctx, st, prev); errors.Is(err, store.ErrConflict) {
			release()
			continue
		} else if err != nil {
			release()
			return 0, err
		}
		s.apply(ctx, n, effects{transitions: trs, stamp: stamp, release: release})
		return len(trs), nil
	}
	return 0, errTooContended("watchdog node " + n.ID)
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
		open = append(open, store.Incident{Kind: string(incident.Unreachable), Start: g.Since, Cause: g.Cause, Evidence: g.Evidence})
	}
	for key, h := range st.Eval.Checks {
		if h != nil && h.Open {
			kind, check := incident.SplitKey(key, h)
			open = append(open, store.Incident{Kind: string(kind), Check: check, Start: h.Since, Cause: incident.CauseCheck, Evidence: h.Evidence})
		}
	}
	for key, sk := range st.Fleet {
		if sk.Open {
			open = append(open, store.Incident{Kind: string(incident.PerformanceBelowSpec), Check: key, Start: sk.Start, Cause: incident.CauseCheck,
				Evidence: fmt.Sprintf("slower than its siblings: %s %d runs in a row below the fleet threshold from %s (record recreated from the node's state)",
					key, sk.Runs, sk.Start.UTC().Format(time.RFC3339))})
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
				Cause: inc.Cause, Counted: inc.Counted, Evidence: inc.Evidence}
			at, release := s.alertStamps(n.ID, 1)
			s.alert(ctx, n, t, inc, at)
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

// BackendStop marks this backend's live runs stopped (`gpusla serve` on exit).
func (s *Service) BackendStop(ctx context.Context) error {
	now := s.Now()
	runs, err := s.store.ListBackendRuns(ctx, now.Add(-MaxTickGap), now.Add(time.Second))
	if err != nil {
		return err
	}
	for _, r := range runs {
		if r.Stopped || !strings.HasPrefix(r.ID, s.backendID+"@") {
			continue
		}
		prev := r.Version
		r.LastTick, r.Stopped = now, true
		if _, err := s.store.PutBackendRun(ctx, r, prev); err != nil {
			return fmt.Errorf("record backend stop: %w", err)
		}
	}
	return nil
}
