package report

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"
	"time"
)

// Random months of the international packs held to what a reviewer working
// each provider's quoted text by hand gets, in exact arithmetic and without
// the engine's code: whole clock minutes of each outage, the calendar
// month's minutes whatever part of it the instance ran, the tier from the
// exact ratio, the charge to the cent, the credit the tier's percent of it.

// intlMonth is a random March under a pack: delivery (zero: before the
// month; else at a random second of its first twenty days), release (zero:
// none; else at a random second of its last week), and one to six outages
// of 30 s to 400 min, a third of them close to a minute or to six; where
// the VM is not released, a third of the months end with an outage from
// the last half hour of March into April. whole draws instants on whole
// minutes only.
type intlMonth struct {
	c                   edgeCase
	delivered, released time.Time
	outs                [][2]time.Time
}

func randomIntlMonth(rng *rand.Rand, loc *time.Location, whole bool) intlMonth {
	const layout = "2006-01-02 15:04:05"
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, loc)
	sec := func(n int) time.Duration {
		d := time.Duration(rng.Intn(n)) * time.Second
		if whole {
			d = d.Truncate(time.Minute)
		}
		return d
	}
	var m intlMonth
	cur := start.Add(time.Hour)
	if rng.Intn(2) == 0 {
		m.delivered = start.Add(sec(20 * 86400))
		m.c.delivered = m.delivered.In(loc).Format(layout)
		cur = m.delivered.Add(time.Hour)
	}
	limit := time.Date(2026, 3, 31, 23, 0, 0, 0, loc)
	if rng.Intn(3) == 0 {
		m.released = time.Date(2026, 3, 25, 0, 0, 0, 0, loc).Add(sec(6 * 86400))
		m.c.released = m.released.In(loc).Format(layout)
		limit = m.released.Add(-time.Hour)
	}
	for range 1 + rng.Intn(6) {
		cur = cur.Add(time.Minute + sec(3*86400))
		d := time.Duration(30+rng.Intn(400*60)) * time.Second
		switch rng.Intn(4) {
		case 0:
			d = time.Duration(45+rng.Intn(150)) * time.Second // around a minute
		case 1:
			d = time.Duration(5*60+rng.Intn(150)) * time.Second // around six
		}
		if whole {
			d = max(d.Truncate(time.Minute), time.Minute)
		}
		end := cur.Add(d)
		if end.After(limit) {
			break
		}
		m.outs = append(m.outs, [2]time.Time{cur, end})
		m.c.down = append(m.c.down, [2]string{cur.In(loc).Format(layout), end.In(loc).Format(layout)})
		cur = end
	}
	if end := marchEnd(loc); m.released.IsZero() && rng.Intn(3) == 0 {
		a := end.Add(-time.Duration(1+rng.Intn(1800)) * time.Second)
		b := end.Add(time.Duration(1+rng.Intn(7200)) * time.Second)
		if whole {
			a, b = a.Truncate(time.Minute), b.Truncate(time.Minute).Add(time.Minute)
		}
		if !a.Before(cur.Add(time.Minute)) {
			m.outs = append(m.outs, [2]time.Time{a, b})
			m.c.down = append(m.c.down, [2]string{a.In(loc).Format(layout), b.In(loc).Format(layout)})
		}
	}
	return m
}

// randomWindow adds, to half the months with an outage, a maintenance
// window of 30 min to 4 h (on whole minutes) over part of one outage,
// announced 72 h ahead, 47 h ahead or a minute after it began; it returns
// the window and when it was announced (zero: none).
func randomWindow(rng *rand.Rand, m *intlMonth, loc *time.Location) (w [2]time.Time, announced time.Time) {
	const layout = "2006-01-02 15:04:05"
	if len(m.outs) == 0 || rng.Intn(2) == 0 {
		return w, announced
	}
	o := m.outs[rng.Intn(len(m.outs))]
	start := o[0].Add(time.Duration(rng.Intn(int(o[1].Sub(o[0])/time.Second)+1800)-1800) * time.Second).Truncate(time.Minute)
	w = [2]time.Time{start, start.Add(time.Duration(30+rng.Intn(211)) * time.Minute)}
	announced = [...]time.Time{start.Add(-72 * time.Hour), start.Add(-47 * time.Hour), start.Add(time.Minute)}[rng.Intn(3)]
	m.c.maint = append(m.c.maint, maintSpec{w[0].In(loc).Format(layout), w[1].In(loc).Format(layout), announced.In(loc).Format(layout)})
	return w, announced
}

