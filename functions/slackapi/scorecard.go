package slackapi

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/terms"
)

// scorecardSummary builds the provider scorecard of from..to with the
// desk's contracts from the backend's export, and answers with its
// comparison as Slack text (chantext.Scorecard).
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
	return chantext.Scorecard(sc, chantext.SlackMax), nil
}
