package incident

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
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
	// observation heard promptly: received within SilenceAllowance (what a
	// batch normally waits plus a few seconds, not the grace) of when it was
	// made. An unreachable incident begins
	// one interval after it and ends at the probe time of the next one
	// heard promptly — the instants the monthly report reckons with, so
	// the transit delay is never outage and a closing heartbeat never
	// counts as evidence from inside its own gap.
	LastHeardAt time.Time `json:"last_heard_at,omitzero"`
	// LastBeatAt is LastHeardAt of the newest heartbeat (observation kind
	// heartbeat) heard in time: the next one is due an interval after it
	// (DueAfter), whatever check results came after it.
	LastBeatAt time.Time `json:"last_beat_at,omitzero"`
	// Interval is the node's heartbeat interval: the caller sets it (Tick
	// records the one it is given) before Observe judges promptness.
	Interval time.Duration `json:"interval,omitempty"`
	// Push is how often the node pushes a batch (zero: one heartbeat a
	// push): the silence the books allow inside a gap (SilenceAllowance).
	// The caller sets it with Interval.
	Push        time.Duration          `json:"push,omitempty"`
	Checks      map[string]*Hysteresis `json:"checks,omitempty"`
	Unreachable *Gap                   `json:"unreachable,omitempty"`
	Recent      []Gap                  `json:"recent,omitempty"`
	// Released is when the node was given back (Release): nothing opens
	// after it, and observations from it on are not evaluated.
	Released time.Time `json:"released,omitzero"`
	// Seen and Conns are what the node observed (probe time) and its
	// connectivity verdicts from shortly before the newest heartbeat heard
	// promptly (older ones are pruned: a span or two, a verdict or two):
	// what a gap opened now starts its evidence with, since the report's
	// split of a gap reaches back a tolerance (observations) and to the
	// verdict in force (connectivity) before it.
	Seen  Coverage `json:"seen,omitzero"`
	Conns []Conn   `json:"conns,omitempty"`
	// Late covers the receive times of observations not heard in time
	// since shortly before the newest one heard in time (the report's late
	// coverage, pruned like Seen): the signs of life inside a gap that keep
	// it from being Overdue.
	Late Coverage `json:"late,omitzero"`
	// RecvFrom is when the node's current run of receipts began: its first
	// receipt after a silence longer than ReceiptBreak (zero: not known, a
	// state from before it was kept). A heartbeat made before it shows the
	// node connected only from it on (HeardAt, GapEnd).
	RecvFrom time.Time `json:"recv_from,omitzero"`

	// perGPU indexes Checks' per-GPU keys (gpuKeys); derived, never stored.
	perGPU map[string][]string
}

// Clone returns a deep copy: a caller may change the copy's checks and gaps
// without touching s (the embedded store hands out its cached state so).
func (s State) Clone() State {
	c := s
	c.perGPU = nil // derived: the copy makes its own
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
		g := s.Unreachable.clone()
		c.Unreachable = &g
	}
	c.Recent = slices.Clone(s.Recent)
	for i := range c.Recent {
		c.Recent[i] = c.Recent[i].clone()
	}
	c.Seen.Spans = slices.Clone(s.Seen.Spans)
	c.Conns = slices.Clone(s.Conns)
	c.Late.Spans = slices.Clone(s.Late.Spans)
	return c
}

func (g Gap) clone() Gap {
	g.Ev = g.Ev.Clone()
	g.Why = g.Why.Clone()
	return g
}

