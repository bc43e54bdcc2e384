package document

import (
	"fmt"
	"sort"
	"time"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
)

// The charts are computed here, as plain geometry in a 1000-unit wide
// viewBox, and drawn by the HTML template (inline SVG) and the PDF writer
// alike, so both formats show the same picture.

// span is a parsed interval of the report, in the node's zone.
type span struct{ start, end time.Time }

func (s span) clip(a, b time.Time) (span, bool) {
	if s.start.Before(a) {
		s.start = a
	}
	if s.end.After(b) {
		s.end = b
	}
	return s, s.end.After(s.start)
}

// Band classes, worst first: what a piece of a day was.
const (
	bandCounted  = "counted"  // outage that counts against the provider
	bandObserved = "observed" // unreachable or down, but not counted (and why is in the table)
	bandExcluded = "excluded" // maintenance announced with enough notice
	bandOff      = "off"      // outside the node's service period
	bandUp       = "up"
)

// dayBar is one day of a node's month.
type dayBar struct {
	Date      string // YYYY-MM-DD in the contract's zone
	Label     string // day of month, for the axis
	X, W      float64
	Segs      []barSeg
	Hours     float64 // the day's real length (23, 24 or 25 on DST days)
	Uptime    float64 // claimable uptime of the day, percent of its in-service, non-excluded time
	Counted   time.Duration
	Observed  time.Duration
	Excluded  time.Duration
	InService bool
	Title     string
}

type barSeg struct {
	Y, H  float64
	Class string
}

// timelineItem is one bar in the incident timeline.
type timelineItem struct {
	Lane  int
	X, W  float64
	Class string
	Title string
}

type chartData struct {
	Days      []dayBar
	Timeline  []timelineItem
	Ticks     []tick
	Lanes     []string
	MonthDays int
}

type tick struct {
	X     float64
	Label string
}

// Chart geometry (SVG user units).
const (
	chartW    = 1000.0
	barAreaH  = 60.0
	laneH     = 16.0
	laneGap   = 4.0
	minMarkW  = 1.5 // so a one-minute outage is still visible on a month axis
	minSegH   = 2.0
	timelineX = 0.0
)

func parseTS(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	return t, err == nil
}

// monthBounds are the node's month in its zone, from the report's month.
func monthBounds(month string, loc *time.Location) (time.Time, time.Time, error) {
	m, err := time.Parse("2006-01", month)
	if err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("report month %q: %w", month, err)
	}
	start := time.Date(m.Year(), m.Month(), 1, 0, 0, 0, 0, loc)
	return start, start.AddDate(0, 1, 0), nil
}

// nodeChart computes a node's daily bars and its incident timeline.
func nodeChart(month string, n *report.Node, p *i18n.Printer) (chartData, error) {
	loc, err := time.LoadLocation(n.TimeZone)
	if err != nil {
		return chartData{}, fmt.Errorf("node %s: time zone %q: %w", n.Node, n.TimeZone, err)
	}
	ms, me, err := monthBounds(month, loc)
	if err != nil {
		return chartData{}, err
	}
	sp, err := chartSpans(n)
	if err != nil {
		return chartData{}, err
	}
	var cd chartData
	for d := ms; d.Before(me); d = d.AddDate(0, 0, 1) {
		cd.MonthDays++
	}
	slot := chartW / float64(cd.MonthDays)
	i := 0
	for d := ms; d.Before(me); d, i = d.AddDate(0, 0, 1), i+1 {
		cd.Days = append(cd.Days, sp.dayBar(d, d.AddDate(0, 0, 1), float64(i)*slot, slot, p))
	}
	tl := &timeline{cd: &cd, ms: ms, me: me, p: p, lane: map[string]int{}}
	tl.outages(n.Outages)
	tl.maintenance(n.Maintenance)
	tl.tickets(n.Tickets)
	for d, i := ms, 0; d.Before(me); d, i = d.AddDate(0, 0, 1), i+1 {
		if i%7 == 0 {
			cd.Ticks = append(cd.Ticks, tick{X: tl.x(d), Label: p.ShortDay(d)})
		}
	}
	return cd, nil
}

// nodeSpans are a node's month as the day bars draw it: its service
// period, and its outages and excluded maintenance as time spans.
type nodeSpans struct {
	service                     span
	inService                   bool
	counted, observed, excluded []span
}

