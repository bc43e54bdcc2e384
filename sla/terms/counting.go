package terms

import "time"

// DowntimePeriod is what the contract counts as a period of downtime: a run
// of unavailability (after the union of kinds and the exclusions, taken
// whole however many months it spans) shorter than Minimum does not count
// at all, and with a Unit the run counts in whole units as Rounding says
// (Google: "one or more consecutive minutes … partial minutes … will not be
// counted"; Tencent: "超过1分钟但不足2分钟的按2分钟计算"). Unit zero counts
// to the second.
type DowntimePeriod struct {
	Minimum time.Duration
	// Strict: a run must last more than Minimum to count, one of exactly
	// Minimum counts nothing (downtime_period.more_than; Tencent: "持续1分钟
	// 以上 … 不超过1分钟的，不计入不可用时间").
	Strict bool
	Unit   time.Duration
	// Rounding is how a run becomes whole units; RoundDown when the terms
	// give a unit and say nothing else.
	Rounding Rounding
}

// Rounding says how a run of downtime becomes whole units
// (uptime.downtime_period.rounding).
type Rounding string

// Roundings.
const (
	// RoundDown counts the run's whole units from its start; the partial
	// unit at its end is left out (4 min 59 s: 4 min).
	RoundDown Rounding = "down"
	// RoundUp makes the partial unit at its end a whole one (1 min 1 s:
	// 2 min).
	RoundUp Rounding = "up"
	// RoundClock counts only the clock units (minutes of the clock, in the
	// contract's zone) that were unavailable from their first second to
	// their last: "a minute counts only if the whole minute was
	// unavailable". A run from 10:00:30 to 10:03:10 counts 10:01 and
	// 10:02.
	RoundClock Rounding = "clock"
)

// Qualifies reports whether a run of unavailability lasting d counts at
// all: at least Minimum (more than it, when Strict).
func (p DowntimePeriod) Qualifies(d time.Duration) bool {
	return d > 0 && d >= p.Minimum && !(p.Strict && d == p.Minimum)
}

// Counted is how much of a run of unavailability lasting d the contract
// counts under a length rule (seconds, RoundDown, RoundUp). Under
// RoundClock the count depends on where the run lies on the clock
// (ClockUnits); Counted then gives the most it can count, its whole units.
func (p DowntimePeriod) Counted(d time.Duration) time.Duration {
	if !p.Qualifies(d) {
		return 0
	}
	if p.Unit > 0 {
		r := d % p.Unit
		switch {
		case r == 0:
		case p.Rounding == RoundUp:
			d += p.Unit - r
		default:
			d -= r
		}
	}
	return d
}

// ClockUnits is the part of the run [start, end) a RoundClock contract
// counts: from the first unit boundary at or after start (in loc, so an
// hour unit follows the zone's hours) to the last at or before end, once
// the run qualifies; zero-length when it holds no whole unit.
func (p DowntimePeriod) ClockUnits(start, end time.Time, loc *time.Location) (time.Time, time.Time) {
	if !p.Qualifies(end.Sub(start)) || p.Unit <= 0 {
		return start, start
	}
	_, off := start.In(loc).Zone()
	shift := time.Duration(off) * time.Second
	from := start.Add(shift).Truncate(p.Unit)
	if from.Before(start.Add(shift)) {
		from = from.Add(p.Unit)
	}
	to := end.Add(shift).Truncate(p.Unit)
	from, to = from.Add(-shift), to.Add(-shift)
	if !to.After(from) {
		return start, start
	}
	return from, to
}

// Shortest is the shortest run that counts anything: the minimum, or one
// whole unit when that is longer and the rule rounds down (a run shorter
// than a unit rounded up counts a whole unit).
func (p DowntimePeriod) Shortest() time.Duration {
	if p.Rounding == RoundUp {
		return p.Minimum
	}
	return max(p.Minimum, p.Unit)
}

// PartialMonth says how a month the node was in service for only part of
// is measured (uptime.partial_month).
type PartialMonth string

// Partial months.
const (
	// ExactPeriod: from the delivery instant to the release (the default).
	ExactPeriod PartialMonth = "exact"
	// WholeDays: the service month is whole days in the contract's zone,
	// the day of delivery and the day of release included (Tencent: "服务
	// 开通之日为3月17日 … 第1个服务月度是指3月17日到3月31日", its minutes
	// "服务月度内的总天数 × 24（小时）× 60（分钟）").
	WholeDays PartialMonth = "whole_days"
	// NotCounted: a month the node was not in service for whole is no
	// service term at all: no uptime is judged and nothing is owed for it
	// (JD Cloud: "If it is less than one month, it is not counted as one
	// service term").
	NotCounted PartialMonth = "not_counted"
)

// MaintenanceExcuses says what announced maintenance takes out of the books
// (maintenance.excuses).
type MaintenanceExcuses string

// What maintenance takes out.
const (
	// ExcuseWindow: the whole announced window leaves the month: its
	// downtime is not counted and the month is shorter by it.
	ExcuseWindow MaintenanceExcuses = "window"
	// ExcuseDowntime: only the unavailability inside the window is
	// excused; the month keeps all its minutes (Tencent: "相应服务不可用时间
	// 不属于服务不可用的计算范畴", the month's minutes being "总天数 × 24 ×
	// 60").
	ExcuseDowntime MaintenanceExcuses = "downtime"
)

