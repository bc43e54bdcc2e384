package document

import (
	"slices"

	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/scorecard"
)

// scoreSec is the report's scorecard section: for each provider, the
// comparison's headline figures for the month (sla/scorecard) beside the
// same figures over every provider's nodes together, each with its n.
type scoreSec struct {
	Title string
	Intro string
	// Warnings: what makes the comparison unfair (different months,
	// too few machines, currencies), in the report's language.
	Warnings []string
	Tables   []table
}

func scorecardSec(p *i18n.Printer, month string, sc *scorecard.Scorecard) *scoreSec {
	if sc == nil || len(sc.Providers) == 0 || sc.AllProviders == nil {
		return nil
	}
	s := &scoreSec{Title: p.T("Provider scorecard %s", p.Month(month)),
		Intro: p.T("Each provider's figures for the month beside the whole fleet (every provider's nodes together); n is how many observations a figure rests on, a figure with too few is marked so and not ranked; the rank is among the providers with enough observations.")}
	if sc.From != sc.To {
		// The scheduled job's scorecard over the trailing months.
		s.Title = p.T("Provider scorecard %s to %s", p.Month(sc.From), p.Month(sc.To))
		s.Intro = p.T("Each provider's figures over these months beside the whole fleet (every provider's nodes together); n is how many observations a figure rests on, a figure with too few is marked so and not ranked; the rank is among the providers with enough observations.")
	}
	s.Tables = providerTables(p, sc)
	s.Warnings = scorecardWarnings(p, sc)
	return s
}

// scorecardWarnings are sc's warnings in p's language, each led by the
// word "Warning".
func scorecardWarnings(p *i18n.Printer, sc *scorecard.Scorecard) []string {
	var out []string
	for _, w := range sc.WarningTexts() {
		out = append(out, p.T("Warning: %s.", p.Text(w)))
	}
	return out
}

// providerTables are, per provider, the comparison's headline figures
// beside the same figures over every provider's nodes together.
func providerTables(p *i18n.Printer, sc *scorecard.Scorecard) []table {
	fleetNodes := 0
	for _, pr := range sc.Providers {
		fleetNodes += pr.Nodes
	}
	var out []table
	for _, pr := range sc.Providers {
		t := table{Title: p.T("%s (%d nodes, %d GPUs)", pr.Provider, pr.Nodes, pr.GPUs), Widths: []float64{16, 30, 24, 10, 24},
			Head: []string{p.T("dimension"), p.T("figure"), pr.Provider, p.T("rank"), p.T("all providers (%d nodes)", fleetNodes)},
			Num:  []bool{false, false, true, true, true}}
		for _, c := range sc.Table.Columns {
			f, _ := pr.All.Figure(c.Key)
			var all scorecard.Figure
			if sc.AllProviders != nil {
				all, _ = sc.AllProviders.Figure(c.Key)
			}
			t.add(p.Dimension(c.Dimension), p.T(c.Title), p.FigureCell(f), p.FigureRank(f), p.FigureCell(all))
		}
		out = append(out, t)
		if pr.Claims != nil {
			out = append(out, recoveryTable(p, pr.Provider, pr.Claims))
		}
	}
	return out
}

// recoveryTable is what a provider's claims recovered (the claims
// ledger), a row per quarter and currency, then the months together.
func recoveryTable(p *i18n.Printer, provider string, c *scorecard.Claims) table {
	t := table{Title: p.T("%s: what its claims recovered", provider), Widths: []float64{16, 14, 14, 14, 14, 14, 10, 10},
		Head: []string{p.T("quarter"), p.T("claimed"), p.T("granted"), p.T("received on bills"), p.T("refused"), p.T("outstanding"), p.T("recovered"), p.T("provider late")},
		Num:  []bool{false, true, true, true, true, true, true, true}}
	for _, r := range append(slices.Clone(c.Quarters), c.Total...) {
		m := func(v claims.Cents) string { return p.Money(v.Float(), r.Currency) }
		t.add(r.Quarter, m(r.Claimed), m(r.Granted), m(r.Received), m(r.Refused), m(r.Outstanding), p.Pct(r.SharePercent, 1), p.T("%d of %d", r.Late, r.Sent()))
	}
	return t
}
