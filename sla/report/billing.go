package report

import (
	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/terms"
)

// billing charges the node for the month (from order or delivery, as the
// contract says, to the end of its service) and computes the credit the
// claimable uptime and the penalties earn on that charge.
func (m nodeMonth) billing(books account.Books, penalties []account.Penalty, nr *Node) {
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

	cr := account.CreditFor(tm, books.UptimeClaimed, bill.Charge, penalties)
	nr.Credit = Credit{TierPercent: cr.TierPercent, Penalties: []Penalty{}, UncappedPercent: cr.Uncapped,
		CapPercent: cr.Cap, Capped: cr.Capped, Percent: cr.Percent, Amount: cr.Amount}
	if cr.Tier != nil {
		nr.Credit.Tier = &Tier{MinPercent: cr.Tier.Min, MaxPercent: cr.Tier.Max, CreditPercent: cr.Tier.Credit}
	}
	for _, p := range cr.Penalties {
		nr.Credit.Penalties = append(nr.Credit.Penalties, Penalty{Kind: p.Kind, Ref: p.Ref, Percent: p.Percent, Reason: p.Reason.String(), Text: p.Reason})
	}
}