// GapEvidence is what the node's own batches show about a gap: the instants
// it observed around and inside it (Seen, probe time, with the coverage
// tolerance of interval + grace) and its connectivity verdicts from
// ConnValidity before it on. Split cuts the gap by cause from them with the
// report's rule; the live service stores it with the incident and judges
// each part as the report does.
type GapEvidence struct {
	Interval time.Duration `json:"interval"`
	Seen     Coverage      `json:"seen"`
	Conns    []Conn        `json:"conns,omitempty"`
	// Allow, Grace and Late are kept with a gap recorded after the fact
	// (Record): the silence the books allow (SilenceAllowance), the
	// contract's grace and the receipts of late observations around it,
	// so that it is judged Overdue against the backend's downtime when the
	// books are read (Counts), as the report judges it. Zero for a gap the
	// watchdog opened: that one was overdue by the grace already.
	Allow time.Duration `json:"allow,omitempty"`
	Grace time.Duration `json:"grace,omitempty"`
	Late  Coverage      `json:"late,omitzero"`
	// From is when the gap began by the probe's own record of losing its
	// link (RefineStart), where that is before the heartbeat was due (the
	// incident's Since, which stays its identity); zero: at Since.
	From time.Time `json:"from,omitzero"`
	// After is when the backend last heard the node in time before the gap
	// (Gap.After): observations up to then show nothing of the gap
	// (Coverage.AliveAfter). Zero in evidence stored before it was kept.
	After time.Time `json:"after,omitzero"`
	// Heard is when the backend heard the node again, the gap's end; zero
	// while it is open, when a release cut it short, and in evidence
	// stored before it was kept. Only a record of the link watch reaching
	// the backend within Reconnect of it can end the counted part early
	// (SplitGap).
	Heard time.Time `json:"heard,omitzero"`
}

// Clone is a deep copy.
func (e GapEvidence) Clone() GapEvidence {
	e.Seen.Spans = slices.Clone(e.Seen.Spans)
	e.Conns = slices.Clone(e.Conns)
	e.Late.Spans = slices.Clone(e.Late.Spans)
	return e
}

// Counts reports whether the gap g these are the evidence of is an outage
// at all, given the backend's own downtime: a gap recorded after the fact
// only if Overdue, as the report judges it; one the watchdog opened always.
func (e *GapEvidence) Counts(g interval.Interval, backend interval.Set) bool {
	if e.Grace <= 0 {
		return true
	}
	return Overdue(g, backend, e.Late.Alive(g, e.Interval), e.Allow, e.Grace)
}

// Split is SplitGap over g with this evidence and the backend's own
// downtime.
func (e *GapEvidence) Split(g interval.Interval, backend interval.Set) []Segment {
	return SplitGap(g, e.Seen.AliveAfter(g, e.Interval, e.After), e.Conns, backend, e.Heard, Reconnect(e.Interval))
}

// Gap is an unreachable incident seen live, with the late evidence gathered
// about it so far.
type Gap struct {
	Since time.Time `json:"since"`
	// After is when the backend last heard the node in time before the
	// gap (zero in a state from before it was kept: Since − interval).
	After time.Time `json:"after,omitzero"`
	Until time.Time `json:"until,omitzero"` // zero while open
	Cause string    `json:"cause"`
	// Alive counts observations whose probe time falls in the gap (the node
	// was running); ConnPass and ConnFail count its connectivity verdicts.
	Alive    int    `json:"alive,omitempty"`
	ConnPass int    `json:"conn_pass,omitempty"`
	ConnFail int    `json:"conn_fail,omitempty"`
	Evidence string `json:"evidence,omitempty"`
	// Why is Evidence as the sentence it was (msg.Keep), for the pages
	// that translate it; nil on a state written before it was kept.
	Why *msg.Kept `json:"why,omitempty"`
	// Ev is the evidence the gap is split by cause with (GapEvidence).
	Ev GapEvidence `json:"ev,omitzero"`
}

func (g *Gap) contains(t time.Time) bool {
	return !t.Before(g.start()) && (g.Until.IsZero() || t.Before(g.Until))
}

// start is when the gap began: Since, or earlier where the probe's link
// watch dates it (GapEvidence.From).
func (g *Gap) start() time.Time { return g.Ev.Start(g.Since) }

// Start is when a gap whose heartbeat was due at since began by this
// evidence: From when the probe's link watch dates it earlier, else since.
func (e *GapEvidence) Start(since time.Time) time.Time {
	if !e.From.IsZero() && e.From.Before(since) {
		return e.From
	}
	return since
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
// time of the node's last observation (zero: use the state's; later: the
// backend itself was down until then, so the node is given its grace from
// then), interval its heartbeat interval. Once now is past lastReceived +
// interval + grace it opens an unreachable incident dated as the report
// dates it: one interval after the newest observation heard promptly.
// Whatever of it the backend's own downtime explains is split off when it
// is judged (GapEvidence.Split), so the date is the node's, not the
// backend's.
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
	// Confirmed by receive time (alerts must be fast); dated by probe time.
	due := lastReceived.Add(interval)
	if !s.LastHeardAt.IsZero() {
		due = DueAfter(s.LastHeardAt, s.LastBeatAt, interval)
	}
	g := &Gap{Since: due, After: s.LastHeardAt, Cause: CauseNoData, Ev: s.seedEvidence(due, th)}
	g.refine()
	s.Unreachable = g
	g.Cause = g.summary(g.Ev.Split(g.span(), nil))
	return []Transition{Transition{Op: Open, Kind: Unreachable, Since: due, At: due, Cause: g.Cause, Counted: CauseCounted(g.Cause),
		Split: g.evidence()}.because(msg.New("no data from the node since %s (heartbeat every %s, grace %s)",
		msg.At(lastReceived, time.UTC), interval, th.Grace))}
}

