package slackapi

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/terms"
)

// scorecardSummary builds the provider scorecard of from..to with the
// desk's contracts from the backend's export, and renders its comparison
// table as Slack text: one line per headline figure, every provider's
// measured figure with its rank and observations.
func (h *Handler) scorecardSummary(ctx context.Context, from, to string) (string, error) {
	fm, err := scorecard.ParseMonth(from)
	if err != nil {
		return "", err
	}
	tm, err := scorecard.ParseMonth(to)
	if err != nil {
		return "", err
	}
	now := h.desk.Service().Now()
	asOf := now.Truncate(time.Second)
	if asOf.Before(now) {
		asOf = asOf.Add(time.Second)
	}
	book := h.desk.Terms()
	ids := make([]string, 0, len(book))
	for id := range book {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	all := make([]*terms.Terms, 0, len(ids))
	for _, id := range ids {
		all = append(all, book[id])
	}
	b, err := scorecard.NewBuilder(all, scorecard.Options{From: fm, To: tm, AsOf: asOf})
	if err != nil {
		return "", err
	}
	export := h.export
	if export == nil {
		// What the months' reports read (report.Window).
		from, _ := report.Window(fm.Year, fm.Month)
		_, to := report.Window(tm.Year, tm.Month)
		export = h.desk.RangeExport(from, to)
	}
	if err := app.ReadExport(ctx, export, func(r io.Reader) error { return b.ReadLog("export", r) }); err != nil {
		return "", fmt.Errorf("scorecard: %w", err)
	}
	sc, err := b.Build()
	if err != nil {
		return "", err
	}
	var s strings.Builder
	fmt.Fprintf(&s, "*Provider scorecard %s to %s* (as of %s): rank among providers with enough observations, figure, n\n", sc.From, sc.To, sc.AsOf)
	if len(sc.Providers) == 0 {
		s.WriteString("No node was in service in these months.")
		return s.String(), nil
	}
	for ci, c := range sc.Table.Columns {
		fmt.Fprintf(&s, "• *%s* — %s (%s is better):", c.Dimension, c.Title, c.Better)
		for i, r := range sc.Table.Rows {
			sep := " "
			if i > 0 {
				sep = " · "
			}
			fmt.Fprintf(&s, "%s%s %s", sep, r.Provider, strings.ReplaceAll(scorecard.Cell(r.Cells[ci]), "**", "*"))
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
	if len(out) > slackMax {
		out = strings.ToValidUTF8(out[:slackMax], "") + "\n… (truncated)"
	}
	return out, nil
}
