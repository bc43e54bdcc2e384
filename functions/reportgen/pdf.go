package reportgen

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/gpusla/gpusla/sla/report"
)

// PDF writes the report as an A4 landscape PDF with the same sections and
// charts as the HTML form. It uses the PDF core fonts, which cover
// Windows-1252: characters outside it (e.g. Chinese provider names) are
// written as '?', so the HTML form is the one to use for such text.
func PDF(w io.Writer, r *report.Report, x Extras) error {
	p := newPDFWriter(r)
	p.cover(r, x)
	for i := range r.Nodes {
		if err := p.node(r, &r.Nodes[i]); err != nil {
			return err
		}
	}
	if err := p.f.Error(); err != nil {
		return fmt.Errorf("render PDF report: %w", err)
	}
	if err := p.f.Output(w); err != nil {
		return fmt.Errorf("render PDF report: %w", err)
	}
	return nil
}

type pdfWriter struct {
	f    *fpdf.Fpdf
	tr   func(string) string
	left float64
	w    float64 // usable width
}

var pdfColors = map[string][3]int{
	bandCounted: {198, 40, 40}, bandObserved: {249, 168, 37}, bandExcluded: {120, 144, 156}, bandOff: {236, 239, 241},
	bandUp: {46, 125, 50}, "maint-late": {142, 36, 170}, "ticket": {21, 101, 192}, "ticket-breached": {173, 20, 87},
}

func newPDFWriter(r *report.Report) *pdfWriter {
	f := fpdf.New("L", "mm", "A4", "")
	// The document's dates are the report's as-of instant, so one report
	// always gives the same bytes.
	if at, err := time.Parse(time.RFC3339, r.AsOf); err == nil {
		f.SetCreationDate(at)
		f.SetModificationDate(at)
	}
	f.SetTitle("SLA report "+r.Month, true)
	f.SetProducer("gpusla", true)
	f.SetCatalogSort(true) // fonts and images in a fixed order: same report, same bytes
	f.SetMargins(12, 12, 12)
	f.SetAutoPageBreak(true, 12)
	f.AliasNbPages("{nb}")
	p := &pdfWriter{f: f, tr: f.UnicodeTranslatorFromDescriptor("")}
	pw, _ := f.GetPageSize()
	l, _, rm, _ := f.GetMargins()
	p.left, p.w = l, pw-l-rm
	f.SetFooterFunc(func() {
		f.SetY(-10)
		f.SetFont("Helvetica", "", 7)
		f.SetTextColor(95, 107, 118)
		f.CellFormat(0, 4, p.tr(fmt.Sprintf("SLA report %s, as of %s - page %d of {nb}", r.Month, r.AsOf, f.PageNo())), "", 0, "R", false, 0, "")
		f.SetTextColor(0, 0, 0)
	})
	return p
}

func (p *pdfWriter) text(size float64, style, s string) {
	p.f.SetFont("Helvetica", style, size)
	p.f.MultiCell(0, size*0.45, p.tr(s), "", "L", false)
}

// table draws a table with a header row; columns are relative widths.
func (p *pdfWriter) table(widths []float64, head []string, rows [][]string) {
	f := p.f
	var sum float64
	for _, w := range widths {
		sum += w
	}
	cols := make([]float64, len(widths))
	for i, w := range widths {
		cols[i] = p.w * w / sum
	}
	const lh = 3.6
	draw := func(cells []string, header bool) {
		style := ""
		if header {
			style = "B"
		}
		f.SetFont("Helvetica", style, 7.5)
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
			for j, ln := range lines[i] {
				f.SetXY(xx+1, y+0.5+float64(j)*lh)
				f.CellFormat(cols[i]-2, lh, ln, "", 0, "L", false, 0, "")
			}
			xx += cols[i]
		}
		f.SetXY(p.left, y+h)
	}
	f.SetDrawColor(208, 215, 222)
	f.SetLineWidth(0.2)
	draw(head, true)
	for _, r := range rows {
		draw(r, false)
	}
	f.Ln(2)
}

