package report

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"testing"
	"time"
)

// Over random months of a tencent-cvm node (delivered before March or at a
// random minute of its first twenty days, released on one of its last days
// or not, one to six outages of 30 s to 400 min), the report gives what a
// reviewer working Tencent's text by hand gets, in exact arithmetic: each
// outage over a minute counted in whole minutes rounded up ("超过1分钟但不足2
// 分钟的按2分钟计算"), their sum ("…单次服务不可用分钟数之和"); the month's minutes
// "总天数 × 24 × 60" over the whole days in Beijing time from the day of
// delivery to the day of release; the tier from the exact ratio; the
// voucher that percent of the fee from delivery to release, truncated to
// the fen;
// the claim due 60 days after the service month ends.
func TestTencentHandRuleRandomMonths(t *testing.T) {
	tm := packTerms(t, "tencent-cvm")
	loc := tm.Calendar.Loc
	rng := rand.New(rand.NewSource(38))
	// The voucher's part of a fen below, at and above a half: each side
	// of the rounding edge must be drawn for the months to test it.
	var below, half, above int
	for i := range 300 {
		c, delivered, released := randomTencentMonth(rng, loc)
		part := handWorkTencent(&c, delivered, released, loc)
		switch part.Cmp(big.NewRat(1, 2)) {
		case -1:
			if part.Sign() > 0 {
				below++
			}
		case 0:
			half++
		case 1:
			above++
		}
		checkEdge(t, tm, fmt.Sprintf("month %d %v", i, c.down), c)
	}
	if below == 0 || half == 0 || above == 0 {
		t.Errorf("vouchers with a part of a fen below, at, above a half: %d, %d, %d; want each drawn", below, half, above)
	}
}

// randomTencentMonth draws a March: its delivery (zero: before the month),
// release (zero: none) and outages, none across the month's end.
func randomTencentMonth(rng *rand.Rand, loc *time.Location) (edgeCase, time.Time, time.Time) {
	const layout = "2006-01-02 15:04:05"
	var c edgeCase
	var delivered, released time.Time
	cur := time.Date(2026, 3, 1, 1, 0, 0, 0, loc)
	if rng.Intn(2) == 0 {
		delivered = time.Date(2026, 3, 1+rng.Intn(20), rng.Intn(24), rng.Intn(60), 0, 0, loc)
		c.delivered = delivered.Format(layout)
		cur = delivered.Add(time.Hour)
	}
	if rng.Intn(3) == 0 {
		released = time.Date(2026, 3, 25+rng.Intn(7), rng.Intn(24), 0, 0, 0, loc)
		c.released = released.Format(layout)
	}
	for range 1 + rng.Intn(6) {
		cur = cur.Add(time.Duration(60+rng.Intn(3*86400)) * time.Second)
		d := time.Duration(30+rng.Intn(400*60)) * time.Second
		if rng.Intn(3) == 0 {
			d = time.Duration(55+rng.Intn(130)) * time.Second // around the minute
		}
		end := cur.Add(d)
		if end.After(time.Date(2026, 3, 24, 0, 0, 0, 0, loc)) {
			break
		}
		c.down = append(c.down, [2]string{cur.Format(layout), end.Format(layout)})
		cur = end
	}
	return c, delivered, released
}

// handWorkTencent fills in what the month counts by Tencent's CVM text and
// returns the part of a fen its voucher leaves out.
func handWorkTencent(c *edgeCase, delivered, released time.Time, loc *time.Location) *big.Rat {
	return handWorkTencentText(c, delivered, released, loc, true, 2500, []cnLine{{"95", 100}, {"99", 25}, {"99.975", 10}})
}

