package incident

import (
	"sort"
	"time"

	"github.com/gpusla/gpusla/sla/interval"
)

// ConnValidity is how long a connectivity verdict describes the node after
// the check ran, unless a newer one comes first; past it nothing is known.
// Probes check connectivity every few minutes to hourly; two hours covers
// a missed run without letting a stale result speak for a long gap.
const ConnValidity = 2 * time.Hour

// Conn is one observation's connectivity verdict (Connectivity), at its
// probe time.
type Conn struct {
	At       time.Time `json:"at"`
	Fail     bool      `json:"fail,omitempty"`
	Evidence string    `json:"evidence,omitempty"`
	// Lost: the probe's link watch recorded here its first failed dial of
	// the backend after a success (LinkCheck), what RefineStart dates a
	// gap's beginning by.
	Lost bool `json:"lost,omitempty"`
	// Reached: the probe's link watch recorded here its first good dial
	// after failed ones (LinkCheck passing), what can end the counted part
	// of a gap the backend heard the end of (SplitGap).
	Reached bool `json:"reached,omitempty"`
}

// Segment is a part of an unreachable gap with one cause: whose fault that
// part was. Conn is the connectivity verdict that decided a network or
// backend-only segment (nil for the others).
type Segment struct {
	Span  interval.Interval `json:"span"`
	Cause string            `json:"cause"`
	Conn  *Conn             `json:"conn,omitempty"`
}

// Alive is where observations (cov, probe time) show the node running
// within g: from each span's first instant until one interval after its
// last, when its next heartbeat was due.
func (c *Coverage) Alive(g interval.Interval, iv time.Duration) interval.Set {
	return c.AliveAfter(g, iv, time.Time{})
}

// AliveAfter is Alive for a gap the backend last heard the node in time
// before at after (zero: not known): a span of observations none later
// than after shows nothing of the gap. The backend heard those in time and
// then missed the heartbeat due after them, so the node's running on for
// an interval past its last one is exactly what the missed heartbeat
// refutes; counting it would call the first moments of a dead node's gap
// "only the backend could not hear it" (up to one interval of every
// outage). Only observations after it, which came late, show the node ran
// into the gap.
func (c *Coverage) AliveAfter(g interval.Interval, iv time.Duration, after time.Time) interval.Set {
	ivn := iv.Nanoseconds()
	sp := c.Spans
	gs, ge := g.Start.UnixNano(), g.End.UnixNano()
	i := sort.Search(len(sp), func(i int) bool { return sp[i].Last+ivn > gs })
	var out []interval.Interval
	for ; i < len(sp) && sp[i].First < ge; i++ {
		if !after.IsZero() && sp[i].Last <= after.UnixNano() {
			continue
		}
		out = append(out, interval.Interval{Start: time.Unix(0, sp[i].First), End: time.Unix(0, sp[i].Last+ivn)})
	}
	return interval.Union(out...).Clip(g)
}

// Overdue reports whether, inside the receive gap g (from when the next
// heartbeat was due to when one was heard in time, or the end of the
// window), the backend went without hearing anything from the node, while
// it was itself up, for longer than the books allow: some part of g outside
// backend (the backend's own downtime) and outside late (where late batches
// were arriving: each receipt of an observation not heard in time, until
// one interval after it) is longer than that. Only then is the gap an
// unreachable incident, live or in the report.
//
// What the books allow is allow (SilenceAllowance: the push's own wait
// plus a few seconds): a batch a little late is no outage, but a silence
// the contract's downtime period can count is one even when it was too
// short to alert on (the alert waits for the grace; docs/contract.md,
// "Resolution"). A gap that touches the backend's own downtime keeps the
// whole grace: nobody could hear the node while the backend was down, and
// its reconnection and its spool's drain after the restart are paced by
// the backend, not the node.
//
// A gap that was overdue keeps its whole extent, dated by the observations
// heard in time, and is cut by cause (SplitGap).
func Overdue(g interval.Interval, backend, late interval.Set, allow, grace time.Duration) bool {
	if len((interval.Set{g}).And(backend)) > 0 {
		allow = grace
	}
	for _, p := range (interval.Set{g}).Minus(backend).Minus(late) {
		if p.End.Sub(p.Start) > allow {
			return true
		}
	}
	return false
}

// SplitGap says whose fault each part of a gap in what the backend heard
// was (docs/contract.md, "Late data and whose fault a gap is" and
// "Evidence precedence"), the one rule of the monthly report and the live
// service: where no observation covers it (alive), no_data; where the node
// ran, by the connectivity verdict in force (conns, by time; one is in
// force from its instant until the next or ConnValidity, whichever is
// first): failed → network, none → no_connectivity_evidence; and inside
// backend (the backend's own downtime), backend_outage whatever else held.
// Neighbours with one cause are one segment (the first's verdict kept).
//
// The backend's silence outranks the node's word about its own
// reachability: a passing connectivity record inside the gap (a gateway
// ping, a target reached) is kept as evidence and changes nothing
// (Contradicted), except the link watch's record of reaching the backend
// made at most reconnect before the backend heard the node again (heard;
// zero: not yet, or the gap was cut short by a release): from it on, the
// rest is the probe's reconnection, backend_unreachable_only.
func SplitGap(g interval.Interval, alive interval.Set, conns []Conn, backend interval.Set, heard time.Time, reconnect time.Duration) []Segment {
	conns = admissible(conns, heard, reconnect)
	var segs []Segment
	for _, d := range (interval.Set{g}).Minus(alive) {
		segs = append(segs, Segment{Span: d, Cause: CauseNoData})
	}
	for _, a := range alive {
		segs = append(segs, connSegments(a, conns)...)
	}
	var out []Segment
	for _, s := range segs {
		for _, x := range (interval.Set{s.Span}).Minus(backend) {
			out = append(out, Segment{Span: x, Cause: s.Cause, Conn: s.Conn})
		}
		for _, x := range (interval.Set{s.Span}).And(backend) {
			out = append(out, Segment{Span: x, Cause: CauseBackendOutage})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Span.Start.Before(out[j].Span.Start) })
	var res []Segment
	for _, s := range out {
		if k := len(res) - 1; k >= 0 && res[k].Cause == s.Cause && res[k].Span.End.Equal(s.Span.Start) {
			res[k].Span.End = s.Span.End
			continue
		}
		res = append(res, s)
	}
	return res
}

