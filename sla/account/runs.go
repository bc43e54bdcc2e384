package account

import (
	"time"

	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/terms"
)

// Run is one run of unavailability as the contract's downtime period
// counts it. The contract's rule (its minimum, its unit and rounding) is
// applied to the whole run, however many months it spans, and only then is
// what it counts attributed to the months its own seconds fall in: a
// two-minute outage across midnight at the end of a month is two minutes
// under a one-minute minimum, one in each month, never two runs of one
// minute judged apart.
type Run struct {
	// Span is the whole run, unclipped: it may begin before the period and
	// end after it.
	Span interval.Interval
	// Counted is what the contract counts of the whole run.
	Counted time.Duration
	// Kept are the run's own instants the contract counts, inside the
	// period; Pad is the rounding-up beyond the run's own time (a 61 s run
	// counted as two minutes has 59 s of it), attributed to the month the
	// run ended in, so zero unless it ended inside the period.
	Kept interval.Set
	Pad  time.Duration
	// Whole is the run's counted instants, unclipped (the run itself under
	// a rule that rounds up, whose rounding is Counted beyond it).
	Whole interval.Interval
}

// CountedWithin is what the contract counts of the whole run inside the
// service terms [from, to) (a zero bound: none on that side): all of it
// when the run lies inside them; else its counted instants inside them, in
// whole units of unit where the rule counts whole units from the run's
// start (the part outside may leave a partial unit, never counted). A
// rounding-up pad belongs to the month the run ended in: kept when that
// end is inside the terms, dropped when the run ran on past to.
func (r Run) CountedWithin(from, to time.Time, unit time.Duration) time.Duration {
	start, end, pad := r.Whole.Start, r.Whole.End, r.Counted-r.Whole.Duration()
	clipped := false
	if !from.IsZero() && start.Before(from) {
		start, clipped = from, true
	}
	if !to.IsZero() && end.After(to) {
		end, clipped, pad = to, true, 0
	}
	if !clipped {
		return r.Counted
	}
	if !end.After(start) {
		return 0
	}
	d := end.Sub(start)
	if unit > 0 && pad == 0 {
		d = d.Truncate(unit)
	}
	return d + pad
}

// InPeriod is how much of the run the period's books count.
func (r Run) InPeriod() time.Duration { return r.Kept.Total() + r.Pad }

// CountRuns applies dp to each run of unavailability in runs (whole, not
// clipped) and attributes what it counts to period: the run's counted
// instants (from its start under a rule that rounds down or counts to the
// second; its whole clock units under a clock rule; all of it under a rule
// that rounds up) clipped to the period, and a rounding-up pad when the run
// ended inside the period. loc is the contract's zone (clock units).
func CountRuns(dp terms.DowntimePeriod, runs interval.Set, period interval.Interval, loc *time.Location) []Run {
	var out []Run
	for _, iv := range runs {
		r := Run{Span: iv, Counted: dp.Counted(iv.Duration())}
		if r.Counted <= 0 {
			continue
		}
		kept := iv
		switch {
		case dp.Rounding == terms.RoundClock:
			kept.Start, kept.End = dp.ClockUnits(iv.Start, iv.End, loc)
			r.Counted = kept.Duration()
		case r.Counted < iv.Duration():
			kept.End = iv.Start.Add(r.Counted)
		case r.Counted > iv.Duration() && endsIn(iv, period):
			r.Pad = r.Counted - iv.Duration()
		}
		if r.Counted <= 0 {
			continue
		}
		r.Whole = kept
		r.Kept = interval.Set{kept}.Clip(period)
		out = append(out, r)
	}
	return out
}

// endsIn reports whether the run's last instant lies in the period.
func endsIn(run, period interval.Interval) bool {
	last := run.End.Add(-time.Nanosecond)
	return !last.Before(period.Start) && last.Before(period.End)
}

// runsKept is the union of the runs' counted instants; runsTotal what
// they count in the period, pads included.
func runsKept(rs []Run) interval.Set {
	var ivs []interval.Interval
	for _, r := range rs {
		ivs = append(ivs, r.Kept...)
	}
	return interval.Union(ivs...)
}

func runsTotal(rs []Run) time.Duration {
	var t time.Duration
	for _, r := range rs {
		t += r.InPeriod()
	}
	return t
}

// padFor is the rounding-up pad of the runs that ended inside iv, the
// downtime a rule that rounds up counts beyond the run's own time.
func padFor(rs []Run, iv interval.Interval) time.Duration {
	var t time.Duration
	for _, r := range rs {
		if r.Pad > 0 && r.Span.End.After(iv.Start) && !r.Span.End.After(iv.End) {
			t += r.Pad
		}
	}
	return t
}

// denominator is the time the month's uptime is a share of before any
// maintenance comes out: the service period, or the whole window (the
// calendar month to the as-of instant) under the month's formula; under
// uptime.partial_month: whole_days the service period widened to whole
// days in the contract's zone (the day of delivery from its midnight, the
// day of a release to its end), never beyond the window.
func denominator(tm *terms.Terms, window, period interval.Interval) time.Duration {
	if tm.Uptime.Denominator == terms.CalendarMonth {
		return max(window.Duration(), period.Duration())
	}
	if tm.Uptime.PartialMonth != terms.WholeDays || period.Empty() {
		return period.Duration()
	}
	return WholeDays(period, window, tm.Calendar.Loc).Duration()
}

// WholeDays widens the service period to whole days in loc: from the
// midnight of its first day, and, where it ended before the window did (a
// release), to the midnight after its last day; never beyond the window.
func WholeDays(period, window interval.Interval, loc *time.Location) interval.Interval {
	s := period.Start.In(loc)
	w := interval.Interval{Start: time.Date(s.Year(), s.Month(), s.Day(), 0, 0, 0, 0, loc), End: period.End}
	if period.End.Before(window.End) {
		e := period.End.Add(-time.Nanosecond).In(loc)
		w.End = time.Date(e.Year(), e.Month(), e.Day()+1, 0, 0, 0, 0, loc)
	}
	if w.Start.Before(window.Start) {
		w.Start = window.Start
	}
	if w.End.After(window.End) {
		w.End = window.End
	}
	return w
}

// partial reports whether the node was in service for only part of the
// window: delivered after it began or released before it ended.
func partial(window, period interval.Interval) bool {
	return period.Start.After(window.Start) || period.End.Before(window.End)
}
