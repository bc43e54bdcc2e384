package incident

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

// StateVersion is the version of State's JSON form; bump it when State
// changes incompatibly (the backend stores it next to the state).
//
// Version 2 keys Checks by check (Verdict.Key: name and GPU) instead of by kind; a
// version 1 state's entries (keyed by kind) are kept and fed their kind's
// summed verdict until they are closed and idle, then dropped, so an
// incident open across the upgrade still closes.
const StateVersion = 2

// maxRecent bounds how many closed unreachable incidents stay open to
// reclassification by late data.
const maxRecent = 16

// State is one node's live evaluation state. It is a plain struct: store it
// as JSON. The zero value is a node never heard from.
type State struct {
	V            int       `json:"v"`
	LastReceived time.Time `json:"last_received,omitzero"`
	LastAt       time.Time `json:"last_at,omitzero"`
	// LastHeardAt is the probe time (skew-corrected) of the newest
	// observation heard promptly: received within the heartbeat interval
	// plus the grace of when it was made. An unreachable incident begins
	// one interval after it and ends at the probe time of the next one
	// heard promptly — the instants the monthly report reckons with, so
	// the transit delay is never outage and a closing heartbeat never
	// counts as evidence from inside its own gap.
	LastHeardAt time.Time `json:"last_heard_at,omitzero"`
	// Interval is the node's heartbeat interval: the caller sets it (Tick
	// records the one it is given) before Observe judges promptness.
	Interval    time.Duration          `json:"interval,omitempty"`
	Checks      map[string]*Hysteresis `json:"checks,omitempty"`
	Unreachable *Gap                   `json:"unreachable,omitempty"`
	Recent      []Gap                  `json:"recent,omitempty"`
	// Released is when the node was given back (Release): nothing opens
	// after it, and observations from it on are not evaluated.
	Released time.Time `json:"released,omitzero"`
}

// Clone returns a deep copy: a caller may change the copy's checks and gaps
// without touching s (the embedded store hands out its cached state so).
func (s State) Clone() State {
	c := s
	if s.Checks != nil {
		c.Checks = make(map[string]*Hysteresis, len(s.Checks))
		for k, h := range s.Checks {
			if h != nil {
				h2 := *h
				h = &h2
			}
			c.Checks[k] = h
		}
	}
	if s.Unreachable != nil {
		g := *s.Unreachable
		c.Unreachable = &g
	}
	c.Recent = slices.Clone(s.Recent)
	return c
}

// Gap is an unreachable incident seen live, with the late evidence gathered
// about it so far.
type Gap struct {
	Since time.Time `json:"since"`
	Until time.Time `json:"until,omitzero"` // zero while open
	Cause string    `json:"cause"`
	// Alive counts observations whose probe time falls in the gap (the node
	// was running); ConnPass and ConnFail count its connectivity verdicts.
	Alive    int    `json:"alive,omitempty"`
	ConnPass int    `json:"conn_pass,omitempty"`
	ConnFail int    `json:"conn_fail,omitempty"`
	Evidence string `json:"evidence,omitempty"`
}

func (g *Gap) contains(t time.Time) bool {
	return !t.Before(g.Since) && (g.Until.IsZero() || t.Before(g.Until))
}

// ClassifyGap says whose fault a gap in received heartbeats was, from what
// the node's own late batches show about it.
func ClassifyGap(alive bool, connPass, connFail int) string {
	switch {
	case !alive:
		return CauseNoData
	case connFail > 0:
		return CauseNetwork
	case connPass > 0:
		return CauseBackendOnly
	default:
		return CauseNoConnectivityEvidence
	}
}

