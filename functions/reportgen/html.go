package reportgen

import (
	"github.com/gpusla/gpusla/sla/baseline"

	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/report"
)

//go:embed report.html.tmpl
var htmlTemplate string

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"dur":    func(s int64) string { return durText(time.Duration(s) * time.Second) },
	"money":  func(v float64, cur string) string { return strconv.FormatFloat(v, 'f', 2, 64) + " " + cur },
	"pct":    func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) },
	"f1":     func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
	"n":      func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
	"f2":     func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
	"hours":  func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) },
	"optH":   optFloat,
	"laneY":  func(l int) float64 { return 20 + float64(l)*(laneH+laneGap) },
	"laneTY": func(l int) float64 { return 20 + float64(l)*(laneH+laneGap) + laneH*0.75 },
	"tlH":    func(lanes []string) float64 { return 20 + float64(len(lanes))*(laneH+laneGap) + 4 },
	"target": targetHTML,
	"join":   strings.Join,
	"short":  func(s string) string { return strings.Replace(s, "T", " ", 1) },
	"drift":  driftSVG,
}).Parse(htmlTemplate))

// driftSVG plots one node's figure per day as a line, with the node's own
// baseline (its first days) dashed: a sustained drop shows as the line
// sinking away from it.
func driftSVG(d baseline.Drift) template.HTML {
	const w, h = 360.0, 60.0
	if len(d.Days) == 0 {
		return ""
	}
	lo, hi := d.Baseline, d.Baseline
	for _, p := range d.Days {
		lo, hi = min(lo, p.Value), max(hi, p.Value)
	}
	if hi == lo {
		hi = lo + 1
	}
	y := func(v float64) float64 { return h - 4 - (v-lo)/(hi-lo)*(h-8) }
	var pts []string
	for i, p := range d.Days {
		x := 4.0
		if len(d.Days) > 1 {
			x = 4 + float64(i)/float64(len(d.Days)-1)*(w-8)
		}
		pts = append(pts, strconv.FormatFloat(x, 'f', 1, 64)+","+strconv.FormatFloat(y(p.Value), 'f', 1, 64))
	}
	by := strconv.FormatFloat(y(d.Baseline), 'f', 1, 64)
	color := "#3b6ea8"
	if d.Dropped {
		color = "#c0392b"
	}
	return template.HTML(`<svg xmlns="http://www.w3.org/2000/svg" width="360" height="60" role="img"><line x1="0" x2="360" y1="` + by + `" y2="` + by +
		`" stroke="#999" stroke-dasharray="4 3"/><polyline fill="none" stroke="` + color + `" stroke-width="2" points="` + strings.Join(pts, " ") + `"/></svg>`)
}

func optFloat(p *float64) string {
	if p == nil {
		return "—"
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}

func targetHTML(t *report.Target) string {
	if t == nil {
		return "—"
	}
	s := fmt.Sprintf("%s: %s of %s (%s clock), due %s", t.Status, durText(time.Duration(t.ElapsedSeconds)*time.Second),
		durText(time.Duration(t.TargetSeconds)*time.Second), t.Clock, strings.Replace(t.Deadline, "T", " ", 1))
	if t.LateSeconds > 0 {
		s += ", late " + durText(time.Duration(t.LateSeconds)*time.Second)
	}
	return s
}

type htmlNode struct {
	*report.Node
	Chart    chartData
	Breached int
}

type htmlView struct {
	R     *report.Report
	Nodes []htmlNode
	Bill  *billing.Reconciliation
	Total map[string]float64
}

// Extras are optional inputs a report can be rendered with.
type Extras struct {
	// Bill is the reconciliation of the provider's bill, if one was given.
	Bill *billing.Reconciliation
	// Lines is the same bill judged line by line (a full bill's every line
	// item), shown in json, md and csv.
	Lines *billing.Full
}

// HTML writes the report as one self-contained page: inline CSS and SVG,
// no script, no external asset, so it can be mailed, archived in the
// evidence bundle and printed to PDF (print CSS: one node a page, colours
// kept, no tooltips needed to read a figure).
func HTML(w io.Writer, r *report.Report, x Extras) error {
	v := htmlView{R: r, Bill: x.Bill, Total: map[string]float64{}}
	for i := range r.Nodes {
		n := &r.Nodes[i]
		cd, err := nodeChart(r.Month, n)
		if err != nil {
			return err
		}
		hn := htmlNode{Node: n, Chart: cd}
		for _, t := range n.Tickets {
			if t.Breached {
				hn.Breached++
			}
		}
		v.Nodes = append(v.Nodes, hn)
	}
	for _, c := range r.Contracts {
		v.Total[c.Currency] = v.Total[c.Currency] + c.Claim
	}
	var buf bytes.Buffer
	if err := htmlTmpl.Execute(&buf, v); err != nil {
		return fmt.Errorf("render HTML report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
