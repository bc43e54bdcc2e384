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

// handWorkTencent fills in what the month counts by Tencent's text and
// returns the part of a fen its voucher leaves out.
func handWorkTencent(c *edgeCase, delivered, released time.Time, loc *time.Location) *big.Rat {
	const layout = "2006-01-02 15:04:05"
	for _, d := range c.down {
		a, _ := time.ParseInLocation(layout, d[0], loc)
		b, _ := time.ParseInLocation(layout, d[1], loc)
		if s := int64(b.Sub(a) / time.Second); s > 60 {
			c.counted += (s + 59) / 60 * 60
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
	up := big.NewRat((c.denominator-c.counted)*100, c.denominator)
	c.uptime = math.Round(float64(c.denominator-c.counted)/float64(c.denominator)*100*1e4) / 1e4
	for _, tier := range []struct {
		below string
		pct   float64
	}{{"95", 100}, {"99", 25}, {"99.975", 10}} {
		if r, _ := new(big.Rat).SetString(tier.below); up.Cmp(r) < 0 {
			c.tier = tier.pct
			break
		}
	}
	// The fee, one GPU at 25.00 an hour, in fen; the voucher the tier's
	// percent of it, truncated to the fen (the text does not say how a
	// voucher is rounded: a half fen or more is never asked for).
	fen := big.NewRat(int64(until.Sub(served)/time.Second)*2500, 3600)
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
