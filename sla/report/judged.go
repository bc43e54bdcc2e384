package report

import (
	"slices"
	"time"

	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/delivery"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/usage"
)

// Judged is one observation as the books read it: what the builder takes
// of its checks, judged once (Judge), independent of the contract, the
// month and as_of, which the builder applies when it records it
// (AddJudged). An observation added as an event is judged and recorded in
// the same two steps, so a month built from judged observations kept
// beforehand (a day's digest) is the month built from the events.
type Judged struct {
	Node string
	// At is the observation's probe time (events.Event.TrueAt), Recv its
	// receipt, both Unix nanoseconds.
	At, Recv int64
	// Time is At as the event held it, in its zone (a stored digest's is
	// UTC, as the store's events are): the usage readings keep it.
	Time time.Time
	Beat bool // a heartbeat (events.KindHeartbeat)
	// HasChecks: the observation held checks (only Checks' kept ones
	// follow it).
	HasChecks bool
	// Pass: its verdicts pass as an acceptance result reads them
	// (delivery.VerdictsPass).
	Pass bool
	// Verdicts are its verdicts (incident.AppendVerdicts), a failure
	// naming its evidence by the failing check in Checks.
	Verdicts []JudgedVerdict
	// Conn is its connectivity result (incident.ConnectivityText).
	Conn JudgedConn
	// Checks are the checks read again when recorded: the failures that
	// are evidence, the stress figures (baseline.FigureOf) and the
	// acceptance inventory (delivery.Inventory); Figures and Inventory are
	// indexes into it, each in the observation's order.
	Checks             []events.Check
	Figures, Inventory []int32
	// HasUsage: it held usage checks (usage.IsUsage), read as Usage
	// (usage.FromChecks at Time) when UsageOK, or refused with UsageErr
	// when UsageBad.
	HasUsage, UsageOK, UsageBad bool
	Usage                       usage.Reading
	UsageErr                    string
	scratch                     []incident.Verdict // Judge's, reused
}

// JudgeVersion names what Judge keeps of an observation and how record
// reads it: a change to either must change it, so that observations judged
// and kept by an older build (a stored day digest) are judged again from
// their batches instead of read as they were.
const JudgeVersion = 2

// JudgedVerdict is one verdict of a judged observation; Ev is the index in
// Judged.Checks of the failing check its evidence is (-1: it passed).
type JudgedVerdict struct {
	Kind      incident.Kind
	Key, Name string
	Fail      bool
	Ev        int32
}

// JudgedConn is a judged observation's connectivity result: OK when it
// held one; Ev the failing check in Judged.Checks (-1: none).
type JudgedConn struct {
	OK, Fail, Lost, Reached bool
	Ev                      int32
}

// Judge judges observation e into j, reusing j's slices; keys caches the
// check keys (nil: none kept). j.Checks is e.Checks itself: Compact
// keeps only what is read again.
func Judge(e *events.Event, keys *incident.Keys, j *Judged) {
	t := e.TrueAt()
	*j = Judged{Node: e.Node, At: t.UnixNano(), Time: t, Recv: e.ReceivedAt.UnixNano(), Beat: e.Kind == events.KindHeartbeat,
		HasChecks: len(e.Checks) > 0, Checks: e.Checks, Verdicts: j.Verdicts[:0], Figures: j.Figures[:0],
		Inventory: j.Inventory[:0], Conn: JudgedConn{Ev: -1}, scratch: j.scratch}
	if !j.HasChecks {
		return
	}
	if keys == nil {
		keys = &incident.Keys{}
	}
	cs := e.Checks
	j.Pass = delivery.VerdictsPass(cs)
	for i := range cs {
		c := &cs[i]
		if _, ok := baseline.FigureOf(c); ok {
			j.Figures = append(j.Figures, int32(i))
		}
		if delivery.InInventory(c.Name) {
			j.Inventory = append(j.Inventory, int32(i))
		}
		j.HasUsage = j.HasUsage || usage.IsUsage(c.Name)
	}
	if j.HasUsage {
		r, ok, err := usage.FromChecks(t, cs)
		switch {
		case err != nil:
			j.UsageBad, j.UsageErr = true, err.Error()
		case ok:
			j.UsageOK, j.Usage = true, r
		}
	}
	j.scratch = incident.AppendVerdicts(j.scratch, cs, keys)
	for _, v := range j.scratch {
		jv := JudgedVerdict{Kind: v.Kind, Key: v.Check, Name: v.Name, Fail: v.Fail, Ev: -1}
		if v.Fail {
			jv.Ev = int32(slices.IndexFunc(cs, func(c events.Check) bool {
				k, ok := incident.KindOfCategory(c.Category)
				return ok && k == v.Kind && c.Verdict == events.Fail && keys.CheckKey(&c) == v.Check
			}))
		}
		j.Verdicts = append(j.Verdicts, jv)
	}
	if fail, _, ok := incident.ConnectivityText(cs); ok {
		j.Conn = JudgedConn{OK: true, Fail: fail, Lost: incident.LinkLost(cs), Reached: incident.LinkReached(cs), Ev: -1}
		if fail {
			j.Conn.Ev = int32(slices.IndexFunc(cs, func(c events.Check) bool {
				return c.Category == events.CategoryConnectivity && c.Verdict == events.Fail
			}))
		}
	}
}