// marchEnd is 1 April 00:00 in loc.
func marchEnd(loc *time.Location) time.Time { return time.Date(2026, 4, 1, 0, 0, 0, 0, loc) }

// inMarch is the part of [a, b) before March's end, in seconds.
func inMarch(o [2]time.Time, loc *time.Location) int64 {
	return int64(minTime(o[1], marchEnd(loc)).Sub(o[0]) / time.Second)
}

// clockMinutes are the minute marks of the clock whose whole minute lies in
// [a, b).
func clockMinutes(a, b time.Time) []time.Time {
	var out []time.Time
	for m := a.Truncate(time.Minute); !m.Add(time.Minute).After(b); m = m.Add(time.Minute) {
		if !m.Before(a) {
			out = append(out, m)
		}
	}
	return out
}

// marchMinutes are the clock minutes of [a, b) that fall in March.
func marchMinutes(o [2]time.Time, loc *time.Location) []time.Time {
	var out []time.Time
	for _, m := range clockMinutes(o[0], o[1]) {
		if m.Before(marchEnd(loc)) {
			out = append(out, m)
		}
	}
	return out
}

// service is the part of March the instance was delivered for.
func (m intlMonth) service(loc *time.Location) (time.Time, time.Time) {
	from, to := time.Date(2026, 3, 1, 0, 0, 0, 0, loc), time.Date(2026, 4, 1, 0, 0, 0, 0, loc)
	if !m.delivered.IsZero() {
		from = m.delivered
	}
	if !m.released.IsZero() {
		to = m.released
	}
	return from, to
}

// judge fills uptime, tier and credit from the counted seconds over the
// denominator's, the tiers (each {below, percent}, lowest first) and the
// charge in cents; the credit truncated to the cent (no text says how it
// is rounded).
func (m *intlMonth) judge(denominator, counted int64, tiers [][2]string, cents *big.Rat, capPct int64) {
	m.c.counted = counted
	m.c.denominator = denominator
	up := big.NewRat((denominator-counted)*100, denominator)
	f, _ := new(big.Rat).Add(new(big.Rat).Mul(up, big.NewRat(10000, 1)), big.NewRat(1, 2)).Float64()
	m.c.uptime = float64(int64(f)) / 10000
	m.c.tier = 0
	for _, t := range tiers {
		if r, _ := new(big.Rat).SetString(t[0]); up.Cmp(r) < 0 {
			var p int64
			fmt.Sscan(t[1], &p)
			m.c.tier = float64(p)
			break
		}
	}
	c := ratRound(cents)
	m.c.charge = c / 100
	pct := min(int64(m.c.tier), capPct)
	v := new(big.Rat).Mul(big.NewRat(int64(c), 1), big.NewRat(pct, 100))
	m.c.amount = ratTrunc(v) / 100
	if m.c.charge == 0 {
		m.c.charge = -1 // nothing to compare: checkEdge skips a charge <= 0
	}
}

// AWS, Instance-Level (UTC, one GPU at 4.00 an hour): "the percentage of
// minutes during the month in which … was in the state of Unavailability"
// over the month's 44,640 minutes; "Less than 99.5% … 10% … Less than 99.0%
// … 30% … Less than 95.0% 100%"; no charge for a clock hour "Unavailable for
// more than six minutes", the rest per second; a credit "greater than one
// dollar" only; the claim by the end of the second billing cycle after the
// incident's (March's outages: before 1 June).
func TestAWSHandRuleRandomMonths(t *testing.T) {
	tm := packTerms(t, "aws-ec2-instance")
	rng := rand.New(rand.NewSource(3801))
	for i := range 300 {
		m := randomIntlMonth(rng, time.UTC, false)
		perHour := map[time.Time]int{}
		var u int64
		for _, o := range m.outs {
			for _, mk := range marchMinutes(o, time.UTC) {
				u++
				perHour[mk.Truncate(time.Hour)]++
			}
		}
		from, to := m.service(time.UTC)
		var secs int64
		for h := from.Truncate(time.Hour); h.Before(to); h = h.Add(time.Hour) {
			if perHour[h] > 6 {
				continue
			}
			a, b := h, minTime(h.Add(time.Hour), to)
			if from.After(a) {
				a = from
			}
			secs += int64(b.Sub(a) / time.Second)
		}
		m.judge(44640*60, u*60, [][2]string{{"95", "100"}, {"99", "30"}, {"99.5", "10"}}, big.NewRat(secs*400, 3600), 100)
		if m.c.amount >= 0 && m.c.amount <= 1 {
			m.c.amount = 0
		}
		m.c.deadline = "2026-06-01T00:00:00Z"
		checkEdge(t, tm, fmt.Sprintf("month %d %v delivered %q released %q", i, m.c.down, m.c.delivered, m.c.released), m.c)
	}
}

