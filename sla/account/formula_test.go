package account

import (
	"math"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/terms"
)

func parseTerms(t *testing.T, src string) *terms.Terms {
	t.Helper()
	ts, err := terms.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

// formulaTerms is a contract around the clock in UTC; extra goes into its
// uptime section, tail after it.
func formulaTerms(t *testing.T, uptime, tail string) *terms.Terms {
	return parseTerms(t, `contract: f
provider: P
currency: USD
timezone: UTC
business_hours: {monday: "00:00-24:00"}
uptime:
  target: 85
  unavailable: [unreachable]
  tiers:
    - {min: 80, max: 85, credit: 10}
    - {min: 0, max: 80, credit: 50}
`+uptime+`claim: {within_days: 30}
billing:
  price_per_gpu_hour: 10
`+tail)
}

func down(from, to time.Time) Outage {
	return Outage{Kind: incident.Unreachable, Cause: incident.CauseNetwork, Span: interval.Interval{Start: from, End: to}}
}

// TestDenominatorCalendarMonth: UCloud SDU's formula, "Uptime = (total
// minutes in the month − downtime) / total minutes in the month". April
// 2026 has 30 days (43 200 min); the node is delivered on the 16th at
// 00:00, so its service period is 15 days (21 600 min), and it is down for
// 60 h (3 600 min). By the service period: (21 600 − 3 600) / 21 600 =
// 83.33 %, below the 85 % target, a 10 % credit. By the month: (43 200 −
// 3 600) / 43 200 = 91.67 %: met, nothing owed.
func TestDenominatorCalendarMonth(t *testing.T) {
	ms, me := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	delivered := time.Date(2026, 4, 16, 0, 0, 0, 0, time.UTC)
	outs := []Outage{down(time.Date(2026, 4, 20, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 22, 12, 0, 0, 0, time.UTC))}
	window, period := interval.Interval{Start: ms, End: me}, interval.Interval{Start: delivered, End: me}
	for _, c := range []struct {
		uptime      string
		den         time.Duration
		want        float64
		tierPercent float64
	}{
		{"", 15 * 24 * time.Hour, 83.3333, 10},
		{"  denominator: service_period\n", 15 * 24 * time.Hour, 83.3333, 10},
		{"  denominator: calendar_month\n", 30 * 24 * time.Hour, 91.6667, 0},
	} {
		tm := formulaTerms(t, c.uptime, "")
		b := ComputeClocked(tm, window, period, outs, outs, nil)
		if b.Denominator != c.den || math.Abs(b.UptimeClaimed-c.want) > 0.0001 {
			t.Errorf("%q: denominator %s uptime %.4f, want %s %.4f", c.uptime, b.Denominator, b.UptimeClaimed, c.den, c.want)
		}
		if cr := CreditFor(tm, b.UptimeClaimed, 3600, nil, 0); cr.TierPercent != c.tierPercent {
			t.Errorf("%q: tier %v %%, want %v", c.uptime, cr.TierPercent, c.tierPercent)
		}
	}
}

// TestDowntimePeriodsByContract: Google's "Downtime Period" is "a period of
// one or more consecutive minutes of Downtime. Partial minutes or
// intermittent Downtime for a period of less than one minute will not be
// counted". Runs of 59 s, 4 min 59 s and 10 min: 0 + 4 + 10 = 14 min.
// Counted to the second with a 1-minute minimum (minimum_outage: 1m) the
// same runs count 4:59 + 10:00 = 14 min 59 s.
func TestDowntimePeriodsByContract(t *testing.T) {
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	outs := []Outage{
		down(day.Add(time.Hour), day.Add(time.Hour+59*time.Second)),
		down(day.Add(2*time.Hour), day.Add(2*time.Hour+4*time.Minute+59*time.Second)),
		down(day.Add(3*time.Hour), day.Add(3*time.Hour+10*time.Minute)),
	}
	month := interval.Interval{Start: mStart, End: mEnd}
	g := Compute(formulaTerms(t, "  downtime_period: {minimum: 1m, unit: 1m}\n", ""), month, outs, nil)
	if got := g.Claimable.Total(); got != 14*time.Minute {
		t.Errorf("google: %s, want 14m", got)
	}
	// The partial minute left out is the run's last: the 4:59 run counts
	// from 02:00:00 to 02:04:00.
	if got := g.Claimable[0]; !got.End.Equal(day.Add(2*time.Hour + 4*time.Minute)) {
		t.Errorf("first counted run %v", got)
	}
	s := Compute(formulaTerms(t, "  minimum_outage: 1m\n", ""), month, outs, nil)
	if got := s.Claimable.Total(); got != 14*time.Minute+59*time.Second {
		t.Errorf("to the second: %s, want 14m59s", got)
	}
}

// TestNoInheritedMaintenance: a notice announced a week ahead takes its
// window out only under a contract that excludes maintenance with a
// notice; under maintenance: none and with no section it counts. A month
// of 744 h with 10 h of outage inside announced maintenance: 98.6559 %
// (734/744) where nothing is excluded.
func TestNoInheritedMaintenance(t *testing.T) {
	start := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	outs := []Outage{down(start, start.Add(10*time.Hour))}
	maint := []Maintenance{{Span: interval.Interval{Start: start, End: start.Add(10 * time.Hour)}, AnnouncedAt: start.Add(-7 * 24 * time.Hour)}}
	month := interval.Interval{Start: mStart, End: mEnd}
	for _, c := range []struct {
		tail   string
		want   float64
		uptime string
	}{{"", 98.655914, ""}, {"maintenance: none\n", 98.655914, ""}, {"maintenance: {notice: 72h}\n", 100, ""},
		// The month's formula keeps the month's 744 h as the denominator:
		// a further 2 h outage outside the window reads 742 / 744.
		{"maintenance: {notice: 72h}\n", 99.731183, "  denominator: calendar_month\n"}} {
		outs := outs
		if c.uptime != "" {
			outs = append(outs, down(start.Add(24*time.Hour), start.Add(26*time.Hour)))
		}
		b := Compute(formulaTerms(t, c.uptime, c.tail), month, outs, maint)
		if math.Abs(b.UptimeClaimed-c.want) > 1e-6 {
			t.Errorf("%q: %.6f, want %.6f", c.tail, b.UptimeClaimed, c.want)
		}
	}
}

// TestUncappedVoucher: GPUhub credits "downtime minutes × 1.5, rounded up
// to the hour, × the unit price", with no cap for network failures. A node
// of one GPU at 0.50/h billed 24 h (charge 12.00) is down 20 h: 1 200 min
// × 1.5 = 1 800 min = 30 h of voucher = 15.00, more than the charge. With
// credit_cap: none it stays 15.00; under the default cap of 100 % it would
// be cut to 12.00.
func TestUncappedVoucher(t *testing.T) {
	rule := "credits:\n  downtime:\n    - {kinds: [unreachable], multiple: 1.5, round_up_to: 1h, round: credit}\n"
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	outs := []Outage{down(day, day.Add(20*time.Hour))}
	period := interval.Interval{Start: day, End: day.Add(24 * time.Hour)}
	for _, c := range []struct {
		uptime string
		amount float64
		capped bool
	}{{"  credit_cap: none\n", 15, false}, {"", 12, true}, {"  credit_cap: 150\n", 15, false}, {"  credit_cap: 110\n", 13.2, true}} {
		tm := formulaTerms(t, c.uptime, rule)
		tm.Uptime.Tiers = nil // the voucher alone
		b := Compute(tm, period, outs, nil)
		dcs := DowntimeCredits(tm, b, outs, 1, 0.5, 12)
		if len(dcs) != 1 || dcs[0].CreditHours != 30 || dcs[0].Amount != 15 {
			t.Fatalf("%q: %+v", c.uptime, dcs)
		}
		cr := CreditFor(tm, b.UptimeClaimed, 12, nil, DowntimeTotal(dcs))
		if cr.Amount != c.amount || cr.Capped != c.capped {
			t.Errorf("%q: credit %v capped %v, want %v %v", c.uptime, cr.Amount, cr.Capped, c.amount, c.capped)
		}
	}
}

// TestMoneyCaps: caps per incident and per month in hours, an amount or a
// percent of the charge. Two incidents of 10 h at 10× a rate of 2.00/h
// earn 200.00 each, on a charge of 200.00. A month cap of {percent: 150}
// (300.00) lets the first keep 200.00 and the second the 100.00 left;
// {amount: 250} leaves the second 50.00; 15h of downtime leaves it 5 h =
// 100.00. An incident cap of {amount: 150} holds each to 150.00, together
// exactly the month's 300.00.
func TestMoneyCaps(t *testing.T) {
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	outs := []Outage{down(day, day.Add(10*time.Hour)), down(day.Add(24*time.Hour), day.Add(34*time.Hour))}
	month := interval.Interval{Start: mStart, End: mEnd}
	const plain, perIncident = "", ", incident_cap: {amount: 150}"
	for _, c := range []struct {
		caps, rule string
		want       [2]float64
		inc, mon   [2]bool
	}{
		{"", plain, [2]float64{200, 200}, [2]bool{}, [2]bool{}},
		{"  month_cap: none\n", plain, [2]float64{200, 200}, [2]bool{}, [2]bool{}},
		{"  month_cap: {percent: 150}\n", plain, [2]float64{200, 100}, [2]bool{}, [2]bool{false, true}},
		{"  month_cap: {amount: 250}\n", plain, [2]float64{200, 50}, [2]bool{}, [2]bool{false, true}},
		{"  month_cap: 15h\n", plain, [2]float64{200, 100}, [2]bool{}, [2]bool{false, true}},
		{"  month_cap: {percent: 150}\n", perIncident, [2]float64{150, 150}, [2]bool{true, true}, [2]bool{}},
	} {
		rule := "    - {kinds: [unreachable], multiple: 10" + c.rule + "}\n"
		tm := formulaTerms(t, "", "credits:\n"+c.caps+"  downtime:\n"+rule)
		b := Compute(tm, month, outs, nil)
		dcs := DowntimeCredits(tm, b, outs, 1, 2, 200)
		for i := range 2 {
			if dcs[i].Amount != c.want[i] || dcs[i].IncidentCapped != c.inc[i] || dcs[i].MonthCapped != c.mon[i] {
				t.Errorf("%q incident %d: %v (incident capped %v, month capped %v), want %v %v %v", c.caps, i,
					dcs[i].Amount, dcs[i].IncidentCapped, dcs[i].MonthCapped, c.want[i], c.inc[i], c.mon[i])
			}
		}
	}
}

// TestClockHourRule: AWS "will not charge you for any Single EC2 Instance
// that is Unavailable for more than six minutes of a clock hour". Down
// 10:03-10:10 (7 min: hour 10 not charged), 11:55-12:05 (5 min in hour 11
// and 5 in hour 12: both charged), 13:00-13:06 (exactly 6 min: charged, it
// is not more than six) and 14:30-16:15 (hour 14: 30 min, hour 15: 60,
// hour 16: 15; all three not charged). A node of one GPU at 4.00/h in
// service all March (744 h) is billed 744 − 4 = 740 h = 2 960.00.
func TestClockHourRule(t *testing.T) {
	tm := formulaTerms(t, "", "  clock_hour_rule: {unavailable_over: 6m}\n")
	h := func(hh, mm int) time.Time { return time.Date(2026, 3, 2, hh, mm, 0, 0, time.UTC) }
	outs := []Outage{down(h(10, 3), h(10, 10)), down(h(11, 55), h(12, 5)), down(h(13, 0), h(13, 6)), down(h(14, 30), h(16, 15))}
	b := Compute(tm, interval.Interval{Start: mStart, End: mEnd}, outs, nil)
	hs := UnchargedHours(tm, b.Claimable)
	var got []int
	for _, x := range hs {
		got = append(got, x.Hour.Start.Hour())
	}
	if len(got) != 4 || got[0] != 10 || got[1] != 14 || got[2] != 15 || got[3] != 16 {
		t.Fatalf("uncharged hours %v", got)
	}
	if hs[0].Unavailable != 7*time.Minute || hs[1].Unavailable != 30*time.Minute {
		t.Errorf("unavailable %v %v", hs[0].Unavailable, hs[1].Unavailable)
	}
	billed, amount := Charge(tm, 4, 1, mStart, mEnd, UnchargedSet(hs))
	if billed != 740*time.Hour || amount != 2960 {
		t.Errorf("billed %s = %v, want 740h = 2960", billed, amount)
	}
	// Without the rule every hour is charged.
	if hs := UnchargedHours(formulaTerms(t, "", ""), b.Claimable); hs != nil {
		t.Errorf("no rule: %v", hs)
	}
	// A zone half an hour off UTC has its own clock hours: in
	// Asia/Kolkata (UTC+5:30) 10:03-10:10 UTC is 15:33-15:40, in the hour
	// starting 15:00 local = 09:30 UTC.
	in, cal := *tm, *tm.Calendar
	cal.Loc, _ = time.LoadLocation("Asia/Kolkata")
	in.Calendar = &cal
	if hs := UnchargedHours(&in, interval.Set{{Start: h(10, 3), End: h(10, 10)}}); len(hs) != 1 || !hs[0].Hour.Start.Equal(h(9, 30)) {
		t.Errorf("Kolkata: %v", hs)
	}
}
