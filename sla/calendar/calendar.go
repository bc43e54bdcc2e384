// Package calendar answers a contract's business-hours questions: is an
// instant in business hours, how much business time lies between two
// instants, when business time next resumes, what instant lies a given
// amount of business time after another. Weekly hours are in the contract's
// time zone; holidays close a day, extra working days (China's adjusted
// working weekends) open one. Instants are time.Time in any zone; every
// business window is built with time.Date in the contract's location, so
// days of 23 or 25 hours (DST changes) come out right.
//
// On the path from an observation to a report row, this is the clock the
// steps measure by: the contract's month in its zone, for the books and
// claim deadlines, and business time, for tickets.
package calendar

import (
	"fmt"
	"time"
)

// Date is a civil date (no zone).
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf is the civil date of t in loc.
func DateOf(t time.Time, loc *time.Location) Date {
	y, m, d := t.In(loc).Date()
	return Date{y, m, d}
}

// ParseDate reads YYYY-MM-DD.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("%q is not a date (want YYYY-MM-DD)", s)
	}
	return Date{t.Year(), t.Month(), t.Day()}, nil
}

func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// Before reports whether d is before e.
func (d Date) Before(e Date) bool {
	if d.Year != e.Year {
		return d.Year < e.Year
	}
	if d.Month != e.Month {
		return d.Month < e.Month
	}
	return d.Day < e.Day
}

// AddDays is d plus n days.
func (d Date) AddDays(n int) Date {
	t := time.Date(d.Year, d.Month, d.Day+n, 12, 0, 0, 0, time.UTC)
	return Date{t.Year(), t.Month(), t.Day()}
}

// Weekday of d.
func (d Date) Weekday() time.Weekday {
	return time.Date(d.Year, d.Month, d.Day, 12, 0, 0, 0, time.UTC).Weekday()
}

// At is the instant of the wall-clock time minute (minutes after midnight,
// up to 24*60) on d in loc.
func (d Date) At(minute int, loc *time.Location) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, minute, 0, 0, loc)
}

// Hours are one day's business hours: from Start to End minutes after
// midnight (End up to 1440, i.e. 24:00). A closed day has Open false.
type Hours struct {
	Open  bool
	Start int
	End   int
}

// Closed is a day without business hours.
var Closed = Hours{}

// Calendar is a contract's business calendar.
type Calendar struct {
	Loc *time.Location
	// Week holds the regular hours, indexed by time.Weekday.
	Week [7]Hours
	// Holidays close a day whatever its weekday.
	Holidays map[Date]string
	// Extra are working days that would otherwise be closed (adjusted working
	// weekends), with their hours. They win over Holidays.
	Extra map[Date]Hours
}

// Covers reports whether the calendar knows year y's holidays: it lists no
// holiday and no extra working day at all (its working days are its
// weekdays, every year), or it lists one in y. A calendar that lists some
// years' holidays does not know another's: China's are published a year at
// a time, and a year the terms do not list may close days they cannot name.
func (c *Calendar) Covers(y int) bool {
	if len(c.Holidays) == 0 && len(c.Extra) == 0 {
		return true
	}
	for d := range c.Holidays {
		if d.Year == y {
			return true
		}
	}
	for d := range c.Extra {
		if d.Year == y {
			return true
		}
	}
	return false
}

// DayKind says why a day has the hours it has.
type DayKind string

// Day kinds.
const (
	Workday    DayKind = "workday"
	Weekend    DayKind = "weekend" // regularly closed weekday
	Holiday    DayKind = "holiday"
	ExtraWorkd DayKind = "extra_working_day"
)

// Day returns the hours of d and why.
func (c *Calendar) Day(d Date) (Hours, DayKind) {
	if h, ok := c.Extra[d]; ok {
		return h, ExtraWorkd
	}
	if _, ok := c.Holidays[d]; ok {
		return Closed, Holiday
	}
	h := c.Week[d.Weekday()]
	if !h.Open {
		return h, Weekend
	}
	return h, Workday
}

// window is d's business window as instants; ok is false on a closed day.
func (c *Calendar) window(d Date) (start, end time.Time, ok bool) {
	h, _ := c.Day(d)
	if !h.Open || h.End <= h.Start {
		return time.Time{}, time.Time{}, false
	}
	return d.At(h.Start, c.Loc), d.At(h.End, c.Loc), true
}

// InBusiness reports whether t falls in business hours.
func (c *Calendar) InBusiness(t time.Time) bool {
	s, e, ok := c.window(DateOf(t, c.Loc))
	return ok && !t.Before(s) && t.Before(e)
}

// hasBusinessDays guards the loops below against a calendar with no open day.
func (c *Calendar) hasBusinessDays() bool {
	for _, h := range c.Week {
		if h.Open && h.End > h.Start {
			return true
		}
	}
	for _, h := range c.Extra {
		if h.Open && h.End > h.Start {
			return true
		}
	}
	return false
}

// maxScanDays bounds how far the calendar looks ahead for business time.
const maxScanDays = 3 * 366

// BusinessBetween is the business time in [a, b) (zero if b is not after a).
func (c *Calendar) BusinessBetween(a, b time.Time) time.Duration {
	if !b.After(a) {
		return 0
	}
	var sum time.Duration
	last := DateOf(b, c.Loc)
	for d := DateOf(a, c.Loc); !last.Before(d); d = d.AddDays(1) {
		s, e, ok := c.window(d)
		if !ok {
			continue
		}
		if s.Before(a) {
			s = a
		}
		if e.After(b) {
			e = b
		}
		if e.After(s) {
			sum += e.Sub(s)
		}
	}
	return sum
}

// NextBusiness is t if t is in business hours, else the start of the next
// business window. ok is false if there is none within three years.
func (c *Calendar) NextBusiness(t time.Time) (time.Time, bool) {
	if !c.hasBusinessDays() {
		return time.Time{}, false
	}
	d := DateOf(t, c.Loc)
	for i := 0; i < maxScanDays; i, d = i+1, d.AddDays(1) {
		s, e, ok := c.window(d)
		if !ok || !e.After(t) {
			continue
		}
		if s.After(t) {
			return s, true
		}
		return t, true
	}
	return time.Time{}, false
}

// AddBusiness is the instant at which dur of business time has passed after
// t. ok is false if that is more than three years ahead.
func (c *Calendar) AddBusiness(t time.Time, dur time.Duration) (time.Time, bool) {
	if dur <= 0 {
		return t, true
	}
	if !c.hasBusinessDays() {
		return time.Time{}, false
	}
	left := dur
	d := DateOf(t, c.Loc)
	for i := 0; i < maxScanDays; i, d = i+1, d.AddDays(1) {
		s, e, ok := c.window(d)
		if !ok || !e.After(t) {
			continue
		}
		if s.Before(t) {
			s = t
		}
		if avail := e.Sub(s); avail >= left {
			return s.Add(left), true
		} else {
			left -= avail
		}
	}
	return time.Time{}, false
}

// MonthBounds is the calendar month of year/month in loc as instants [start, end).
func MonthBounds(year int, month time.Month, loc *time.Location) (time.Time, time.Time) {
	return time.Date(year, month, 1, 0, 0, 0, 0, loc), time.Date(year, month+1, 1, 0, 0, 0, 0, loc)
}