// Google Compute Engine, a Single Instance (US Pacific, one GPU at 3.50 an
// hour): Downtime Periods of whole clock minutes over "the total number of
// minutes in a month", March's 44,580 (DST from the 8th); "95.00% – <
// 99.90% 10%, 90.00% – < 95.00% 25%, < 90.00% 100%" of the month's charge,
// per second; the claim within 30 days of the month's end.
func TestGCEHandRuleRandomMonths(t *testing.T) {
	clockMinuteMonths(t, "gce-single-instance", 3802, false, 44580, [][2]string{{"90", "100"}, {"95", "25"}, {"99.9", "10"}}, 350, "2026-05-01T00:00:00-07:00")
}

// clockMinuteMonths holds 300 random Marches of pack to Google's Downtime
// Period read on the clock: each run's whole clock minutes in March over
// the month's minutes (whatever part of it the instance ran), the tiers
// ({below, percent}, lowest first) of the charge per second at
// centsPerHour for one GPU, the claim by deadline. long: half the months
// open with a run of four to ten days (longRun).
func clockMinuteMonths(t *testing.T, pack string, seed int64, long bool, monthMinutes int64, tiers [][2]string, centsPerHour int64, deadline string) {
	t.Helper()
	tm := packTerms(t, pack)
	loc := tm.Calendar.Loc
	rng := rand.New(rand.NewSource(seed))
	for i := range 300 {
		m := randomIntlMonth(rng, loc, false)
		if long && rng.Intn(2) == 0 {
			longRun(rng, &m, loc)
		}
		var u int64
		for _, o := range m.outs {
			u += int64(len(marchMinutes(o, loc)))
		}
		from, to := m.service(loc)
		m.judge(monthMinutes*60, u*60, tiers, big.NewRat(int64(to.Sub(from)/time.Second)*centsPerHour, 3600), 100)
		m.c.deadline = deadline
		checkEdge(t, tm, fmt.Sprintf("month %d %v delivered %q released %q", i, m.c.down, m.c.delivered, m.c.released), m.c)
	}
}

// CoreWeave, a Single Instance (UTC, one GPU at 4.25 an hour, billed by
// the minute): Downtime Periods of whole clock minutes over the month's
// 44,640; "95% - 99% 10%, 90% - 95% 25%, < 90% 50%" (exactly 95 % in the
// first row: approximations[2]), never more than 50 %; the claim within ten
// days of the month's end. Instants on whole minutes: the bill's minutes
// are then the service's.
func TestCoreWeaveHandRuleRandomMonths(t *testing.T) {
	tm := packTerms(t, "coreweave-single-instance")
	rng := rand.New(rand.NewSource(3803))
	for i := range 300 {
		m := randomIntlMonth(rng, time.UTC, true)
		// "downtime caused by in-advance communicated maintenance" is
		// excused: the minutes inside a window announced before it began.
		w, announced := randomWindow(rng, &m, time.UTC)
		excused := !announced.IsZero() && !announced.After(w[0])
		var u int64
		for _, o := range m.outs {
			for _, mk := range marchMinutes(o, time.UTC) {
				if !excused || mk.Before(w[0]) || !mk.Before(w[1]) {
					u++
				}
			}
		}
		from, to := m.service(time.UTC)
		m.judge(44640*60, u*60, [][2]string{{"90", "50"}, {"95", "25"}, {"99", "10"}}, big.NewRat(int64(to.Sub(from)/time.Minute)*425, 60), 50)
		if m.c.uptime == 95 && m.c.tier == 25 {
			m.c.tier, m.c.amount = 10, -1 // exactly 95.0000 %: the first row
		}
		m.c.deadline = "2026-04-11T00:00:00Z"
		checkEdge(t, tm, fmt.Sprintf("month %d %v delivered %q released %q", i, m.c.down, m.c.delivered, m.c.released), m.c)
	}
}

