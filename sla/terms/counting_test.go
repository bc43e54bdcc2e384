package terms

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/calendar"
)

// Tencent's CVM SLA, 1.5: "单次服务不可用分钟数以分钟为单位计算（若业务故障恢复正常的时间
// 在1分钟以下，即实例不可用持续时间不超过1分钟的，不计入不可用时间），超过1分钟但不足2分钟的按2分钟
// 计算。例如，单实例单次服务不可用时间为1分01秒，则按2分钟计算": {more_than: 1m, unit: 1m,
// rounding: up}. Worked by hand: 60 s is "不超过1分钟", nothing; 61 s is "超过1分钟但不足
// 2分钟", 2 min; 119 s, 2 min; 120 s, exactly 2 min; 121 s, 3 min.
func TestRoundingUpTencent(t *testing.T) {
	dp := parseOne(t, with("  downtime_period: {more_than: 1m, unit: 1m, rounding: up}\n", "")).Uptime.DowntimePeriod
	if dp != (DowntimePeriod{Minimum: time.Minute, Strict: true, Unit: time.Minute, Rounding: RoundUp}) {
		t.Fatalf("%+v", dp)
	}
	for _, c := range []struct{ in, want time.Duration }{
		{59 * time.Second, 0}, {time.Minute, 0}, {61 * time.Second, 2 * time.Minute}, {119 * time.Second, 2 * time.Minute},
		{2 * time.Minute, 2 * time.Minute}, {121 * time.Second, 3 * time.Minute},
	} {
		if got := dp.Counted(c.in); got != c.want {
			t.Errorf("Counted(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	// Rounded up, a run shorter than a unit counts a whole one once it
	// qualifies: the shortest run that counts is the minimum.
	if got := (DowntimePeriod{Unit: time.Minute, Rounding: RoundUp}).Counted(time.Second); got != time.Minute {
		t.Errorf("1 s rounded up: %s", got)
	}
	if s := dp.Shortest(); s != time.Minute {
		t.Errorf("shortest %s", s)
	}
}

// "A minute counts only if the whole minute was unavailable": the clock
// minutes inside the run, in the contract's zone. By hand: 10:00:30 to
// 10:03:10 holds 10:01 and 10:02 whole, 2 minutes; 10:00:00 to 10:03:00
// holds 3; 10:00:01 to 10:00:59 none. An hour unit follows the zone: in
// Asia/Kathmandu (+05:45) the clock hours start at :15 UTC.
func TestRoundingClockUnits(t *testing.T) {
	dp := parseOne(t, with("  downtime_period: {unit: 1m, rounding: clock}\n", "")).Uptime.DowntimePeriod
	at := func(h, m, s int) time.Time { return time.Date(2026, 3, 1, h, m, s, 0, time.UTC) }
	for _, c := range []struct {
		from, to time.Time
		want     time.Duration
		start    time.Time
	}{
		{at(10, 0, 30), at(10, 3, 10), 2 * time.Minute, at(10, 1, 0)},
		{at(10, 0, 0), at(10, 3, 0), 3 * time.Minute, at(10, 0, 0)},
		{at(10, 0, 1), at(10, 0, 59), 0, at(10, 0, 1)},
	} {
		s, e := dp.ClockUnits(c.from, c.to, time.UTC)
		if e.Sub(s) != c.want || (c.want > 0 && !s.Equal(c.start)) {
			t.Errorf("%s–%s: %s–%s, want %s from %s", c.from, c.to, s, e, c.want, c.start)
		}
	}
	kat, err := time.LoadLocation("Asia/Kathmandu")
	if err != nil {
		t.Fatal(err)
	}
	hour := DowntimePeriod{Unit: time.Hour, Rounding: RoundClock}
	s, e := hour.ClockUnits(at(10, 0, 0), at(12, 30, 0), kat)
	if !s.Equal(at(10, 15, 0)) || !e.Equal(at(12, 15, 0)) {
		t.Errorf("Kathmandu hours: %s–%s", s, e)
	}
}

func TestPartialMonthAndExcusesTerms(t *testing.T) {
	x := parseOne(t, with("  partial_month: whole_days\n", "maintenance: {notice: 72h, excuses: downtime}\n"))
	if x.Uptime.PartialMonth != WholeDays || x.Maintenance.Excuses != ExcuseDowntime {
		t.Fatalf("%+v %+v", x.Uptime, x.Maintenance)
	}
	d := parseOne(t, with("", "maintenance: {notice: 72h}\n"))
	if d.Uptime.PartialMonth != ExactPeriod || d.Maintenance.Excuses != ExcuseWindow {
		t.Fatalf("defaults: %+v %+v", d.Uptime, d.Maintenance)
	}
	// The month's formula keeps every minute: maintenance excuses downtime.
	c := parseOne(t, with("  denominator: calendar_month\n", "maintenance: {notice: 72h}\n"))
	if c.Maintenance.Excuses != ExcuseDowntime {
		t.Fatalf("calendar month: %+v", c.Maintenance)
	}
	if n := parseOne(t, with("  partial_month: not_counted\n", "")); n.Uptime.PartialMonth != NotCounted {
		t.Fatalf("%+v", n.Uptime)
	}
}

func TestProcedureTerms(t *testing.T) {
	src := strings.Replace(minimal, "  within_days: 30\n", `  within_days: 60
  channel: ticket
  subject: "SLA Credit Request"
  include: [incident_times, instance_ids, logs]
  opens_after_working_days: 5
  without_credit: nothing
`, 1)
	x := parseOne(t, src)
	pr := x.Claim.Procedure
	if pr.Channel != Ticket || pr.Subject != "SLA Credit Request" || len(pr.Include) != 3 || !pr.Wants(ItemLogs) || pr.Wants(ItemRegion) ||
		pr.OpensAfterWorkingDays != 5 || pr.WithoutCredit != NoLetter {
		t.Fatalf("%+v", pr)
	}
	if d := parseOne(t, minimal).Claim.Procedure; d.WithoutCredit != NoticeOfBreach || d.Channel != "" {
		t.Fatalf("default %+v", d)
	}
}

// Tencent: a claim "在没有达标的相应服务月度结束后的次月的第五（5）个工作日后". By hand, for
// March 2026: April 1 (Wed) 1, 2 (Thu) 2, 3 (Fri) 3, 6 (Mon) 4, 7 (Tue) 5: opens 8 April 00:00. With
// 5 April–6 April a holiday (清明, Monday the 6th off), the 5th working day is the 8th: opens the 9th.
// An adjusted working Saturday (4 April) counts: back to the 8th.
func TestClaimOpensAfterWorkingDays(t *testing.T) {
	loc, _ := time.LoadLocation("Asia/Shanghai")
	cal := &calendar.Calendar{Loc: loc, Holidays: map[calendar.Date]string{}, Extra: map[calendar.Date]calendar.Hours{}}
	pr := Procedure{OpensAfterWorkingDays: 5}
	end := time.Date(2026, 4, 1, 0, 0, 0, 0, loc)
	if got := pr.OpensAt(end, cal); !got.Equal(time.Date(2026, 4, 8, 0, 0, 0, 0, loc)) {
		t.Errorf("plain: %s", got)
	}
	cal.Holidays[calendar.Date{Year: 2026, Month: 4, Day: 6}] = "清明节"
	if got := pr.OpensAt(end, cal); !got.Equal(time.Date(2026, 4, 9, 0, 0, 0, 0, loc)) {
		t.Errorf("holiday: %s", got)
	}
	cal.Extra[calendar.Date{Year: 2026, Month: 4, Day: 4}] = calendar.Hours{}
	if got := pr.OpensAt(end, cal); !got.Equal(time.Date(2026, 4, 8, 0, 0, 0, 0, loc)) {
		t.Errorf("extra working Saturday: %s", got)
	}
	if got := (Procedure{}).OpensAt(end, cal); !got.Equal(end) {
		t.Errorf("no rule: %s", got)
	}
}

func TestApproximationTerms(t *testing.T) {
	src := with("  downtime_period: {unit: 1m}\n", `approximations:
  - clause: "the time unit is minutes"
    terms: [uptime.downtime_period]
    why: "whole minutes rounded down"
    per_run: 1m
    direction: under
  - clause: "excluding the portion deducted by a voucher"
    why: "the charge is the order's"
    bound: "less the voucher-paid part"
    direction: over
  - clause: "实例不可用解决时间 - 实例不可用开始时间"
    why: "an outage across the month's end is split at midnight"
    across_month_end: true
    direction: either
  - clause: "Submit within 30 days of incident"
    why: "an incident whose window closed before the month ended is still counted"
    claim_window: true
    direction: over
`)
	x := parseOne(t, src)
	if len(x.Approximations) != 4 || !x.Approximations[3].ClaimWindow || x.Approximations[2].ClaimWindow || x.Approximations[0].PerRun != time.Minute || x.Approximations[0].MaxDowntime(3) != 3*time.Minute ||
		x.Approximations[1].Direction != Over || x.Approximations[1].Line == 0 || x.Approximations[1].AcrossMonthEnd ||
		!x.Approximations[2].AcrossMonthEnd || x.Approximations[2].MaxDowntime(3) != 0 {
		t.Fatalf("%+v", x.Approximations)
	}
}

// Every new term refuses what it cannot mean, naming the file, line and
// field.
func TestCountingTermErrors(t *testing.T) {
	base := minimal
	claim := "  within_days: 30\n"
	cases := []errCase{
		{"rounding without unit", "  target: 99.5\n", "  target: 99.5\n  downtime_period: {minimum: 1m, rounding: up}\n", 9, "uptime.downtime_period.rounding", "needs a unit"},
		{"rounding word", "  target: 99.5\n", "  target: 99.5\n  downtime_period: {unit: 1m, rounding: nearest}\n", 9, "uptime.downtime_period.rounding", "not down, up or clock"},
		{"clock unit off the clock", "  target: 99.5\n", "  target: 99.5\n  downtime_period: {unit: 7m, rounding: clock}\n", 9, "uptime.downtime_period.rounding", "clock's marks"},
		{"partial month word", "  target: 99.5\n", "  target: 99.5\n  partial_month: halves\n", 9, "uptime.partial_month", "not exact, whole_days"},
		{"whole days over the calendar month", "  target: 99.5\n", "  target: 99.5\n  denominator: calendar_month\n  partial_month: whole_days\n", 10, "uptime.partial_month", "calendar_month"},
		{"excuses word", "claim:", "maintenance: {notice: 1h, excuses: all}\nclaim:", 12, "maintenance.excuses", "all"},
		{"channel word", claim, claim + "  channel: pigeon\n", 14, "claim.channel", "not a channel"},
		{"email without address", claim, claim + "  channel: email\n", 14, "claim.address", "needs the address"},
		{"email not an address", claim, claim + "  channel: email\n  address: support at example\n", 15, "claim.address", "not an e-mail address"},
		{"item word", claim, claim + "  include: [incident_times, selfie]\n", 14, "claim.include[1]", "not a claim item"},
		{"item twice", claim, claim + "  include: [logs, logs]\n", 14, "claim.include[1]", "twice"},
		{"subject two lines", claim, claim + "  subject: \"a\\nb\"\n", 14, "claim.subject", "one line"},
		{"opens after zero", claim, claim + "  opens_after_working_days: 0\n", 14, "claim.opens_after_working_days", ""},
		{"opens after a month", claim, claim + "  opens_after_working_days: 40\n", 14, "claim.opens_after_working_days", "more than a month"},
		{"without credit word", claim, claim + "  without_credit: maybe\n", 14, "claim.without_credit", "maybe"},
		{"approximation without bound", "billing:", "approximations:\n  - {clause: x, why: y, direction: under}\nbilling:", 15, "approximations[0]", "at most how much"},
		{"approximation direction", "billing:", "approximations:\n  - {clause: x, why: y, direction: sideways, per_run: 1m}\nbilling:", 15, "approximations[0].direction", "sideways"},
		{"approximation names no field", "billing:", "approximations:\n  - {clause: x, why: y, direction: under, per_run: 1m, terms: [uptime.partial_month]}\nbilling:", 15, "approximations[0].terms[0]", "no field"},
		{"approximation across the month's end not a flag", "billing:", "approximations:\n  - {clause: x, why: y, direction: either, across_month_end: sometimes}\nbilling:", 15, "approximations[0].across_month_end", "sometimes"},
		{"approximation claim window not a flag", "billing:", "approximations:\n  - {clause: x, why: y, direction: over, claim_window: 30d}\nbilling:", 15, "approximations[0].claim_window", "30d"},
		{"approximation unknown key", "billing:", "approximations:\n  - {clause: x, why: y, direction: under, per_run: 1m, guess: 3}\nbilling:", 15, "approximations[0].guess", "unknown field"},
	}
	checkErrors(t, base, cases)
	// The month's formula forbids shortening the month by the window.
	_, err := Parse("w.yaml", []byte(with("  denominator: calendar_month\n", "maintenance: {notice: 1h, excuses: window}\n")))
	if err == nil || !strings.Contains(err.Error(), "w.yaml:") || !strings.Contains(err.Error(), "maintenance.excuses") {
		t.Errorf("window under calendar_month: %v", err)
	}
}

// A calendar listing 2026's holidays does not know 2027's (China's are
// published a year at a time): a claim for December 2026 that opens after
// five working days counts January 2027's weekdays alone — 1 (Fri, 元旦 in
// fact), 4, 5, 6, 7: not before 8 January — and says the year it lacks;
// November's count, 1–7 December 2026 (Tue 1 … Mon 7: opens 8 December),
// is known. A calendar listing no holiday at all knows every year.
func TestClaimOpensInAYearTheCalendarDoesNotList(t *testing.T) {
	loc, _ := time.LoadLocation("Asia/Shanghai")
	cal := &calendar.Calendar{Loc: loc, Holidays: map[calendar.Date]string{{Year: 2026, Month: 10, Day: 1}: "国庆节"}, Extra: map[calendar.Date]calendar.Hours{}}
	pr := Procedure{OpensAfterWorkingDays: 5}
	dec, nov := time.Date(2027, 1, 1, 0, 0, 0, 0, loc), time.Date(2026, 12, 1, 0, 0, 0, 0, loc)
	if got, y := pr.OpensAt(dec, cal), pr.OpensUnknown(dec, cal); !got.Equal(time.Date(2027, 1, 8, 0, 0, 0, 0, loc)) || y != 2027 {
		t.Errorf("December 2026: opens %s, unknown year %d; want 8 January 2027 at the earliest, 2027", got, y)
	}
	if got, y := pr.OpensAt(nov, cal), pr.OpensUnknown(nov, cal); !got.Equal(time.Date(2026, 12, 8, 0, 0, 0, 0, loc)) || y != 0 {
		t.Errorf("November 2026: opens %s, unknown year %d; want 8 December 2026, known", got, y)
	}
	if y := pr.OpensUnknown(dec, &calendar.Calendar{Loc: loc}); y != 0 {
		t.Errorf("a calendar without holidays: unknown year %d, want none", y)
	}
	if y := (Procedure{}).OpensUnknown(dec, cal); y != 0 {
		t.Errorf("no opening rule: unknown year %d", y)
	}
	cal.Extra[calendar.Date{Year: 2027, Month: 2, Day: 20}] = calendar.Hours{}
	if y := pr.OpensUnknown(dec, cal); y != 0 {
		t.Errorf("2027 listed (an adjusted working day): unknown year %d, want none", y)
	}
}
