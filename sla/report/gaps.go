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

// connValidity is how long a connectivity verdict describes the node after
// the check ran, unless a newer one comes first; past it nothing is known.
// Probes check connectivity every few minutes to hourly; two hours covers
// a missed run without letting a stale result speak for a long gap.
const connValidity = 2 * time.Hour

type gap struct {
	span interval.Interval
	open bool // still unreachable at the end of the report
}

func nanos(t int64) time.Time { return time.Unix(0, t) }

// heardGaps are the intervals in which the backend heard nothing in time:
// from when the next heartbeat was due to the first one heard after (probe
// time, so the transit delay of a prompt heartbeat is not an outage).
func (n *nodeAcc) heardGaps(end time.Time) []gap {
	iv := n.interval
	var out []gap
	sp := n.heard.spans
	for i := 0; i+1 < len(sp); i++ {
		out = append(out, gap{span: interval.Interval{Start: nanos(sp[i].last).Add(iv), End: nanos(sp[i+1].first)}})
	}
	if len(sp) > 0 {
		last := nanos(sp[len(sp)-1].last)
		if end.Sub(last).Nanoseconds() > n.heard.tol {
			out = append(out, gap{span: interval.Interval{Start: last.Add(iv), End: end}, open: true})
		}
	}
	return out
}

// alive is where the node's own observations (probe time) show it running
// within g: from each observed instant until its next heartbeat was due.
func (n *nodeAcc) alive(g interval.Interval) interval.Set {
	iv := n.interval.Nanoseconds()
	sp := n.probe.spans
	gs, ge := g.Start.UnixNano(), g.End.UnixNano()
	i := sort.Search(len(sp), func(i int) bool { return sp[i].last+iv > gs })
	var out []interval.Interval
	for ; i < len(sp) && sp[i].first < ge; i++ {
		out = append(out, interval.Interval{Start: nanos(sp[i].first), End: nanos(sp[i].last + iv)})
	}
	return interval.Union(out...).Clip(g)
}

type seg struct {
	iv    interval.Interval
	cause string
	ev    []msg.Text
}

// splitGap says whose fault each part of a receive gap was (docs/contract.md,
// "Late data and whose fault a gap is"): no batch covers it → no_data; the
// node ran but could not reach the outside → network; it ran and reached the
// outside → backend only (not counted); the backend itself was down →
// backend_outage (not counted).
func (n *nodeAcc) splitGap(g gap, backend interval.Set, backendSummary []string, backendRaw []interval.Interval) []account.Outage {
	G := g.span
	loc := n.tm.Calendar.Loc
	head := msg.New("backend heard nothing in time after the heartbeat of %s until %s (next heartbeat was due %s)",
		msg.At(G.Start.Add(-n.interval), loc), n.endText(g), msg.At(G.Start, loc))
	alive := n.alive(G)
	var segs []seg
	for _, d := range (interval.Set{G}).Minus(alive) {
		ev := []msg.Text{msg.New("no observation from the node covers this interval (probe time)")}
		for _, e := range n.drops {
			if e.Type == "batch_dropped" && !e.At.Before(d.Start) && e.At.Before(d.End.Add(24*time.Hour)) {
				ev = append(ev, msg.New("probe reported at %s that its spool dropped %d batches (seq %d to %d): %s",
					msg.At(e.At, loc), e.Batches, e.FromSeq, e.ToSeq, msg.Plain(e.Reason)))
			}
		}
		segs = append(segs, seg{d, incident.CauseNoData, ev})
	}
	n.sortConns()
	for _, a := range alive {
		segs = append(segs, n.connSegments(a)...)
	}
	// The backend's own downtime overrides any cause.
	var out []seg
	for _, s := range segs {
		for _, x := range (interval.Set{s.iv}).Minus(backend) {
			out = append(out, seg{x, s.cause, s.ev})
		}
		for _, x := range (interval.Set{s.iv}).And(backend) {
			ev := []msg.Text{msg.New("the backend was down")}
			for i, b := range backendRaw {
				if b.Start.Before(x.End) && b.End.After(x.Start) && backendSummary[i] != "" {
					ev = append(ev, msg.New("backend outage: %s", msg.Plain(backendSummary[i])))
				}
			}
			out = append(out, seg{x, incident.CauseBackendOutage, ev})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].iv.Start.Before(out[j].iv.Start) })
	var res []account.Outage
	for _, s := range out {
		if k := len(res) - 1; k >= 0 && res[k].Cause == s.cause && res[k].Span.End.Equal(s.iv.Start) {
			res[k].Span.End = s.iv.End
			continue
		}
		res = append(res, account.Outage{Kind: incident.Unreachable, Cause: s.cause, Span: s.iv, Evidence: append([]msg.Text{head}, s.ev...)})
	}
	return res
}