// UCloud Compute as SDU resells it (Copenhagen, one GPU at 10.00 DKK an
// hour): Google's words, Downtime Periods of whole clock minutes over "total
// number of minutes in a month", March's 44,580 as they elapse (summer time
// from the 29th); "80% – < 85%: 10%; 75% – < 80%: 25%; < 75%: 50%" of the
// month's bill, per second from delivery; the claim 30 days after the month
// (an assumption). Half the months open with a run of four to ten days from
// a random second, so the 85, 80 and 75 % lines are crossed.
func TestUCloudHandRuleRandomMonths(t *testing.T) {
	clockMinuteMonths(t, "ucloud-sdu", 3807, true, 44580, [][2]string{{"75", "50"}, {"80", "25"}, {"85", "10"}}, 1000, "2026-05-01T00:00:00+02:00")
}

// longRun puts first in the month a run of four to ten days (to the second)
// from a random second of the service's first day, cut an hour before the
// service ends; the month's outages that began before it ended are dropped.
func longRun(rng *rand.Rand, m *intlMonth, loc *time.Location) {
	const layout = "2006-01-02 15:04:05"
	from, to := m.service(loc)
	a := from.Add(time.Duration(1+rng.Intn(86400)) * time.Second)
	b := minTime(a.Add(time.Duration(4*86400+rng.Intn(6*86400))*time.Second), to.Add(-time.Hour))
	outs, down := [][2]time.Time{{a, b}}, [][2]string{{a.In(loc).Format(layout), b.In(loc).Format(layout)}}
	for k, o := range m.outs {
		if o[0].After(b.Add(time.Minute)) {
			outs, down = append(outs, o), append(down, m.c.down[k])
		}
	}
	m.outs, m.c.down = outs, down
}

// Yandex Compute Cloud, a single VM (Moscow, one GPU at 3.00 an hour): no
// unavailability period defined, so every second counts
// (approximations[2]), over the Accrual Period, "равный одному календарному
// месяцу": March's 2,678,400 s whatever part of it the VM ran
// (approximations[3]); "< 99.95%-99.00% 10.0% < 99.00%-95.00% 15.0% less
// than 95.00% 30.0%" of the VM's cost from its delivery to its release, per
// second; the claim 14 days after the month (an assumption).
func TestYandexHandRuleRandomMonths(t *testing.T) {
	tm := packTerms(t, "yandex-compute-vm")
	loc := tm.Calendar.Loc
	rng := rand.New(rand.NewSource(3804))
	for i := range 300 {
		m := randomIntlMonth(rng, loc, false)
		var down int64
		for _, o := range m.outs {
			down += inMarch(o, loc)
		}
		from, to := m.service(loc)
		secs := int64(to.Sub(from) / time.Second)
		m.judge(31*86400, down, [][2]string{{"95", "30"}, {"99", "15"}, {"99.95", "10"}}, big.NewRat(secs*300, 3600), 100)
		m.c.deadline = "2026-04-15T00:00:00+03:00"
		checkEdge(t, tm, fmt.Sprintf("month %d %v delivered %q released %q", i, m.c.down, m.c.delivered, m.c.released), m.c)
	}
}