// handWorkTencentText is a month by a Tencent text: each outage over a
// minute in whole minutes, rounded up (CVM) or down (CAR: "longer than one
// minute but less than two minutes … one minute"), summed; one GPU at
// centsPerHour; the tiers lines.
func handWorkTencentText(c *edgeCase, delivered, released time.Time, loc *time.Location, up bool, centsPerHour int64, lines []cnLine) *big.Rat {
	for _, d := range c.down {
		if s := int64(cnAt(d[1], loc).Sub(cnAt(d[0], loc)) / time.Second); s > 60 && up {
			c.counted += (s + 59) / 60 * 60
		} else if s > 60 {
			c.counted += s / 60 * 60
		}
	}
	day := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc) }
	from, to := time.Date(2026, 3, 1, 0, 0, 0, 0, loc), time.Date(2026, 4, 1, 0, 0, 0, 0, loc)
	served, until := from, to
	c.deadline = "2026-05-31T00:00:00+08:00"
	if !delivered.IsZero() {
		from, served = day(delivered), delivered
	}
	if !released.IsZero() {
		to, until = day(released.Add(-time.Nanosecond)).AddDate(0, 0, 1), released
		c.deadline = day(released).AddDate(0, 0, 60).Format(time.RFC3339)
	}
	c.denominator = int64(to.Sub(from) / time.Second)
	ratio := big.NewRat((c.denominator-c.counted)*100, c.denominator)
	c.uptime = math.Round(float64(c.denominator-c.counted)/float64(c.denominator)*100*1e4) / 1e4
	c.tier = cnTier(ratio, lines)
	// The fee, one GPU, in fen (cents); the voucher the tier's percent of
	// it, truncated to the fen (the text does not say how a voucher is
	// rounded: a half fen or more is never asked for).
	fen := big.NewRat(int64(until.Sub(served)/time.Second)*centsPerHour, 3600)
	c.charge = ratRound(fen) / 100
	v := new(big.Rat).Mul(big.NewRat(int64(c.charge*100+0.5), 1), big.NewRat(int64(c.tier), 100))
	whole := new(big.Int).Quo(v.Num(), v.Denom())
	c.amount = float64(whole.Int64()) / 100
	return new(big.Rat).Sub(v, new(big.Rat).SetInt(whole))
}

// ratTrunc is r (not negative) truncated to a whole number: a credit in
// cents as the claim asks it, the part of a cent left out.
func ratTrunc(r *big.Rat) float64 {
	return float64(new(big.Int).Quo(r.Num(), r.Denom()).Int64())
}

// ratRound is r rounded half up to a whole number.
func ratRound(r *big.Rat) float64 {
	f, _ := new(big.Rat).Add(r, big.NewRat(1, 2)).Float64()
	return math.Floor(f)
}

// Random months of an alibaba-ecs node and of a jdcloud-vm node, each held
// to what a reviewer working the provider's text by hand gets in exact
// arithmetic, without the engine's code (the outages start at any second,
// so the minute rules are tried off the minute as well as on it).
//
// Alibaba: an outage of more than a minute ("持续一分钟以上") counts the clock
// minutes it holds whole ("视为该分钟内ECS实例不可用"), summed; the month is
// 44,640 minutes whatever the service ("一个自然月", "总天数╳24╳60"); tiers
// below 99.975 / 99 / 95 % earn 10 / 25 / 100 % of the fee from delivery to
// release (30.00 an hour), truncated to the fen; the claim is due 30 days
// after the first counted outage began ("within 30 days of incident"), else
// 30 days after the month.
func TestAlibabaHandRuleRandomMonths(t *testing.T) {
	tm := packTerms(t, "alibaba-ecs")
	loc := tm.Calendar.Loc
	rng := rand.New(rand.NewSource(3802))
	var offMinute, tiered int
	for i := range 300 {
		c, delivered, released := randomTencentMonth(rng, loc)
		var incidents []handIncident
		for _, d := range c.down {
			a, b := cnAt(d[0], loc), cnAt(d[1], loc)
			if b.Sub(a) <= time.Minute {
				continue
			}
			whole := b.Truncate(time.Minute).Sub(a.Add(time.Minute - time.Nanosecond).Truncate(time.Minute))
			if whole > 0 {
				c.counted += int64(whole / time.Second)
				incidents = append(incidents, handIncident{a, int64(whole / time.Second)})
			}
			if a.Second() != 0 && whole > 0 {
				offMinute++
			}
		}
		const month = 44640 * 60
		up := big.NewRat((month-c.counted)*100, month)
		c.uptime = math.Round(float64(month-c.counted)/month*100*1e4) / 1e4
		c.tier = cnTier(up, []cnLine{{"95", 100}, {"99", 25}, {"99.975", 10}})
		c.charge, c.amount = cnVoucher(delivered, released, loc, 3000, c.tier)
		c.deadline = "2026-05-01T00:00:00+08:00"
		if len(incidents) > 0 {
			tier := func(down int64) float64 {
				return cnTier(big.NewRat((month-down)*100, month), []cnLine{{"95", 100}, {"99", 25}, {"99.975", 10}})
			}
			c.deadline = claimDueFrom(incidents, c.counted, time.Date(2026, 4, 1, 0, 0, 0, 0, loc), tier).AddDate(0, 0, 30).Format(time.RFC3339)
		}
		if c.tier > 0 {
			tiered++
		}
		checkEdge(t, tm, fmt.Sprintf("month %d %v", i, c.down), c)
	}
	if offMinute == 0 || tiered == 0 {
		t.Errorf("counted outages off the minute %d, months with a credit %d: want both drawn", offMinute, tiered)
	}
}

