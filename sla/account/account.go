// Package account does a node's monthly books: which unavailable intervals
// count (union, clipped to the service period, announced maintenance taken
// out, runs shorter than the contract's minimum dropped), the uptime both as
// observed and as claimable, the monthly charge, and the credit the uptime
// tier and the penalties earn, capped.
//
// On the path from an observation to a report row, this is the step
// incidents → the books: a node's counted outage, uptime, charge and credit
// for the month.
package account

import (
	"math"
	"time"

	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/terms"
)

// Outage is one interval of an incident, with whose fault it was.
type Outage struct {
	Kind     incident.Kind
	Check    string // the check of a check incident (incident.CheckKey)
	Cause    string
	Span     interval.Interval
	Evidence []msg.Text
}

// CauseNoNotice marks an outage that, under a contract whose clock starts
// at the renter's notice, no ticket was opened during: it counts nothing.
const CauseNoNotice = "no_notice"

// Maintenance is one maintenance notice.
type Maintenance struct {
	Span        interval.Interval
	AnnouncedAt time.Time
	Summary     string
	// RecordedAt is when the backend recorded the notice (zero: unknown, a
	// log from before it was kept) and RecordedBy who did. Override is an
	// administrator's documented reason for letting a notice recorded late
	// take out what it would have, had it been recorded in time.
	RecordedAt time.Time
	RecordedBy string
	Override   string
}

// Notice is how long before its start the maintenance was announced.
func (m Maintenance) Notice() time.Duration { return m.Span.Start.Sub(m.AnnouncedAt) }

// Excluded reports whether the maintenance was announced early enough to be
// taken out of the month.
// A contract without a maintenance exclusion (maintenance: none, or no
// section) takes out none, whatever the notice.
func (m Maintenance) Excluded(tm *terms.Terms) bool {
	return tm.Maintenance.Excludes && m.Notice() >= tm.Maintenance.Notice
}

// Effect is the part of the window the notice takes out of the books,
// given the node's outages (as they happened, before any notice clock),
// when it was announced in time. The announcement is the provider's word;
// the recording is the backend's, and a notice can exclude only what it
// was on the books for: nothing before it was recorded, and nothing of an
// outage already under way when it was (a notice entered after an outage
// with its announcement backdated five days must not make the outage
// vanish). An override takes the whole window as announced;
// the report names it (docs/reports.md, "Retroactive records"). A notice
// whose recording time is unknown is taken as announced.
func (m Maintenance) Effect(outs []Outage) interval.Set {
	r := m.RecordedAt
	if r.IsZero() || m.Override != "" {
		return interval.Set{m.Span}
	}
	from := m.Span
	if r.After(from.Start) {
		from.Start = r
	}
	if !from.End.After(from.Start) {
		return nil
	}
	var under []interval.Interval
	for _, o := range outs {
		if o.Span.Start.Before(r) && o.Span.End.After(from.Start) {
			under = append(under, o.Span)
		}
	}
	return interval.Set{from}.Minus(interval.Union(under...))
}

// Late reports whether the notice was recorded too late for its whole
// window to count as announced: after its start, or after an outage it
// would otherwise take out had begun. Such a notice is a retroactive
// claim, listed in the report whether or not an override lets it count.
func (m Maintenance) Late(outs []Outage) bool {
	if m.RecordedAt.IsZero() {
		return false
	}
	if m.RecordedAt.After(m.Span.Start) {
		return true
	}
	for _, o := range outs {
		if o.Span.Start.Before(m.RecordedAt) && o.Span.End.After(m.Span.Start) && o.Span.Start.Before(m.Span.End) {
			return true
		}
	}
	return false
}

// Books is the month's arithmetic for one node.
type Books struct {
	Period interval.Interval
	// Denominator is the time the uptime is a share of before exclusions:
	// the service period, or under uptime.denominator: calendar_month the
	// whole window (the calendar month, to the as-of instant).
	Denominator time.Duration
	// Excluded is the announced maintenance inside the period.
	Excluded interval.Set
	// Observed: every interval of an unavailable kind, whoever's fault, as the
	// backend saw it live. Claimable: only those that are the provider's
	// fault. Both after exclusions and the downtime period's rule, as the
	// instants counted inside the period.
	Observed, Claimable interval.Set
	// ObservedRuns and ClaimableRuns are the runs behind them, each judged
	// whole; ObservedDowntime and ClaimableDowntime what they count in the
	// period, a rule's rounding-up included (the uptime's numerator).
	ObservedRuns, ClaimableRuns         []Run
	ObservedDowntime, ClaimableDowntime time.Duration
	UptimeObserved, UptimeClaimed       float64
	// NotCounted: the contract does not count a month the node was in
	// service for only part of (uptime.partial_month: not_counted); no
	// uptime is judged and nothing is owed for it.
	NotCounted bool
	// TermFrom, where not zero, is where the contract's service terms
	// begin for a month that is one while the month before was not (JD
	// Cloud's node delivered inside it, uptime.partial_month: not_counted):
	// a run across the month's start earns a downtime credit only for what
	// it counts from here on, as nothing outside a term is owed.
	TermFrom time.Time
	// TermTo, where not zero, is where the contract's service terms end
	// for a month that is one while the month after is not (JD Cloud's
	// node released inside it): a run across the month's end, whose credit
	// would fall in that month, earns here what it counts up to TermTo.
	TermTo time.Time
}