// chartSpans reads the node's report rows into spans; an outage whose
// times cannot be read is an error (a bar would silently lose it).
func chartSpans(n *report.Node) (nodeSpans, error) {
	var sp nodeSpans
	if n.Period.InService {
		a, ok1 := parseTS(n.Period.Start)
		b, ok2 := parseTS(n.Period.End)
		if ok1 && ok2 {
			sp.service, sp.inService = span{a, b}, true
		}
	}
	for _, o := range n.Outages {
		a, ok1 := parseTS(o.Start)
		b, ok2 := parseTS(o.End)
		if !ok1 || !ok2 {
			return nodeSpans{}, fmt.Errorf("node %s: outage with unreadable start %q or end %q", n.Node, o.Start, o.End)
		}
		if o.Counted {
			sp.counted = append(sp.counted, span{a, b})
		} else {
			sp.observed = append(sp.observed, span{a, b})
		}
	}
	for _, m := range n.Maintenance {
		if !m.Excluded {
			continue
		}
		// A notice recorded late takes out only its effective parts.
		parts := m.Effective
		if len(parts) == 0 {
			parts = []report.Span{{Start: m.Start, End: m.End}}
		}
		for _, x := range parts {
			a, ok1 := parseTS(x.Start)
			b, ok2 := parseTS(x.End)
			if ok1 && ok2 {
				sp.excluded = append(sp.excluded, span{a, b})
			}
		}
	}
	return sp, nil
}

// within is how much of ss falls in the day [d, de) and in service.
func (sp *nodeSpans) within(ss []span, d, de time.Time) time.Duration {
	var t time.Duration
	for _, s := range ss {
		if c, ok := s.clip(d, de); ok {
			if sp.inService {
				c, ok = c.clip(sp.service.start, sp.service.end)
			}
			if ok {
				t += c.end.Sub(c.start)
			}
		}
	}
	return t
}

// dayBar is the bar of the day [d, de) at x in a slot of width slot: how
// much of it was in service, counted, observed only and excluded, drawn
// once each.
func (sp *nodeSpans) dayBar(d, de time.Time, x, slot float64, p *i18n.Printer) dayBar {
	day := de.Sub(d)
	bar := dayBar{Date: d.Format("2006-01-02"), Label: fmt.Sprint(d.Day()), X: x + slot*0.1, W: slot * 0.8, Hours: day.Hours()}
	var inDay time.Duration
	if sp.inService {
		if s, ok := sp.service.clip(d, de); ok {
			inDay = s.end.Sub(s.start)
			bar.InService = true
		}
	}
	bar.Counted, bar.Observed, bar.Excluded = sp.within(sp.counted, d, de), sp.within(sp.observed, d, de), sp.within(sp.excluded, d, de)
	// Downtime inside excluded maintenance is drawn once, as excluded.
	for _, o := range sp.observed {
		for _, e := range sp.excluded {
			if c, ok := o.clip(e.start, e.end); ok {
				if c, ok = c.clip(d, de); ok {
					bar.Observed -= c.end.Sub(c.start)
				}
			}
		}
	}
	if bar.Observed < 0 {
		bar.Observed = 0
	}
	// Observed-only time overlapping counted time is drawn once, as counted.
	if bar.Observed+bar.Counted > inDay {
		bar.Observed = max(0, inDay-bar.Counted)
	}
	base := inDay - bar.Excluded
	if base > 0 {
		bar.Uptime = 100 * float64(base-min(bar.Counted, base)) / float64(base)
	}
	bar.Segs = barSegments(day, inDay, bar)
	if !bar.InService {
		bar.Title = p.T("%s: not in service", bar.Date)
	} else {
		bar.Title = p.T("%s (%sh day): %s %% claimable uptime; counted outage %s, not counted %s, excluded maintenance %s",
			bar.Date, p.Num(bar.Hours, -1), p.Num(bar.Uptime, 3), bar.Counted, bar.Observed, bar.Excluded)
	}
	return bar
}

// barSegments stacks a day's segments from the top: off-service, excluded,
// counted, observed, up. Non-zero pieces get a minimum height so a minute
// of outage is not lost in a day.
func barSegments(day, inDay time.Duration, bar dayBar) []barSeg {
	pieces := []struct {
		class string
		d     time.Duration
	}{{bandOff, day - inDay}, {bandExcluded, bar.Excluded}, {bandCounted, bar.Counted}, {bandObserved, bar.Observed}}
	var segs []barSeg
	y := 0.0
	for _, p := range pieces {
		if p.d <= 0 {
			continue
		}
		h := barAreaH * float64(p.d) / float64(day)
		if h < minSegH {
			h = minSegH
		}
		if y+h > barAreaH {
			h = barAreaH - y
		}
		segs = append(segs, barSeg{Y: y, H: h, Class: p.class})
		y += h
	}
	if y < barAreaH {
		segs = append(segs, barSeg{Y: y, H: barAreaH - y, Class: bandUp})
	}
	return segs
}

