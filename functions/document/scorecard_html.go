package document

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/scorecard"
)

//go:embed scorecard.html.tmpl
var scorecardPageTmpl string

var scorecardPage = template.Must(template.New("scorecard").Funcs(template.FuncMap{
	"value": i18n.PlainValue,
	"spark": Sparkline,
}).Parse(scorecardPageTmpl))

// scorecardChart is one dimension's headline figures, one bar per provider.
type scorecardChart struct {
	Dimension string
	Columns   []scorecardChartColumn
}

type scorecardChartColumn struct {
	Title, Better string
	SVG           template.HTML
}

type scorecardPageData struct {
	*scorecard.Scorecard
	Charts      []scorecardChart
	Drops       []baseline.Drift
	MinMachines int
}

// ScorecardHTML writes the scorecard as one self-contained page.
func ScorecardHTML(w io.Writer, sc *scorecard.Scorecard) error {
	d := scorecardPageData{Scorecard: sc, MinMachines: scorecard.MinMachines}
	byDim := map[string]int{}
	for ci, c := range sc.Table.Columns {
		i, ok := byDim[c.Dimension]
		if !ok {
			i = len(d.Charts)
			byDim[c.Dimension] = i
			d.Charts = append(d.Charts, scorecardChart{Dimension: c.Dimension})
		}
		var cells []scorecard.Figure
		var names []string
		for _, r := range sc.Table.Rows {
			cells = append(cells, r.Cells[ci])
			names = append(names, r.Provider)
		}
		d.Charts[i].Columns = append(d.Charts[i].Columns, scorecardChartColumn{Title: c.Title, Better: string(c.Better), SVG: scorecardBars(names, cells)})
	}
	for _, dr := range sc.Fleet.Drift {
		if dr.Dropped {
			d.Drops = append(d.Drops, dr)
		}
	}
	return scorecardPage.Execute(w, d)
}

// scorecardBars draws one horizontal bar per provider, scaled to the largest value;
// a figure with too few observations is drawn hollow and labelled so.
func scorecardBars(names []string, cells []scorecard.Figure) template.HTML {
	const width, rowH, label = 520, 22, 170
	top := 0.0
	for _, c := range cells {
		if c.Value != nil {
			top = math.Max(top, math.Abs(*c.Value))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img">`, width, rowH*len(cells)+4)
	for i, c := range cells {
		y := i*rowH + 2
		fmt.Fprintf(&b, `<text x="0" y="%d" font-size="12">%s</text>`, y+15, template.HTMLEscapeString(names[i]))
		text := i18n.PlainValue(c)
		if c.Value == nil {
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" fill="#888">no data</text>`, label, y+15)
			continue
		}
		w := 0.0
		if top > 0 {
			w = math.Abs(*c.Value) / top * (width - label - 150)
		}
		fill, note := "#3b6ea8", fmt.Sprintf("#%d/%d, n=%d", c.Rank, c.Ranked, c.N)
		if c.Rank == 1 {
			fill = "#2e8b57"
		}
		if c.TooFew {
			fill, note = "none", fmt.Sprintf("too few: n=%d &lt; %d", c.N, c.MinN)
			if c.N >= c.MinN {
				note = fmt.Sprintf("too few: %d machines &lt; %d", c.Machines, scorecard.MinMachines)
			}
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="16" fill="%s" stroke="#3b6ea8"/>`, label, y+2, math.Max(w, 1), fill)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="12">%s (%s)</text>`, float64(label)+math.Max(w, 1)+6, y+15, template.HTMLEscapeString(text), note)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
