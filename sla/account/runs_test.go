package account

import (
	"math"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/terms"
)

// Tencent's rule, {more_than: 1m, unit: 1m, rounding: up}, applied to runs
// that cross midnight at the end of March (UTC here). The rule is applied to
// the whole run first, then its minutes go to the month each second fell
// in, the rounding to the month the run ended in. By hand:
//   - 23:59:00–00:01:00, 120 s: "超过1分钟" → 2 min; March 60 s, April 60 s.
//     Judged half by half (60 s each, "不超过1分钟") it would count nothing.
//   - 23:59:30–00:01:00, 90 s: "超过1分钟但不足2分钟的按2分钟计算" → 2 min; March
//     its own 30 s, April its own 60 s and the 30 s of rounding: 90 s.
//   - 23:59:30–00:00:30, 60 s: "不超过1分钟的，不计入" → nothing either side.
//   - 23:58:59–23:59:59 + 1 s… a run of 61 s ending at 23:59:59 is wholly
//     March's, rounding included: 120 s in March, none in April.
func TestWholeRunAcrossMonthEnd(t *testing.T) {
	tm := formulaTerms(t, "  downtime_period: {more_than: 1m, unit: 1m, rounding: up}\n", "")
	mar := interval.Interval{Start: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}
	apr := interval.Interval{Start: mar.End, End: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	at := func(d, h, m, s int) time.Time { return time.Date(2026, 3, d, h, m, s, 0, time.UTC) }
	for _, c := range []struct {
		name       string
		from, to   time.Time
		march, apr time.Duration
	}{
		{"two minutes across", at(31, 23, 59, 0), at(32, 0, 1, 0), time.Minute, time.Minute},
		{"ninety seconds across", at(31, 23, 59, 30), at(32, 0, 1, 0), 30 * time.Second, 90 * time.Second},
		{"one minute across", at(31, 23, 59, 30), at(32, 0, 0, 30), 0, 0},
		{"61 s ending before midnight", at(31, 23, 58, 58), at(31, 23, 59, 59), 2 * time.Minute, 0},
	} {
		outs := []Outage{down(c.from, c.to)}
		bm := ComputeClocked(tm, mar, mar, outs, outs, nil)
		ba := ComputeClocked(tm, apr, apr, outs, outs, nil)
		if bm.ClaimableDowntime != c.march || ba.ClaimableDowntime != c.apr {
			t.Errorf("%s: March %s April %s, want %s %s", c.name, bm.ClaimableDowntime, ba.ClaimableDowntime, c.march, c.apr)
		}
		if c.march+c.apr > 0 && (c.march+c.apr)%time.Minute != 0 {
			t.Errorf("%s: the two months count %s, not whole minutes", c.name, c.march+c.apr)
		}
		// The verdict shows the same seconds: its own, and the rounding on
		// the outage that ended the run.
		if v := Judge(tm, ba, outs[0]); v.CountedSeconds != int64(c.apr/time.Second) {
			t.Errorf("%s: April verdict %+v", c.name, v)
		}
	}
}

// CAR rounds down: "longer than one minute but less than two minutes …
// would be one minute". Across midnight, 23:59:30–00:01:10 is 100 s: one
// minute, counted from the run's start: March 30 s, April 30 s.
func TestWholeRunRoundedDownAcrossMonthEnd(t *testing.T) {
	tm := formulaTerms(t, "  downtime_period: {more_than: 1m, unit: 1m}\n", "")
	mar := interval.Interval{Start: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}
	apr := interval.Interval{Start: mar.End, End: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	outs := []Outage{down(time.Date(2026, 3, 31, 23, 59, 30, 0, time.UTC), time.Date(2026, 4, 1, 0, 1, 10, 0, time.UTC))}
	if m, a := ComputeClocked(tm, mar, mar, outs, outs, nil).ClaimableDowntime, ComputeClocked(tm, apr, apr, outs, outs, nil).ClaimableDowntime; m != 30*time.Second || a != 30*time.Second {
		t.Errorf("March %s April %s", m, a)
	}
}

// "A minute counts only if the whole minute was unavailable": 10:00:30 to
// 10:03:10 counts 10:01 and 10:02; 10:00:00–10:03:00 counts three.
func TestClockMinutesInBooks(t *testing.T) {
	tm := formulaTerms(t, "  downtime_period: {unit: 1m, rounding: clock}\n", "")
	mar := interval.Interval{Start: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}
	at := func(m, s int) time.Time { return time.Date(2026, 3, 5, 10, m, s, 0, time.UTC) }
	outs := []Outage{down(at(0, 30), at(3, 10)), down(at(10, 0), at(13, 0))}
	b := ComputeClocked(tm, mar, mar, outs, outs, nil)
	if b.ClaimableDowntime != 5*time.Minute {
		t.Fatalf("counted %s, want 5m", b.ClaimableDowntime)
	}
	if v := Judge(tm, b, outs[0]); v.CountedSeconds != 120 || v.Reason.IsZero() {
		t.Errorf("first %+v", v)
	}
}

// The denominator and a maintenance window. Tencent's month is "总天数 × 24 ×
// 60" and only the unavailability inside announced maintenance "不属于服务不可
// 用的计算范畴" (excuses: downtime); a contract that takes the window out of
// the month (excuses: window) shortens the month by it. March: 44 640
// minutes; a 6-hour window (360 min) announced in time; 12 minutes of
// outage outside it.
//   - window, nothing down inside: (44 640 − 360 − 12) / (44 640 − 360) =
//     99.97290… %; downtime only: (44 640 − 12) / 44 640 = 99.97312… %:
//     the window alone moves the figure, and across the 99.973 line.
//   - window with 30 min down inside it: the same figures (the 30 min are
//     excused either way).
//   - 30 min down straddling the window's start (15 in, 15 out): 15 count.
func TestMaintenanceExcusesDowntimeOrWindow(t *testing.T) {
	mar := interval.Interval{Start: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}
	day := func(d, h, m int) time.Time { return time.Date(2026, 3, d, h, m, 0, 0, time.UTC) }
	mw := Maintenance{Span: interval.Interval{Start: day(10, 0, 0), End: day(10, 6, 0)}, AnnouncedAt: day(1, 0, 0)}
	base := []Outage{down(day(20, 3, 0), day(20, 3, 12))}
	for _, c := range []struct {
		name, excuses string
		outs          []Outage
		want          float64
		counted       time.Duration
	}{
		{"window, nothing down", "window", base, (44640.0 - 360 - 12) / (44640 - 360) * 100, 12 * time.Minute},
		{"downtime, nothing down", "downtime", base, (44640.0 - 12) / 44640 * 100, 12 * time.Minute},
		{"window, down inside", "window", append([]Outage{down(day(10, 1, 0), day(10, 1, 30))}, base...), (44640.0 - 360 - 12) / (44640 - 360) * 100, 12 * time.Minute},
		{"downtime, down inside", "downtime", append([]Outage{down(day(10, 1, 0), day(10, 1, 30))}, base...), (44640.0 - 12) / 44640 * 100, 12 * time.Minute},
		{"downtime, straddling", "downtime", append([]Outage{down(day(9, 23, 45), day(10, 0, 15))}, base...), (44640.0 - 27) / 44640 * 100, 27 * time.Minute},
	} {
		tm := formulaTerms(t, "", "maintenance: {notice: 24h, excuses: "+c.excuses+"}\n")
		b := ComputeClocked(tm, mar, mar, c.outs, c.outs, []Maintenance{mw})
		if math.Abs(b.UptimeClaimed-c.want) > 1e-9 || b.ClaimableDowntime != c.counted {
			t.Errorf("%s: uptime %.6f counted %s, want %.6f %s", c.name, b.UptimeClaimed, b.ClaimableDowntime, c.want, c.counted)
		}
	}
}

// A service month in whole days: "服务开通之日为3月17日 … 第1个服务月度是指3月17日
// 到3月31日", its minutes "总天数 × 24 × 60". Delivered 17 March 15:00 (UTC
// here), down 6 min: by whole days, 15 × 1 440 = 21 600 min, (21 600 − 6)
// / 21 600 = 99.97222… %; by the delivery instant, 14 days 9 h = 20 700 min, (20 700 − 6) / 20 700 = 99.97101… %.
// Released 20 April 10:00, April's service month is 1–20 April, 20 days.
func TestPartialMonthWholeDays(t *testing.T) {
	mar := interval.Interval{Start: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}
	period := interval.Interval{Start: time.Date(2026, 3, 17, 15, 0, 0, 0, time.UTC), End: mar.End}
	outs := []Outage{down(time.Date(2026, 3, 25, 8, 0, 0, 0, time.UTC), time.Date(2026, 3, 25, 8, 6, 0, 0, time.UTC))}
	whole := ComputeClocked(formulaTerms(t, "  partial_month: whole_days\n", ""), mar, period, outs, outs, nil)
	exact := ComputeClocked(formulaTerms(t, "", ""), mar, period, outs, outs, nil)
	if whole.Denominator != 15*24*time.Hour || math.Abs(whole.UptimeClaimed-(21600.0-6)/21600*100) > 1e-9 {
		t.Errorf("whole days: %s %.6f", whole.Denominator, whole.UptimeClaimed)
	}
	if exact.Denominator != 20700*time.Minute || math.Abs(exact.UptimeClaimed-(20700.0-6)/20700*100) > 1e-9 {
		t.Errorf("exact: %s %.6f", exact.Denominator, exact.UptimeClaimed)
	}
	apr := interval.Interval{Start: mar.End, End: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	rel := interval.Interval{Start: apr.Start, End: time.Date(2026, 4, 20, 10, 0, 0, 0, time.UTC)}
	if b := ComputeClocked(formulaTerms(t, "  partial_month: whole_days\n", ""), apr, rel, nil, nil, nil); b.Denominator != 20*24*time.Hour {
		t.Errorf("released on the 20th: %s", b.Denominator)
	}
	// Delivered at midnight: whole days and the instant agree.
	mid := interval.Interval{Start: time.Date(2026, 3, 17, 0, 0, 0, 0, time.UTC), End: mar.End}
	if b := ComputeClocked(formulaTerms(t, "  partial_month: whole_days\n", ""), mar, mid, nil, nil, nil); b.Denominator != 15*24*time.Hour {
		t.Errorf("midnight: %s", b.Denominator)
	}
}

// JD Cloud: "If it is less than one month, it is not counted as one service
// term": a node delivered one second after the month began earns nothing
// that month, one in service from its first second is judged.
func TestPartialMonthNotCounted(t *testing.T) {
	tm := formulaTerms(t, "  partial_month: not_counted\n", "")
	mar := interval.Interval{Start: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}
	outs := []Outage{down(time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 7, 0, 0, 0, 0, time.UTC))}
	late := interval.Interval{Start: mar.Start.Add(time.Second), End: mar.End}
	b := ComputeClocked(tm, mar, late, outs, outs, nil)
	if !b.NotCounted || b.ClaimableDowntime != 0 || len(b.Claimable) != 0 {
		t.Errorf("one second late: %+v", b)
	}
	if v := Judge(tm, b, outs[0]); v.Counted || v.Reason.IsZero() {
		t.Errorf("verdict %+v", v)
	}
	whole := ComputeClocked(tm, mar, mar, outs, outs, nil)
	if whole.NotCounted || whole.ClaimableDowntime != 48*time.Hour {
		t.Errorf("whole month: %+v", whole)
	}
}

// GPUhub: "Total duration of the anomaly (in minutes) * 1.5, rounded up to
// the nearest hour" rounds once per anomaly. 31 March 23:40 to 1 April
// 00:20, 40 min: 60 min, one hour of the rate, in April, the month it
// ended; none in March. Reckoned month by month it would be two hours
// (20 min × 1.5 = 30 min, an hour, in each).
func TestDowntimeCreditOnTheWholeIncident(t *testing.T) {
	tm := formulaTerms(t, "", "credits:\n  downtime:\n    - {kinds: [unreachable], multiple: 1.5, round_up_to: 1h, round: credit}\n")
	mar := interval.Interval{Start: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}
	apr := interval.Interval{Start: mar.End, End: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	outs := []Outage{down(time.Date(2026, 3, 31, 23, 40, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 20, 0, 0, time.UTC))}
	bm, ba := ComputeClocked(tm, mar, mar, outs, outs, nil), ComputeClocked(tm, apr, apr, outs, outs, nil)
	if cs := DowntimeCredits(tm, bm, outs, 1, 0.5, 372); len(cs) != 0 {
		t.Errorf("March credits %+v, want none (the anomaly ended in April)", cs)
	}
	cs := DowntimeCredits(tm, ba, outs, 1, 0.5, 360)
	if len(cs) != 1 || cs[0].CreditHours != 1 || cs[0].Amount != 0.5 || cs[0].Downtime != 40*time.Minute {
		t.Errorf("April credits %+v, want one hour of 0.50 for the 40-minute anomaly", cs)
	}
}

// What a run counts inside the service terms: JD Cloud's whole minutes
// from the start, 23:56:30–00:03:00 counting 6 min to 00:02:30, has 2
// whole minutes from midnight (the half minute left out) and 3 before it
// (23:56:30–23:59:30); 23:57–00:03, 3 on each side; a run inside the terms
// all of it; one over before them nothing; a run rounded up keeps its
// rounding where it ended inside the terms (61 s from 23:59:30, 2 min: 31 s
// after midnight and the 59 s of rounding) and not where it ran on past
// them (its 30 s before midnight, no whole minute: nothing).
func TestRunCountedWithin(t *testing.T) {
	mid := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	hm := func(h, m, s int) time.Time {
		return mid.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second)
	}
	down := terms.DowntimePeriod{Minimum: 5 * time.Minute, Unit: time.Minute, Rounding: terms.RoundDown}
	up := terms.DowntimePeriod{Minimum: time.Minute, Strict: true, Unit: time.Minute, Rounding: terms.RoundUp}
	far := interval.Interval{Start: hm(-48, 0, 0), End: hm(48, 0, 0)}
	var none time.Time
	for _, c := range []struct {
		dp       terms.DowntimePeriod
		a, b     time.Time
		from, to time.Time
		want     time.Duration
	}{
		{down, hm(0, -3, -30), hm(0, 3, 0), mid, none, 2 * time.Minute},
		{down, hm(0, -3, -30), hm(0, 3, 0), none, mid, 3 * time.Minute},
		{down, hm(0, -3, 0), hm(0, 3, 0), mid, none, 3 * time.Minute},
		{down, hm(0, -3, 0), hm(0, 3, 0), none, mid, 3 * time.Minute},
		{down, hm(0, -3, 0), hm(0, 3, 0), none, none, 6 * time.Minute},
		{down, hm(0, 1, 0), hm(0, 7, 0), mid, none, 6 * time.Minute},
		{down, hm(0, 1, 0), hm(0, 7, 0), none, mid, 0},
		{down, hm(-1, 0, 0), hm(0, -50, 0), mid, none, 0},
		{down, hm(-1, 0, 0), hm(0, -50, 0), none, mid, 10 * time.Minute},
		{up, hm(0, 0, -30), hm(0, 0, 31), mid, none, 90 * time.Second},
		{up, hm(0, 0, -30), hm(0, 0, 31), none, mid, 0},
	} {
		rs := CountRuns(c.dp, interval.Set{{Start: c.a, End: c.b}}, far, time.UTC)
		var got time.Duration
		for _, r := range rs {
			got += r.CountedWithin(c.from, c.to, c.dp.Unit)
		}
		if got != c.want {
			t.Errorf("%s–%s within [%v, %v): %s, want %s", c.a.Format(time.TimeOnly), c.b.Format(time.TimeOnly), !c.from.IsZero(), !c.to.IsZero(), got, c.want)
		}
	}
	if r := (Run{Counted: time.Minute}); r.CountedWithin(time.Time{}, time.Time{}, time.Minute) != time.Minute {
		t.Error("no term bound: all of it")
	}
}
