package report

import (
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/terms"
)

// procedureOf is the terms' claim procedure for the report; nil when they
// state none of it beyond the default answer to a breach without credit.
func procedureOf(tm *terms.Terms) *ClaimProcedure {
	pr := tm.Claim.Procedure
	out := &ClaimProcedure{Channel: string(pr.Channel), Address: pr.Address, Subject: pr.Subject,
		OpensAfterWorkingDays: pr.OpensAfterWorkingDays, WithoutCredit: string(pr.WithoutCredit)}
	for _, it := range pr.Include {
		out.Include = append(out.Include, string(it))
	}
	if out.Channel == "" && out.Subject == "" && len(out.Include) == 0 && out.OpensAfterWorkingDays == 0 &&
		pr.WithoutCredit != terms.NoLetter {
		return nil
	}
	return out
}

// approximationsOf lists the terms' approximations for the report.
func approximationsOf(tm *terms.Terms) []Approximation {
	var out []Approximation
	for _, a := range tm.Approximations {
		out = append(out, Approximation{Clause: a.Clause, Terms: a.Terms, Why: a.Why, Direction: string(a.Direction),
			PerRunSeconds: secs(a.PerRun), PerMonthSeconds: secs(a.PerMonth), Bound: a.Bound})
	}
	return out
}

// breach reports whether the node's month breached the contract: uptime
// below target, a penalty or a downtime credit earned, a ticket target
// missed, or a delivery late in the month it was ordered — whether or not
// the contract pays for it.
func breach(nr *Node) bool {
	if (nr.Uptime.NotJudged == "" && !nr.Uptime.Met) || len(nr.Credit.Penalties) > 0 || len(nr.Credit.DowntimeCredits) > 0 {
		return true
	}
	for _, t := range nr.Tickets {
		if t.Breached {
			return true
		}
	}
	return nr.Delivery.Status == "breached" && nr.Delivery.InMonth
}

// letterOf is what contract c's claim letter is this month: a request when
// a credit is owed; for a breach that earns none, a notice of breach or,
// where the renter chose so, none; none without a breach.
func letterOf(tm *terms.Terms, c *Contract, nodes []Node) string {
	if c.Claim > 0 {
		return LetterRequest
	}
	for i := range nodes {
		if nodes[i].Contract == c.Contract && nodes[i].Breach {
			if tm.Claim.Procedure.WithoutCredit == terms.NoLetter {
				return LetterNone
			}
			return LetterNotice
		}
	}
	return LetterNone
}

// approximate bounds the node's month by the contract's approximations in
// downtime: the most its counted downtime may differ from the provider's
// (each approximation's per-run bound times the month's counted runs, plus
// its per-month bound), the uptime that allows each way the
// approximations may err, and whether the tier could differ. Nil when no
// approximation is bounded in downtime or the node has no figure.
func approximate(tm *terms.Terms, books account.Books, u Uptime) *Approximate {
	if u.NotJudged != "" {
		return nil
	}
	var under, over time.Duration
	runs := len(books.ClaimableRuns)
	for _, a := range tm.Approximations {
		d := a.MaxDowntime(runs)
		switch a.Direction {
		case terms.Under:
			under += d
		case terms.Over:
			over += d
		default:
			under, over = under+d, over+d
		}
	}
	if under == 0 && over == 0 {
		return nil
	}
	excl := time.Duration(0)
	if account.WindowExcused(tm) {
		excl = books.Excluded.Total()
	}
	at := func(extra time.Duration) float64 {
		return account.Uptime(books.Denominator, excl, max(books.ClaimableDowntime+extra, 0))
	}
	low, high := at(under), at(-over)
	tierAt := func(up float64) float64 {
		if up >= tm.Uptime.Target {
			return 0
		}
		t, _ := tm.Uptime.TierFor(up)
		return t.Credit
	}
	mid := tierAt(books.UptimeClaimed)
	return &Approximate{MaxDowntimeSeconds: secs(max(under, over)), UptimeLowPercent: round4(low), UptimeHighPercent: round4(high),
		TierMayDiffer: tierAt(low) != mid || tierAt(high) != mid}
}
