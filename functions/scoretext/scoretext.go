// Package scoretext writes the provider scorecard's figures (sla/scorecard)
// as people read them, in their language (functions/i18n): the monthly
// report's scorecard section, the scorecard PDF and the status page's
// scorecard tab all say a figure, its rank and its observations the same
// way. The figures themselves are computed only in sla/scorecard.
package scoretext

import (
	"github.com/gpusla/gpusla/functions/i18n"
	"github.com/gpusla/gpusla/sla/scorecard"
)

// dimensionWord is the documents' word for a scorecard dimension (the
// seed's five, and reliability and performance); its Chinese is in the
// catalog.
var dimensionWord = map[string]string{"delivery": "delivery", "hardware truth": "hardware truth", "network": "network stability",
	"support": "support", "billing": "billing", "reliability": "reliability", "performance": "performance"}

// Dimension is a comparison column's dimension in p's language.
func Dimension(p *i18n.Printer, dim string) string {
	if w, ok := dimensionWord[dim]; ok {
		return p.T(w)
	}
	return dim
}

// Value is a figure's value in the locale's numbers and its unit, without
// its observations; "–" when nothing was measured.
func Value(p *i18n.Printer, f scorecard.Figure) string {
	if f.Value == nil {
		return "–"
	}
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

// Cell is a figure with the observations it rests on, and "too few" with
// the minimum when they are not enough to rank it.
func Cell(p *i18n.Printer, f scorecard.Figure) string {
	if f.Value == nil {
		return p.T("– (n=%d)", f.N)
	}
	if f.TooFew {
		return p.T("%s (too few: n=%d < %d)", Value(p, f), f.N, f.MinN)
	}
	return p.T("%s (n=%d)", Value(p, f), f.N)
}

// Rank is a figure's rank among the providers ranked on it, "–" when it
// is not ranked (too few observations, or nothing measured).
func Rank(p *i18n.Printer, f scorecard.Figure) string {
	if f.Rank <= 0 {
		return "–"
	}
	return p.T("#%d of %d", f.Rank, f.Ranked)
}

// Title names a scorecard of the months from..to (YYYY-MM), one month
// once.
func Title(p *i18n.Printer, from, to string) string {
	if from == to {
		return p.T("Provider scorecard %s", p.Month(from))
	}
	return p.T("Provider scorecard %s to %s", p.Month(from), p.Month(to))
}