// Observed reports whether an outage of this kind enters the observed
// figure: every interval of a kind the contract calls unavailable, whoever's
// fault it was.
func Observed(tm *terms.Terms, o Outage) bool { return tm.Uptime.Unavailable[o.Kind] }

// Counts says whether an incident of this kind and cause is the provider's
// fault under tm, and why not. It is the part of the verdict that needs no
// other incident: the live service records it when an incident opens.
func Counts(tm *terms.Terms, kind incident.Kind, cause string) (bool, msg.Text) {
	if !tm.Uptime.Unavailable[kind] {
		return false, msg.New("the contract does not count %s as unavailable", msg.Word(kind))
	}
	switch cause {
	case incident.CauseBackendOnly:
		return false, msg.New("the node ran and reached its other targets; only the backend could not hear it")
	case incident.CauseBackendOutage:
		return false, msg.New("the backend itself was down")
	case CauseNoNotice:
		return false, msg.New("the contract's clock starts at the renter's notice, and no ticket on the node was opened during it")
	}
	return true, msg.Text{}
}

// Counted is Counts for an outage.
func Counted(tm *terms.Terms, o Outage) (bool, msg.Text) { return Counts(tm, o.Kind, o.Cause) }

// Verdict is an incident's one "counted or not, and why", the same in the
// report, the status page, alerts and the API (docs/reports.md, "Counted").
type Verdict struct {
	// Counted: some of the incident's own time counts against the provider
	// (CountedSeconds > 0).
	Counted bool
	// Seconds is the incident's length; ObservedSeconds the part of it that
	// enters the observed outage figure, CountedSeconds the part that
	// enters the claimable one (both 0 for a kind or cause that does not
	// count). Overlapping incidents that both count each show the shared
	// time; the node's outage figures are the union, not the sum.
	Seconds, ObservedSeconds, CountedSeconds int64
	// RoundedSeconds is the part of CountedSeconds beyond the outage's own
	// time: a rule that rounds each run up to whole units (Tencent: 1 min
	// 1 s counts 2 min) puts the rounding on the outage that ended the run.
	RoundedSeconds int64
	// Reason says why CountedSeconds differs from Seconds; zero when
	// every second counts as it happened.
	Reason msg.Text
}

// Judge is the verdict on one outage within books (Compute over all the
// node's outages in the period): whether its kind and cause count under
// tm, and which of its own seconds are in the period, outside the excluded
// maintenance and in a run of claimable outage at least the contract's
// minimum long.
func Judge(tm *terms.Terms, b Books, o Outage) Verdict {
	v := Verdict{Seconds: secs(o.Span.Duration())}
	ok, why := Counts(tm, o.Kind, o.Cause)
	if Observed(tm, o) {
		v.ObservedSeconds = secs(b.Observed.Overlap(o.Span) + padFor(b.ObservedRuns, o.Span))
	}
	if !ok {
		v.Reason = why
		return v
	}
	if b.NotCounted {
		v.Reason = msg.New("the node was not in service for the whole month, and the contract counts only whole months")
		return v
	}
	own := secs(b.Claimable.Overlap(o.Span))
	v.RoundedSeconds = secs(padFor(b.ClaimableRuns, o.Span))
	v.CountedSeconds = own + v.RoundedSeconds
	v.Counted = v.CountedSeconds > 0
	inPeriod := secs(interval.Set{o.Span}.Clip(b.Period).Total())
	excluded := secs(b.Excluded.Overlap(o.Span))
	v.Reason = reason(tm, v, own, inPeriod, excluded)
	return v
}

