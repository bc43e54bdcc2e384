package report

import (
	"math"
	"slices"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/terms"
)

// billing charges the node for the month (from order or delivery, as the
// contract says, to the end of its service) and computes the credit the
// claimable uptime and the penalties earn on that charge.
func (m nodeMonth) billing(books account.Books, outs []account.Outage, penalties []account.Penalty, nr *Node) {
	n, tm := m.n, m.tm
	price := tm.Billing.PricePerGPUHour
	if n.reg.PricePerGPUHour != nil {
		price = *n.reg.PricePerGPUHour
	}
	bstart := n.reg.OrderedAt
	if tm.Billing.StartsAt == terms.FromDelivery {
		bstart = m.delivered
	}
	bill := Billing{PricePerGPUHour: price, GPUs: n.reg.Hardware.GPUCount, GranularitySeconds: secs(tm.Billing.Granularity)}
	if !bstart.IsZero() {
		if bstart.Before(m.ms) {
			bstart = m.ms
		}
		if m.end.After(bstart) {
			span := interval.Interval{Start: bstart, End: m.end}
			off := unchargedRows(&bill, account.UnchargedHours(tm, books.Claimable), span, tm)
			billed, amount := account.Charge(tm, price, n.reg.Hardware.GPUCount, bstart, m.end, off)
			bill.From, bill.To, bill.BilledSeconds, bill.Charge = ts(bstart, tm), ts(m.end, tm), secs(billed), amount
		}
	}
	bill.UsableSeconds = nr.Period.Seconds - nr.Uptime.ClaimableOutageSeconds
	nr.Billing = bill

	// The credit is a share of what is actually charged (after any clock
	// hours the contract does not charge).
	dcs := account.DowntimeCredits(tm, books, outs, n.reg.Hardware.GPUCount, price, bill.Charge)
	cr := account.CreditFor(tm, books.UptimeClaimed, bill.Charge, penalties, account.DowntimeTotal(dcs))
	nr.Credit = Credit{TierPercent: cr.TierPercent, Penalties: []Penalty{}, DowntimeCredits: []DowntimeCredit{},
		DowntimeAmount: cr.Downtime, UncappedPercent: cr.Uncapped, Capped: cr.Capped,
		Percent: cr.Percent, Amount: cr.Amount, BelowMinimum: cr.Waived}
	if math.IsInf(cr.Cap, 1) {
		nr.Credit.NoCap = true
	} else {
		nr.Credit.CapPercent = cr.Cap
	}
	for _, c := range dcs {
		r := tm.Credits.Rules[c.Rule]
		kinds := make([]string, len(r.Kinds))
		for i, k := range r.Kinds {
			kinds[i] = string(k)
		}
		nr.Credit.DowntimeCredits = append(nr.Credit.DowntimeCredits, DowntimeCredit{Rule: c.Rule, Kinds: kinds,
			Start: ts(c.Span.Start, tm), End: ts(c.Span.End, tm), DowntimeSeconds: secs(c.Downtime),
			CreditedSeconds: secs(c.Credited), RoundUpSeconds: secs(r.RoundUp), MonthCapped: c.MonthCapped, IncidentCapped: c.IncidentCapped,
			Per: string(r.Per), GPUs: c.GPUs, Multiple: c.Multiple, HourlyRate: c.Rate, CreditHours: float64(int64(c.CreditHours*1e6+0.5)) / 1e6, Amount: c.Amount})
	}
	nr.Credit.Truncated = cr.Amount > 0 && (cr.Truncated || !cr.Capped && slices.ContainsFunc(dcs, func(c account.DowntimeCredit) bool { return c.Truncated && c.Amount > 0 }))
	if cr.Tier != nil {
		nr.Credit.Tier = &Tier{MinPercent: cr.Tier.Min, MaxPercent: cr.Tier.Max, CreditPercent: cr.Tier.Credit}
	}
	for _, p := range cr.Penalties {
		nr.Credit.Penalties = append(nr.Credit.Penalties, Penalty{Kind: p.Kind, Ref: p.Ref, Percent: p.Percent, Reason: p.Reason.String(), Text: p.Reason})
	}
}

// unchargedRows lists on bill the clock hours the contract does not charge
// (billing.clock_hour_rule) inside the billed span, and returns them
// clipped to it: the part of each hour that would otherwise be billed.
func unchargedRows(bill *Billing, hours []account.UnchargedHour, span interval.Interval, tm *terms.Terms) interval.Set {
	var off interval.Set
	for _, h := range hours {
		clip := interval.Set{h.Hour}.Clip(span)
		if len(clip) == 0 {
			continue
		}
		off = append(off, clip...)
		bill.UnchargedHours = append(bill.UnchargedHours, UnchargedHour{Start: ts(h.Hour.Start, tm), End: ts(h.Hour.End, tm),
			UnavailableSeconds: secs(h.Unavailable), UnchargedSeconds: secs(clip.Total())})
		bill.UnchargedSeconds += secs(clip.Total())
	}
	if len(hours) > 0 || tm.Billing.ClockHourOver > 0 {
		bill.ClockHourRuleSeconds = secs(tm.Billing.ClockHourOver)
	}
	return off
}