func (p *pdfWriter) cover(r *report.Report, x Extras) {
	f := p.f
	f.AddPage()
	p.text(18, "B", "SLA report "+r.Month)
	p.text(8, "", fmt.Sprintf("As of %s. Read %d events (%d duplicates ignored, %d after the as-of instant left out). Times are in each contract's time zone.",
		r.AsOf, r.Input.Events, r.Input.Duplicates, r.Input.AfterAsOf))
	f.Ln(2)
	p.text(11, "B", "Claims by provider")
	var rows [][]string
	for _, c := range r.Contracts {
		rows = append(rows, []string{c.Contract, c.Provider, c.TimeZone, strconv.Itoa(c.Nodes), strconv.Itoa(c.NodesBelow),
			durText(sec(c.ObservedSeconds)), durText(sec(c.ClaimSeconds)), strconv.Itoa(c.TicketsBreached),
			moneyText(c.Charge, c.Currency), moneyText(c.Claim, c.Currency), c.ClaimDeadline})
	}
	p.table([]float64{12, 18, 12, 6, 7, 9, 9, 7, 14, 13, 16},
		[]string{"contract", "provider", "time zone", "nodes", "below target", "outage observed", "outage claimable", "tickets breached", "charge", "claim", "claim by"}, rows)
	rows = nil
	for _, n := range r.Nodes {
		rows = append(rows, []string{n.Node, n.Contract, fmt.Sprintf("%d x %s", n.Hardware.GPUCount, n.Hardware.GPUModel),
			strconv.FormatFloat(n.Uptime.ClaimablePercent, 'f', 4, 64), strconv.FormatFloat(n.Uptime.ObservedPercent, 'f', 4, 64),
			strconv.FormatFloat(n.Uptime.TargetPercent, 'f', -1, 64), strconv.Itoa(len(n.Outages)), n.Delivery.Status,
			strconv.FormatFloat(n.Credit.Percent, 'f', -1, 64), moneyText(n.Credit.Amount, n.Currency)})
	}
	p.table([]float64{12, 12, 18, 9, 9, 7, 7, 9, 7, 12},
		[]string{"node", "contract", "GPUs", "uptime claimable %", "observed %", "target %", "outages", "delivery", "credit %", "claim"}, rows)
	if b := x.Bill; b != nil {
		p.text(11, "B", "Billing reconciliation")
		rows = nil
		for _, row := range b.Rows {
			rows = append(rows, []string{row.Node, optFloat(row.BilledHours), optFloat(row.BilledAmount), fnum(row.ExactHours),
				fnum(row.ContractHours), fnum(row.RoundingHours), fnum(row.ContractAmount), fnum(row.UsableHours),
				fmt.Sprintf("%s h / %.2f", fnum(row.OverHours), row.OverAmount), fmt.Sprintf("%s h / %.2f", fnum(row.UnusableBilled), row.UnusableAmount),
				row.Status, row.Note})
		}
		p.table([]float64{10, 7, 8, 7, 7, 7, 8, 7, 10, 10, 8, 20},
			[]string{"node", "billed h", "billed amount", "exact h", "contract h", "rounding h", "contract amount", "usable h", "over contract", "billed, not usable", "status", "note"}, rows)
	}
}

