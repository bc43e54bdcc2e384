package report

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
)

type gap struct {
	span interval.Interval
	// due is when the next heartbeat was due (span starts earlier where
	// the probe's link watch dates the loss: incident.RefineStart); heard
	// is when the closing heartbeat showed the node connected (span ends
	// earlier at the first receipt of the run it came in: incident.GapEnd);
	// after is when the backend last heard the node in time before it
	// (what it heard up to then shows nothing of the gap:
	// incident.Coverage.AliveAfter).
	due, heard, after time.Time
	open              bool // still unreachable at the end of the report
}

func nanos(t int64) time.Time { return time.Unix(0, t) }

// heardGaps are the intervals in which the backend heard nothing in time:
// from when the next heartbeat was due to the first one heard after (probe
// time, so the transit delay of a prompt heartbeat is not an outage).
func (n *nodeAcc) heardGaps(end time.Time) []gap {
	n.settle()
	iv := n.interval
	var out []gap
	sp := n.heard.Spans
	conns := n.connList()
	for i := 0; i+1 < len(sp); i++ {
		after, heard := nanos(sp[i].Last), nanos(sp[i+1].First)
		due := incident.DueAfter(after, n.lastBeat(sp[i].Last), iv)
		start := incident.RefineStart(after, due, conns)
		out = append(out, gap{span: interval.Interval{Start: start, End: incident.GapEnd(start, heard, n.closingRun(heard))},
			due: due, heard: heard, after: after})
	}
	if len(sp) > 0 {
		after := nanos(sp[len(sp)-1].Last)
		if end.Sub(after).Nanoseconds() > n.heard.Tol {
			due := incident.DueAfter(after, n.lastBeat(sp[len(sp)-1].Last), iv)
			out = append(out, gap{span: interval.Interval{Start: incident.RefineStart(after, due, conns), End: end}, due: due, after: after, open: true})
		}
	}
	return out
}

// lastBeat is the newest heard heartbeat at or before the instant at,
// the last one heard before a gap (nothing was heard between at and the
// gap): zero if none.
func (n *nodeAcc) lastBeat(at int64) time.Time {
	sp := n.beats.Spans
	i := sort.Search(len(sp), func(i int) bool { return sp[i].First > at })
	if i == 0 {
		return time.Time{}
	}
	return nanos(min(sp[i-1].Last, at))
}

// closingRun is the first receipt of the receipt run the heartbeat that
// showed the node connected at heard arrived in: the one run with a
// receipt from a little before heard (skew) to as late as a heartbeat
// heard in time can come (runs are further apart than that).
func (n *nodeAcc) closingRun(heard time.Time) time.Time {
	from := heard.Add(-incident.TransitSlack).UnixNano()
	to := heard.UnixNano() + max(n.prompt, n.wait)
	sp := n.recv.Spans
	i := sort.Search(len(sp), func(i int) bool { return sp[i].Last >= from })
	if i < len(sp) && sp[i].First <= to {
		return nanos(sp[i].First)
	}
	return time.Time{}
}

// splitGap says whose fault each part of a receive gap was, by the rule
// the live service applies too (incident.SplitGap), and words each part's
// evidence: the spool drops near a no_data part, the connectivity result
// that decided a network or backend-only one, the backend outages behind a
// backend_outage one.
func (n *nodeAcc) splitGap(g gap, backend interval.Set, backendSummary []string, backendRaw []interval.Interval) []account.Outage {
	G := g.span
	loc := n.tm.Calendar.Loc
	head := []msg.Text{msg.New("backend heard nothing in time after the heartbeat of %s until %s (next heartbeat was due %s)",
		msg.At(g.due.Add(-n.interval), loc), n.endText(g), msg.At(g.due, loc))}
	if G.Start.Before(g.due) {
		head = append(head, msg.New("the probe's link watch lost the backend at %s, before the next heartbeat was due", msg.At(G.Start, loc)))
	}
	if !g.open && G.End.Before(g.heard) {
		head = append(head, msg.New("the backend heard from the node again at %s, the first of the batches it had spooled", msg.At(G.End, loc)))
	}
	var heard time.Time // when the backend heard the node again: the gap's end, unless it is still open
	if !g.open {
		heard = G.End
	}
	reconnect := incident.Reconnect(n.interval)
	// The records of the whole silence, from the last thing heard: one made
	// in the cut before the next heartbeat was due is named with the first
	// part.
	contradicted := incident.Contradicted(interval.Interval{Start: g.after.Add(time.Nanosecond), End: G.End}, n.connList(), heard, reconnect)
	var res []account.Outage
	for k, s := range incident.SplitGap(G, n.probe.AliveAfter(G, n.interval, g.after), n.connList(), backend, heard, reconnect) {
		ev := slices.Clone(head)
		var said []msg.Text // the node's word this part's silence contradicts
		if s.Cause != incident.CauseBackendOutage {
			from := s.Span.Start
			if k == 0 {
				from = g.after
			}
			said = n.contradictedText(interval.Interval{Start: from, End: s.Span.End}, contradicted, heard)
			ev = append(ev, said...)
		}
		switch s.Cause {
		case incident.CauseNoData:
			ev = append(ev, msg.New("no observation from the node covers this interval (probe time)"))
			for _, e := range n.drops {
				if e.Type == "batch_dropped" && !e.At.Before(s.Span.Start) && e.At.Before(s.Span.End.Add(24*time.Hour)) {
					ev = append(ev, msg.New("probe reported at %s that its spool dropped %d batches (seq %d to %d): %s",
						msg.At(e.At, loc), e.Batches, e.FromSeq, e.ToSeq, msg.FromProbe(e.Reason, nil)))
				}
			}
		case incident.CauseNetwork:
			ev = append(ev, msg.New("the node ran but could not reach the outside: %s at %s", n.said(s.Conn.Evidence), msg.At(s.Conn.At, loc)))
		case incident.CauseBackendOnly:
			ev = append(ev, msg.New("the node ran and its connectivity check passed at %s", msg.At(s.Conn.At, loc)))
		case incident.CauseNoConnectivityEvidence:
			if len(said) > 0 {
				ev = append(ev, msg.New("the node's own batches show it running; no connectivity result the backend's receipts allow covers this interval"))
			} else {
				ev = append(ev, msg.New("the node's own batches show it running, but it sent no connectivity check result for this interval"))
			}
		case incident.CauseBackendOutage:
			ev = append(ev, msg.New("the backend was down"))
			for i, b := range backendRaw {
				if b.Start.Before(s.Span.End) && b.End.After(s.Span.Start) && backendSummary[i] != "" {
					ev = append(ev, msg.New("backend outage: %s", msg.Plain(backendSummary[i])))
				}
			}
		}
		res = append(res, account.Outage{Kind: incident.Unreachable, Cause: s.Cause, Span: s.Span, Evidence: ev})
	}
	return res
}