// tol is the coverage tolerance: how far apart two observations may be
// and still show the node running in between (the report's).
func (s *State) tol(th Thresholds) time.Duration { return s.Interval + th.Grace }

// seedEvidence starts the evidence of a gap beginning at since from what
// the state saw shortly before it.
func (s *State) seedEvidence(since time.Time, th Thresholds) GapEvidence {
	ev := GapEvidence{Interval: s.Interval, Seen: Coverage{Tol: s.tol(th).Nanoseconds()}, After: s.LastHeardAt}
	from := since.Add(-s.tol(th)).UnixNano()
	for _, sp := range s.Seen.Spans {
		if sp.Last >= from {
			ev.Seen.AddSpan(sp.First, sp.Last)
		}
	}
	for _, c := range s.Conns {
		if !c.At.Before(since.Add(-ConnValidity)) {
			ev.Conns = append(ev.Conns, c)
		}
	}
	return ev
}

// refine dates the gap's beginning by the probe's link watch, if its
// evidence holds a record of it (RefineStart); true if that moved it.
func (g *Gap) refine() bool {
	after := g.After
	if after.IsZero() {
		after = g.Since.Add(-g.Ev.Interval)
	}
	from := RefineStart(after, g.Since, g.Ev.Conns)
	if !from.Before(g.start()) {
		return false
	}
	g.Ev.From = from
	return true
}

// span is the gap's interval: to its end, or while open to one interval
// past the newest instant it knows of (not before it began).
func (g *Gap) span() interval.Interval {
	end := g.Until
	if end.IsZero() {
		end = g.Since
		if n := len(g.Ev.Seen.Spans); n > 0 {
			if last := time.Unix(0, g.Ev.Seen.Spans[n-1].Last).Add(g.Ev.Interval); last.After(end) {
				end = last
			}
		}
	}
	return interval.Interval{Start: g.start(), End: end}
}

// summary is the one cause the incident record and its alerts name: its
// only cause; with several, the side — counted or not — that holds more
// of the gap (not counted when even), and of it the longest part's cause
// (of equal ones, the one the node's evidence says most about).
// The books judge each part by its own cause (GapEvidence.Split).
func (g *Gap) summary(segs []Segment) string {
	if len(segs) == 0 {
		return CauseNoData
	}
	var counted, not time.Duration
	for _, x := range segs {
		if CauseCounted(x.Cause) {
			counted += x.Span.Duration()
		} else {
			not += x.Span.Duration()
		}
	}
	side := counted > not
	best, bestLen := "", time.Duration(-1)
	for _, x := range segs {
		d := x.Span.Duration()
		if CauseCounted(x.Cause) == side && (d > bestLen || (d == bestLen && specific(x.Cause) > specific(best))) {
			best, bestLen = x.Cause, d
		}
	}
	return best
}

// specific ranks causes by how much the node's own evidence says about
// them, to settle equal parts: a failed or passed connectivity check says
// most, no data least.
func specific(cause string) int {
	switch cause {
	case CauseNetwork:
		return 4
	case CauseBackendOnly:
		return 3
	case CauseNoConnectivityEvidence:
		return 2
	case CauseBackendOutage:
		return 1
	}
	return 0
}

func sameSegment(a, b Segment) bool {
	return a.Cause == b.Cause && a.Span.Start.Equal(b.Span.Start) && a.Span.End.Equal(b.Span.End)
}

func (g *Gap) evidence() *GapEvidence {
	ev := g.Ev.Clone()
	return &ev
}