func (n *nodeAcc) endText(g gap) any {
	if g.open {
		return msg.New("the end of the report (still unreachable)")
	}
	return msg.At(g.span.End, n.tm.Calendar.Loc)
}

func (n *nodeAcc) sortConns() {
	if sort.SliceIsSorted(n.conns, func(i, j int) bool { return n.conns[i].at < n.conns[j].at }) {
		return
	}
	sort.SliceStable(n.conns, func(i, j int) bool { return n.conns[i].at < n.conns[j].at })
}

// connSegments splits a stretch in which the node ran by what its
// connectivity checks said.
func (n *nodeAcc) connSegments(a interval.Interval) []seg {
	cs := n.conns
	as, ae := a.Start.UnixNano(), a.End.UnixNano()
	valid := connValidity.Nanoseconds()
	i := sort.Search(len(cs), func(i int) bool { return cs[i].at > as })
	if i > 0 {
		i--
	}
	var out []seg
	cur := as
	emit := func(from, to int64, r *checkRec) {
		if to <= from {
			return
		}
		iv := interval.Interval{Start: nanos(from), End: nanos(to)}
		switch {
		case r == nil:
			out = append(out, seg{iv, incident.CauseNoConnectivityEvidence, []msg.Text{msg.New("the node's own batches show it running, but it sent no connectivity check result for this interval")}})
		case r.fail:
			out = append(out, seg{iv, incident.CauseNetwork, []msg.Text{msg.New("the node ran but could not reach the outside: %s at %s", msg.Plain(n.evText[r.ev]), msg.At(nanos(r.at), n.tm.Calendar.Loc))}})
		default:
			out = append(out, seg{iv, incident.CauseBackendOnly, []msg.Text{msg.New("the node ran and its connectivity check passed at %s", msg.At(nanos(r.at), n.tm.Calendar.Loc))}})
		}
	}
	for ; i < len(cs) && cs[i].at < ae; i++ {
		r := &cs[i]
		ws := max(r.at, as)
		we := min(r.at+valid, ae)
		if i+1 < len(cs) && cs[i+1].at < we {
			we = cs[i+1].at
		}
		if ws > cur {
			emit(cur, ws, nil)
			cur = ws
		}
		if we > cur {
			emit(cur, we, r)
			cur = we
		}
	}
	if cur < ae {
		emit(cur, ae, nil)
	}
	// Merge neighbours with the same cause, keeping the first evidence.
	var m []seg
	for _, s := range out {
		if k := len(m) - 1; k >= 0 && m[k].cause == s.cause && m[k].iv.End.Equal(s.iv.Start) {
			m[k].iv.End = s.iv.End
			continue
		}
		m = append(m, s)
	}
	return m
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
					msg.Plain(h.FirstFailEvidence), msg.At(t.Since, loc))
			} else {
				openEv = msg.New("%s at %s; %d failing results of this check in a row opened the incident",
					msg.Plain(h.FirstFailEvidence), msg.At(t.Since, loc), h.FailRun)
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
func (n *nodeAcc) withNodeWidePasses(cs []checkRec) []checkRec {
	gpus := map[int32][]int32{} // per-GPU keys of each check, by name
	seen := map[[2]int64]bool{}
	for _, r := range cs {
		if r.key != r.name {
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