// contradictedText words the node's passing connectivity records dated in
// span that the backend's silence contradicts (incident.Contradicted): the
// first few, and how many more.
func (n *nodeAcc) contradictedText(span interval.Interval, cs []incident.Conn, heard time.Time) []msg.Text {
	const shown = 3
	loc := n.tm.Calendar.Loc
	var out []msg.Text
	more := 0
	for _, c := range cs {
		if c.At.Before(span.Start) || !c.At.Before(span.End) {
			continue
		}
		if len(out) == shown {
			more++
			continue
		}
		until := any(msg.New("the end of the report"))
		if !heard.IsZero() {
			until = msg.At(heard, loc)
		}
		what := msg.New("its connectivity check passed")
		if c.Reached {
			what = msg.New("its link watch reached the backend")
		}
		out = append(out, msg.New("the node's record says %s at %s, but the backend, itself up, heard nothing from it until %s: kept as evidence, it changes nothing",
			what, msg.At(c.At, loc), until))
	}
	if more > 0 {
		out = append(out, msg.New("%d more such records, kept as evidence", more))
	}
	return out
}

func (n *nodeAcc) endText(g gap) any {
	if g.open {
		return msg.New("the end of the report (still unreachable)")
	}
	return msg.At(g.heard, n.tm.Calendar.Loc)
}

// connList is the node's connectivity results in time order, as
// incident.SplitGap takes them (made once, after the log is read).
func (n *nodeAcc) connList() []incident.Conn {
	if n.connsSplit != nil && len(n.connsSplit) == len(n.conns) {
		return n.connsSplit
	}
	sort.SliceStable(n.conns, func(i, j int) bool { return n.conns[i].at < n.conns[j].at })
	out := make([]incident.Conn, len(n.conns))
	for i, r := range n.conns {
		out[i] = incident.Conn{At: nanos(r.at), Fail: r.fail, Lost: r.lost, Reached: r.reached}
		if r.ev >= 0 {
			out[i].Evidence = n.evText[r.ev]
		}
	}
	n.connsSplit = out
	return out
}

type checkOutage struct {
	account.Outage
	open bool
}