// hosted·ai (UTC, one GPU at 2.49 an hour): downtime measured "from when we
// confirm an issue (… your support ticket)" — here a ticket at each
// outage's start — to the second, over "Total Minutes in Month";
// "99.0% - 99.9%: 10%; 95.0% - 99.0%: 25%; Below 95.0%: 50%" (exactly 99 %
// in the first row: approximations[2]) of the month's charge, per second;
// the claim "within 30 days of the incident", the month's first that counts
// (an outage the maintenance excused whole is no incident of the claim).
func TestHostedaiHandRuleRandomMonths(t *testing.T) {
	tm := packTerms(t, "hostedai-gpu")
	rng := rand.New(rand.NewSource(3805))
	for i := range 300 {
		m := randomIntlMonth(rng, time.UTC, false)
		// A window announced at least 48 hours ahead excuses the downtime
		// inside it; the month keeps its minutes.
		w, announced := randomWindow(rng, &m, time.UTC)
		excused := !announced.IsZero() && !announced.After(w[0].Add(-48*time.Hour))
		var down int64
		var incidents []handIncident // those that count: the claim's window runs from them
		for _, o := range m.outs {
			d := inMarch(o, time.UTC)
			if excused {
				if a, b := maxOf(o[0], w[0]), minTime(o[1], w[1], marchEnd(time.UTC)); b.After(a) {
					d -= int64(b.Sub(a) / time.Second)
				}
			}
			if d > 0 {
				incidents = append(incidents, handIncident{o[0], d})
			}
			down += d
			m.c.tickets = append(m.c.tickets, o[0].Format("2006-01-02 15:04:05"))
		}
		from, to := m.service(time.UTC)
		m.judge(44640*60, down, [][2]string{{"95", "50"}, {"99", "25"}, {"99.9", "10"}}, big.NewRat(int64(to.Sub(from)/time.Second)*249, 3600), 50)
		m.c.deadline = "2026-05-01T00:00:00Z"
		if len(incidents) > 0 {
			// An incident whose 30 days ended with March is too late for
			// March's letter; where the tier holds without it, the claim is
			// due from the first still open (claimDueFrom).
			tier := func(d int64) float64 {
				up := big.NewRat((44640*60-d)*100, 44640*60)
				for _, l := range [][2]int64{{95, 50}, {99, 25}, {9990, 10}} {
					line := big.NewRat(l[0], 1)
					if l[0] > 100 {
						line = big.NewRat(l[0], 100)
					}
					if up.Cmp(line) < 0 {
						return float64(l[1])
					}
				}
				return 0
			}
			m.c.deadline = claimDueFrom(incidents, down, marchEnd(time.UTC), tier).AddDate(0, 0, 30).Format(time.RFC3339)
		}
		checkEdge(t, tm, fmt.Sprintf("month %d %v delivered %q released %q", i, m.c.down, m.c.delivered, m.c.released), m.c)
	}
}

// GPUhub, a network failure (UTC, one GPU at 0.50 an hour): "Total duration
// of the anomaly (in minutes) * 1.5, rounded up to the nearest hour" per
// anomaly, its whole minutes (approximations[0]), times the instance's unit
// price; no uptime target, no cap; the charge per second.
func TestGPUhubHandRuleRandomMonths(t *testing.T) {
	tm := packTerms(t, "gpuhub-network")
	rng := rand.New(rand.NewSource(3806))
	across := 0
	for i := range 300 {
		m := randomIntlMonth(rng, time.UTC, false)
		var counted, hours int64
		for _, o := range m.outs {
			// Whole minutes from the anomaly's start, each second in its
			// month; the voucher in the month the anomaly ended.
			whole := int64(o[1].Sub(o[0]) / time.Minute)
			counted += min(whole*60, inMarch(o, time.UTC))
			if o[1].After(marchEnd(time.UTC)) {
				continue
			}
			hours += (whole*3 + 119) / 120 // ⌈1.5 × whole / 60⌉
		}
		from, to := m.service(time.UTC)
		secs := int64(to.Sub(from) / time.Second)
		m.judge(secs, counted, nil, big.NewRat(secs*50, 3600), 100)
		m.c.amount = float64(hours) * 0.5
		m.c.deadline = "2026-05-01T00:00:00Z"
		checkEdge(t, tm, fmt.Sprintf("month %d %v delivered %q released %q", i, m.c.down, m.c.delivered, m.c.released), m.c)
		// An anomaly into April is April's voucher, on its whole minutes
		// (March's included); April's uptime counts those from midnight.
		for _, o := range m.outs {
			if !o[1].After(marchEnd(time.UTC)) {
				continue
			}
			across++
			whole := int64(o[1].Sub(o[0]) / time.Minute)
			a := intlMonth{c: edgeCase{month: 4, down: [][2]string{{o[0].Format(time.DateTime), o[1].Format(time.DateTime)}}}}
			a.judge(30*86400, max(int64(o[0].Add(time.Duration(whole)*time.Minute).Sub(marchEnd(time.UTC))/time.Second), 0), nil, big.NewRat(30*86400*50, 3600), 100)
			a.c.amount = float64((whole*3+119)/120) * 0.5
			a.c.deadline = "2026-05-31T00:00:00Z"
			checkEdge(t, tm, fmt.Sprintf("April after month %d: %v", i, a.c.down), a.c)
		}
	}
	if across == 0 {
		t.Error("no anomaly into April drawn")
	}
}

func maxOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
