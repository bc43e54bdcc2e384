package report

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"
	"time"
)

// CoreWeave's months again, at any second this time: deliveries, releases,
// outages and maintenance windows off the minute (TestCoreWeaveHandRule
// RandomMonths draws whole minutes only). By hand: "Partial minutes …
// will not be counted", so a clock minute counts when it was down from its
// first second to its last and no second of it lay inside a window
// "in-advance communicated" (announced before it began); the month's
// 44,640 minutes whatever part of it the instance ran; billed "on a
// per-minute basis", its time in service to the whole minute above
// (delivered 10:00:30 and in service to the month's end: from 10:00); the
// tier's percent of that bill truncated to the cent, at most 50 %.
func TestCoreWeaveHandRuleRandomSeconds(t *testing.T) {
	tm := packTerms(t, "coreweave-single-instance")
	const layout = "2006-01-02 15:04:05"
	rng := rand.New(rand.NewSource(3811))
	for i := range 300 {
		m := randomIntlMonth(rng, time.UTC, false)
		var w [2]time.Time
		var announced time.Time
		if len(m.outs) > 0 && rng.Intn(3) > 0 {
			o := m.outs[rng.Intn(len(m.outs))]
			span := int(o[1].Sub(o[0]) / time.Second)
			w[0] = o[0].Add(time.Duration(rng.Intn(span+240)-120) * time.Second)
			w[1] = w[0].Add(time.Duration(1+rng.Intn(span+240)) * time.Second)
			announced = [...]time.Time{w[0].Add(-48 * time.Hour), w[0], w[0].Add(time.Second)}[rng.Intn(3)]
			m.c.maint = append(m.c.maint, maintSpec{w[0].Format(layout), w[1].Format(layout), announced.Format(layout)})
		}
		excused := !announced.IsZero() && !announced.After(w[0])
		var u int64
		for _, o := range m.outs {
			for _, mk := range marchMinutes(o, time.UTC) {
				if !excused || !mk.Add(time.Minute).After(w[0]) || !mk.Before(w[1]) {
					u++
				}
			}
		}
		from, to := m.service(time.UTC)
		billed := (int64(to.Sub(from)/time.Second) + 59) / 60 // whole minutes, the last one begun
		m.judge(44640*60, u*60, [][2]string{{"90", "50"}, {"95", "25"}, {"99", "10"}}, big.NewRat(billed*425, 60), 50)
		if m.c.uptime == 95 && m.c.tier == 25 {
			m.c.tier, m.c.amount = 10, -1 // exactly 95.0000 %: the first row (approximations[2])
		}
		m.c.deadline = "2026-04-11T00:00:00Z"
		checkEdge(t, tm, fmt.Sprintf("month %d %v maint %v delivered %q released %q", i, m.c.down, m.c.maint, m.c.delivered, m.c.released), m.c)
	}
}

// secondsMonth is a random month of year/month in loc at any second: a
// delivery before it (half the months) or at a random second of its first
// twenty days, a release at a random second of its last six days (a third),
// one to six outages of 30 s to 400 min, and, a third of the time each, an
// outage across its first midnight (when delivered before it) and across
// its last (when not released). No instant falls in an hour the clocks
// repeat (its local time names two instants; the dst-day edges hold that
// hour).
func secondsMonth(rng *rand.Rand, loc *time.Location, year int, month time.Month) intlMonth {
	const layout = "2006-01-02 15:04:05"
	start, end := time.Date(year, month, 1, 0, 0, 0, 0, loc), time.Date(year, month+1, 1, 0, 0, 0, 0, loc)
	plain := func(ts ...time.Time) bool {
		for _, t := range ts {
			if back, err := time.ParseInLocation(layout, t.In(loc).Format(layout), loc); err != nil || !back.Equal(t) {
				return false
			}
		}
		return true
	}
	at := func(from time.Time, n int) time.Time { return from.Add(time.Duration(rng.Intn(n)) * time.Second) }
	var m intlMonth
	add := func(a, b time.Time) {
		m.outs = append(m.outs, [2]time.Time{a, b})
		m.c.down = append(m.c.down, [2]string{a.In(loc).Format(layout), b.In(loc).Format(layout)})
	}
	m.c.year, m.c.month = year, month
	cur := start.Add(-3 * time.Hour)
	if rng.Intn(2) == 0 {
		if d := at(start, 20*86400); plain(d) {
			m.delivered = d
			m.c.delivered = d.In(loc).Format(layout)
			cur = d.Add(time.Hour)
		}
	}
	if m.delivered.IsZero() && rng.Intn(3) == 0 {
		a, b := start.Add(-time.Duration(1+rng.Intn(5400))*time.Second), start.Add(time.Duration(1+rng.Intn(5400))*time.Second)
		if plain(a, b) {
			add(a, b)
			cur = b
		}
	}
	limit := end.Add(-2 * time.Hour)
	if rng.Intn(3) == 0 {
		if r := at(end.AddDate(0, 0, -6), 6*86400-7200); plain(r) {
			m.released = r
			m.c.released = r.In(loc).Format(layout)
			limit = r.Add(-time.Hour)
		}
	}
	for range 1 + rng.Intn(6) {
		a := cur.Add(time.Minute + time.Duration(rng.Intn(4*86400))*time.Second)
		d := time.Duration(30+rng.Intn(400*60)) * time.Second
		if rng.Intn(3) == 0 {
			d = time.Duration(45+rng.Intn(150)) * time.Second // around a minute
		}
		b := a.Add(d)
		if b.After(limit) {
			break
		}
		if plain(a, b) {
			add(a, b)
			cur = b
		}
	}
	if m.released.IsZero() && rng.Intn(3) == 0 {
		a, b := end.Add(-time.Duration(1+rng.Intn(5400))*time.Second), end.Add(time.Duration(1+rng.Intn(5400))*time.Second)
		if !a.Before(cur.Add(2*time.Minute)) && plain(a, b) {
			add(a, b)
		}
	}
	return m
}

