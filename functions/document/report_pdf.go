package document

import (
	_ "embed"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

//go:embed fonts/wqy-microhei-gb2312.ttf
var cjkFont []byte

// pdfFont is the embedded font's name in the document: WenQuanYi Micro Hei
// (scripts/font-subset.sh, licence beside it) covers Latin and every GB 2312
// character, so Chinese prints as Chinese; fpdf embeds only the glyphs a
// document uses.
const pdfFont = "wqy"

// writePDF writes the report as an A4 landscape PDF with the same sections and
// charts as the HTML form, the claim pages first.
func writePDF(w io.Writer, r *report.Report, d *doc) error {
	p := newPDFWriter(d.Title, r.AsOf, d.P)
	p.provisional = r.Provisional
	for _, c := range d.Claims {
		p.claim(c)
	}
	p.cover(d)
	if d.Score != nil {
		p.scoreSec(d.Score)
	}
	for i := range d.NodeSecs {
		p.node(&d.NodeSecs[i], d.Legend)
	}
	return p.output(w, "report")
}

// output writes the finished document, or the first drawing error.
func (p *pdfWriter) output(w io.Writer, what string) error {
	if err := p.f.Error(); err != nil {
		return fmt.Errorf("render PDF %s: %w", what, err)
	}
	if err := p.f.Output(w); err != nil {
		return fmt.Errorf("render PDF %s: %w", what, err)
	}
	return nil
}

type pdfWriter struct {
	f    *fpdf.Fpdf
	left float64
	w    float64 // usable width
	// provisional: the month is not over as of the as-of instant, and
	// every page's footer says so.
	provisional bool
}

var pdfColors = map[string][3]int{
	bandCounted: {198, 40, 40}, bandObserved: {249, 168, 37}, bandExcluded: {120, 144, 156}, bandOff: {236, 239, 241},
	bandUp: {46, 125, 50}, "maint-late": {142, 36, 170}, "ticket": {21, 101, 192}, "ticket-breached": {173, 20, 87},
}

// newPDFWriter starts an A4 landscape document titled title in p's
// language, with the embedded font and a page footer.
func newPDFWriter(title, asOf string, pr *i18n.Printer) *pdfWriter {
	f := fpdf.New("L", "mm", "A4", "")
	// The document's dates are its as-of instant, so one report always
	// gives the same bytes.
	if at, err := time.Parse(time.RFC3339, asOf); err == nil {
		f.SetCreationDate(at)
		f.SetModificationDate(at)
	}
	f.SetTitle(title, true)
	f.SetProducer("gpusla", true)
	f.SetCatalogSort(true) // fonts and images in a fixed order: same report, same bytes
	f.AddUTF8FontFromBytes(pdfFont, "", cjkFont)
	f.AddUTF8FontFromBytes(pdfFont, "B", cjkFont)
	f.SetMargins(12, 12, 12)
	f.SetAutoPageBreak(true, 12)
	f.AliasNbPages("{nb}")
	p := &pdfWriter{f: f}
	pw, _ := f.GetPageSize()
	l, _, rm, _ := f.GetMargins()
	p.left, p.w = l, pw-l-rm
	f.SetFooterFunc(func() {
		f.SetY(-10)
		f.SetFont(pdfFont, "", 7)
		f.SetTextColor(95, 107, 118)
		line := pr.T("%s, as of %s - page %d of %s", title, pr.Stamp(asOf), f.PageNo(), "{nb}")
		if p.provisional {
			line = pr.T("%s, provisional, as of %s - page %d of %s", title, pr.Stamp(asOf), f.PageNo(), "{nb}")
		}
		f.CellFormat(0, 4, line, "", 0, "R", false, 0, "")
		f.SetTextColor(0, 0, 0)
	})
	return p
}

func (p *pdfWriter) text(size float64, style, s string) {
	p.f.SetFont(pdfFont, style, size)
	p.f.MultiCell(0, size*0.45, s, "", "L", false)
}

// table draws a table with a header row; columns are relative widths.
func (p *pdfWriter) table(t table) {
	f := p.f
	var sum float64
	for _, w := range t.Widths {
		sum += w
	}
	cols := make([]float64, len(t.Widths))
	for i, w := range t.Widths {
		cols[i] = p.w * w / sum
	}
	const lh = 3.6
	draw := func(cells []string, header bool, bad []bool) {
		style := ""
		if header {
			style = "B"
		}
		f.SetFont(pdfFont, style, 7.5)
		lines := make([][]string, len(cells))
		n := 1
		for i, c := range cells {
			lines[i] = p.wrap(c, cols[i]-2)
			if len(lines[i]) == 0 {
				lines[i] = []string{""}
			}
			n = max(n, len(lines[i]))
		}
		h := float64(n)*lh + 1
		_, ph := f.GetPageSize()
		if f.GetY()+h > ph-14 {
			f.AddPage()
		}
		y := f.GetY()
		xx := p.left
		for i := range cells {
			if header {
				f.SetFillColor(246, 248, 250)
				f.Rect(xx, y, cols[i], h, "FD")
			} else {
				f.Rect(xx, y, cols[i], h, "D")
			}
			if i < len(bad) && bad[i] {
				f.SetTextColor(198, 40, 40)
			}
			for j, ln := range lines[i] {
				f.SetXY(xx+1, y+0.5+float64(j)*lh)
				f.CellFormat(cols[i]-2, lh, ln, "", 0, "L", false, 0, "")
			}
			f.SetTextColor(0, 0, 0)
			xx += cols[i]
		}
		f.SetXY(p.left, y+h)
	}
	f.SetDrawColor(208, 215, 222)
	f.SetLineWidth(0.2)
	draw(t.Head, true, nil)
	for i, r := range t.Rows {
		var bad []bool
		if i < len(t.Bad) {
			bad = t.Bad[i]
		}
		draw(r, false, bad)
	}
	f.Ln(2)
}

// fields draws label and value lines, each label ending in colon.
func (p *pdfWriter) fields(fs []field, colon string) {
	// The label column is as wide as the widest label, so none runs into
	// its value.
	p.f.SetFont(pdfFont, "B", 9)
	w := 62.0
	for _, fl := range fs {
		w = max(w, p.f.GetStringWidth(fl.Label+colon)+3)
	}
	for _, fl := range fs {
		p.f.SetFont(pdfFont, "B", 9)
		p.f.CellFormat(w, 5, fl.Label+colon, "", 0, "L", false, 0, "")
		p.f.SetFont(pdfFont, "", 9)
		p.f.MultiCell(0, 5, fl.Value, "", "L", false)
	}
}

// claim is a contract's claim letter, on its own page, with its appendix.
func (p *pdfWriter) claim(c claimPage) {
	p.f.AddPage()
	p.text(16, "B", c.Title)
	p.f.Ln(2)
	colon := strings.TrimSpace(c.P.Colon())
	p.fields(c.Fields, colon)
	p.f.Ln(2)
	p.table(c.Breaches)
	if t := c.Incidents; t != nil {
		p.text(10, "B", t.Title)
		p.table(*t)
	}
	p.text(9.5, "B", c.Request)
	for i, s := range c.Procedure {
		if i > 0 {
			s = "• " + s
		}
		p.text(8.5, "", s)
	}
	for _, s := range c.Approx {
		p.text(9, "B", s)
	}
	if c.Unverified != "" {
		p.text(9.5, "B", c.Unverified)
	}
	p.f.Ln(2)
	p.fields(c.Evidence, colon)
	p.f.Ln(1)
	p.text(7.5, "", c.Note)
	p.f.Ln(6)
	for _, s := range c.Sign {
		p.text(9.5, "", s)
		p.f.Ln(6)
	}
	p.text(10, "B", c.Appendix.Title)
	p.table(c.Appendix)
	p.text(7.5, "", c.AppNote)
	if t := c.Sources; t != nil {
		p.text(10, "B", t.Title)
		p.table(*t)
	}
}

func (p *pdfWriter) cover(d *doc) {
	p.f.AddPage()
	p.text(18, "B", d.Title)
	p.text(8, "", d.Intro)
	if d.Provisional != "" {
		p.f.SetTextColor(198, 40, 40)
		p.text(10, "B", d.Provisional)
		p.f.SetTextColor(0, 0, 0)
	}
	p.text(11, "B", d.TotalLabel+": "+strings.Join(d.Totals, "  ·  "))
	p.f.Ln(2)
	if l := d.LeftOut; l != nil {
		p.text(11, "B", l.Title)
		p.text(9, "B", l.Intro)
		p.table(l.Table)
	}
	p.text(11, "B", d.Contracts.Title)
	p.table(d.Contracts)
	p.table(d.Nodes)
	if r := d.Retro; r != nil {
		p.text(11, "B", r.Title)
		p.text(8, "", r.Intro)
		for _, n := range r.Notes {
			p.text(8, "", n)
		}
		p.table(r.Table)
	}
	if d.Bill != nil {
		p.text(11, "B", d.Bill.Title)
		p.table(*d.Bill)
	}
	// Every line of the bill, judged: the GPU-time table above is only the
	// compute lines.
	if l := d.Lines; l != nil {
		p.text(11, "B", l.Title)
		for _, t := range l.Totals {
			p.text(8, "", t)
		}
		p.table(l.Table)
	}
	for _, s := range d.Status {
		p.text(11, "B", s.Title)
		p.text(8, "", s.Intro)
		for _, n := range s.Notes {
			p.text(8, "", n)
		}
		for _, t := range s.tables() {
			p.text(9, "B", t.Title)
			p.table(t)
		}
	}
	if f := d.Fleet; f != nil {
		p.text(11, "B", f.Title)
		p.text(8, "", f.Intro)
		p.table(f.Dists)
		if len(f.Findings) > 0 {
			p.text(9, "B", f.Slow)
			for _, x := range f.Findings {
				p.text(7.5, "", x)
			}
		}
		if f.Drift != nil {
			p.text(9, "B", f.Drift.Title)
			p.table(*f.Drift)
		}
	}
}

// scoreSec draws the report's scorecard section (gpusla report --scorecard).
func (p *pdfWriter) scoreSec(s *scoreSec) {
	p.text(11, "B", s.Title)
	p.text(8, "", s.Intro)
	for _, w := range s.Warnings {
		p.text(8, "B", w)
	}
	for _, t := range s.Tables {
		p.text(9, "B", t.Title)
		p.table(t)
	}
}

func (p *pdfWriter) node(s *nodeSec, legend []legendItem) {
	f := p.f
	cd := s.Chart
	f.AddPage()
	p.text(14, "B", s.Heading+" ("+s.Sub+")")
	p.text(8.5, "", s.Para)
	var cards []string
	for _, c := range s.Cards {
		cards = append(cards, c.Label+": "+c.Value+" ("+c.Note+")")
	}
	p.text(8.5, "", strings.Join(cards, "  ·  "))
	for _, pen := range s.Penalties {
		p.text(8, "", pen)
	}
	f.Ln(1)
	// Charts, scaled from the 1000-unit viewBox to the page width.
	sc := p.w / chartW
	p.text(9, "B", s.Daily)
	y := f.GetY()
	const barH = 18.0
	for _, d := range cd.Days {
		for _, sg := range d.Segs {
			c := pdfColors[sg.Class]
			f.SetFillColor(c[0], c[1], c[2])
			f.Rect(p.left+d.X*sc, y+sg.Y*barH/barAreaH, d.W*sc, sg.H*barH/barAreaH, "F")
		}
		f.SetFont(pdfFont, "", 5.5)
		f.SetXY(p.left+d.X*sc, y+barH+0.5)
		f.CellFormat(d.W*sc, 2.5, d.Label, "", 0, "C", false, 0, "")
	}
	f.SetXY(p.left, y+barH+4)
	p.text(9, "B", s.Timeline)
	y = f.GetY()
	const lane = 5.0
	f.SetFont(pdfFont, "", 6)
	for i, l := range cd.Lanes {
		f.SetFillColor(246, 248, 250)
		f.Rect(p.left, y+float64(i)*(lane+1), p.w, lane, "F")
		f.SetXY(p.left, y+float64(i)*(lane+1))
		f.CellFormat(30, lane, l, "", 0, "L", false, 0, "")
	}
	for _, it := range cd.Timeline {
		c := pdfColors[it.Class]
		f.SetFillColor(c[0], c[1], c[2])
		f.Rect(p.left+it.X*sc, y+float64(it.Lane)*(lane+1), max(it.W*sc, 0.4), lane, "F")
	}
	for _, t := range cd.Ticks {
		f.SetXY(p.left+t.X*sc, y+float64(len(cd.Lanes))*(lane+1))
		f.CellFormat(15, 3, t.Label, "", 0, "L", false, 0, "")
	}
	f.SetXY(p.left, y+float64(len(cd.Lanes))*(lane+1)+5)
	p.legend(legend)
	for _, t := range []*table{s.Outages, s.Maint, s.Tickets} {
		if t != nil {
			p.text(9, "B", t.Title)
			p.table(*t)
		}
	}
	if len(s.Quality) > 0 {
		p.text(9, "B", s.QTitle)
		for _, q := range s.Quality {
			p.text(7.5, "", q)
		}
	}
	if len(s.Usage) > 0 {
		p.text(9, "B", s.UTitle)
		for _, u := range s.Usage {
			p.text(7.5, "", u)
		}
	}
}

// legend is the charts' colour key, as the HTML form shows it: a swatch
// and its words, wrapped across the page.
func (p *pdfWriter) legend(items []legendItem) {
	f := p.f
	f.Ln(1)
	f.SetFont(pdfFont, "", 7)
	x, y := p.left, f.GetY()
	for _, it := range items {
		w := 4 + f.GetStringWidth(it.Label) + 5
		if x+w > p.left+p.w {
			x, y = p.left, y+4.5
		}
		c := pdfColors[it.Class]
		f.SetFillColor(c[0], c[1], c[2])
		f.Rect(x, y+0.6, 2.8, 2.8, "F")
		f.SetXY(x+3.6, y)
		f.CellFormat(w-3.6, 4, it.Label, "", 0, "L", false, 0, "")
		x += w
	}
	f.SetXY(p.left, y+6)
}

// wrap splits s into lines that fit width w in the current font, at
// spaces where it can and inside a word where it must (Chinese has no
// spaces: it breaks between any two characters).
func (p *pdfWriter) wrap(s string, w float64) []string {
	var lines []string
	fits := func(t string) bool { return p.f.GetStringWidth(t) <= w }
	for _, para := range strings.Split(s, "\n") {
		cur := ""
		for _, word := range strings.Fields(para) {
			next := word
			if cur != "" {
				next = cur + " " + word
			}
			if fits(next) {
				cur = next
				continue
			}
			if cur != "" {
				lines = append(lines, cur)
			}
			// A word longer than the column is cut.
			cur = ""
			for _, r := range word {
				if !fits(cur+string(r)) && cur != "" {
					lines = append(lines, cur)
					cur = ""
				}
				cur += string(r)
			}
		}
		lines = append(lines, cur)
	}
	return lines
}
