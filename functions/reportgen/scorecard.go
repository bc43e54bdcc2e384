package reportgen

import (
	"github.com/gpusla/gpusla/functions/i18n"
	"github.com/gpusla/gpusla/sla/scorecard"
)

// scoreSec is the report's scorecard section: for each provider, the
// comparison's headline figures for the month (sla/scorecard) beside the
// same figures over every provider's nodes together, each with its n.
type scoreSec struct {
	Title  string
	Intro  string
	Tables []table
}

// dimensionWord is the report's word for a scorecard dimension (the
// seed's five, and reliability and performance).
var dimensionWord = map[string]string{"delivery": "delivery", "hardware truth": "hardware truth", "network": "network stability",
	"support": "support", "billing": "billing", "reliability": "reliability", "performance": "performance"}

func scorecardSec(p *i18n.Printer, month string, sc *scorecard.Scorecard) *scoreSec {
	if sc == nil || len(sc.Providers) == 0 || sc.AllProviders == nil {
		return nil
	}
	s := &scoreSec{Title: p.T("Provider scorecard %s", p.Month(month)),
		Intro: p.T("Each provider's figures for the month beside the whole fleet (every provider's nodes together); n is how many observations a figure rests on, a figure with too few is marked so and not ranked; the rank is among the providers with enough observations.")}
	fleetNodes := 0
	for _, pr := range sc.Providers {
		fleetNodes += pr.Nodes
	}
	for _, pr := range sc.Providers {
		t := table{Title: p.T("%s (%d nodes, %d GPUs)", pr.Provider, pr.Nodes, pr.GPUs), Widths: []float64{16, 30, 24, 10, 24},
			Head: []string{p.T("dimension"), p.T("figure"), pr.Provider, p.T("rank"), p.T("all providers (%d nodes)", fleetNodes)},
			Num:  []bool{false, false, true, true, true}}
		for _, c := range sc.Table.Columns {
			f, _ := pr.All.Figure(c.Key)
			all, _ := sc.AllProviders.Figure(c.Key)
			rank := "–"
			if f.Rank > 0 {
				rank = p.T("#%d of %d", f.Rank, f.Ranked)
			}
			t.add(p.T(dimensionWord[c.Dimension]), p.T(c.Title), scoreCell(p, f), rank, scoreCell(p, all))
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

// scoreCell is a figure in the locale's numbers with the observations it
// rests on.
func scoreCell(p *i18n.Printer, f scorecard.Figure) string {
	if f.Value == nil {
		return p.T("– (n=%d)", f.N)
	}
	v := *f.Value
	var s string
	switch f.Unit {
	case "share":
		prec := 1
		if v != 0 && 100*v < 1 {
			prec = 2 // a small share is not 0.0 %
		}
		s = p.Num(100*v, prec) + " %"
	case "h", "ms":
		s = p.Num(v, 2) + " " + f.Unit
	case "min":
		s = p.Num(v, 1) + " min"
	case "min per node-month":
		s = p.Num(v, 2) + " " + p.T("min per node-month")
	default:
		s = p.Num(v, 3) + " " + f.Unit
	}
	if f.TooFew {
		return p.T("%s (too few: n=%d < %d)", s, f.N, f.MinN)
	}
	return p.T("%s (n=%d)", s, f.N)
}