// handIncident is a counted incident of a month worked by hand: when it
// began and what the month counts of it, in seconds.
type handIncident struct {
	start   time.Time
	counted int64
}

// claimDueFrom is the incident a claim "within 30 days of incident" is due
// from, worked by hand: the month's letter is written once the month is
// over (end), too late for an incident whose 30 days ended by then; where
// the month's tier (tier of the counted seconds) is the same without those
// incidents, the claim stands on the others and is due from the first of
// them; else from the month's first incident, its window closed.
func claimDueFrom(incidents []handIncident, counted int64, end time.Time, tier func(int64) float64) time.Time {
	var closed int64
	var open []time.Time
	for _, in := range incidents {
		if in.start.AddDate(0, 0, 30).After(end) {
			open = append(open, in.start)
		} else {
			closed += in.counted
		}
	}
	if closed > 0 && len(open) > 0 && tier(counted-closed) == tier(counted) {
		return open[0]
	}
	return incidents[0].start
}

// JD Cloud, VM and DCPS: in service the whole natural month (else "it is
// not counted as one service term": no uptime, nothing owed); a fault of 5
// minutes or more (VM: "not available for 5 minutes or more"; DCPS: any)
// counts its whole minutes (approximations[0]), each earning a coupon of
// 100 × the hourly rate / 60 × its minutes truncated to the fen (VM 20.00:
// 3,333.33… fen a minute; DCPS 15.00: 2,500), together at most the month's
// charge (744 h: 14,880.00, 11,160.00); the uptime (44,640 − minutes) /
// 44,640 judges nothing.
func TestJDCloudHandRuleRandomMonths(t *testing.T) {
	for _, p := range []struct {
		pack          string
		seed, minimum int64
		centsPerHour  int64
		charge        float64
	}{{"jdcloud-vm", 3803, 300, 2000, 14880}, {"jdcloud-dcps", 3804, 60, 1500, 11160}} {
		t.Run(p.pack, func(t *testing.T) { jdHandRule(t, p.pack, p.seed, p.minimum, p.centsPerHour, p.charge) })
	}
}