// reason says why an outage's counted seconds (own: its own instants
// counted) differ from its length; zero when every second counts as it
// happened.
func reason(tm *terms.Terms, v Verdict, own, inPeriod, excluded int64) msg.Text {
	dp := tm.Uptime.DowntimePeriod
	switch {
	case own == v.Seconds && v.RoundedSeconds > 0:
		return msg.New("counted in whole %s, rounded up as the contract says", dp.Unit)
	case own == v.Seconds:
		return msg.Text{}
	case inPeriod == 0:
		return msg.New("outside this month's service period")
	case excluded >= inPeriod:
		return msg.New("inside maintenance announced with enough notice")
	case own == 0 && dp.Strict:
		return msg.New("part of an outage run of at most %s, which the contract does not count", dp.Minimum)
	case own == 0 && dp.Rounding == terms.RoundClock:
		return msg.New("part of an outage run holding no whole clock %s, which the contract does not count", dp.Unit)
	case own == 0:
		return msg.New("part of an outage run shorter than the contract's minimum of %s", dp.Shortest())
	case own < inPeriod-excluded && dp.Rounding == terms.RoundClock:
		return msg.New("partly uncounted: the contract counts only the clock %s that were unavailable from start to end", dp.Unit)
	case own < inPeriod-excluded && dp.Unit > 0 && dp.Strict:
		return msg.New("partly uncounted: the contract counts each run of downtime in whole %s from its start, and none of a run of at most %s", dp.Unit, dp.Minimum)
	case own < inPeriod-excluded && dp.Unit > 0:
		return msg.New("partly uncounted: the contract counts each run of downtime in whole %s from its start, and none of a run under %s", dp.Unit, dp.Shortest())
	case own < inPeriod-excluded && excluded > 0:
		return msg.New("partly inside announced maintenance, partly in a run below the contract's minimum")
	case own < inPeriod-excluded:
		return msg.New("partly in an outage run shorter than the contract's minimum of %s", dp.Minimum)
	case excluded > 0:
		return msg.New("partly inside maintenance announced with enough notice")
	}
	return msg.New("only the part inside this month's service period counts")
}

// JudgeAll does the books of outages over period and judges each of them
// (JudgeClocked), under a contract whose clock starts at the renter's
// notice counting each from the first of notices (ticket openings) inside
// it (NoticeClock): the report's rows and the live service's incidents both
// get their verdicts here.
//
// window is what the books are over (the calendar month, to the as-of
// instant), period the node's service inside it.
func JudgeAll(tm *terms.Terms, window, period interval.Interval, outages []Outage, maint []Maintenance, notices []time.Time) (Books, []Verdict) {
	clocked := NoticeClock(tm, outages, notices)
	b := ComputeClocked(tm, window, period, outages, clocked, maint)
	vs := make([]Verdict, len(outages))
	for i, o := range outages {
		vs[i] = JudgeClocked(tm, b, o, clocked[i])
	}
	return b, vs
}

// JudgeClocked is Judge on the outage as the contract clocks it (clocked,
// NoticeClock's); its length stays its own, and where every clocked second
// counts but the clock started late, the reason says from when.
func JudgeClocked(tm *terms.Terms, b Books, o, clocked Outage) Verdict {
	v := Judge(tm, b, clocked)
	v.Seconds = secs(o.Span.Duration())
	if from := clocked.Span.Start; v.Reason.IsZero() && from.After(o.Span.Start) {
		v.Reason = msg.New("the contract's clock starts at the renter's notice: counted from the ticket opened at %s", msg.At(from, tm.Calendar.Loc))
	}
	return v
}

func secs(d time.Duration) int64 { return int64(d / time.Second) }

// Compute does the books for a node in service during period, over a
// window no longer than it.
func Compute(tm *terms.Terms, period interval.Interval, outages []Outage, maint []Maintenance) Books {
	return ComputeClocked(tm, period, period, outages, outages, maint)
}

