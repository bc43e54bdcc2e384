package chantext

import (
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

// ReportSummary is the Slack text of a contract's month in lang (the contract's
// report.lang): every sentence from the message catalog (sla/i18n),
// numbers and the claim deadline in the locale's forms.
func ReportSummary(r *report.Report, head string, lang i18n.Lang) string {
	p := i18n.New(lang)
	month := r.Month
	if lang != i18n.EN {
		month = p.Month(r.Month)
	}
	var b strings.Builder
	line := func(key string, args ...any) { b.WriteString(p.T(key, args...) + "\n") }
	for _, c := range r.Contracts {
		line("*SLA report %s — %s (%s)*", month, c.Provider, c.Contract)
		line("Claim: *%s* of %s charged · %d of %d nodes below %s %% · %d tickets breached · file by *%s*",
			p.Money(c.Claim, c.Currency), p.Num(c.Charge, 2), c.NodesBelow, c.Nodes, p.Num(c.UptimeTarget, 2), c.TicketsBreached, p.Stamp(c.ClaimDeadline))
	}
	// A partial report says so in the message itself (report.LeftOut).
	for _, l := range r.LeftOut {
		line(":warning: Partial report: node %s left out, %s", l.Node, p.Text(l.Text))
	}
	var worst []report.Node
	for _, n := range r.Nodes {
		if !n.Uptime.Met || n.Credit.Amount > 0 {
			worst = append(worst, n)
		}
	}
	sort.Slice(worst, func(i, k int) bool { return worst[i].Uptime.ClaimablePercent < worst[k].Uptime.ClaimablePercent })
	for i, n := range worst {
		if i == 10 {
			line("… and %d more nodes", len(worst)-10)
			break
		}
		line("• %s: %s %% claimable uptime, credit %s", n.Node, p.Num(n.Uptime.ClaimablePercent, 4), p.Money(n.Credit.Amount, n.Currency))
	}
	if head != "" {
		line("Evidence bundle chain head: `%s`", head)
	}
	return b.String()
}

// ScorecardLine is the report summary's line pointing at the scorecard
// stored beside the report (name), in lang.
func ScorecardLine(lang i18n.Lang, from, to string, providers int, name string) string {
	p := i18n.New(lang)
	return p.T("Provider scorecard %s to %s (%d providers compared): `%s`", p.Month(from), p.Month(to), providers, name) + "\n"
}

// ClaimReminder is the Slack reminder of a contract's claim deadline, in
// lang (the contract's report.lang): lastDay is the last calendar day to
// file in the contract's zone (YYYY-MM-DD), left the time until the
// deadline (in words, to the hour), prefix where the month's report and
// bundle are.
func ClaimReminder(lang i18n.Lang, c report.Contract, month, lastDay string, left time.Duration, prefix string) string {
	p := i18n.New(lang)
	if lang != i18n.EN {
		month = p.Month(month)
		if d, err := time.Parse("2006-01-02", lastDay); err == nil {
			lastDay = p.Date(d)
		}
	}
	return ":alarm_clock: " + p.T("Claim deadline for *%s* (%s), %s: last day to file *%s* (%s; the claim must be in before %s) — %s left. Claim %s; report and evidence bundle under `%s/`.",
		c.Contract, c.Provider, month, lastDay, c.TimeZone, p.Stamp(c.ClaimDeadline), p.Words(left.Round(time.Hour)), p.Money(c.Claim, c.Currency), prefix)
}