func jdHandRule(t *testing.T, pack string, seed, minimum, centsPerHour int64, charge float64) {
	tm := packTerms(t, pack)
	loc := tm.Calendar.Loc
	rng := rand.New(rand.NewSource(seed))
	var capped, coupons, partial, nearMinimum int
	for i := range 300 {
		c, delivered, released := randomTencentMonth(rng, loc)
		if rng.Intn(3) > 0 {
			c.delivered, c.released, delivered, released = "", "", time.Time{}, time.Time{}
		}
		if !delivered.IsZero() || !released.IsZero() {
			partial++
			c.uptime, c.amount = notJudged, 0
			checkEdge(t, tm, fmt.Sprintf("month %d (partial) %v", i, c.down), c)
			continue
		}
		var fen int64
		for j, d := range c.down {
			// A third of the longer faults cut to around the minimum, its
			// edge (shorter: no overlap with the next).
			if a := cnAt(d[0], loc); rng.Intn(3) == 0 && cnAt(d[1], loc).Sub(a) > time.Duration(minimum+10)*time.Second {
				c.down[j][1] = a.Add(time.Duration(minimum-10+rng.Int63n(21)) * time.Second).Format("2006-01-02 15:04:05")
				d = c.down[j]
			}
			if s := int64(cnAt(d[1], loc).Sub(cnAt(d[0], loc)) / time.Second); s >= minimum {
				if s < minimum+60 {
					nearMinimum++
				}
				c.counted += s / 60 * 60
				fen += s / 60 * 100 * centsPerHour / 60 // truncated to the fen
				coupons++
			}
		}
		if limit := int64(charge * 100); fen > limit {
			fen = limit
			capped++
		}
		const month = 44640 * 60
		c.uptime = math.Round(float64(month-c.counted)/month*100*1e4) / 1e4
		c.amount, c.charge, c.deadline = float64(fen)/100, charge, "2026-05-01T00:00:00+08:00"
		checkEdge(t, tm, fmt.Sprintf("month %d %v", i, c.down), c)
	}
	if capped == 0 || coupons == 0 || partial == 0 || nearMinimum == 0 {
		t.Errorf("capped months %d, coupons %d, partial months %d, faults at the minimum %d; want each drawn", capped, coupons, partial, nearMinimum)
	}
}

// Tencent CAR (tencent-car.yaml): the CVM rules but each outage over a
// minute rounded down ("longer than one minute but less than two minutes …
// one minute"), 99 %, vouchers of 5 / 10 / 20 % below 99 / 97 / 95 %, 2.00
// an hour.
//
// Tencent Cloud International CVM (tencent-intl-cvm.yaml): the CVM rules in
// English, rounded up, 0.80 USD an hour.
func TestTencentCARHandRuleRandomMonths(t *testing.T) {
	for _, p := range []struct {
		pack   string
		seed   int64
		up     bool
		cents  int64
		lines  []cnLine
		levels []float64
	}{
		{"tencent-car", 3805, false, 200, []cnLine{{"95", 20}, {"97", 10}, {"99", 5}}, []float64{0, 5, 10}},
		{"tencent-intl-cvm", 3808, true, 80, []cnLine{{"95", 100}, {"99", 25}, {"99.975", 10}}, []float64{0, 10, 25}},
	} {
		tm := packTerms(t, p.pack)
		loc := tm.Calendar.Loc
		rng := rand.New(rand.NewSource(p.seed))
		tiers := map[float64]int{}
		for i := range 300 {
			c, delivered, released := randomTencentMonth(rng, loc)
			handWorkTencentText(&c, delivered, released, loc, p.up, p.cents, p.lines)
			tiers[c.tier]++
			checkEdge(t, tm, fmt.Sprintf("%s month %d %v", p.pack, i, c.down), c)
		}
		for _, l := range p.levels {
			if tiers[l] == 0 {
				t.Errorf("%s: months by tier %v: want %v %% drawn", p.pack, tiers, l)
			}
		}
	}
}

func cnAt(s string, loc *time.Location) time.Time {
	v, _ := time.ParseInLocation("2006-01-02 15:04:05", s, loc)
	return v
}

// cnLine is a tier: below this uptime, this percent.
type cnLine struct {
	below string
	pct   float64
}

// cnTier is the percent of the first line (lowest first) up is below.
func cnTier(up *big.Rat, lines []cnLine) float64 {
	for _, l := range lines {
		if r, _ := new(big.Rat).SetString(l.below); up.Cmp(r) < 0 {
			return l.pct
		}
	}
	return 0
}

// cnVoucher is the fee of one GPU at centsPerHour from delivery (zero: the
// month's start) to release (zero: its end), to the cent, and pct of it
// truncated to the cent.
func cnVoucher(delivered, released time.Time, loc *time.Location, centsPerHour int64, pct float64) (charge, amount float64) {
	from, to := time.Date(2026, 3, 1, 0, 0, 0, 0, loc), time.Date(2026, 4, 1, 0, 0, 0, 0, loc)
	if !delivered.IsZero() {
		from = delivered
	}
	if !released.IsZero() {
		to = released
	}
	cents := ratRound(big.NewRat(int64(to.Sub(from)/time.Second)*centsPerHour, 3600))
	v := new(big.Rat).Mul(big.NewRat(int64(cents), 1), big.NewRat(int64(pct), 100))
	return cents / 100, ratTrunc(v) / 100
}