// wholeMinutesIn counts the clock minutes wholly inside one of outs that
// begin in [from, to).
func wholeMinutesIn(outs [][2]time.Time, from, to time.Time) int64 {
	var n int64
	for _, o := range outs {
		for _, mk := range clockMinutes(o[0], o[1]) {
			if !mk.Before(from) && mk.Before(to) {
				n++
			}
		}
	}
	return n
}

// otherMonths are the months the hand rules are worked in: October, November
// (the US clocks go back on the 1st), a leap February, and March.
var otherMonths = [...]struct {
	y int
	m time.Month
}{{2026, time.October}, {2026, time.November}, {2028, time.February}, {2026, time.March}}

// inService is the part of [start, end) the node was in service: from its
// delivery, where it was delivered inside, to its release.
func (m intlMonth) inService(start, end time.Time) (from, to time.Time) {
	from, to = start, end
	if !m.delivered.IsZero() {
		from = m.delivered
	}
	if !m.released.IsZero() {
		to = m.released
	}
	return from, to
}

// Google's single instance in months other than March, in Pacific time:
// October (744 h), November (721 h: the clocks go back on its first day,
// 2,595,600 s), a leap February (2028, 696 h) and March (743 h). By hand: a
// Downtime Period's whole clock minutes, each in the month it began in,
// over the month's minutes as they elapse; "95.00% – < 99.90%: 10%,
// 90.00% – < 95.00%: 25%, < 90.00%: 100%" of the bill for the instance's
// time in the month at 3.50 an hour, to the cent; the notification within
// 30 days of the month's end, Pacific calendar days.
func TestGCEHandRuleOtherMonths(t *testing.T) {
	tm := packTerms(t, "gce-single-instance")
	loc := tm.Calendar.Loc
	rng := rand.New(rand.NewSource(3812))
	for i := range 400 {
		ym := otherMonths[i%len(otherMonths)]
		m := secondsMonth(rng, loc, ym.y, ym.m)
		start, end := time.Date(ym.y, ym.m, 1, 0, 0, 0, 0, loc), time.Date(ym.y, ym.m+1, 1, 0, 0, 0, 0, loc)
		from, to := m.inService(start, end)
		month := int64(end.Sub(start) / time.Second)
		m.judge(month, wholeMinutesIn(m.outs, start, end)*60, [][2]string{{"90", "100"}, {"95", "25"}, {"99.9", "10"}},
			big.NewRat(int64(to.Sub(from)/time.Second)*350, 3600), 100)
		m.c.deadline = end.AddDate(0, 0, 30).Format(time.RFC3339)
		checkEdge(t, tm, fmt.Sprintf("%d-%02d month %d %v delivered %q released %q", ym.y, ym.m, i, m.c.down, m.c.delivered, m.c.released), m.c)
	}
}

// us-example in months other than March, in New York time: October (744 h),
// November (721 h, the clocks back on the 1st), a leap February (2028,
// 696 h) and March (743 h). By hand, from its own terms: every second of a
// run of a minute or more ("minimum_outage: 1m", the whole run's length,
// however many months it spans), the part inside the month, over the
// node's time in service in it (no denominator given); below 99.5 / 99 /
// 95 % 10 / 30 / 100 % of 3.20 an hour per second; the claim by the end
// of the second billing cycle after the month.
func TestUSExampleHandRuleOtherMonths(t *testing.T) {
	tms := loadTerms(t)
	tm := tms[1]
	if tm.Contract != "us-example" {
		t.Fatalf("terms %s, want us-example", tm.Contract)
	}
	loc := tm.Calendar.Loc
	rng := rand.New(rand.NewSource(3813))
	for i := range 400 {
		ym := otherMonths[i%len(otherMonths)]
		m := secondsMonth(rng, loc, ym.y, ym.m)
		start, end := time.Date(ym.y, ym.m, 1, 0, 0, 0, 0, loc), time.Date(ym.y, ym.m+1, 1, 0, 0, 0, 0, loc)
		from, to := m.inService(start, end)
		var down int64
		for _, o := range m.outs {
			if o[1].Sub(o[0]) >= time.Minute {
				if a, b := maxOf(o[0], start), minTime(o[1], end); b.After(a) {
					down += int64(b.Sub(a) / time.Second)
				}
			}
		}
		secs := int64(to.Sub(from) / time.Second)
		m.judge(secs, down, [][2]string{{"95", "100"}, {"99", "30"}, {"99.5", "10"}}, big.NewRat(secs*320, 3600), 100)
		m.c.deadline = time.Date(ym.y, ym.m+3, 1, 0, 0, 0, 0, loc).Format(time.RFC3339)
		checkEdge(t, tm, fmt.Sprintf("%d-%02d month %d %v delivered %q released %q", ym.y, ym.m, i, m.c.down, m.c.delivered, m.c.released), m.c)
	}
}
