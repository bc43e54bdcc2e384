package document

import (
	"fmt"
	"strings"

	"github.com/gpusla/gpusla/sla/baseline"
)

// FleetMarkdown writes the fleet baselines (sla/baseline), the nodes slower than their
// siblings and the sustained drops; for the monthly report and the scorecard alike.
func FleetMarkdown(b *strings.Builder, r baseline.Result) {
	if len(r.Dists) == 0 {
		return
	}
	b.WriteString("\n## Fleet baselines\n\nEach GPU's median over the window, the whole fleet. A node is never judged against itself: its runs are held against the other nodes of its model (below their p10 and 5 % under their median) and each GPU's against the other GPUs of its node (5 % under their median); three runs in a row below is slower than its siblings. Models with fewer nodes than the minimum are judged by the static threshold only.\n\n| GPU model | figure | nodes | GPUs | runs | p10 | p50 | p90 | threshold |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, d := range r.Dists {
		th := fmt.Sprintf("%.4g", d.Threshold)
		if d.StaticOnly {
			th = "static only (too few nodes)"
		}
		fmt.Fprintf(b, "| %s | %s (%s) | %d | %d | %d | %.4g | %.4g | %.4g | %s |\n", mdInline(d.Model), mdInline(d.Figure), mdInline(d.Unit), d.Nodes, d.GPUs, d.Runs, d.P10, d.P50, d.P90, th)
	}
	if len(r.Findings) > 0 {
		b.WriteString("\n### Slower than its siblings\n\n")
		for _, f := range r.Findings {
			end := "still slow at its last run"
			if !f.End.IsZero() {
				end = "back from " + f.End.Format("2006-01-02 15:04Z")
			}
			fmt.Fprintf(b, "- **%s** from %s (%s): %s\n", mdInline(f.Node), f.Start.Format("2006-01-02 15:04Z"), end, mdInline(f.Evidence()))
		}
	}
	var drops []baseline.Drift
	for _, d := range r.Drift {
		if d.Dropped {
			drops = append(drops, d)
		}
	}
	if len(r.Drift) > 0 {
		fmt.Fprintf(b, "\n### Drift\n\n%d node figures followed day by day; %d with a sustained drop (3 days in a row 5 %% or more below the node's first days).\n", len(r.Drift), len(drops))
		for _, d := range drops {
			until := "to the end of the series"
			if d.Until != "" {
				until = "until " + mdInline(d.Until)
			}
			fmt.Fprintf(b, "\n- **%s** %s: down from %.4g %s since %s (%s), worst %.1f %% below: %s\n", mdInline(d.Node), mdInline(d.Figure), d.Baseline, mdInline(d.Unit), mdInline(d.Since), until, d.WorstPct, Sparkline(d.Days))
		}
	}
}

// Sparkline draws a day series in block characters, lowest to highest.
func Sparkline(days []baseline.Day) string {
	if len(days) == 0 {
		return ""
	}
	lo, hi := days[0].Value, days[0].Value
	for _, d := range days {
		lo, hi = min(lo, d.Value), max(hi, d.Value)
	}
	const bars = "▁▂▃▄▅▆▇█"
	rs := []rune(bars)
	var s strings.Builder
	for _, d := range days {
		i := len(rs) - 1
		if hi > lo {
			i = int((d.Value - lo) / (hi - lo) * float64(len(rs)-1))
		}
		s.WriteRune(rs[i])
	}
	return s.String()
}