// within reports whether an observation at t can bear on the gap's split:
// from a tolerance before it began to a tolerance after it ended.
func (g *Gap) within(t time.Time, tol time.Duration) bool {
	return !t.Before(g.Since.Add(-tol)) && (g.Until.IsZero() || !t.After(g.Until.Add(tol)))
}

// Observe feeds one observation (in receive order). It closes an open
// unreachable incident at the observation's probe time when it was heard
// promptly, lets late data reclassify recent gaps (GapEvidence), and runs
// the check hysteresis.
func (s *State) Observe(th Thresholds, e *events.Event) []Transition {
	s.V = StateVersion
	at := e.TrueAt()
	if !s.Released.IsZero() && !at.Before(s.Released) {
		return nil // after the service period: not the provider's, not evaluated
	}
	if s.LastReceived.IsZero() || e.ReceivedAt.Sub(s.LastReceived) > ReceiptBreak(s.Interval, s.push(), th) {
		s.RecvFrom = e.ReceivedAt // a new run of receipts after a silence
	}
	o := s.sight(th, e, at)
	out := s.observeGaps(th, &o, e.ReceivedAt)
	if e.ReceivedAt.After(s.LastReceived) {
		s.LastReceived = e.ReceivedAt
	}
	if at.After(s.LastAt) {
		s.LastAt = at
	}
	if o.heard && o.heardAt.After(s.LastHeardAt) {
		s.LastHeardAt = o.heardAt
	}
	if o.heard && e.Kind == events.KindHeartbeat && o.heardAt.After(s.LastBeatAt) {
		s.LastBeatAt = o.heardAt
	}
	s.remember(at, o.conn, o.connOK, o.tol)
	s.rememberLate(&o, e.ReceivedAt)
	vs := Verdicts(e.Checks)
	out = append(out, s.stepLegacy(th, at, vs)...)
	out = s.stepChecks(th, at, vs, out)
	return s.stepNodeWidePasses(th, at, vs, out)
}

// sighting is what one observation can show about the node's gaps: its
// probe time, whether it was heard promptly (within the tolerance), and the
// probe's own connectivity verdict, if it had one (connOK).
type sighting struct {
	at  time.Time
	tol time.Duration
	// heard: received in time; heardAt is when it shows the node
	// connected (HeardAt) and runFrom when its run of receipts began.
	heard            bool
	heardAt, runFrom time.Time
	conn             Conn
	connOK, connFail bool
	connEv           string
}

// sight is what e, taken at at, can show about the node's gaps.
func (s *State) sight(th Thresholds, e *events.Event, at time.Time) sighting {
	tol := s.tol(th)
	o := sighting{at: at, tol: tol, heard: s.Interval <= 0 || e.ReceivedAt.Sub(at) <= SilenceAllowance(s.Interval, s.push(), th)}
	o.heardAt, o.runFrom = HeardAt(at, e.ReceivedAt, s.RecvFrom, s.Interval, s.push()), s.RecvFrom
	o.connFail, o.connEv, o.connOK = Connectivity(e.Checks)
	o.conn = Conn{At: at, Fail: o.connFail, Evidence: o.connEv, Lost: LinkLost(e.Checks), Reached: LinkReached(e.Checks)}
	if !o.connFail {
		o.conn.Evidence = ""
	}
	return o
}

// observeGaps closes the open gap when the observation (received at
// receivedAt) was heard promptly after it began, and reclassifies every
// recent or open gap whose split by cause the observation changes.
func (s *State) observeGaps(th Thresholds, o *sighting, receivedAt time.Time) []Transition {
	var out []Transition
	justClosed := -1
	if g := s.Unreachable; g != nil && o.heard && !receivedAt.Before(g.Since) {
		out = append(out, s.closeGap(o))
		justClosed = len(s.Recent) - 1
	} else if t, ok := s.recordGap(th, o); ok {
		out = append(out, t)
		justClosed = len(s.Recent) - 1
	}
	for i := range s.Recent {
		g := &s.Recent[i]
		if i == justClosed {
			continue // closed by this very observation, its evidence in
		}
		moved := o.earlierEnd(g)
		if moved {
			out = append(out, g.reclose())
		}
		if o.addEvidence(g) {
			out = append(out, o.reclassify(g))
		}
	}
	if g := s.Unreachable; g != nil && o.addEvidence(g) {
		out = append(out, o.reclassify(g))
	}
	return out
}