// Tick is the watchdog's liveness check at now. lastReceived is the receive
// time of the node's last observation (zero: use the state's), interval its
// heartbeat interval. Once now is past lastReceived + interval + grace it
// opens an unreachable incident backdated to lastReceived + interval.
func (s *State) Tick(now, lastReceived time.Time, interval time.Duration, th Thresholds) []Transition {
	s.V = StateVersion
	if lastReceived.IsZero() {
		lastReceived = s.LastReceived
	}
	if interval > 0 {
		s.Interval = interval
	}
	if lastReceived.IsZero() || s.Unreachable != nil || interval <= 0 || !s.Released.IsZero() {
		return nil
	}
	if now.Before(lastReceived.Add(interval).Add(th.Grace)) {
		return nil
	}
	// Confirmed by receive time (alerts must be fast); dated by probe time
	// as the report dates it, unless the caller moved lastReceived later
	// (the backend itself was down until then: no node is charged before).
	due := lastReceived.Add(interval)
	if !s.LastHeardAt.IsZero() && !lastReceived.After(s.LastReceived) {
		due = s.LastHeardAt.Add(interval)
	}
	s.Unreachable = &Gap{Since: due, Cause: CauseNoData}
	return []Transition{{Op: Open, Kind: Unreachable, Since: due, At: due, Cause: CauseNoData, Counted: true,
		Evidence: fmt.Sprintf("no heartbeat received since %s (interval %s, grace %s)",
			lastReceived.UTC().Format(time.RFC3339), interval, th.Grace)}}
}

