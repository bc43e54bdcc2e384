package scorecard

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gpusla/gpusla/sla/baseline"
)

// JSON writes the scorecard as indented JSON (docs/scorecard.md).
func JSON(w io.Writer, sc *Scorecard) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sc)
}

// Value renders a figure's value in its unit: shares as percent.
func Value(f Figure) string {
	if f.Value == nil {
		return "–"
	}
	v := *f.Value
	switch f.Unit {
	case "share":
		if v != 0 && 100*v < 1 {
			return fmt.Sprintf("%.2f %%", 100*v) // a small share is not 0.0 %
		}
		return fmt.Sprintf("%.1f %%", 100*v)
	case "h":
		return fmt.Sprintf("%.2f h", v)
	case "min":
		return fmt.Sprintf("%.1f min", v)
	case "ms":
		return fmt.Sprintf("%.2f ms", v)
	case "%":
		return fmt.Sprintf("%.2f %%", v)
	}
	return fmt.Sprintf("%.4g %s", v, f.Unit)
}

// Cell is a figure with its rank and observations, as the tables show it.
func Cell(f Figure) string {
	switch {
	case f.Value == nil:
		return fmt.Sprintf("– (n=%d)", f.N)
	case f.TooFew:
		return fmt.Sprintf("%s (too few: n=%d < %d)", Value(f), f.N, f.MinN)
	}
	return fmt.Sprintf("**#%d**/%d %s (n=%d)", f.Rank, f.Ranked, Value(f), f.N)
}

// Markdown writes the scorecard for people.
func Markdown(w io.Writer, sc *Scorecard) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Provider scorecard %s to %s\n\nAs of %s; %d events read. Each cell: rank among the providers with enough observations (1 = best), the measured figure, and n, the observations it rests on. No single score.\n\n", sc.From, sc.To, sc.AsOf, sc.Events)
	b.WriteString("## Comparison\n\n| provider |")
	for _, c := range sc.Table.Columns {
		fmt.Fprintf(&b, " %s: %s (%s better) |", c.Dimension, c.Title, c.Better)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(sc.Table.Columns)) + "\n")
	for _, r := range sc.Table.Rows {
		fmt.Fprintf(&b, "| %s |", esc(r.Provider))
		for _, c := range r.Cells {
			fmt.Fprintf(&b, " %s |", Cell(c))
		}
		b.WriteString("\n")
	}
	for _, p := range sc.Providers {
		fmt.Fprintf(&b, "\n## %s\n\nContracts %s; %d nodes, %d GPUs; %.2f node-months (%.2f GPU-months) in service.\n\n",
			esc(p.Provider), strings.Join(p.Contracts, ", "), p.Nodes, p.GPUs, p.All.Exposure.NodeMonths, p.All.Exposure.GPUMonths)
		dimTable(&b, "all nodes", &p.All)
		for _, m := range p.Models {
			fmt.Fprintf(&b, "\n### %s × %s (%d nodes, %d GPUs)\n\n", esc(p.Provider), esc(m.GPUModel), m.Nodes, m.GPUs)
			dimTable(&b, m.GPUModel, &m.Card)
		}
		if len(p.All.Hardware.Reasons) > 0 {
			b.WriteString("\nAcceptance failures by check: ")
			var rs []string
			for _, r := range p.All.Hardware.Reasons {
				rs = append(rs, fmt.Sprintf("%s (%s) %d nodes", r.Check, r.Category, r.Nodes))
			}
			b.WriteString(strings.Join(rs, "; ") + ".\n")
		}
		if len(p.TooFew) > 0 {
			fmt.Fprintf(&b, "\nNot ranked for too few observations: %s.\n", strings.Join(p.TooFew, ", "))
		}
	}
	baseline.Markdown(&b, sc.Fleet)
	_, err := io.WriteString(w, b.String())
	return err
}

func dimTable(b *strings.Builder, _ string, d *Dimensions) {
	b.WriteString("| figure | value |\n|---|---|\n")
	for _, k := range figures(d) {
		fmt.Fprintf(b, "| %s | %s |\n", k.key, Cell(*k.f))
	}
	fmt.Fprintf(b, "| billing: billed / usable node-hours | %.1f / %.1f |\n", d.Billing.BilledHours, d.Billing.UsableHours)
	if d.Delivery.Pending > 0 || d.Support.Unanswered > 0 {
		fmt.Fprintf(b, "| pending deliveries / unanswered tickets | %d / %d |\n", d.Delivery.Pending, d.Support.Unanswered)
	}
	for _, pf := range d.Performance.Figures {
		fmt.Fprintf(b, "| performance: %s %s (%d GPUs) | %.4g %s, fleet median %.4g (%.1f %%) |\n", pf.GPUModel, pf.Figure, pf.GPUs, pf.Median, pf.Unit, pf.FleetMedian, 100*pf.Share)
	}
}

// esc keeps a provider's name from breaking a Markdown table.
func esc(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
