package document

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/scorecard"
)

// ScorecardMarkdown writes the scorecard for people, in English
// (`gpusla scorecard --format md`).
func ScorecardMarkdown(w io.Writer, sc *scorecard.Scorecard) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Provider scorecard %s to %s\n\nAs of %s; %d events read. Each cell: rank among the providers with enough observations (1 = best), the measured figure, and n, the observations it rests on. No single score.\n\n", sc.From, sc.To, sc.AsOf, sc.Events)
	b.WriteString("## Comparison\n\n| provider |")
	for _, c := range sc.Table.Columns {
		fmt.Fprintf(&b, " %s: %s (%s better) |", mdText(c.Dimension), mdText(c.Title), mdText(string(c.Better)))
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(sc.Table.Columns)) + "\n")
	for _, r := range sc.Table.Rows {
		fmt.Fprintf(&b, "| %s |", mdText(r.Provider))
		for _, c := range r.Cells {
			fmt.Fprintf(&b, " %s |", i18n.PlainCell(c))
		}
		b.WriteString("\n")
	}
	for _, p := range sc.Providers {
		fmt.Fprintf(&b, "\n## %s\n\nContracts %s; %d nodes, %d GPUs; %.2f node-months (%.2f GPU-months) in service.\n\n",
			mdText(p.Provider), mdText(strings.Join(p.Contracts, ", ")), p.Nodes, p.GPUs, p.All.Exposure.NodeMonths, p.All.Exposure.GPUMonths)
		scorecardDimTable(&b, &p.All)
		for _, m := range p.Models {
			fmt.Fprintf(&b, "\n### %s × %s (%d nodes, %d GPUs)\n\n", mdText(p.Provider), mdText(m.GPUModel), m.Nodes, m.GPUs)
			scorecardDimTable(&b, &m.Card)
		}
		if len(p.All.Hardware.Reasons) > 0 {
			b.WriteString("\nAcceptance failures by check: ")
			var rs []string
			for _, r := range p.All.Hardware.Reasons {
				rs = append(rs, fmt.Sprintf("%s (%s) %d nodes", mdText(r.Check), mdText(r.Category), r.Nodes))
			}
			b.WriteString(strings.Join(rs, "; ") + ".\n")
		}
		if len(p.TooFew) > 0 {
			fmt.Fprintf(&b, "\nNot ranked for too few observations: %s.\n", mdText(strings.Join(p.TooFew, ", ")))
		}
	}
	FleetMarkdown(&b, sc.Fleet)
	_, err := io.WriteString(w, b.String())
	return err
}

func scorecardDimTable(b *strings.Builder, d *scorecard.Dimensions) {
	b.WriteString("| figure | value |\n|---|---|\n")
	for _, k := range d.Figures() {
		fmt.Fprintf(b, "| %s | %s |\n", mdText(k.Key), i18n.PlainCell(*k.Figure))
	}
	fmt.Fprintf(b, "| billing: billed / usable node-hours | %.1f / %.1f |\n", d.Billing.BilledHours, d.Billing.UsableHours)
	if d.Delivery.Pending > 0 || d.Support.Unanswered > 0 {
		fmt.Fprintf(b, "| pending deliveries / unanswered tickets | %d / %d |\n", d.Delivery.Pending, d.Support.Unanswered)
	}
	for _, pf := range d.Performance.Figures {
		fmt.Fprintf(b, "| performance: %s %s (%d GPUs) | %.4g %s, fleet median %.4g (%.1f %%) |\n", mdText(pf.GPUModel), mdText(pf.Figure), pf.GPUs, pf.Median, mdText(pf.Unit), pf.FleetMedian, 100*pf.Share)
	}
}
