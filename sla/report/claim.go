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

// acrossMonthEnd is, of the counted runs that cross the service period's
// start or end (the month's: a delivery or a release ends no run), what
// they count outside this month, which the provider may put in it (in),
// and what they count in it, which it may put in the other month (out).
// Tencent CAR, 31 March 23:59:30 to 1 April 00:01:00, 90 s, one minute from
// its start: 30 s in each month, where the provider gives the minute to
// one of them.
func acrossMonthEnd(books account.Books) (in, out time.Duration) {
	for _, r := range books.ClaimableRuns {
		if r.Span.Start.Before(books.Period.Start) || r.Span.End.After(books.Period.End) {
			here := r.InPeriod()
			in, out = in+max(r.Counted-here, 0), out+here
		}
	}
	return in, out
}

// windowClosed is what the month counts of the runs whose claim window,
// running from the incident (raw: the outages as they happened), closed by
// the month's end (claim.from: incident): the letter is written once the
// month is over, too late for them. Alibaba, 30 days: a run from 1 March
// 00:10 was to be claimed before 31 March 00:10.
func windowClosed(tm *terms.Terms, books account.Books, raw []account.Outage, monthEnd time.Time) time.Duration {
	var d time.Duration
	if !tm.Claim.FromIncident {
		return 0
	}
	for _, r := range books.ClaimableRuns {
		if !tm.Claim.DeadlineFrom(monthEnd, tm.Calendar.Loc, runIncident(r, raw)).After(monthEnd) {
			d += r.InPeriod()
		}
	}
	return d
}

// runIncident is when the incident of a counted run began (incidentAt its
// first counted instant in the month).
func runIncident(r account.Run, raw []account.Outage) time.Time {
	at := r.Whole.Start
	if len(r.Kept) > 0 {
		at = r.Kept[0].Start
	}
	return incidentAt(at, raw)
}

// incidentClaims lists the month's counted incidents with their own claim
// deadlines where the window runs from the incident in days (Alibaba: "Submit
// within 30 days of incident"; a window in billing cycles ends after the
// month, in time for its letter). A run still going at asOf is ongoing.
func incidentClaims(tm *terms.Terms, books account.Books, raw []account.Outage, asOf time.Time) []IncidentClaim {
	if !tm.Claim.FromIncident || tm.Claim.BillingCycles > 0 || tm.Claim.WindowDays <= 0 {
		return nil
	}
	var out []IncidentClaim
	for _, r := range books.ClaimableRuns {
		if r.InPeriod() <= 0 {
			continue
		}
		s := runIncident(r, raw)
		out = append(out, IncidentClaim{Start: ts(s, tm), End: ts(r.Span.End, tm), CountedSeconds: secs(r.InPeriod()),
			Deadline: ts(tm.Claim.DeadlineFrom(time.Time{}, tm.Calendar.Loc, s), tm), Ongoing: !r.Span.End.Before(asOf)})
	}
	return out
}

// claimFrom is the incident the node's claim is due from, where the window
// runs from the incidents: the month's first counted one; but where its
// window, and maybe others', closed by the month's end (before the month's
// letter can be written) and the month's tier holds without their
// downtime, the first still open, as the claim stands on those alone
// (Alibaba, 30 days: 5 min from 1 March 00:10 and 12 on the 20th are 10 %
// on the 12 alone, due 30 days after the 20th, not on 31 March; 12 min then
// and 5 on the 20th rest on the closed one: due 31 March, expired).
func claimFrom(tm *terms.Terms, books account.Books, raw []account.Outage, monthEnd time.Time) time.Time {
	first := incidentStart(books, raw)
	closed := windowClosed(tm, books, raw, monthEnd)
	if closed == 0 || tm.Claim.BillingCycles > 0 {
		return first
	}
	excl := time.Duration(0)
	if account.WindowExcused(tm) {
		excl = books.Excluded.Total()
	}
	if tierOf(tm, account.Uptime(books.Denominator, excl, books.ClaimableDowntime-closed)) != tierOf(tm, books.UptimeClaimed) {
		return first
	}
	var open time.Time
	for _, r := range books.ClaimableRuns {
		if s := runIncident(r, raw); r.InPeriod() > 0 && tm.Claim.DeadlineFrom(monthEnd, tm.Calendar.Loc, s).After(monthEnd) && (open.IsZero() || s.Before(open)) {
			open = s
		}
	}
	if open.IsZero() {
		return first
	}
	return open
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
func approximate(tm *terms.Terms, books account.Books, raw []account.Outage, u Uptime, monthEnd time.Time) *Approximate {
	if u.NotJudged != "" {
		return nil
	}
	var under, over time.Duration
	runs := len(books.ClaimableRuns)
	in, out := acrossMonthEnd(books)
	closed := windowClosed(tm, books, raw, monthEnd)
	for _, a := range tm.Approximations {
		d, dIn, dOut := a.MaxDowntime(runs), time.Duration(0), time.Duration(0)
		if a.AcrossMonthEnd {
			dIn, dOut = in, out
		}
		if a.ClaimWindow {
			dOut += closed
		}
		switch a.Direction {
		case terms.Under:
			under += d + dIn
		case terms.Over:
			over += d + dOut
		default:
			under, over = under+d+dIn, over+d+dOut
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
	mid := tierOf(tm, books.UptimeClaimed)
	return &Approximate{MaxDowntimeSeconds: secs(max(under, over)), UptimeLowPercent: round4(low), UptimeHighPercent: round4(high),
		TierMayDiffer: tierOf(tm, low) != mid || tierOf(tm, high) != mid}
}

// tierOf is the credit percent the uptime earns: none at or above target.
func tierOf(tm *terms.Terms, up float64) float64 {
	if up >= tm.Uptime.Target {
		return 0
	}
	t, _ := tm.Uptime.TierFor(up)
	return t.Credit
}
