package terms

import (
	"math"
	"strings"
	"testing"
	"time"
)

// with returns the minimal contract with extra lines added to its uptime
// section (uptimeExtra) and after its billing section (tail).
func with(uptimeExtra, tail string) string {
	s := strings.Replace(minimal, "  target: 99.5\n", "  target: 99.5\n"+uptimeExtra, 1)
	return s + tail
}

func parseOne(t *testing.T, src string) *Terms {
	t.Helper()
	ts, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

// TestMaintenanceNeverInherited: a contract excludes maintenance only where
// its terms say so. AWS's and Google's published SLAs have no maintenance
// exclusion, so their packs say none; a file with no section excludes none
// either, and says it did not state it.
func TestMaintenanceNeverInherited(t *testing.T) {
	for _, c := range []struct {
		name, tail       string
		excludes, stated bool
		notice           time.Duration
	}{
		{"no section", "", false, false, 0},
		{"none", "maintenance: none\n", false, true, 0},
		{"notice", "maintenance: {notice: 72h}\n", true, true, 72 * time.Hour},
		{"zero notice said so", "maintenance:\n  notice: 0s\n", true, true, 0},
	} {
		m := parseOne(t, with("", c.tail)).Maintenance
		if m.Excludes != c.excludes || m.Stated != c.stated || m.Notice != c.notice {
			t.Errorf("%s: %+v", c.name, m)
		}
	}
}

func TestFormulaTermsDefaults(t *testing.T) {
	x := parseOne(t, minimal)
	if x.Uptime.DowntimePeriod != (DowntimePeriod{}) || x.Uptime.Denominator != ServicePeriod || x.Uptime.CreditCap != 100 ||
		!x.Credits.MonthCap.None() || x.Billing.ClockHourOver != 0 || x.Maintenance.Excludes {
		t.Fatalf("defaults: %+v %+v %+v", x.Uptime, x.Credits, x.Billing)
	}
}

func TestDowntimePeriodTerm(t *testing.T) {
	x := parseOne(t, with("  downtime_period: {minimum: 1m, unit: 1m}\n", ""))
	dp := x.Uptime.DowntimePeriod
	if dp != (DowntimePeriod{Minimum: time.Minute, Unit: time.Minute, Rounding: RoundDown}) {
		t.Fatalf("%+v", dp)
	}
	// Google: "a period of one or more consecutive minutes of Downtime.
	// Partial minutes or intermittent Downtime for a period of less than
	// one minute will not be counted": 59 s is nothing, 4 min 59 s is 4.
	for _, c := range []struct{ in, want time.Duration }{
		{59 * time.Second, 0}, {time.Minute, time.Minute}, {4*time.Minute + 59*time.Second, 4 * time.Minute}, {0, 0},
	} {
		if got := dp.Counted(c.in); got != c.want {
			t.Errorf("Counted(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	// minimum_outage is downtime_period {minimum}, counted to the second.
	old := parseOne(t, with("  minimum_outage: 1m\n", "")).Uptime.DowntimePeriod
	if old != (DowntimePeriod{Minimum: time.Minute}) || old.Counted(90*time.Second) != 90*time.Second {
		t.Fatalf("minimum_outage: %+v", old)
	}
}

// Tencent: "且该状态持续1分钟以上 … 实例不可用持续时间不超过1分钟的，不计入不可用时间"
// and, for CAR, "longer than one minute but less than two minutes … would
// be one minute": more_than counts a run only past its figure, so exactly
// one minute (two missed 30 s heartbeats) is nothing, 61 s is one minute.
func TestDowntimePeriodMoreThan(t *testing.T) {
	dp := parseOne(t, with("  downtime_period: {more_than: 1m, unit: 1m}\n", "")).Uptime.DowntimePeriod
	if dp != (DowntimePeriod{Minimum: time.Minute, Strict: true, Unit: time.Minute, Rounding: RoundDown}) {
		t.Fatalf("%+v", dp)
	}
	for _, c := range []struct{ in, want time.Duration }{
		{time.Minute, 0}, {61 * time.Second, time.Minute}, {119 * time.Second, time.Minute}, {2 * time.Minute, 2 * time.Minute},
	} {
		if got := dp.Counted(c.in); got != c.want {
			t.Errorf("Counted(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	if plain := parseOne(t, with("  downtime_period: {more_than: 1m}\n", "")).Uptime.DowntimePeriod; plain.Counted(time.Minute) != 0 || plain.Counted(61*time.Second) != 61*time.Second {
		t.Errorf("more_than 1m, to the second: %+v", plain)
	}
	for _, bad := range []struct{ yaml, want string }{
		{"  downtime_period: {minimum: 1m, more_than: 1m}\n", "uptime.downtime_period.more_than: give either minimum"},
		{"  downtime_period: {more_than: 0s}\n", "uptime.downtime_period.more_than: must be more than zero"},
	} {
		_, err := Parse("t.yaml", []byte(with(bad.yaml, "")))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q", bad.yaml, err, bad.want)
		}
	}
}

func TestDenominatorAndCreditCapTerms(t *testing.T) {
	x := parseOne(t, with("  denominator: calendar_month\n  credit_cap: 150\n", ""))
	if x.Uptime.Denominator != CalendarMonth || x.Uptime.CreditCap != 150 {
		t.Fatalf("%+v", x.Uptime)
	}
	if y := parseOne(t, with("  credit_cap: none\n", "")); !math.IsInf(y.Uptime.CreditCap, 1) {
		t.Fatalf("none: %v", y.Uptime.CreditCap)
	}
}

func TestCapTerms(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Cap
	}{
		{"24h", Cap{Hours: 24 * time.Hour}}, {"{amount: 500}", Cap{Amount: 500}}, {"{percent: 150}", Cap{Percent: 150}}, {"none", Cap{}},
	} {
		src := with("", "credits:\n  month_cap: "+c.in+"\n  downtime:\n    - {multiple: 2, incident_cap: "+c.in+"}\n")
		cr := parseOne(t, src).Credits
		if cr.MonthCap != c.want || cr.Rules[0].IncidentCap != c.want {
			t.Errorf("%s: month %+v incident %+v", c.in, cr.MonthCap, cr.Rules[0].IncidentCap)
		}
	}
	// month_cap: none says there is no cap, which needs no rule to cap.
	if cr := parseOne(t, with("", "credits:\n  month_cap: none\n")).Credits; !cr.MonthCap.None() || cr.Rules != nil {
		t.Errorf("month_cap none alone: %+v", cr)
	}
	cp := Cap{Percent: 150}
	if got := cp.Money(200); got != 300 {
		t.Errorf("150 %% of 200 = %v", got)
	}
	if got := (Cap{Hours: time.Hour}).Money(200); !math.IsInf(got, 1) {
		t.Errorf("an hours cap bounds no money: %v", got)
	}
}

func TestClockHourRuleTerm(t *testing.T) {
	x := parseOne(t, strings.Replace(minimal, "  price_per_gpu_hour: 2\n", "  price_per_gpu_hour: 2\n  clock_hour_rule: {unavailable_over: 6m}\n", 1))
	if x.Billing.ClockHourOver != 6*time.Minute {
		t.Fatalf("%+v", x.Billing)
	}
}

// TestFormulaTermErrors: an ambiguous or impossible term is refused with
// file:line:field, never guessed.
func TestFormulaTermErrors(t *testing.T) {
	base := minimal + "credits:\n  downtime:\n    - {multiple: 2}\n"
	cases := []errCase{
		{"maintenance empty", "claim:", "maintenance:\nclaim:", 12, "maintenance", "empty"},
		{"maintenance {}", "claim:", "maintenance: {}\nclaim:", 12, "maintenance.notice", "missing"},
		{"maintenance no notice", "claim:", "maintenance:\n  notes: x\nclaim:", 13, "maintenance.notes", "unknown field"},
		{"maintenance word", "claim:", "maintenance: sometimes\nclaim:", 12, "maintenance", "neither none"},
		{"both minimums", "  target: 99.5\n", "  target: 99.5\n  minimum_outage: 1m\n  downtime_period: {minimum: 1m}\n", 9, "uptime.minimum_outage", "not both"},
		{"empty downtime period", "  target: 99.5\n", "  target: 99.5\n  downtime_period: {}\n", 9, "uptime.downtime_period", "empty"},
		{"zero unit", "  target: 99.5\n", "  target: 99.5\n  downtime_period: {unit: 0s}\n", 9, "uptime.downtime_period.unit", "more than zero"},
		{"minimum not whole units", "  target: 99.5\n", "  target: 99.5\n  downtime_period: {minimum: 90s, unit: 1m}\n", 9, "uptime.downtime_period.unit", "whole number"},
		{"bad denominator", "  target: 99.5\n", "  target: 99.5\n  denominator: fortnight\n", 9, "uptime.denominator", "fortnight"},
		{"huge credit cap", "  target: 99.5\n", "  target: 99.5\n  credit_cap: 5000\n", 9, "uptime.credit_cap", "0 to 1000"},
		{"word credit cap", "  target: 99.5\n", "  target: 99.5\n  credit_cap: lots\n", 9, "uptime.credit_cap", "nor none"},
		{"cap two ways", "{multiple: 2}", "{multiple: 2, incident_cap: {amount: 5, percent: 10}}", 18, "credits.downtime[0].incident_cap", "exactly one"},
		{"zero amount", "{multiple: 2}", "{multiple: 2, incident_cap: {amount: 0}}", 18, "credits.downtime[0].incident_cap.amount", "more than zero"},
		{"zero hours", "downtime:", "month_cap: 0h\n  downtime:", 17, "credits.month_cap", "more than zero"},
		{"bad cap duration", "downtime:", "month_cap: lots\n  downtime:", 17, "credits.month_cap", "{amount: N}"},
		{"clock hour over an hour", "price_per_gpu_hour: 2\n", "price_per_gpu_hour: 2\n  clock_hour_rule: {unavailable_over: 60m}\n", 16, "billing.clock_hour_rule.unavailable_over", "less than the clock hour"},
		{"clock hour missing", "price_per_gpu_hour: 2\n", "price_per_gpu_hour: 2\n  clock_hour_rule: {}\n", 16, "billing.clock_hour_rule.unavailable_over", "missing"},
	}
	checkErrors(t, base, cases)
}