func (p *pdfWriter) node(r *report.Report, n *report.Node) error {
	cd, err := nodeChart(r.Month, n)
	if err != nil {
		return err
	}
	f := p.f
	f.AddPage()
	p.text(14, "B", fmt.Sprintf("Node %s (%s, %s)", n.Node, n.Contract, n.Provider))
	svc := "Not in service this month."
	if n.Period.InService {
		svc = fmt.Sprintf("In service %s to %s (%s, of which %s excluded maintenance).", n.Period.Start, n.Period.End,
			durText(sec(n.Period.Seconds)), durText(sec(n.Period.ExcludedSeconds)))
	}
	met := "met"
	if !n.Uptime.Met {
		met = "MISSED"
	}
	p.text(8.5, "", fmt.Sprintf("%d x %s. Times in %s. %s", n.Hardware.GPUCount, n.Hardware.GPUModel, n.TimeZone, svc))
	p.text(8.5, "", fmt.Sprintf("Uptime claimable %.4f %% (%s down), observed %.4f %% (%s); target %g %%: %s. Delivery %s (%s against %s). Charge %s; credit %g %% = %s; claim by %s.",
		n.Uptime.ClaimablePercent, durText(sec(n.Uptime.ClaimableOutageSeconds)), n.Uptime.ObservedPercent, durText(sec(n.Uptime.ObservedOutageSeconds)),
		n.Uptime.TargetPercent, met, n.Delivery.Status, durText(sec(n.Delivery.Seconds)), durText(sec(n.Delivery.TargetSeconds)),
		moneyText(n.Billing.Charge, n.Currency), n.Credit.Percent, moneyText(n.Credit.Amount, n.Currency), n.ClaimDeadline))
	for _, pen := range n.Credit.Penalties {
		p.text(8, "", fmt.Sprintf("Penalty %s %s: %g %% (%s)", pen.Kind, pen.Ref, pen.Percent, pen.Reason))
	}
	f.Ln(1)
	// Charts, scaled from the 1000-unit viewBox to the page width.
	s := p.w / chartW
	p.text(9, "B", "Daily uptime")
	y := f.GetY()
	const barH = 18.0
	for _, d := range cd.Days {
		for _, sg := range d.Segs {
			c := pdfColors[sg.Class]
			f.SetFillColor(c[0], c[1], c[2])
			f.Rect(p.left+d.X*s, y+sg.Y*barH/barAreaH, d.W*s, sg.H*barH/barAreaH, "F")
		}
		f.SetFont("Helvetica", "", 5.5)
		f.SetXY(p.left+d.X*s, y+barH+0.5)
		f.CellFormat(d.W*s, 2.5, d.Label, "", 0, "C", false, 0, "")
	}
	f.SetXY(p.left, y+barH+4)
	p.text(9, "B", "Incident timeline")
	y = f.GetY()
	const lane = 5.0
	f.SetFont("Helvetica", "", 6)
	for i, l := range cd.Lanes {
		f.SetFillColor(246, 248, 250)
		f.Rect(p.left, y+float64(i)*(lane+1), p.w, lane, "F")
		f.SetXY(p.left, y+float64(i)*(lane+1))
		f.CellFormat(30, lane, l, "", 0, "L", false, 0, "")
	}
	for _, it := range cd.Timeline {
		c := pdfColors[it.Class]
		f.SetFillColor(c[0], c[1], c[2])
		f.Rect(p.left+it.X*s, y+float64(it.Lane)*(lane+1), max(it.W*s, 0.4), lane, "F")
	}
	for _, t := range cd.Ticks {
		f.SetXY(p.left+t.X*s, y+float64(len(cd.Lanes))*(lane+1))
		f.CellFormat(15, 3, t.Label, "", 0, "L", false, 0, "")
	}
	f.SetXY(p.left, y+float64(len(cd.Lanes))*(lane+1)+5)
	if len(n.Outages) > 0 {
		p.text(9, "B", "Outages")
		var rows [][]string
		for _, o := range n.Outages {
			end := o.End
			if o.Ongoing {
				end += " (ongoing)"
			}
			rows = append(rows, []string{o.Kind, o.Cause, o.Start, end, durText(sec(o.Seconds)), durText(sec(o.CountedSeconds)), o.Reason, strings.Join(o.Evidence, "; ")})
		}
		p.table([]float64{9, 10, 13, 13, 6, 6, 18, 30}, []string{"kind", "cause", "start", "end", "duration", "counted", "why not counted", "evidence"}, rows)
	}
	if len(n.Maintenance) > 0 {
		p.text(9, "B", "Maintenance")
		var rows [][]string
		for _, m := range n.Maintenance {
			rows = append(rows, []string{m.Start, m.End, m.AnnouncedAt, durText(sec(m.NoticeSeconds)), durText(sec(m.RequiredNoticeSeconds)),
				strconv.FormatBool(m.Excluded), m.Summary, m.Reason})
		}
		p.table([]float64{13, 13, 13, 7, 7, 6, 14, 27}, []string{"start", "end", "announced", "notice", "required", "excluded", "summary", "why"}, rows)
	}
	if len(n.Tickets) > 0 {
		p.text(9, "B", "Tickets")
		var rows [][]string
		for _, t := range n.Tickets {
			off := "business hours"
			if t.OffHours {
				off = "off-hours"
			}
			rows = append(rows, []string{t.Ticket, t.Priority, t.OpenedAt + " (" + t.OpenedOn + ")", off, targetHTML(t.Response),
				targetHTML(t.Resolution), targetHTML(t.Replacement), strconv.FormatBool(t.Breached)})
		}
		p.table([]float64{8, 5, 14, 8, 20, 20, 20, 6}, []string{"ticket", "priority", "opened", "off-hours", "response", "resolution", "replacement", "breached"}, rows)
	}
	for _, e := range n.Evidence {
		p.text(7.5, "", fmt.Sprintf("Data quality: %s at %s: %s", e.Kind, e.At, e.Detail))
	}
	return nil
}

// wrap splits s into lines that fit width w in the current font, at
// spaces where it can and inside a word where it must. (fpdf's SplitText
// reads UTF-8, but the core fonts need Windows-1252 bytes.)
func (p *pdfWriter) wrap(s string, w float64) []string {
	var lines []string
	fits := func(t string) bool { return p.f.GetStringWidth(p.tr(t)) <= w }
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
				lines = append(lines, p.tr(cur))
			}
			// A word longer than the column is cut.
			cur = ""
			for _, r := range word {
				if !fits(cur+string(r)) && cur != "" {
					lines = append(lines, p.tr(cur))
					cur = ""
				}
				cur += string(r)
			}
		}
		lines = append(lines, p.tr(cur))
	}
	return lines
}

func sec(s int64) time.Duration { return time.Duration(s) * time.Second }

func moneyText(v float64, cur string) string { return strconv.FormatFloat(v, 'f', 2, 64) + " " + cur }

func fnum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
