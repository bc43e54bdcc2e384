package report

import (
	"testing"
	"time"
)

// A renter's first month under cn-example (Beijing time; 18.50 CNY a GPU-hour
// billed from the order in whole hours rounded up; delivery within 30 min, 5 %
// of the month's charge per started hour late). gz-01, 8 GPUs, is ordered on
// 20 March 10:17 and sends its first heartbeat at 11:00: 43 min, 13 min late,
// one started hour, 5 %. Worked by hand:
//
//   - as of 25 March 12:00: billed 10:17 → 12:00 five days later, 121 h 43 min,
//     122 h; 18.50 × 8 × 122 = 18,056.00; 5 % = 902.80. The month is not over:
//     provisional, no letter; in service 11:00 → 12:00, 121 h.
//   - as of 1 April 06:00 Beijing (31 March 22:00 UTC, when serve writes the
//     month): billed to 1 April 00:00, 277 h 43 min, 278 h; 41,144.00; 5 % =
//     2,057.20, due by 30 April (deadline 1 May 00:00 Beijing). In service
//     from the delivery, 277 h. The Beijing month is over although the UTC
//     month is not: final, with its letter.
//   - as of 31 March 23:59:59 Beijing: still provisional.
func TestFirstMonthProvisionalThenFinal(t *testing.T) {
	build := func(l *log) {
		l.Register("gz-01", "cn-example", local(shanghai, "2026-03-20 10:17"), 8)
		l.Heartbeats("gz-01", local(shanghai, "2026-03-20 11:00"), local(shanghai, "2026-04-01 07:00"))
	}
	for _, c := range []struct {
		asOf              time.Time
		provisional       bool
		billed, inService int64
		charge, amount    float64
		letter            string
	}{
		{local(shanghai, "2026-03-25 12:00"), true, 122 * 3600, 121 * 3600, 18056, 902.80, LetterNone},
		{local(shanghai, "2026-03-31 23:59").Add(59 * time.Second), true, 278 * 3600, 0, 41144, 2057.20, LetterNone},
		{local(shanghai, "2026-04-01 00:00"), false, 278 * 3600, 277 * 3600, 41144, 2057.20, LetterRequest},
		{local(shanghai, "2026-04-01 06:00"), false, 278 * 3600, 277 * 3600, 41144, 2057.20, LetterRequest},
	} {
		r := run(t, scenario{name: "first-month", month: time.March, asOf: c.asOf, build: build}, cnTerms(t, ""), true)
		what := c.asOf.In(shanghai).Format("2 Jan 15:04:05")
		eq(t, what+": report provisional", r.Provisional, c.provisional)
		if len(r.Contracts) != 1 {
			t.Fatalf("%s: contracts %+v", what, r.Contracts)
		}
		eq(t, what+": contract provisional", r.Contracts[0].Provisional, c.provisional)
		eq(t, what+": letter", r.Contracts[0].Letter, c.letter)
		eq(t, what+": claim", r.Contracts[0].Claim, c.amount)
		eq(t, what+": claim deadline", r.Contracts[0].ClaimDeadline, "2026-05-01T00:00:00+08:00")
		n := node(t, r, "gz-01")
		eq(t, what+": billed from the order", n.Billing.From, "2026-03-20T10:17:00+08:00")
		eq(t, what+": billed seconds", n.Billing.BilledSeconds, c.billed)
		eq(t, what+": charge", n.Billing.Charge, c.charge)
		eq(t, what+": credit", n.Credit.Amount, c.amount)
		eq(t, what+": in service from the delivery", n.Period.Start, "2026-03-20T11:00:00+08:00")
		if c.inService != 0 {
			eq(t, what+": in-service seconds", n.Period.Seconds, c.inService)
		}
		eq(t, what+": delivery late", n.Delivery.LateSeconds, int64(13*60))
	}
}

// A node whose probe was heard before the order its registration gives
// (registered after its first heartbeats): heartbeats from 08:00 with a
// silence 08:11–08:50, ordered at 09:00. Nothing is delivered before it is
// ordered: in service from 09:00 (to 1 April 00:00: 519 h), the silence
// before the order is no outage, uptime 100 %, no credit — where counting
// it from 08:00 claimed 10 % (7,681.20) for a node not yet ordered. A
// silence after the order still counts: 09:11–09:50 is 39 min of 519 h,
// 99.8748 %, 10 % of 519 h × 8 × 18.50 = 76,812.00: 7,681.20.
func TestHeardBeforeTheOrder(t *testing.T) {
	for _, c := range []struct {
		gap    string
		amount float64
	}{{"08", 0}, {"09", 7681.20}} {
		build := func(l *log) {
			l.Heartbeats("gz-05", local(shanghai, "2026-03-10 08:00"), local(shanghai, "2026-04-01 07:00"),
				local(shanghai, "2026-03-10 "+c.gap+":10"), local(shanghai, "2026-03-10 "+c.gap+":50"))
			l.Register("gz-05", "cn-example", local(shanghai, "2026-03-10 09:00"), 8)
		}
		r := run(t, scenario{name: "heard-before-order", month: time.March, asOf: local(shanghai, "2026-04-01 06:00"), build: build}, cnTerms(t, ""), true)
		n := node(t, r, "gz-05")
		eq(t, c.gap+": delivered", n.Delivery.DeliveredAt, "2026-03-10T09:00:00+08:00")
		eq(t, c.gap+": in service from", n.Period.Start, "2026-03-10T09:00:00+08:00")
		eq(t, c.gap+": in-service seconds", n.Period.Seconds, int64(519*3600))
		eq(t, c.gap+": charge", n.Billing.Charge, 76812.0)
		eq(t, c.gap+": credit", n.Credit.Amount, c.amount)
	}
}