// closeGap ends the open gap when the first observation heard promptly
// after it shows the node connected, or at the first receipt of the run it
// came in (GapEnd; never before the gap began), and keeps it among the
// recent ones.
func (s *State) closeGap(o *sighting) Transition {
	g := s.Unreachable
	o.addEvidence(g)
	g.Until = GapEnd(g.start(), o.heardAt, o.runFrom)
	g.Ev.Heard = g.Until
	g.Cause = g.summary(g.Ev.Split(g.span(), nil))
	t := Transition{Op: Close, Kind: Unreachable, Since: g.Since, At: g.Until, Cause: g.Cause,
		Counted: CauseCounted(g.Cause), Split: g.evidence()}.because(msg.New("first observation heard promptly after the gap"))
	s.pushRecent(*g)
	s.Unreachable = nil
	return t
}

// earlierEnd ends the closed gap g where this observation, heard in time,
// shows the node connected, when that is earlier than where it ended
// (GapEnd); true if it moved. A batch's observations come in the probe's
// order, and the first heard in time is not always the one that shows the
// node connected first: of a drained spool, a heartbeat made 12 s before
// the drain shows it connected only from the drain's receipt, one made 2 s
// before, at its own time. The report ends the gap at the earliest of them
// (its heard coverage), and so does this.
func (o *sighting) earlierEnd(g *Gap) bool {
	if !o.heard || g.Until.IsZero() || o.heardAt.Before(g.start()) {
		return false
	}
	end := GapEnd(g.start(), o.heardAt, o.runFrom)
	if !end.Before(g.Until) {
		return false
	}
	g.Until = end
	if !g.Ev.Heard.IsZero() {
		g.Ev.Heard = end
	}
	return true
}

// reclose is the transition that records a closed gap's new end.
func (g *Gap) reclose() Transition {
	g.Cause = g.summary(g.Ev.Split(g.span(), nil))
	return Transition{Op: Close, Kind: Unreachable, Since: g.Since, At: g.Until, Cause: g.Cause,
		Counted: CauseCounted(g.Cause), Split: g.evidence()}.because(msg.New("an observation heard in time shows the node connected earlier"))
}

// recordGap records, after the fact, the gap that an observation heard in
// time ends when none is open: the newest one heard in time before it is
// further back than PromptTol, so the backend heard nothing in time from
// one interval after that one until this one — a gap the report sees too
// (its heard coverage). It is returned as a Record transition with the
// evidence to judge it by (GapEvidence.Counts: whether it was Overdue),
// and kept among the recent gaps for late data to reclassify. A gap not
// Overdue even with the backend up throughout is not recorded at all.
func (s *State) recordGap(th Thresholds, o *sighting) (Transition, bool) {
	if s.Unreachable != nil || !o.heard || s.Interval <= 0 || s.LastHeardAt.IsZero() || o.heardAt.Sub(s.LastHeardAt) <= PromptTol(s.Interval, th) {
		return Transition{}, false
	}
	since := DueAfter(s.LastHeardAt, s.LastBeatAt, s.Interval)
	g := &Gap{Since: since, After: s.LastHeardAt, Cause: CauseNoData, Ev: s.seedEvidence(since, th)}
	g.Ev.Allow, g.Ev.Grace = SilenceAllowance(s.Interval, s.push(), th), th.Grace
	g.Ev.Late = Coverage{Tol: s.Late.Tol, Spans: slices.Clone(s.Late.Spans)}
	g.refine()
	// Not silent for longer than the books allow even if the backend was
	// up throughout: no outage whatever its downtime, nothing to record.
	// (Its downtime can only take more out; Counts judges that later.)
	if !g.Ev.Counts(interval.Interval{Start: g.start(), End: GapEnd(g.start(), o.heardAt, o.runFrom)}, nil) {
		return Transition{}, false
	}
	s.Unreachable = g
	t := s.closeGap(o)
	t = t.because(msg.New("nothing heard in time from %s to %s: shorter than the grace, not alerted on",
		msg.At(since, time.UTC), msg.At(t.At, time.UTC)))
	t.Op = Record
	return t, true
}