// ComputeClocked is Compute on the outages as the contract clocks them
// (NoticeClock's); raw are the same outages as they happened, which decide
// what a notice recorded late may take out (Maintenance.Effect). window is
// the calendar month (to the as-of instant) the service period lies in:
// the uptime's denominator under uptime.denominator: calendar_month.
//
// The outages may reach beyond the period (an outage under way when the
// month began or still going when it ended): the contract's downtime
// period is applied to each whole run before what it counts is attributed
// to the period (CountRuns).
func ComputeClocked(tm *terms.Terms, window, period interval.Interval, raw, outages []Outage, maint []Maintenance) Books {
	b := Books{Period: period, Denominator: denominator(tm, window, period)}
	if tm.Uptime.PartialMonth == terms.NotCounted && !period.Empty() && partial(window, period) {
		// JD Cloud: "If it is less than one month, it is not counted as one
		// service term": no uptime is judged, nothing is owed.
		b.NotCounted = true
	}
	var ex []interval.Interval
	for _, m := range maint {
		if m.Excluded(tm) {
			ex = append(ex, m.Effect(raw)...)
		}
	}
	excluded := interval.Union(ex...)
	b.Excluded = excluded.Clip(period)
	var obs, claim []interval.Interval
	for _, o := range outages {
		if Observed(tm, o) {
			obs = append(obs, o.Span)
		}
		if ok, _ := Counted(tm, o); ok {
			claim = append(claim, o.Span)
		}
	}
	dp, loc := tm.Uptime.DowntimePeriod, time.UTC
	if tm.Calendar != nil {
		loc = tm.Calendar.Loc
	}
	b.ObservedRuns = CountRuns(dp, interval.Union(obs...).Minus(excluded), period, loc)
	if !b.NotCounted {
		b.ClaimableRuns = CountRuns(dp, interval.Union(claim...).Minus(excluded), period, loc)
	}
	b.Observed, b.Claimable = runsKept(b.ObservedRuns), runsKept(b.ClaimableRuns)
	b.ObservedDowntime, b.ClaimableDowntime = runsTotal(b.ObservedRuns), runsTotal(b.ClaimableRuns)
	// Maintenance that excuses only the downtime inside it leaves the
	// month its minutes (Tencent: the month is "总天数 × 24 × 60"); one that
	// takes the window out shortens it.
	out := time.Duration(0)
	if WindowExcused(tm) {
		out = b.Excluded.Total()
	}
	b.UptimeObserved = Uptime(b.Denominator, out, b.ObservedDowntime)
	b.UptimeClaimed = Uptime(b.Denominator, out, b.ClaimableDowntime)
	return b
}

// WindowExcused reports whether announced maintenance takes its whole
// window out of the month (maintenance.excuses: window, under a service
// period denominator), not only the downtime inside it.
func WindowExcused(tm *terms.Terms) bool {
	return tm.Uptime.Denominator != terms.CalendarMonth && tm.Maintenance.Excuses != terms.ExcuseDowntime
}

// Uptime is (period − excluded − outage) / (period − excluded) × 100, 100
// when nothing is left to measure, always within [0, 100].
func Uptime(period, excluded, outage time.Duration) float64 {
	den := period - excluded
	if den <= 0 {
		return 100
	}
	u := float64(den-outage) / float64(den) * 100
	return math.Max(0, math.Min(100, u))
}

// Charge is what the node is billed for [from, to) less the uncharged
// time in it (UnchargedHours): billed time rounded up to the billing
// granularity, times GPUs, times the price per GPU-hour.
func Charge(tm *terms.Terms, price float64, gpus int, from, to time.Time, uncharged interval.Set) (billed time.Duration, amount float64) {
	if !to.After(from) {
		return 0, 0
	}
	d := to.Sub(from) - uncharged.Overlap(interval.Interval{Start: from, End: to})
	g := tm.Billing.Granularity
	if g > 0 && d%g != 0 {
		d += g - d%g
	}
	return d, Money(price * float64(gpus) * d.Hours())
}

// UnchargedHour is one clock hour the contract does not charge for.
type UnchargedHour struct {
	Hour        interval.Interval // the whole clock hour
	Unavailable time.Duration     // the claimable downtime in it
}

// UnchargedHours are the clock hours (in the contract's zone, so a zone
// half an hour off UTC has its own) in which the node's claimable downtime
// exceeded billing.clock_hour_rule: AWS "will not charge you for any
// Single EC2 Instance that is Unavailable for more than six minutes of a
// clock hour". None without the rule. In time order.
func UnchargedHours(tm *terms.Terms, claimable interval.Set) []UnchargedHour {
	over := tm.Billing.ClockHourOver
	if over <= 0 {
		return nil
	}
	var out []UnchargedHour
	next := time.Time{} // hours before it are done
	for _, run := range claimable {
		for h := clockHour(run.Start, tm.Calendar.Loc); h.Before(run.End); h = h.Add(time.Hour) {
			if h.Before(next) {
				continue
			}
			hour := interval.Interval{Start: h, End: h.Add(time.Hour)}
			next = hour.End
			if d := claimable.Overlap(hour); d > over {
				out = append(out, UnchargedHour{Hour: hour, Unavailable: d})
			}
		}
	}
	return out
}

// UnchargedSet is the hours as a set.
func UnchargedSet(hs []UnchargedHour) interval.Set {
	s := make(interval.Set, len(hs))
	for i, h := range hs {
		s[i] = h.Hour
	}
	return s
}

