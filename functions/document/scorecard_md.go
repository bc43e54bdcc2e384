package document

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/scorecard"
)

// ScorecardMarkdown writes the scorecard for people, in English
// (`gpusla scorecard --format md`).
func ScorecardMarkdown(w io.Writer, sc *scorecard.Scorecard) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Provider scorecard %s to %s\n\nAs of %s; %d events read. Each cell: rank among the providers with enough observations on at least %d machines (1 = best; a provider's rank is 1 + the providers better than it by more than the figure's minimum meaningful difference, so figures within noise tie), the measured figure, and n, the observations it rests on. ≥ marks a figure that cases unfinished at the as-of instant (counted at their time so far) can only raise, ≤ one they can only lower. No single score.\n\n", sc.From, sc.To, sc.AsOf, sc.Events, scorecard.MinMachines)
	for _, w := range sc.Warnings {
		fmt.Fprintf(&b, "> **Warning:** %s.\n\n", mdText(w))
	}
	b.WriteString("## Comparison\n\n| provider |")
	for _, c := range sc.Table.Columns {
		fmt.Fprintf(&b, " %s: %s (%s better) |", mdInline(c.Dimension), mdInline(c.Title), mdInline(string(c.Better)))
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(sc.Table.Columns)) + "\n")
	for _, r := range sc.Table.Rows {
		fmt.Fprintf(&b, "| %s |", mdInline(r.Provider))
		for _, c := range r.Cells {
			fmt.Fprintf(&b, " %s |", i18n.PlainCell(c))
		}
		b.WriteString("\n")
	}
	for _, p := range sc.Providers {
		ex := p.All.Exposure
		fmt.Fprintf(&b, "\n## %s\n\nContracts %s; %d nodes, %d GPUs; %d machines in service for %.2f node-months (%.2f GPU-months) in %s.\n\n",
			mdInline(p.Provider), mdInline(strings.Join(p.Contracts, ", ")), p.Nodes, p.GPUs, ex.Machines, ex.NodeMonths, ex.GPUMonths, monthsText(ex.Months))
		scorecardDimTable(&b, &p.All)
		for _, m := range p.Models {
			fmt.Fprintf(&b, "\n### %s × %s (%d nodes, %d GPUs)\n\n", mdInline(p.Provider), mdInline(m.GPUModel), m.Nodes, m.GPUs)
			scorecardDimTable(&b, &m.Card)
		}
		if len(p.All.Hardware.Reasons) > 0 {
			b.WriteString("\nAcceptance failures by check: ")
			var rs []string
			for _, r := range p.All.Hardware.Reasons {
				rs = append(rs, fmt.Sprintf("%s (%s) %d nodes", mdInline(r.Check), mdInline(r.Category), r.Nodes))
			}
			b.WriteString(strings.Join(rs, "; ") + ".\n")
		}
		if p.Claims != nil {
			recoveryMarkdown(&b, p.Claims)
		}
		if len(p.TooFew) > 0 {
			fmt.Fprintf(&b, "\nNot ranked for too few observations: %s.\n", mdInline(strings.Join(p.TooFew, ", ")))
		}
	}
	FleetMarkdown(&b, sc.Fleet)
	_, err := io.WriteString(w, b.String())
	return err
}

// recoveryMarkdown is what a provider's claims recovered: a row per
// quarter and currency, then the months together in bold.
func recoveryMarkdown(b *strings.Builder, c *scorecard.Claims) {
	b.WriteString("\nWhat its claims recovered (the claims ledger; sums per currency, never converted; provider late: claims on which it missed its own deadline to answer or to credit, of those sent):\n\n")
	b.WriteString("| quarter | currency | claimed | granted | received on bills | refused | outstanding | recovered | provider late |\n|---|---|---|---|---|---|---|---|---|\n")
	row := func(r claims.RecoveryRow, bold string) {
		unsent := ""
		if r.Unsent > 0 {
			unsent = fmt.Sprintf(" (%d not sent)", r.Unsent)
		}
		fmt.Fprintf(b, "| %[1]s%[2]s%[1]s | %[3]s | %[4]s | %[5]s | %[6]s | %[7]s | %[1]s%[8]s%[1]s | %[1]s%.1[9]f %%%[1]s | %[10]d of %[11]d%[12]s |\n",
			bold, r.Quarter, r.Currency, r.Claimed, r.Granted, r.Received, r.Refused, r.Outstanding, r.SharePercent, r.Late, r.Sent(), unsent)
	}
	for _, r := range c.Quarters {
		row(r, "")
	}
	for _, r := range c.Total {
		row(r, "**")
	}
}

func scorecardDimTable(b *strings.Builder, d *scorecard.Dimensions) {
	b.WriteString("| figure | value |\n|---|---|\n")
	for _, k := range d.Figures() {
		fmt.Fprintf(b, "| %s | %s |\n", mdInline(k.Key), i18n.PlainCell(*k.Figure))
	}
	fmt.Fprintf(b, "| billing: billed / usable node-hours | %.1f / %.1f |\n", d.Billing.BilledHours, d.Billing.UsableHours)
	for _, pr := range d.Billing.PerUsableGPUHour {
		fmt.Fprintf(b, "| billing: %s per usable GPU-hour | %s; %.2f %s over %.1f usable GPU-hours (%d node-months at the bill's amount) |\n",
			pr.Currency, i18n.PlainCell(pr.PerGPUHour), pr.Amount, pr.Currency, pr.UsableGPUHours, pr.FromBill)
	}
	if d.Delivery.Pending > 0 || d.Support.Unanswered > 0 {
		fmt.Fprintf(b, "| pending deliveries / unanswered tickets | %d / %d |\n", d.Delivery.Pending, d.Support.Unanswered)
	}
	for _, pf := range d.Performance.Figures {
		fmt.Fprintf(b, "| performance: %s %s (%d GPUs) | %.4g %s, fleet median %.4g (%.1f %%)%s |\n", mdInline(pf.GPUModel), mdInline(pf.Figure), pf.GPUs, pf.Median, mdInline(pf.Unit), pf.FleetMedian, 100*pf.Share, yardsticks(pf))
	}
}

// yardsticks is a stress figure against its model's datasheet and
// healthy-card figures, where the spec database has them.
func yardsticks(pf scorecard.PerfFigure) string {
	var s string
	if pf.Datasheet > 0 {
		s += fmt.Sprintf("; datasheet %.4g (%.1f %%)", pf.Datasheet, 100*pf.ShareOfDatasheet)
	}
	if pf.Healthy > 0 {
		s += fmt.Sprintf("; healthy card %.4g (%.1f %%)", pf.Healthy, 100*pf.ShareOfHealthy)
	}
	return s
}

// monthsText names the months a provider's figures cover.
func monthsText(ms []string) string {
	switch len(ms) {
	case 0:
		return "no month"
	case 1:
		return ms[0]
	}
	return strings.Join(ms, ", ")
}