// Observe feeds one observation (in receive order). It closes an open
// unreachable incident at the observation's receive time, lets late data
// reclassify recent gaps, and runs the check hysteresis.
func (s *State) Observe(th Thresholds, e *events.Event) []Transition {
	s.V = StateVersion
	var out []Transition
	at := e.TrueAt()
	if !s.Released.IsZero() && !at.Before(s.Released) {
		return nil // after the service period: not the provider's, not evaluated
	}
	heard := s.Interval <= 0 || e.ReceivedAt.Sub(at) <= s.Interval+th.Grace
	if g := s.Unreachable; g != nil && heard && !e.ReceivedAt.Before(g.Since) {
		// Ends at the probe time of the first observation heard promptly
		// after it (never before it began).
		g.Until = at
		if g.Until.Before(g.Since) {
			g.Until = g.Since
		}
		out = append(out, Transition{Op: Close, Kind: Unreachable, Since: g.Since, At: g.Until, Cause: g.Cause,
			Counted: CauseCounted(g.Cause), Evidence: "first observation heard promptly after the gap"})
		s.Recent = append(s.Recent, *g)
		if len(s.Recent) > maxRecent {
			s.Recent = s.Recent[len(s.Recent)-maxRecent:]
		}
		s.Unreachable = nil
	}
	connFail, connEv, connOK := Connectivity(e.Checks)
	lateEvidence := func(g *Gap) {
		if !g.contains(at) {
			return
		}
		g.Alive++
		if connOK {
			if connFail {
				g.ConnFail++
				if g.Evidence == "" || g.Cause != CauseNetwork {
					g.Evidence = "probe saw " + connEv + " at " + at.UTC().Format(time.RFC3339)
				}
			} else {
				g.ConnPass++
			}
		}
		cause := ClassifyGap(g.Alive > 0, g.ConnPass, g.ConnFail)
		if cause != g.Cause {
			g.Cause = cause
			if cause != CauseNetwork {
				g.Evidence = fmt.Sprintf("probe's own batches cover the gap (%d observations, %d connectivity passes)", g.Alive, g.ConnPass)
			}
			out = append(out, Transition{Op: Reclassify, Kind: Unreachable, Since: g.Since, At: at, Cause: cause,
				Counted: CauseCounted(cause), Evidence: g.Evidence})
		}
	}
	for i := range s.Recent {
		lateEvidence(&s.Recent[i])
	}
	if s.Unreachable != nil {
		lateEvidence(s.Unreachable)
	}
	if e.ReceivedAt.After(s.LastReceived) {
		s.LastReceived = e.ReceivedAt
	}
	if at.After(s.LastAt) {
		s.LastAt = at
	}
	if heard && at.After(s.LastHeardAt) {
		s.LastHeardAt = at
	}
	vs := Verdicts(e.Checks)
	out = append(out, s.stepLegacy(th, at, vs)...)
	for _, v := range vs {
		if s.Checks == nil {
			s.Checks = make(map[string]*Hysteresis)
		}
		h := s.Checks[v.Key()]
		if h == nil {
			h = &Hysteresis{}
			s.Checks[v.Key()] = h
		}
		if t, ok := h.Step(th, at, v); ok {
			out = append(out, t)
		}
	}
	// A check that reports failures per GPU and passes node-wide ("no XID
	// on any GPU"): the node-wide pass is a pass of each GPU's instance,
	// unless that instance had its own result in this observation.
	for _, v := range vs {
		if v.Fail || v.Check != v.Name {
			continue
		}
		prefix := v.Name + "/gpu"
		for _, key := range slices.Sorted(maps.Keys(s.Checks)) {
			if !strings.HasPrefix(key, prefix) || slices.ContainsFunc(vs, func(u Verdict) bool { return u.Key() == key }) {
				continue
			}
			if t, ok := s.Checks[key].Step(th, at, Verdict{Kind: v.Kind, Check: key, Name: v.Name}); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// stepLegacy feeds a version 1 state's per-kind entries (keyed by a bare
// Kind) their kind's
// summed verdict (fail if any check of the kind failed) until each is
// closed, then drops it.
func (s *State) stepLegacy(th Thresholds, at time.Time, vs []Verdict) []Transition {
	var out []Transition
	for key, h := range s.Checks {
		k := Kind(key)
		if !k.Valid() || h == nil {
			continue
		}
		h.Kind = k
		if !h.Open {
			delete(s.Checks, key)
			continue
		}
		sum, seen := Verdict{Kind: k}, false
		for _, v := range vs {
			if v.Kind == k {
				seen = true
				if v.Fail && !sum.Fail {
					sum.Fail, sum.Evidence = true, v.Evidence
				}
			}
		}
		if !seen {
			continue
		}
		if t, ok := h.Step(th, at, sum); ok {
			out = append(out, t)
		}
		if !h.Open {
			delete(s.Checks, key)
		}
	}
	return out
}

// Release ends every open incident at at, the instant the node was given
// back: its service period ends there, so nothing is open after it (the
// monthly report cuts its rows at the release the same way). From then on
// Tick opens nothing and Observe ignores observations from at on; late
// data from before it still reclassifies gaps. Only the first release
// counts.
func (s *State) Release(at time.Time) []Transition {
	s.V = StateVersion
	if !s.Released.IsZero() {
		return nil
	}
	s.Released = at
	const why = "the node was released (given back); its service period ended"
	var out []Transition
	if g := s.Unreachable; g != nil {
		g.Until = at
		if g.Until.Before(g.Since) {
			g.Until = g.Since
		}
		out = append(out, Transition{Op: Close, Kind: Unreachable, Since: g.Since, At: g.Until, Cause: g.Cause,
			Counted: CauseCounted(g.Cause), Evidence: why})
		s.Recent = append(s.Recent, *g)
		if len(s.Recent) > maxRecent {
			s.Recent = s.Recent[len(s.Recent)-maxRecent:]
		}
		s.Unreachable = nil
	}
	for _, key := range slices.Sorted(maps.Keys(s.Checks)) {
		h := s.Checks[key]
		if h == nil || !h.Open {
			continue
		}
		kind, check := SplitKey(key, h)
		end := at
		if end.Before(h.Since) {
			end = h.Since
		}
		out = append(out, Transition{Op: Close, Kind: kind, Check: check, Since: h.Since, At: end, Cause: CauseCheck, Counted: true, Evidence: why})
		*h = Hysteresis{Kind: h.Kind, Last: h.Last}
	}
	return out
}
