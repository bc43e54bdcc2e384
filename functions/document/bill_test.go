package document

import (
	"bytes"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/document/documenttest"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/usage"
)

// withUsage gives the claim month's first node the usage readings of a VM
// (a system and a data disk, eth0 with a reboot in the month), so every
// sentence of the node's usage section is drawn.
func withUsage(r *report.Report) {
	n := &r.Nodes[0]
	from, _ := time.Parse(time.RFC3339, n.Period.Start)
	to, _ := time.Parse(time.RFC3339, n.Period.End)
	rd := func(at time.Time, boot string, tx uint64) usage.Reading {
		return usage.Reading{At: at, Boot: &usage.Boot{ID: boot, Time: from.Add(-time.Hour)},
			Disks:  []usage.Disk{{Name: "vda", SizeBytes: 100 << 30, System: true, Virtual: true}, {Name: "vdb", SizeBytes: 500 << 30, Rotational: true, Virtual: true}},
			Ifaces: []usage.Iface{{Name: "eth0", TxBytes: tx, Physical: true, DefaultRoute: true}}}
	}
	mid := from.Add(to.Sub(from) / 2)
	second := rd(mid.Add(time.Hour), "b", 1e9)
	second.Boot.Time = mid
	n.Usage = usage.Summarize([]usage.Reading{rd(from, "a", 0), rd(mid.Add(-time.Hour), "a", 4e9), second}, from, to, to)
}

// TestEveryBillLineInEveryFormat: a full bill's every line — not only its
// GPU-time lines — is drawn in every format and language, with its kind,
// its bill line number and its verdict; the PDF's text is read back with
// pdftotext.
func TestEveryBillLineInEveryFormat(t *testing.T) {
	r := buildClaim(t)
	withUsage(r)
	x := Extras{Bill: claimBillFor(t, r), Lines: claimLinesFor(t, r)}
	for _, lang := range i18n.Langs {
		x.Lang = lang
		p := i18n.New(lang)
		title := p.T("Bill reconciliation %s", r.Month)
		for _, f := range Formats {
			var buf bytes.Buffer
			if err := Render(&buf, r, f, x); err != nil {
				t.Fatal(err)
			}
			text := buf.String()
			if f == "pdf" {
				text = documenttest.PDFText(t, buf.Bytes())
			}
			if f != "json" && f != "csv" && !strings.Contains(text, title) {
				t.Errorf("%s %s: no %q section", lang, f, title)
			}
			// The probe's readings the lines are held to, in every human
			// format's node section.
			if f != "json" && f != "csv" {
				for _, want := range []string{p.T("Measured by the probe (what the bill's lines are held to)"), "vdb", p.T(usage.WhyToNextBoot)} {
					if f == "html" {
						want = html.EscapeString(want)
					}
					if !strings.Contains(text, want) {
						t.Errorf("%s %s: no %q in the node's usage", lang, f, want)
					}
				}
			}
			if !strings.Contains(text, "3.24") {
				t.Errorf("%s %s: the rows not judged are not listed", lang, f)
			}
			for _, j := range x.Lines.Items {
				verdict := p.Word(j.Verdict)
				if f == "json" || (f == "csv" && lang == i18n.EN) {
					verdict = j.Verdict // machine words; a zh sheet translates them (docs/reports.md)
				} else if f == "csv" {
					verdict = p.Word(j.Verdict)
				} else if j.Verdict == "over_billed" {
					verdict = p.T("over-billed by %s", p.Money(j.Over, j.Currency))
				}
				for _, want := range []string{j.Kind, verdict} {
					if !strings.Contains(text, want) {
						t.Errorf("%s %s: bill line %d (%s) lacks %q", lang, f, j.Line, j.Kind, want)
					}
				}
			}
		}
	}
}
