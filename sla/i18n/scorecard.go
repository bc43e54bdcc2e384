package i18n

// The provider scorecard's figures (sla/scorecard) as people read them, in
// their language: the monthly report's scorecard section, the scorecard
// PDF and the status page's scorecard tab all say a figure, its rank and
// its observations through these methods, so they say it the same way. The
// figures themselves are computed only in sla/scorecard.

import (
	"fmt"

	"github.com/gpusla/gpusla/sla/scorecard"
)

// dimensionWord is the documents' word for a scorecard dimension (the
// seed's five, and reliability and performance); its Chinese is in the
// catalog.
var dimensionWord = map[string]string{"delivery": "delivery", "hardware truth": "hardware truth", "network": "network stability",
	"support": "support", "billing": "billing", "reliability": "reliability", "performance": "performance"}

// Dimension is a comparison column's dimension in p's language.
func (p *Printer) Dimension(dim string) string {
	if w, ok := dimensionWord[dim]; ok {
		return p.T(w)
	}
	return dim
}

// FigureValue is a figure's value in the locale's numbers and its unit, without
// its observations; "–" when nothing was measured.
func (p *Printer) FigureValue(f scorecard.Figure) string {
	if f.Value == nil {
		return "–"
	}
	return bound(f) + p.figureNumber(f)
}

// bound is "≥ " for a figure its unfinished cases can only raise, "≤ "
// for one they can only lower.
func bound(f scorecard.Figure) string {
	switch f.Bound {
	case scorecard.AtLeast:
		return "≥ "
	case scorecard.AtMost:
		return "≤ "
	}
	return ""
}

func (p *Printer) figureNumber(f scorecard.Figure) string {
	v := *f.Value
	switch f.Unit {
	case "share":
		prec := 1
		if v != 0 && 100*v < 1 {
			prec = 2 // a small share is not 0.0 %
		}
		return p.Num(100*v, prec) + " %"
	case "h", "ms":
		return p.Num(v, 2) + " " + f.Unit
	case "min":
		return p.Num(v, 1) + " min"
	case "min per node-month":
		return p.Num(v, 2) + " " + p.T("min per node-month")
	}
	return p.Num(v, 3) + " " + f.Unit
}

// FigureCell is a figure with the observations it rests on, and "too few" with
// the minimum when they are not enough to rank it.
func (p *Printer) FigureCell(f scorecard.Figure) string {
	if f.Value == nil {
		return p.T("– (n=%d)", f.N)
	}
	open := ""
	if f.Censored > 0 {
		open = p.T(", %d unfinished", f.Censored)
	}
	switch {
	case f.TooFew && f.N < f.MinN:
		return p.T("%s (too few: n=%d < %d%s)", p.FigureValue(f), f.N, f.MinN, open)
	case f.TooFew && f.Counted() < f.MinN:
		return p.T("%s (too few: %d finished of n=%d < %d)", p.FigureValue(f), f.Counted(), f.N, f.MinN)
	case f.TooFew:
		return p.T("%s (too few: n=%d on %d machines < %d%s)", p.FigureValue(f), f.N, f.Machines, scorecard.MinMachines, open)
	}
	return p.T("%s (n=%d%s)", p.FigureValue(f), f.N, open)
}

// FigureRank is a figure's rank among the providers ranked on it, "–" when it
// is not ranked (too few observations, or nothing measured).
func (p *Printer) FigureRank(f scorecard.Figure) string {
	if f.Rank <= 0 {
		return "–"
	}
	return p.T("#%d of %d", f.Rank, f.Ranked)
}

// ScorecardTitle names a scorecard of the months from..to (YYYY-MM), one month
// once.
func (p *Printer) ScorecardTitle(from, to string) string {
	if from == to {
		return p.T("Provider scorecard %s", p.Month(from))
	}
	return p.T("Provider scorecard %s to %s", p.Month(from), p.Month(to))
}

// PlainValue is a figure's value in its unit, shares as percent, in the
// fixed English form of the scorecard's Markdown and HTML and of chat.
func PlainValue(f scorecard.Figure) string {
	if f.Value == nil {
		return "–"
	}
	return bound(f) + plainNumber(f)
}

func plainNumber(f scorecard.Figure) string {
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

// PlainCell is a figure with its rank (Markdown bold) and observations, as
// the English tables show it.
func PlainCell(f scorecard.Figure) string {
	open := ""
	if f.Censored > 0 {
		open = fmt.Sprintf(", %d unfinished", f.Censored)
	}
	switch {
	case f.Value == nil:
		return fmt.Sprintf("– (n=%d)", f.N)
	case f.TooFew && f.N < f.MinN:
		return fmt.Sprintf("%s (too few: n=%d < %d%s)", PlainValue(f), f.N, f.MinN, open)
	case f.TooFew && f.Counted() < f.MinN:
		return fmt.Sprintf("%s (too few: %d finished of n=%d < %d)", PlainValue(f), f.Counted(), f.N, f.MinN)
	case f.TooFew:
		return fmt.Sprintf("%s (too few: n=%d on %d machines < %d%s)", PlainValue(f), f.N, f.Machines, scorecard.MinMachines, open)
	}
	return fmt.Sprintf("**#%d**/%d %s (n=%d%s)", f.Rank, f.Ranked, PlainValue(f), f.N, open)
}
