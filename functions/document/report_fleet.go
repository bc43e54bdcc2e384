package document

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/i18n"
)

// fleetSec is the fleet baselines: each figure's distribution per GPU
// model, the nodes slower than their siblings, and each node's drift.
type fleetSec struct {
	Title    string
	Intro    string
	Dists    table
	Slow     string   // heading of Findings
	Findings []string // one line per streak
	Drift    *table
	Lines    []baseline.Drift // Drift's rows, for the HTML line charts
}

func fleet(p *i18n.Printer, f *baseline.Result) *fleetSec {
	if f == nil || len(f.Dists) == 0 {
		return nil
	}
	s := &fleetSec{Title: p.T("Fleet baselines"), Slow: p.T("Slower than its siblings"),
		Intro: p.T("Each GPU's median over the month, per GPU model, the whole fleet. A node is never judged against itself: each node's runs are held against the other nodes of its model (below their p10 and 5 %% under their median) and each GPU's against the other GPUs of its node (5 %% under their median); three runs in a row below is slower than its siblings. Models with too few nodes are judged by the static threshold alone.")}
	s.Dists = table{Head: []string{p.T("GPU model"), p.T("figure"), p.T("nodes"), p.T("GPUs"), p.T("runs"), "p10", "p50", "p90", p.T("threshold")},
		Widths: []float64{14, 22, 6, 6, 6, 8, 8, 8, 14}, Num: []bool{false, false, true, true, true, true, true, true, true}}
	for _, d := range f.Dists {
		th := p.Num(d.Threshold, 2)
		if d.StaticOnly {
			th = p.T("static only")
		}
		s.Dists.add(d.Model, d.Figure+" ("+d.Unit+")", p.Num(float64(d.Nodes), 0), p.Num(float64(d.GPUs), 0), p.Num(float64(d.Runs), 0),
			p.Num(d.P10, 2), p.Num(d.P50, 2), p.Num(d.P90, 2), th)
	}
	for i := range f.Findings {
		fd := &f.Findings[i]
		end := p.T("still slow at its last run")
		if !fd.End.IsZero() {
			end = p.T("back from %s", p.Time(fd.End))
		}
		s.Findings = append(s.Findings, p.T("%s from %s (%s): %s", fd.Node, p.Time(fd.Start), end, p.Text(fd.Text())))
	}
	if len(f.Drift) > 0 {
		t := &table{Title: p.T("Drift per node"), Widths: []float64{12, 22, 30, 30},
			Head: []string{p.T("node"), p.T("figure"), p.T("per day (dashed: the node's first days)"), p.T("sustained drop")}}
		for _, d := range f.Drift {
			drop := p.T("no")
			if d.Dropped {
				until := ""
				if d.Until != "" {
					until = p.T(" until %s", d.Until)
				}
				drop = p.T("since %s%s, worst %s %% below %s", d.Since, until, p.Num(d.WorstPct, 1), p.Num(d.Baseline, 2))
			}
			t.add(d.Node, d.Figure+" ("+d.Unit+")", Sparkline(d.Days), drop)
			t.Bad = append(t.Bad, []bool{false, false, false, d.Dropped})
		}
		s.Drift, s.Lines = t, f.Drift
	}
	return s
}

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
