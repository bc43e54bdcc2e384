package document

import (
	"io"

	"github.com/gpusla/gpusla/sla/i18n"

	"github.com/gpusla/gpusla/sla/scorecard"
)

// ScorecardPDF writes the provider scorecard as its own A4 landscape PDF in
// lang, drawn as the report's PDF is (fpdf, the embedded CJK font, the same
// tables): the comparison table — one headline figure per column, each cell
// the measured figure with its rank and n, "too few" cells unranked — then
// each provider's headline figures beside all providers' together. It is
// what the monthly job stores as scorecard.pdf beside the report.
func ScorecardPDF(w io.Writer, sc *scorecard.Scorecard, lang i18n.Lang) error {
	p := i18n.New(lang)
	title := p.ScorecardTitle(sc.From, sc.To)
	pw := newPDFWriter(title, sc.AsOf, p)
	pw.f.AddPage()
	pw.text(18, "B", title)
	pw.text(8, "", p.T("As of %s; %d events read. Each cell: the measured figure, its rank among the providers with enough observations (1 = best) and n, the observations it rests on; a figure with too few is marked so and not ranked. No single score.",
		p.Stamp(sc.AsOf), sc.Events))
	for _, w := range scorecardWarnings(p, sc) {
		pw.text(8, "B", w)
	}
	pw.f.Ln(2)
	if len(sc.Providers) == 0 {
		pw.text(9, "", p.T("No node was in service in these months."))
		return pw.output(w, "scorecard")
	}
	pw.text(11, "B", p.T("Comparison"))
	pw.table(comparisonTable(p, sc))
	for _, t := range providerTables(p, sc) {
		pw.text(9, "B", t.Title)
		pw.table(t)
	}
	return pw.output(w, "scorecard")
}

// comparisonTable is the scorecard's comparison: a row per provider, a
// column per headline figure.
func comparisonTable(p *i18n.Printer, sc *scorecard.Scorecard) table {
	t := table{Widths: []float64{14}, Head: []string{p.T("provider")}, Num: []bool{false}}
	for _, c := range sc.Table.Columns {
		better := p.T("lower is better")
		if c.Better == scorecard.Higher {
			better = p.T("higher is better")
		}
		t.Widths = append(t.Widths, 10)
		t.Head = append(t.Head, p.Dimension(c.Dimension)+": "+p.T(c.Title)+" ("+better+")")
		t.Num = append(t.Num, true)
	}
	for _, r := range sc.Table.Rows {
		row := []string{r.Provider}
		for _, f := range r.Cells {
			row = append(row, p.FigureRank(f)+"\n"+p.FigureCell(f))
		}
		t.add(row...)
	}
	return t
}
