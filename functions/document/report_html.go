package document

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
)

//go:embed report.html.tmpl
var htmlTemplate string

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"n":      func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
	"laneY":  func(l int) float64 { return 20 + float64(l)*(laneH+laneGap) },
	"laneTY": func(l int) float64 { return 20 + float64(l)*(laneH+laneGap) + laneH*0.75 },
	"tlH":    func(lanes []string) float64 { return 20 + float64(len(lanes))*(laneH+laneGap) + 4 },
	"num":    func(t table, i int) bool { return i < len(t.Num) && t.Num[i] },
	"bad": func(t table, r, c int) bool {
		return r < len(t.Bad) && c < len(t.Bad[r]) && t.Bad[r][c]
	},
	"deref": func(t *table) table { return *t },
	"drift": driftSVG,
}).Parse(htmlTemplate))

// writeHTML writes the report as one self-contained page: inline CSS and SVG,
// no script, no external asset, so it can be mailed, archived in the
// evidence bundle and printed to PDF (print CSS: the claim page and each
// node on their own page, colours kept, no tooltips needed to read a
// figure).
func writeHTML(w io.Writer, d *doc) error {
	var buf bytes.Buffer
	if err := htmlTmpl.Execute(&buf, d); err != nil {
		return fmt.Errorf("render HTML report: %w", err)
	}
	_, err := w.Write(keepDurationsWhole(buf.Bytes()))
	return err
}
