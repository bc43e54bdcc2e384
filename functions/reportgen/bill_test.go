package reportgen

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/functions/i18n"
	"github.com/gpusla/gpusla/functions/reportgen/reportgentest"
)

// TestEveryBillLineInEveryFormat: a full bill's every line — not only its
// GPU-time lines — is drawn in every format and language, with its kind,
// its bill line number and its verdict; the PDF's text is read back with
// pdftotext.
func TestEveryBillLineInEveryFormat(t *testing.T) {
	r := buildClaim(t)
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
				text = reportgentest.PDFText(t, buf.Bytes())
			}
			if f != "json" && f != "csv" && !strings.Contains(text, title) {
				t.Errorf("%s %s: no %q section", lang, f, title)
			}
			if !strings.Contains(text, "3.24") {
				t.Errorf("%s %s: the rows not judged are not listed", lang, f)
			}
			for _, j := range x.Lines.Items {
				verdict := p.Word(j.Verdict)
				if f == "json" || f == "csv" {
					verdict = j.Verdict // machine words
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