// clockHour is the start of the clock hour in loc that t falls in.
func clockHour(t time.Time, loc *time.Location) time.Time {
	_, off := t.In(loc).Zone()
	local := t.Unix() + int64(off)
	return time.Unix(local-local%3600-int64(off), 0)
}

// Penalty is a percentage of the monthly charge earned by a late promise.
type Penalty struct {
	Kind    string // late_response, late_replacement, late_delivery
	Ref     string // ticket id or node id
	Percent float64
	Reason  msg.Text
}

// Credit is what the node's month earns.
type Credit struct {
	Tier        *terms.Tier
	TierPercent float64
	Penalties   []Penalty
	Uncapped    float64 // tier + penalties + downtime credits, percent of the charge
	Downtime    float64 // downtime credits, an amount
	Cap         float64
	Capped      bool
	Percent     float64
	Amount      float64
	// Truncated: the month's percentage of the charge (or, capped, the
	// cap) had a part of a cent that MoneyDown cut off.
	Truncated bool
	// BelowMinimum: the credit, Waived, was not more than the contract's
	// uptime.minimum_credit, so none is issued (Amount is 0).
	BelowMinimum bool
	Waived       float64
}

// CreditFor applies the tier for uptime (claimable), adds the penalties and
// the downtime credits (an amount, not a percent) and caps the sum at the
// contract's share of charge. Percent is the share of charge the capped
// amount is; with no charge, percents stay as the terms give them.
func CreditFor(tm *terms.Terms, uptime, charge float64, penalties []Penalty, downtime float64) Credit {
	c := Credit{Penalties: penalties, Cap: tm.Uptime.CreditCap, Downtime: downtime}
	if uptime < tm.Uptime.Target {
		if t, ok := tm.Uptime.TierFor(uptime); ok {
			c.Tier, c.TierPercent = &t, t.Credit
		}
	}
	pct := c.TierPercent
	for _, p := range penalties {
		pct += p.Percent
	}
	uncapped := charge*pct/100 + downtime
	c.Uncapped, c.Percent = pct, pct
	if charge > 0 {
		c.Uncapped = uncapped / charge * 100
		c.Percent = c.Uncapped
	}
	// Two credit lines at most: the month's percent of the charge, each
	// to the cent on its own (MoneyDown), and the downtime credits, each
	// already truncated when it was priced.
	c.Amount, c.Truncated = Money(MoneyDown(charge*pct/100)+downtime), Cut(charge*pct/100)
	if limit := MoneyDown(charge * c.Cap / 100); c.Amount > limit+0.001 || (charge == 0 && pct > c.Cap) {
		c.Amount, c.Percent, c.Capped, c.Truncated = limit, c.Cap, true, Cut(charge*c.Cap/100)
	}
	c.Uncapped, c.Percent = round6(c.Uncapped), round6(c.Percent)
	if m := tm.Uptime.MinimumCredit; m > 0 && c.Amount > 0 && c.Amount <= m {
		c.BelowMinimum, c.Waived, c.Amount, c.Percent = true, c.Amount, 0, 0
	}
	return c
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// Money rounds to cents, half a cent up (away from zero), as the decimal
// figure a reviewer works by hand: 35,394 minutes at 4.25 an hour are
// 2,507.075, which is 2,507.08. The float holding 2,507.075 is a hair
// under it, so it is first taken to a millionth (far above any float
// error in a month's figures) and rounded there. For charges and sums of
// amounts already in cents; a credit line is MoneyDown.
func Money(v float64) float64 {
	micro := math.Round(math.Abs(v) * 1e6)
	return math.Copysign(math.Floor((micro+5000)/10000), v) / 100
}

// MoneyDown is a credit line in the currency's minor unit (the cent, fen,
// øre): truncated, never rounded up. No provider text read states how a
// credit is rounded, so the claim never asks for the part of a cent the
// text does not give (1,306.375 is claimed as 1,306.37): a provider that
// truncates pays exactly the claim, one that rounds to the nearest pays at
// most a cent more per line, and the ledger reads both as paid in full.
// The amount is first taken to a millionth of the unit, so that a product
// floating point leaves just under a whole cent (499.99999999) is that
// cent and not the one below.
func MoneyDown(v float64) float64 {
	micro := math.Round(v * 1e6)
	return math.Trunc(micro/1e4) / 100
}

// Cut reports whether MoneyDown(v) drops a part of a cent of v (taken to
// a millionth of the unit as MoneyDown takes it): 1,306.375 is cut, 1,306.37
// and 499.99999999 are not.
func Cut(v float64) bool {
	return math.Mod(math.Round(math.Abs(v)*1e6), 1e4) != 0
}