// addEvidence adds what the observation shows about gap g; true if that
// changed how the gap splits by cause.
func (o *sighting) addEvidence(g *Gap) bool {
	at := o.at
	inSeen := g.within(at, o.tol)
	inConn := o.connOK && !at.Before(g.Since.Add(-ConnValidity)) && (g.Until.IsZero() || at.Before(g.Until))
	if g.contains(at) {
		g.Alive++
		if o.connOK {
			if o.connFail {
				g.ConnFail++
			} else {
				g.ConnPass++
			}
		}
	}
	if !inSeen && !inConn {
		return false
	}
	old := g.Ev.Split(g.span(), nil)
	if inSeen {
		g.Ev.Seen.Add(at.UnixNano())
	}
	moved := false
	if inConn {
		g.Ev.Conns = AddConn(g.Ev.Conns, o.conn)
		moved = o.conn.Lost && g.refine()
	}
	return moved || !slices.EqualFunc(old, g.Ev.Split(g.span(), nil), sameSegment)
}

// reclassify gives g the cause its new split says, with the evidence for
// the change.
func (o *sighting) reclassify(g *Gap) Transition {
	at := o.at
	cause := g.summary(g.Ev.Split(g.span(), nil))
	// The evidence stays the last one found when this sighting adds none
	// (kept as the record's English: the gap outlives a restart).
	why := msg.FromRecord(g.Evidence, g.Why)
	if o.connOK && o.connFail && g.contains(at) {
		why = msg.New("probe saw %s at %s", msg.Plain(o.connEv), msg.At(at, time.UTC))
	} else if cause != g.Cause && cause != CauseNetwork {
		why = msg.New("probe's own batches cover the gap (%d observations, %d connectivity passes)", g.Alive, g.ConnPass)
	}
	g.Cause = cause
	t := Transition{Op: Reclassify, Kind: Unreachable, Since: g.Since, At: at, Cause: cause,
		Counted: CauseCounted(cause), Split: g.evidence()}.because(why)
	// A sentence a record cannot keep stays its English (Evidence).
	g.Evidence, g.Why = t.Evidence, nil
	if k, err := msg.Keep(t.Why); err == nil {
		g.Why = k
	}
	return t
}

// stepChecks runs each verdict's check through its hysteresis.
func (s *State) stepChecks(th Thresholds, at time.Time, vs []Verdict, out []Transition) []Transition {
	for _, v := range vs {
		if s.Checks == nil {
			s.Checks = make(map[string]*Hysteresis)
		}
		h := s.Checks[v.Key()]
		if h == nil {
			h = &Hysteresis{}
			s.Checks[v.Key()] = h
			if s.perGPU != nil {
				s.indexKey(v.Key())
			}
		}
		if t, ok := h.Step(th, at, v); ok {
			out = append(out, t)
		}
	}
	return out
}

