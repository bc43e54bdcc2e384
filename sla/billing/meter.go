package billing

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/usage"
)

// meter is what the probe measured for a node's lines of one metered kind
// together — the most GB its interfaces can have sent over the lines'
// span, the GB-months its system disk held over it — so a charge split
// over several lines is held to the same measurement as one line billing
// it all (two 80 GB traffic lines where the counters prove at most 100 GB
// are 60 GB over, as one 160 GB line is). Each line takes its part of the
// measured most in bill-line order; what a line bills beyond what the
// lines before it left is over-billed. The lines bill distinct usage (each
// is charged on its own), so together they cannot exceed what was there.
type meter struct {
	lines  []int   // the group's bill lines, in order
	billed float64 // what they bill together (GB, GB-months)
	most   float64 // the measured most for them together
	left   float64 // what is left of most for the lines not yet judged
	what   msg.Text
}

// take holds a line's check (after its own checks) to what is left of the
// meter; a nil meter (a line alone of its kind) holds it to nothing more.
func (m *meter) take(c *lineCheck, unit msg.Text) {
	if m == nil || c.months <= 0 {
		return
	}
	if use := c.q * c.months; use > m.left+1e-9 {
		c.why = append(c.why, msg.New("bill lines %s bill %s %s together, but %s; the lines before this one take %s %s of it, so %s %s of this line's %s are more than was there",
			LineList(m.lines), fh(round3(m.billed)), unit, m.what, fh(round3(m.most-m.left)), unit, fh(round3(use-m.left)), unit, fh(round3(use))))
		c.q = m.left / c.months
	}
	m.left = math.Max(0, m.left-c.q*c.months)
}

// meters are the shared meters of every bill line that has one: a node's
// traffic lines and its system disk lines, when it has more than one of a
// kind and the probe's readings bound them.
func meters(r *report.Report, items []Item, disks map[int]diskMatch) map[int]*meter {
	byNode := map[string]*report.Node{}
	for i := range r.Nodes {
		byNode[r.Nodes[i].Node] = &r.Nodes[i]
	}
	anyRole := map[string]bool{}
	groups := map[[2]string][]Item{}
	var keys [][2]string
	for _, it := range items {
		anyRole[it.Node] = anyRole[it.Node] || it.AnyDisk
		if it.Kind != KindTraffic && it.Kind != KindSystemDisk || it.Period != r.Month || byNode[it.Node] == nil {
			continue
		}
		k := [2]string{it.Node, it.Kind}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], it)
	}
	out := map[int]*meter{}
	for _, k := range keys {
		lines, n := groups[k], byNode[k[0]]
		if len(lines) < 2 {
			continue
		}
		sort.SliceStable(lines, func(a, b int) bool { return lines[a].Line < lines[b].Line })
		var m *meter
		if k[1] == KindTraffic {
			m = trafficMeter(n, lines)
		} else if !anyRole[k[0]] {
			m = systemDiskMeter(n, lines, disks)
		}
		if m == nil {
			continue
		}
		m.left = m.most
		for _, it := range lines {
			m.lines = append(m.lines, it.Line)
			out[it.Line] = m
		}
	}
	return out
}

// trafficMeter bounds a node's traffic lines together by what its
// interfaces can have sent over the span from the first line's start to
// the last one's end (a line without from–to covers the service period):
// a span longer than the lines' own periods only gives the provider more.
func trafficMeter(n *report.Node, lines []Item) *meter {
	u := n.Usage
	if u == nil || u.Traffic == nil {
		return nil
	}
	m := &meter{}
	for _, it := range lines {
		m.billed += it.Quantity
	}
	from, to := span(lines, u.Traffic.From, u.Traffic.To)
	tr := usage.TrafficIn(u.All, from, to)
	if tr == nil || tr.Tx.Unbounded {
		return nil
	}
	m.most = float64(tr.Tx.Upper) / 1e9
	m.what = msg.New("the node's interfaces (%s) sent at most %s GB in %s – %s", strings.Join(tr.UpperIfaces, ", "), fh(round3(m.most)),
		msg.Time{Time: tr.From}, msg.Time{Time: tr.To})
	return m
}

// systemDiskMeter bounds a node's system disk lines together by the
// system disks its probe saw (a node boots from one at a time), in
// GB-months over the span of the lines (a line without from–to covers
// the month).
func systemDiskMeter(n *report.Node, lines []Item, disks map[int]diskMatch) *meter {
	dm := disks[lines[0].Line]
	if !dm.measured || dm.noSystem || dm.disk == nil {
		return nil
	}
	gb := 0.0
	var names []string
	for _, d := range dm.seen {
		if d.System {
			gb += float64(d.SizeBytes) / 1e9
			names = append(names, d.Name)
		}
	}
	m := &meter{}
	for _, it := range lines {
		m.billed += it.Quantity * monthShare(it, n)
	}
	from, to := span(lines, monthStart(n), monthEnd(n))
	share := monthShareOf(from, to, n)
	m.most = gb * share
	m.what = msg.New("the system disk (%s) holds %s GB%s", strings.Join(names, ", "), fh(round3(gb)), shareText(share))
	return m
}

// span is from the first line's start to the last one's end; a line
// without from–to covers from–to.
func span(lines []Item, from, to time.Time) (time.Time, time.Time) {
	lo, hi := time.Time{}, time.Time{}
	for i, it := range lines {
		f, t := from, to
		if !it.From.IsZero() && !it.To.IsZero() {
			f, t = it.From, it.To
		}
		if i == 0 || f.Before(lo) {
			lo = f
		}
		if i == 0 || t.After(hi) {
			hi = t
		}
	}
	return lo, hi
}