// JD Cloud's faults across the end of a whole service term, over random
// Marches (VM: 5 minutes or more, 20.00 an hour; DCPS: any, 15.00), worked
// by hand: each fault's whole minutes from its start, judged on the whole
// fault; a coupon of 100 × the rate / 60 × its minutes, truncated to the
// fen, in the month the fault ended; but a fault into an April that is no
// service term (the node released inside it) is owed in March for its
// whole minutes before midnight ("If it is less than one month, it is not
// counted as one service term"; "JD Cloud will compensate for the
// unavailable time"), and April has no figure. Reported as of 2 May, the
// release known; the node delivered on 28 February.
func TestJDCloudHandRuleAcrossTheTermsEnd(t *testing.T) {
	for _, p := range []struct {
		pack          string
		seed, minimum int64
		centsPerHour  int64
	}{{"jdcloud-vm", 3812, 300, 2000}, {"jdcloud-dcps", 3813, 60, 1500}} {
		t.Run(p.pack, func(t *testing.T) {
			tm := packTerms(t, p.pack)
			loc := tm.Calendar.Loc
			rng := rand.New(rand.NewSource(p.seed))
			end := time.Date(2026, 4, 1, 0, 0, 0, 0, loc)
			var owedInMarch, intoApril int
			for i := range 300 {
				c, _, _ := randomTencentMonth(rng, loc)
				c.delivered, c.released, c.asOf = "2026-02-28 00:00:00", "", "2026-05-02T12:00:00Z"
				released := rng.Intn(2) == 0
				if released {
					c.released = time.Date(2026, 4, 10+rng.Intn(15), rng.Intn(24), 0, 0, 0, loc).Format(time.DateTime)
				}
				a := end.Add(-time.Duration(1+rng.Intn(900)) * time.Second)
				b := end.Add(time.Duration(1+rng.Intn(900)) * time.Second)
				c.down = append(c.down, [2]string{a.Format(time.DateTime), b.Format(time.DateTime)})
				coupon := func(minutes int64) int64 { return minutes * 100 * p.centsPerHour / 60 } // fen, truncated
				var fen int64
				for _, d := range c.down[:len(c.down)-1] {
					if s := int64(cnAt(d[1], loc).Sub(cnAt(d[0], loc)) / time.Second); s >= p.minimum {
						c.counted += s / 60 * 60
						fen += coupon(s / 60)
					}
				}
				whole := int64(b.Sub(a)/time.Second) / 60
				march := int64(end.Sub(a) / time.Second)
				if whole*60 < p.minimum || whole == 0 {
					whole, march = 0, 0
				}
				c.counted += min(whole*60, march)
				if released && march >= 60 {
					owedInMarch++
					fen += coupon(min(whole*60, march) / 60)
				}
				const month = 44640 * 60
				c.uptime = math.Round(float64(month-c.counted)/month*100*1e4) / 1e4
				c.amount, c.charge = float64(min(fen, 1488000*p.centsPerHour/2000))/100, float64(744*p.centsPerHour)/100
				checkEdge(t, tm, fmt.Sprintf("March %d %v released %q", i, c.down, c.released), c)

				// April: no term when released; else the fault's whole coupon.
				ap := edgeCase{month: 4, delivered: "2026-02-28 00:00:00", released: c.released, asOf: "2026-05-02T12:00:00Z",
					down: [][2]string{c.down[len(c.down)-1]}, uptime: notJudged}
				if !released {
					intoApril++
					ap.counted = max(whole*60-march, 0)
					ap.uptime = math.Round(float64(43200*60-ap.counted)/(43200*60)*100*1e4) / 1e4
					ap.amount = float64(coupon(whole)) / 100
				}
				checkEdge(t, tm, fmt.Sprintf("April after March %d %v released %q", i, ap.down, ap.released), ap)
			}
			if owedInMarch == 0 || intoApril == 0 {
				t.Errorf("faults owed in March %d, into a whole April %d: want each drawn", owedInMarch, intoApril)
			}
		})
	}
}
