package report

// Lines is how many amounts, each truncated to the cent on its own
// (sla/account.MoneyDown), the credit sums: one when the cap bounds them,
// else the month's percentage of the charge (tier and penalties together)
// and each downtime credit. A provider that rounds each to the nearest
// cent instead pays up to a cent a line more: the claims ledger's rounding
// allowance. 0 for no credit.
func (c Credit) Lines() int {
	if c.Amount <= 0 {
		return 0
	}
	if c.Capped {
		return 1
	}
	n := 0
	if c.Amount-c.DowntimeAmount >= 0.005 {
		n++
	}
	for _, d := range c.DowntimeCredits {
		if d.Amount > 0 {
			n++
		}
	}
	return max(n, 1)
}
