package report

import (
	"github.com/gpusla/gpusla/sla/account"
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
			billed, amount := account.Charge(tm, price, n.reg.Hardware.GPUCount, bstart, m.end)
			bill.From, bill.To, bill.BilledSeconds, bill.Charge = ts(bstart, tm), ts(m.end, tm), secs(billed), amount
		}
	}
	bill.UsableSeconds = nr.Period.Seconds - nr.Uptime.ClaimableOutageSeconds
	nr.Billing = bill

	dcs := account.DowntimeCredits(tm, books, outs, n.reg.Hardware.GPUCount, price)
	cr := account.CreditFor(tm, books.UptimeClaimed, bill.Charge, penalties, account.DowntimeTotal(dcs))
	nr.Credit = Credit{TierPercent: cr.TierPercent, Penalties: []Penalty{}, DowntimeCredits: []DowntimeCredit{},
		DowntimeAmount: cr.Downtime, UncappedPercent: cr.Uncapped, CapPercent: cr.Cap, Capped: cr.Capped,
		Percent: cr.Percent, Amount: cr.Amount}
	for _, c := range dcs {
		r := tm.Credits.Rules[c.Rule]
		kinds := make([]string, len(r.Kinds))
		for i, k := range r.Kinds {
			kinds[i] = string(k)
		}
		nr.Credit.DowntimeCredits = append(nr.Credit.DowntimeCredits, DowntimeCredit{Rule: c.Rule, Kinds: kinds,
			Start: ts(c.Span.Start, tm), End: ts(c.Span.End, tm), DowntimeSeconds: secs(c.Downtime),
			CreditedSeconds: secs(c.Credited), RoundUpSeconds: secs(r.RoundUp), MonthCapped: c.MonthCapped,
			Per: string(r.Per), GPUs: c.GPUs, Multiple: c.Multiple, HourlyRate: c.Rate, CreditHours: float64(int64(c.CreditHours*1e6+0.5)) / 1e6, Amount: c.Amount})
	}
	if cr.Tier != nil {
		nr.Credit.Tier = &Tier{MinPercent: cr.Tier.Min, MaxPercent: cr.Tier.Max, CreditPercent: cr.Tier.Credit}
	}
	for _, p := range cr.Penalties {
		nr.Credit.Penalties = append(nr.Credit.Penalties, Penalty{Kind: p.Kind, Ref: p.Ref, Percent: p.Percent, Reason: p.Reason.String(), Text: p.Reason})
	}
}
