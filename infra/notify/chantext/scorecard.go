package chantext

import (
	"fmt"
	"strings"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/scorecard"
)

// Scorecard is a provider scorecard's comparison as Slack text, at most max
// bytes: what makes the comparison unfair (its warnings), one line per
// headline figure, every provider's measured figure with its rank and
// observations, and the GPUs slower than their siblings.
func Scorecard(sc *scorecard.Scorecard, max int) string {
	var s strings.Builder
	fmt.Fprintf(&s, "*Provider scorecard %s to %s* (as of %s): rank among providers with enough observations, figure, n\n", sc.From, sc.To, sc.AsOf)
	if len(sc.Providers) == 0 {
		s.WriteString("No node was in service in these months.")
		return s.String()
	}
	for _, w := range sc.Warnings {
		fmt.Fprintf(&s, ":warning: %s.\n", w)
	}
	for ci, c := range sc.Table.Columns {
		fmt.Fprintf(&s, "• *%s* — %s (%s is better):", c.Dimension, c.Title, c.Better)
		for i, r := range sc.Table.Rows {
			sep := " "
			if i > 0 {
				sep = " · "
			}
			fmt.Fprintf(&s, "%s%s %s", sep, r.Provider, strings.ReplaceAll(i18n.PlainCell(r.Cells[ci]), "**", "*"))
		}
		s.WriteString("\n")
	}
	n := 0
	if len(sc.Fleet.Findings) > 0 {
		fmt.Fprintf(&s, ":snail: %d GPU figures slower than their siblings:", len(sc.Fleet.Findings))
		for _, f := range sc.Fleet.Findings {
			if n == 10 {
				s.WriteString(" …")
				break
			}
			fmt.Fprintf(&s, " %s %s GPU %d;", f.Node, f.Figure, f.GPU)
			n++
		}
		s.WriteString("\n")
	}
	s.WriteString("The full scorecard: `gpusla scorecard --format html`.")
	out := s.String()
	if len(out) > max {
		out = strings.ToValidUTF8(out[:max], "") + "\n… (truncated)"
	}
	return out
}