// stepNodeWidePasses: a check that reports failures per GPU and passes
// node-wide ("no XID on any GPU"): the node-wide pass is a pass of each
// GPU's instance, unless that instance had its own result in this
// observation. The instances are found in the per-GPU index (gpuKeys), so
// a pass costs what its own instances cost, not a look at every check the
// node has.
func (s *State) stepNodeWidePasses(th Thresholds, at time.Time, vs []Verdict, out []Transition) []Transition {
	var own map[string]bool // this observation's keys, made when a pass has instances
	for _, v := range vs {
		if v.Fail || v.Check != v.Name {
			continue
		}
		keys := s.gpuKeys()[v.Name]
		if len(keys) == 0 {
			continue
		}
		if own == nil {
			own = make(map[string]bool, len(vs))
			for _, u := range vs {
				own[u.Key()] = true
			}
		}
		for _, key := range keys {
			if own[key] {
				continue
			}
			if t, ok := s.Checks[key].Step(th, at, Verdict{Kind: v.Kind, Check: key, Name: v.Name}); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// gpuKeys indexes the per-GPU keys of Checks by the check name they are an
// instance of: every name n for which a key begins n + "/gpu", each list in
// key order (the order transitions come in). It is made once from the
// checks (a state read from the store has none) and kept up to date as
// stepChecks adds keys.
func (s *State) gpuKeys() map[string][]string {
	if s.perGPU == nil {
		s.perGPU = map[string][]string{}
		for _, key := range slices.Sorted(maps.Keys(s.Checks)) {
			s.indexKey(key)
		}
	}
	return s.perGPU
}

// indexKey adds key to the per-GPU index under every name it is an
// instance of, in key order.
func (s *State) indexKey(key string) {
	for i := 0; ; {
		j := strings.Index(key[i:], "/gpu")
		if j < 0 {
			return
		}
		name := key[:i+j]
		ks := s.perGPU[name]
		k, _ := slices.BinarySearch(ks, key)
		s.perGPU[name] = slices.Insert(ks, k, key)
		i += j + 1
	}
}

// stepLegacy feeds a version 1 state's per-kind entries (keyed by a bare
// Kind) their kind's
// summed verdict (fail if any check of the kind failed) until each is
// closed, then drops it.
func (s *State) stepLegacy(th Thresholds, at time.Time, vs []Verdict) []Transition {
	var out []Transition
	// A version 1 key is a bare kind: look those up, never walk every
	// check the node has (an observation's cost would grow with them).
	for _, k := range Kinds {
		key := string(k)
		h := s.Checks[key]
		if h == nil {
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
	why := msg.New("the node was released (given back); its service period ended")
	var out []Transition
	if g := s.Unreachable; g != nil {
		g.Until = at
		if g.Until.Before(g.Since) {
			g.Until = g.Since
		}
		out = append(out, Transition{Op: Close, Kind: Unreachable, Since: g.Since, At: g.Until, Cause: g.Cause,
			Counted: CauseCounted(g.Cause)}.because(why))
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
		out = append(out, Transition{Op: Close, Kind: kind, Check: check, Since: h.Since, At: end, Cause: CauseCheck, Counted: true}.because(why))
		*h = Hysteresis{Kind: h.Kind, Last: h.Last}
	}
	return out
}

// push is the node's push interval, one heartbeat a push when unset.
func (s *State) push() time.Duration {
	if s.Push <= 0 {
		return s.Interval
	}
	return s.Push
}

// rememberLate adds the receipt of an observation not heard in time to
// Late, and forgets the receipts no gap can reach back to any more: those a
// tolerance before the newest observation heard in time (a gap begins one
// interval after it).
func (s *State) rememberLate(o *sighting, receivedAt time.Time) {
	if s.Late.Tol != o.tol.Nanoseconds() {
		s.Late = Coverage{Tol: o.tol.Nanoseconds()}
	}
	if !o.heard {
		s.Late.Add(receivedAt.UnixNano())
	}
	if s.LastHeardAt.IsZero() {
		return
	}
	cut := s.LastHeardAt.Add(-o.tol).UnixNano()
	k := 0
	for k < len(s.Late.Spans) && s.Late.Spans[k].Last < cut {
		k++
	}
	if k > 0 {
		s.Late.Spans = slices.Delete(s.Late.Spans, 0, k)
	}
}

// pushRecent keeps a closed gap open to reclassification by late data.
func (s *State) pushRecent(g Gap) {
	s.Recent = append(s.Recent, g)
	if len(s.Recent) > maxRecent {
		s.Recent = s.Recent[len(s.Recent)-maxRecent:]
	}
}

// remember adds the observation to the evidence a future gap starts with,
// and forgets what no gap can begin near any more: instants more than the
// tolerance before the newest heartbeat heard promptly (a gap begins one
// interval after it), and verdicts older than the one in force then.
func (s *State) remember(at time.Time, c Conn, connOK bool, tol time.Duration) {
	if s.Seen.Tol != tol.Nanoseconds() {
		s.Seen = Coverage{Tol: tol.Nanoseconds()}
	}
	s.Seen.Add(at.UnixNano())
	if connOK {
		s.Conns = AddConn(s.Conns, c)
	}
	if s.LastHeardAt.IsZero() {
		return
	}
	cut := s.LastHeardAt.Add(-tol).UnixNano()
	k := 0
	for k < len(s.Seen.Spans) && s.Seen.Spans[k].Last < cut {
		k++
	}
	if k > 0 {
		s.Seen.Spans = slices.Delete(s.Seen.Spans, 0, k)
	}
	// A gap begins after LastHeardAt, and its split starts from the
	// verdict in force then: the newest at or before it. Older ones are
	// never read again.
	k = 0
	for k+1 < len(s.Conns) && !s.Conns[k+1].At.After(s.LastHeardAt) {
		k++
	}
	if k > 0 {
		s.Conns = slices.Delete(s.Conns, 0, k)
	}
}