// checkIncidents runs the contract's hysteresis over each check's verdicts
// (name and GPU) in probe-time order, as the live evaluation does.
func (n *nodeAcc) checkIncidents(end time.Time) []checkOutage {
	cs := n.checks
	n.sortChecks(cs)
	// Identical records are the same observation read twice.
	w := 0
	for i := range cs {
		if w > 0 && cs[w-1].key == cs[i].key && cs[w-1].at == cs[i].at && cs[w-1].fail == cs[i].fail {
			continue
		}
		cs[w] = cs[i]
		w++
	}
	cs = cs[:w]
	n.checks = cs
	cs = n.withNodeWidePasses(cs)
	var out []checkOutage
	th := n.tm.Detection
	loc := n.tm.Calendar.Loc
	var h incident.Hysteresis
	var v incident.Verdict
	var openEv msg.Text
	flush := func() {
		if h.Open && h.Since.Before(end) {
			out = append(out, checkOutage{account.Outage{Kind: h.Kind, Check: v.Check, Cause: incident.CauseCheck,
				Span: interval.Interval{Start: h.Since, End: end}, Evidence: []msg.Text{openEv, msg.New("still failing at the end of the report")}}, true})
		}
	}
	for i := range cs {
		r := &cs[i]
		if i == 0 || r.key != cs[i-1].key {
			flush()
			h = incident.Hysteresis{}
			v = incident.Verdict{Kind: incident.Kinds[r.kind], Check: n.evText[r.key], Name: n.evText[r.name]}
		}
		v.Kind, v.Fail, v.Evidence = incident.Kinds[r.kind], r.fail, ""
		if r.ev >= 0 {
			v.Evidence = n.evText[r.ev]
		}
		at := nanos(r.at)
		if !at.Before(end) {
			continue
		}
		t, ok := h.Step(th, at, v)
		if !ok {
			continue
		}
		if t.Op == incident.Open {
			if th.IsDefinitive(v.Name) {
				openEv = msg.New("%s at %s; a definitive check: one failure opened the incident",
					n.said(h.FirstFailEvidence), msg.At(t.Since, loc))
			} else {
				openEv = msg.New("%s at %s; %d failing results of this check in a row opened the incident",
					n.said(h.FirstFailEvidence), msg.At(t.Since, loc), h.FailRun)
			}
			continue
		}
		out = append(out, checkOutage{account.Outage{Kind: t.Kind, Check: v.Check, Cause: incident.CauseCheck,
			Span: interval.Interval{Start: t.Since, End: t.At}, Evidence: []msg.Text{openEv,
				msg.New("passing again from %s; %d passing results of this check in a row closed it", msg.At(t.At, loc), th.SuccessThreshold)}}, false})
	}
	flush()
	return out
}

// withNodeWidePasses adds, for every check reported per GPU, the passes the
// same check reported node-wide (no GPU: "no XID on any GPU") as passes of
// each GPU's instance, unless that instance has its own result at that
// instant — as incident.State.Observe does live. Sorted as checkIncidents
// wants.
//
// Only a check with node-wide passes can gain records, and most checks are
// reported one way only (a stress run's figures per GPU, a network check
// node-wide): indexing every per-GPU record of a year's stress results was
// a sixteenth of a year's scorecard, so only those of such checks are.
// Where nothing is added, cs is returned as it came (sorted already).
func (n *nodeAcc) withNodeWidePasses(cs []checkRec) []checkRec {
	wide := map[int32]bool{} // the checks with a node-wide pass, by name
	for _, r := range cs {
		if r.key == r.name && !r.fail {
			wide[r.name] = true
		}
	}
	if len(wide) == 0 {
		return cs
	}
	gpus := map[int32][]int32{} // per-GPU keys of each such check, by name
	seen := map[[2]int64]bool{}
	for _, r := range cs {
		if r.key != r.name && wide[r.name] {
			if !slices.Contains(gpus[r.name], r.key) {
				gpus[r.name] = append(gpus[r.name], r.key)
			}
			seen[[2]int64{int64(r.key), r.at}] = true
		}
	}
	if len(gpus) == 0 {
		return cs
	}
	out := slices.Clone(cs)
	for _, r := range cs {
		if r.key != r.name || r.fail {
			continue
		}
		for _, k := range gpus[r.name] {
			if !seen[[2]int64{int64(k), r.at}] {
				c := r
				c.key = k
				out = append(out, c)
			}
		}
	}
	n.sortChecks(out)
	return out
}

// sortChecks orders check records by check, then probe time, a failure
// before a pass at one instant; records equal in all three keep their order
// (the first one's evidence is the one kept).
//
// A node's month holds millions of records, one per check per observation,
// arriving observation by observation and so already in time order within
// each check: the records are bucketed by check (a stable counting sort on
// the checks' ranks by name), and a bucket is sorted only if it is not in
// order already.
func (n *nodeAcc) sortChecks(cs []checkRec) {
	if len(cs) < 2 {
		return
	}
	// Rank every key used by its text, once.
	var keys []int32
	rank := make([]int32, len(n.evText))
	for i := range rank {
		rank[i] = -1
	}
	for i := range cs {
		if k := cs[i].key; rank[k] < 0 {
			rank[k] = 0
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b int32) int { return strings.Compare(n.evText[a], n.evText[b]) })
	start := make([]int, len(keys)+1)
	for r, k := range keys {
		rank[k] = int32(r)
	}
	for i := range cs {
		start[rank[cs[i].key]+1]++
	}
	for r := 1; r < len(start); r++ {
		start[r] += start[r-1]
	}
	sorted := make([]checkRec, len(cs))
	next := slices.Clone(start[:len(keys)])
	for i := range cs {
		r := rank[cs[i].key]
		sorted[next[r]] = cs[i]
		next[r]++
	}
	byTime := func(a, b checkRec) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		switch {
		case a.fail == b.fail:
			return 0
		case a.fail:
			return -1
		}
		return 1
	}
	for r := range keys {
		if b := sorted[start[r]:start[r+1]]; !slices.IsSortedFunc(b, byTime) {
			slices.SortStableFunc(b, byTime)
		}
	}
	copy(cs, sorted)
}