// downtimePeriod reads uptime.downtime_period {minimum | more_than, unit,
// rounding}, or the older uptime.minimum_outage, which is downtime_period
// {minimum} counted to the second; a file gives one of the two.
func (p *parser) downtimePeriod(u *object) (DowntimePeriod, error) {
	var dp DowntimePeriod
	mn, hasMin := u.vals["minimum_outage"]
	dn, hasDP := u.vals["downtime_period"]
	var err error
	switch {
	case hasMin && hasDP:
		return dp, p.err(mn, "uptime.minimum_outage", "give either minimum_outage or downtime_period, not both (minimum_outage is downtime_period.minimum)")
	case hasMin:
		dp.Minimum, err = p.duration(mn, "uptime.minimum_outage")
		return dp, err
	case !hasDP:
		return dp, nil
	}
	d, err := p.object(dn, "uptime.downtime_period", "minimum", "more_than", "unit", "rounding")
	if err != nil {
		return dp, err
	}
	if len(d.keys) == 0 {
		return dp, p.err(dn, "uptime.downtime_period", "empty: give minimum, unit or both (leave the section out to count every second)")
	}
	if err := p.periodMinimum(d, &dp); err != nil {
		return dp, err
	}
	if v, ok := d.vals["unit"]; ok {
		if dp.Unit, err = p.duration(v, "uptime.downtime_period.unit"); err != nil {
			return dp, err
		}
		if dp.Unit == 0 {
			return dp, p.err(v, "uptime.downtime_period.unit", "must be more than zero (leave it out to count to the second)")
		}
		if dp.Minimum%dp.Unit != 0 {
			return dp, p.err(v, "uptime.downtime_period.unit", "minimum %s is not a whole number of units of %s", dp.Minimum, dp.Unit)
		}
		dp.Rounding = RoundDown
	}
	if v, ok := d.vals["rounding"]; ok {
		if dp.Unit == 0 {
			return dp, p.err(v, "uptime.downtime_period.rounding", "needs a unit to round to")
		}
		s, err := p.str(v, "uptime.downtime_period.rounding")
		if err != nil {
			return dp, err
		}
		switch r := Rounding(s); r {
		case RoundDown, RoundUp:
			dp.Rounding = r
		case RoundClock:
			if time.Hour%dp.Unit != 0 && dp.Unit%(24*time.Hour) != 0 {
				return dp, p.err(v, "uptime.downtime_period.rounding", "clock units must divide an hour (a second, a minute, 5m, 1h): %s does not fall on the clock's marks", dp.Unit)
			}
			dp.Rounding = r
		default:
			return dp, p.err(v, "uptime.downtime_period.rounding", "%q is not down, up or clock", s)
		}
	}
	return dp, nil
}

// periodMinimum reads downtime_period.minimum or .more_than.
func (p *parser) periodMinimum(d *object, dp *DowntimePeriod) error {
	var err error
	if v, ok := d.vals["minimum"]; ok {
		if dp.Minimum, err = p.duration(v, "uptime.downtime_period.minimum"); err != nil {
			return err
		}
	}
	v, ok := d.vals["more_than"]
	if !ok {
		return nil
	}
	if _, both := d.vals["minimum"]; both {
		return p.err(v, "uptime.downtime_period.more_than", "give either minimum (a run of exactly it counts) or more_than (it does not), not both")
	}
	if dp.Minimum, err = p.duration(v, "uptime.downtime_period.more_than"); err != nil {
		return err
	}
	if dp.Minimum == 0 {
		return p.err(v, "uptime.downtime_period.more_than", "must be more than zero (leave it out to count every run)")
	}
	dp.Strict = true
	return nil
}

// partialMonth reads uptime.partial_month; whole days and a calendar-month
// denominator contradict each other (the month is then whole whatever the
// service).
func (p *parser) partialMonth(u *object, t *Terms) error {
	t.Uptime.PartialMonth = ExactPeriod
	v, ok := u.vals["partial_month"]
	if !ok {
		return nil
	}
	s, err := p.str(v, "uptime.partial_month")
	if err != nil {
		return err
	}
	switch pm := PartialMonth(s); pm {
	case ExactPeriod, NotCounted:
		t.Uptime.PartialMonth = pm
	case WholeDays:
		if t.Uptime.Denominator == CalendarMonth {
			return p.err(v, "uptime.partial_month", "whole_days measures the service month, but denominator: calendar_month counts the whole month whatever the service")
		}
		t.Uptime.PartialMonth = pm
	default:
		return p.err(v, "uptime.partial_month", "%q is not exact, whole_days or not_counted", s)
	}
	return nil
}

// maintenanceExcuses reads maintenance.excuses (only beside a notice).
func (p *parser) maintenanceExcuses(m *object, t *Terms) error {
	t.Maintenance.Excuses = ExcuseWindow
	if t.Uptime.Denominator == CalendarMonth {
		// The month's minutes stay whole under the month's formula.
		t.Maintenance.Excuses = ExcuseDowntime
	}
	v, ok := m.vals["excuses"]
	if !ok {
		return nil
	}
	s, err := p.either(v, "maintenance.excuses", string(ExcuseWindow), string(ExcuseDowntime))
	if err != nil {
		return err
	}
	if s == string(ExcuseWindow) && t.Uptime.Denominator == CalendarMonth {
		return p.err(v, "maintenance.excuses", "window shortens the month, but denominator: calendar_month counts every minute of it")
	}
	t.Maintenance.Excuses = MaintenanceExcuses(s)
	return nil
}
