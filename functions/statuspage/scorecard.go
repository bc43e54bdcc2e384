package statuspage

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/i18n"

	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/sla/scorecard"
)

// ScoreView is the team view's provider scorecard: the comparison table of
// the newest scorecard the monthly job stored beside a report
// (MONTH/CONTRACT/scorecard.json), one headline figure per column, each
// cell the measured figure with its rank and its observations. The public
// view never has one: a comparison names every provider and what it did,
// and no contract's status_page setting makes that public (docs/statuspage.md).
type ScoreView struct {
	Title string `json:"title"`
	From  string `json:"from"` // YYYY-MM
	To    string `json:"to"`
	// AsOf is the scorecard's as-of instant in the time zone of the
	// contract whose month folder holds it (Zone).
	AsOf string `json:"as_of"`
	Zone string `json:"time_zone"`
	// ZoneName is Zone as readers name it, what the page shows.
	ZoneName string        `json:"-"`
	Note     string        `json:"note"`
	Files    []ReportFile  `json:"files"`
	Columns  []ScoreColumn `json:"columns"`
	Rows     []ScoreRow    `json:"rows"`
	// Warnings: what makes the comparison unfair (different months, too
	// few machines, currencies), as the scorecard says it.
	Warnings []string `json:"warnings"`
}

// ScoreColumn is one headline figure of the comparison.
type ScoreColumn struct {
	Key       string `json:"key"`
	Dimension string `json:"dimension"`
	Title     string `json:"title"`
	Better    string `json:"better"` // the words: lower is better, higher is better
}

// ScoreRow is one provider's cells, in the columns' order.
type ScoreRow struct {
	Provider string `json:"provider"`
	// Exposure: machines in service and node-months, both (one machine
	// watched three months is not three machines).
	Exposure string      `json:"exposure"`
	Cells    []ScoreCell `json:"cells"`
}

// ScoreCell is one measured figure.
type ScoreCell struct {
	Value string `json:"value"` // the figure in its unit, "–" when nothing was measured
	N     int    `json:"n"`     // the observations it rests on
	MinN  int    `json:"min_n"`
	// TooFew: fewer observations than the figure needs; shown, never ranked.
	TooFew   bool   `json:"too_few"`
	Rank     int    `json:"rank,omitempty"` // 1 = best; 0 = not ranked
	Ranked   int    `json:"ranked_of,omitempty"`
	Text     string `json:"text"`      // the figure with its n, or "too few"
	RankText string `json:"rank_text"` // "#1 of 2", "–"
	Best     bool   `json:"best"`      // ranked first
}

// scorecardView reads the newest stored scorecard among objs: the latest
// month, and of that month's contracts the one built last. nil when none
// is stored; a stored one that cannot be read is a note on the page.
func (h *Handler) scorecardView(ctx context.Context, pr *i18n.Printer, p *Page, objs []blob.Object) *ScoreView {
	type found struct{ month, contract, name string }
	var all []found
	for _, o := range objs {
		parts := strings.Split(o.Name, "/")
		if len(parts) == 3 && parts[2] == "scorecard.json" {
			all = append(all, found{parts[0], parts[1], o.Name})
		}
	}
	if len(all) == 0 {
		return nil
	}
	sort.Slice(all, func(i, j int) bool { return all[i].month > all[j].month })
	var (
		best    *scorecard.Scorecard
		bestAt  time.Time
		bestDir found
	)
	for _, f := range all {
		if f.month != all[0].month {
			break
		}
		raw, err := h.c.Reports.Get(ctx, f.name)
		if err != nil {
			p.Notes = append(p.Notes, "scorecard: "+err.Error())
			continue
		}
		var sc scorecard.Scorecard
		if err := json.Unmarshal(raw, &sc); err != nil {
			p.Notes = append(p.Notes, fmt.Sprintf("scorecard %s: %v", f.name, err))
			continue
		}
		if sc.Schema != scorecard.Schema {
			p.Notes = append(p.Notes, fmt.Sprintf("scorecard %s: schema %q, want %s", f.name, sc.Schema, scorecard.Schema))
			continue
		}
		at, err := time.Parse(time.RFC3339, sc.AsOf)
		if err != nil {
			p.Notes = append(p.Notes, fmt.Sprintf("scorecard %s: as_of %q: not an RFC 3339 instant", f.name, sc.AsOf))
			continue
		}
		if best == nil || at.After(bestAt) {
			best, bestAt, bestDir = &sc, at, f
		}
	}
	if best == nil {
		return nil
	}
	loc := time.UTC
	if h.c.Terms != nil {
		if tm, ok := h.c.Terms(bestDir.contract); ok && tm != nil && tm.Calendar.Loc != nil {
			loc = tm.Calendar.Loc
		}
	}
	v := &ScoreView{Title: pr.ScorecardTitle(best.From, best.To), From: best.From, To: best.To,
		AsOf: pr.Zoned(bestAt, loc), Zone: loc.String(), ZoneName: pr.ZoneName(loc, bestAt, bestAt),
		Note: pr.T("As of %s; %d events read. Each cell: the measured figure, its rank among the providers with enough observations on at least 3 machines (1 = best; figures closer than the figure's minimum meaningful difference tie) and n, the observations it rests on; a figure with too few is marked so and not ranked, and ≥ marks one that cases still unfinished can only raise. No single score.",
			pr.Zoned(bestAt, loc), best.Events)}
	dir := path.Dir(bestDir.name)
	for _, o := range objs {
		if path.Dir(o.Name) == dir && strings.HasPrefix(path.Base(o.Name), "scorecard.") {
			v.Files = append(v.Files, ReportFile{Name: strings.TrimPrefix(path.Ext(o.Name), "."), Href: PathReports + o.Name, Size: o.Size})
		}
	}
	sort.Slice(v.Files, func(i, j int) bool { return fileOrder(v.Files[i].Href) < fileOrder(v.Files[j].Href) })
	for _, c := range best.Table.Columns {
		better := pr.T("lower is better")
		if c.Better == scorecard.Higher {
			better = pr.T("higher is better")
		}
		v.Columns = append(v.Columns, ScoreColumn{Key: c.Key, Dimension: pr.Dimension(c.Dimension), Title: pr.T(c.Title), Better: better})
	}
	v.Warnings = []string{}
	for _, w := range best.Warnings {
		v.Warnings = append(v.Warnings, pr.T("Warning: %s.", w))
	}
	exposure := map[string]string{}
	for _, p := range best.Providers {
		exposure[p.Provider] = pr.T("%d machines, %s node-months", p.All.Exposure.Machines, pr.Num(p.All.Exposure.NodeMonths, 2))
	}
	for _, r := range best.Table.Rows {
		row := ScoreRow{Provider: r.Provider, Exposure: exposure[r.Provider]}
		for _, f := range r.Cells {
			row.Cells = append(row.Cells, ScoreCell{Value: pr.FigureValue(f), N: f.N, MinN: f.MinN, TooFew: f.TooFew, Rank: f.Rank, Ranked: f.Ranked,
				Text: pr.FigureCell(f), RankText: pr.FigureRank(f), Best: f.Rank == 1})
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}