// timeline lays the month's outages (a lane per kind), maintenance and
// tickets out along the month [ms, me).
type timeline struct {
	cd     *chartData
	ms, me time.Time
	p      *i18n.Printer
	lane   map[string]int
}

// x is t's position on the timeline, clamped to the month.
func (tl *timeline) x(t time.Time) float64 {
	if t.Before(tl.ms) {
		t = tl.ms
	}
	if t.After(tl.me) {
		t = tl.me
	}
	return timelineX + chartW*float64(t.Sub(tl.ms))/float64(tl.me.Sub(tl.ms))
}

// laneOf is the lane named name, added below the others the first time.
func (tl *timeline) laneOf(name string) int {
	if l, ok := tl.lane[name]; ok {
		return l
	}
	tl.lane[name] = len(tl.cd.Lanes)
	tl.cd.Lanes = append(tl.cd.Lanes, tl.p.Word(name))
	return tl.lane[name]
}

// item marks [a, b) in lane l, at least minMarkW wide.
func (tl *timeline) item(l int, a, b time.Time, class, title string) {
	x0, x1 := tl.x(a), tl.x(b)
	w := x1 - x0
	if w < minMarkW {
		w = minMarkW
	}
	tl.cd.Timeline = append(tl.cd.Timeline, timelineItem{Lane: l, X: x0, W: w, Class: class, Title: title})
}

// outages: one lane per outage kind, in the kinds' alphabetical order.
func (tl *timeline) outages(outs []report.Outage) {
	p := tl.p
	kinds := map[string]bool{}
	for _, o := range outs {
		kinds[o.Kind] = true
	}
	var kindList []string
	for k := range kinds {
		kindList = append(kindList, k)
	}
	sort.Strings(kindList)
	for _, k := range kindList {
		tl.laneOf(k)
	}
	for _, o := range outs {
		a, _ := parseTS(o.Start)
		b, _ := parseTS(o.End)
		class := bandCounted
		state := p.T("counted %s", time.Duration(o.CountedSeconds)*time.Second)
		if !o.Counted {
			class, state = bandObserved, p.T("not counted: %s", o.ReasonText)
		}
		tl.item(tl.lane[o.Kind], a, b, class, p.T("%s (%s) %s – %s: %s", msg.Word(o.Kind), msg.Word(o.Cause), p.Stamp(o.Start), p.Stamp(o.End), state))
	}
}

// maintenance: one lane, excluded windows apart from late notices.
func (tl *timeline) maintenance(ms []report.Maint) {
	if len(ms) == 0 {
		return
	}
	l := tl.laneOf("maintenance")
	for _, m := range ms {
		a, _ := parseTS(m.Start)
		b, _ := parseTS(m.End)
		class := bandExcluded
		if !m.Excluded {
			class = "maint-late"
		}
		tl.item(l, a, b, class, tl.p.T("maintenance %s – %s: %s", tl.p.Stamp(m.Start), tl.p.Stamp(m.End), m.ReasonText))
	}
}

// tickets: one lane, each ticket from its opening to its last answer or
// deadline.
func (tl *timeline) tickets(ts []report.Ticket) {
	if len(ts) == 0 {
		return
	}
	p := tl.p
	l := tl.laneOf("tickets")
	for _, t := range ts {
		a, _ := parseTS(t.OpenedAt)
		b := a
		for _, tg := range []*report.Target{t.Response, t.Resolution, t.Replacement} {
			if tg == nil {
				continue
			}
			for _, s := range []string{tg.At, tg.Deadline} {
				if e, ok := parseTS(s); ok && e.After(b) {
					b = e
				}
			}
		}
		class := "ticket"
		if t.Breached {
			class = "ticket-breached"
		}
		off := ""
		if t.OffHours {
			off = p.T(", off-hours")
		}
		tl.item(l, a, b, class, p.T("ticket %s (%s) opened %s%s: %s", t.Ticket, t.Priority, p.Stamp(t.OpenedAt), off,
			map[bool]string{true: p.T("breached"), false: p.T("within target")}[t.Breached]))
	}
}