// admissible is conns without the passes the backend's silence until heard
// contradicts: every pass but the link watch's reaching the backend at most
// reconnect before heard. A failure is the node's word against itself, and
// stays. conns is left as it is.
func admissible(conns []Conn, heard time.Time, reconnect time.Duration) []Conn {
	var out []Conn
	for i, c := range conns {
		if c.Fail || reconnects(c, heard, reconnect) {
			if out != nil {
				out = append(out, c)
			}
			continue
		}
		if out == nil {
			out = append(make([]Conn, 0, len(conns)), conns[:i]...)
		}
	}
	if out == nil {
		return conns
	}
	return out
}

// reconnects says whether c is the link watch's record of reaching the
// backend made at most reconnect before the backend heard the node again at
// heard.
func reconnects(c Conn, heard time.Time, reconnect time.Duration) bool {
	return c.Reached && !heard.IsZero() && !c.At.After(heard) && heard.Sub(c.At) <= reconnect
}

// Contradicted lists the passing connectivity records dated inside g that
// the backend's silence contradicts (SplitGap): kept as evidence, they
// change nothing.
func Contradicted(g interval.Interval, conns []Conn, heard time.Time, reconnect time.Duration) []Conn {
	var out []Conn
	for _, c := range conns {
		if k := len(out) - 1; k >= 0 && out[k].At.Equal(c.At) {
			continue // one record at one instant (a log may repeat it)
		}
		if !c.Fail && !c.At.Before(g.Start) && c.At.Before(g.End) && !reconnects(c, heard, reconnect) {
			out = append(out, c)
		}
	}
	return out
}

// connSegments splits a stretch in which the node ran by the connectivity
// verdict in force.
func connSegments(a interval.Interval, cs []Conn) []Segment {
	i := sort.Search(len(cs), func(i int) bool { return cs[i].At.After(a.Start) })
	if i > 0 {
		i--
	}
	var out []Segment
	cur := a.Start
	emit := func(from, to time.Time, c *Conn) {
		if !to.After(from) {
			return
		}
		s := Segment{Span: interval.Interval{Start: from, End: to}, Cause: CauseNoConnectivityEvidence}
		if c != nil {
			cc := *c
			s.Conn, s.Cause = &cc, CauseBackendOnly
			if c.Fail {
				s.Cause = CauseNetwork
			}
		}
		out = append(out, s)
	}
	for ; i < len(cs) && cs[i].At.Before(a.End); i++ {
		c := &cs[i]
		ws := interval.Latest(c.At, a.Start)
		we := interval.Earliest(c.At.Add(ConnValidity), a.End)
		if i+1 < len(cs) && cs[i+1].At.Before(we) {
			we = cs[i+1].At
		}
		if ws.After(cur) {
			emit(cur, ws, nil)
			cur = ws
		}
		if we.After(cur) {
			emit(cur, we, c)
			cur = we
		}
	}
	if cur.Before(a.End) {
		emit(cur, a.End, nil)
	}
	return out
}

// MaxConns bounds the connectivity results a gap keeps (and the state keeps
// from before its newest heartbeat): past it, results whose neighbours on
// both sides say the same within ConnValidity of each other are dropped,
// which changes no split unless a result of the other verdict later
// arrives between them. A week-long gap of 5-minute checks that keeps
// flipping is the only thing that reaches it.
const MaxConns = 256

// AddConn inserts c into cs (sorted by time); two results at one instant
// are one, a failure deciding (as in Connectivity).
func AddConn(cs []Conn, c Conn) []Conn {
	i := sort.Search(len(cs), func(i int) bool { return !cs[i].At.Before(c.At) })
	if i < len(cs) && cs[i].At.Equal(c.At) {
		lost, reached := cs[i].Lost || c.Lost, cs[i].Reached || c.Reached
		if c.Fail && !cs[i].Fail {
			cs[i] = c
		}
		cs[i].Lost, cs[i].Reached = lost, reached
		return cs
	}
	cs = append(cs, Conn{})
	copy(cs[i+1:], cs[i:])
	cs[i] = c
	if len(cs) <= MaxConns {
		return cs
	}
	out := cs[:0]
	for j := range cs {
		if k := len(out); k > 0 && j+1 < len(cs) && !cs[j].Lost && !cs[j].Reached && out[k-1].Fail == cs[j].Fail && cs[j+1].Fail == cs[j].Fail &&
			cs[j+1].At.Sub(out[k-1].At) <= ConnValidity {
			continue
		}
		out = append(out, cs[j])
	}
	return out
}
