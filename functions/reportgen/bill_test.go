package reportgen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/functions/i18n"
	"github.com/gpusla/gpusla/internal/testenv"
)

// TestEveryBillLineInEveryFormat: a full bill's every line — not only its
// GPU-time lines — is drawn in every format and language, with its kind,
// its bill line number and its verdict; the PDF's text is read back with
// pdftotext.
func TestEveryBillLineInEveryFormat(t *testing.T) {
	r := buildClaim(t)
	x := Extras{Bill: claimBillFor(t, r), Lines: claimLinesFor(t, r)}
	pdftotext := testenv.LookPath(t, "pdftotext", "poppler-utils (scripts/setup.sh installs it)")
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
				path := filepath.Join(t.TempDir(), "r.pdf")
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				out, err := exec.Command(pdftotext, "-raw", path, "-").CombinedOutput()
				if err != nil {
					t.Fatalf("pdftotext: %v\n%s", err, out)
				}
				text = string(out)
			}
			if f != "json" && f != "csv" && !strings.Contains(text, title) {
				t.Errorf("%s %s: no %q section", lang, f, title)
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