// Compact keeps in j.Checks only the checks read again (the failures'
// evidence, the figures, the inventory), in the
// observation's order, renumbering the indexes: what a digest stores.
func (j *Judged) Compact() {
	keep := make([]bool, len(j.Checks))
	for _, v := range j.Verdicts {
		if v.Ev >= 0 {
			keep[v.Ev] = true
		}
	}
	if j.Conn.Ev >= 0 {
		keep[j.Conn.Ev] = true
	}
	for _, l := range [][]int32{j.Figures, j.Inventory} {
		for _, i := range l {
			keep[i] = true
		}
	}
	at := make([]int32, len(j.Checks))
	var cs []events.Check
	for i := range j.Checks {
		if keep[i] {
			at[i] = int32(len(cs))
			cs = append(cs, j.Checks[i])
		}
	}
	for k := range j.Verdicts {
		if j.Verdicts[k].Ev >= 0 {
			j.Verdicts[k].Ev = at[j.Verdicts[k].Ev]
		}
	}
	if j.Conn.Ev >= 0 {
		j.Conn.Ev = at[j.Conn.Ev]
	}
	for _, l := range [][]int32{j.Figures, j.Inventory} {
		for k := range l {
			l[k] = at[l[k]]
		}
	}
	j.Checks, j.scratch = cs, nil
}

// pick is the checks of j at indexes ix, in order.
func (j *Judged) pick(ix []int32) []events.Check {
	out := make([]events.Check, len(ix))
	for k, i := range ix {
		out[k] = j.Checks[i]
	}
	return out
}

// AddJudged takes one judged observation, as Add takes the observation
// it was judged from.
func (b *Builder) AddJudged(j *Judged) {
	b.input.Events++
	if j.Recv > b.opts.AsOf.UnixNano() {
		b.input.AfterAsOf++
		return
	}
	b.record(j)
}

// AddFleetJudged is AddFleet of the observation j was judged from.
func (b *Builder) AddFleetJudged(j *Judged) {
	if !j.HasChecks || j.Recv > b.opts.AsOf.UnixNano() || len(j.Figures) == 0 {
		return
	}
	if j.At >= b.winStart {
		b.collectFleet(j.Node, j.At, j.pick(j.Figures))
	}
}

// record adds a judged observation to its node's books.
func (b *Builder) record(j *Judged) {
	n := b.node(j.Node)
	at := j.At
	if at < n.firstAt {
		n.firstAt = at
	}
	if n.registered {
		n.see(at, j.Recv, j.Beat)
	} else {
		n.pending = append(n.pending, [3]int64{at, j.Recv, b2i(j.Beat)})
	}
	if j.HasChecks && j.Pass && n.accepted.Wants(time.Unix(0, at)) {
		n.accepted.ObservePassing(time.Unix(0, at), delivery.Inventory(j.pick(j.Inventory)))
	}
	if !j.HasChecks || at < b.winStart {
		return
	}
	if len(j.Figures) > 0 && b.ownFleet && at < b.winEnd() {
		b.collectFleet(j.Node, at, j.pick(j.Figures))
	}
	b.collectUsage(n, j)
	for _, v := range j.Verdicts {
		ev := int32(-1)
		if v.Fail {
			t := incident.CheckEvidenceText(&j.Checks[v.Ev])
			ev = n.evidenceSaid(t.String(), t)
		}
		n.checks = append(n.checks, checkRec{at: at, kind: kindIndex(v.Kind), fail: v.Fail, ev: ev,
			key: n.evidence(v.Key), name: n.evidence(v.Name)})
	}
	if c := j.Conn; c.OK {
		ev := int32(-1)
		if c.Fail {
			t := incident.CheckEvidenceText(&j.Checks[c.Ev])
			ev = n.evidenceSaid(t.String(), t)
		}
		n.conns = append(n.conns, checkRec{at: at, fail: c.Fail, ev: ev, lost: c.Lost, reached: c.Reached})
	}
}
