package document

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/htmlshape"
	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/scorecard/scorecardtest"
	"github.com/gpusla/gpusla/sla/terms"
)

// hostileTrial is the golden trial built by the real builder from its log,
// with the name of the check that failed Beta's acceptance — what the
// provider's own node reports — replaced by name, and the providers named
// name + " A" and name + " B".
func hostileTrial(t *testing.T, name string) *scorecard.Trial {
	t.Helper()
	return scorecardtest.GoldenTrialEdited(t, func(all []*terms.Terms, log []byte) []byte {
		for i, c := range all {
			c.Provider = name + " " + string(rune('A'+i))
		}
		q, err := json.Marshal(name)
		if err != nil {
			t.Fatal(err)
		}
		failing := `{"name":"gpu.model","category":"inventory","verdict":"fail"`
		if !bytes.Contains(log, []byte(failing)) {
			t.Fatal("the golden trial log no longer fails gpu.model")
		}
		return bytes.ReplaceAll(log, []byte(failing), []byte(`{"name":`+string(q)+`,"category":"inventory","verdict":"fail"`))
	})
}

// TestTrialEscapesOutsideText: a check name the provider's node reports —
// an HTML image tag, a link, a table breaker, a spreadsheet formula — and
// the providers' names go through every section of the trial page (the
// table's head and cells, "What to ask each provider next") in Markdown,
// HTML and PDF, in every language, as text: Markdown holds no raw HTML,
// link or image; HTML has the very elements and attributes a harmless name
// gives; the PDF's text has the name as written.
func TestTrialEscapesOutsideText(t *testing.T) {
	pdftotext := testenv.LookPath(t, "pdftotext", "poppler-utils (scripts/setup.sh installs it)")
	for _, lang := range i18n.Langs {
		var plainHTML bytes.Buffer
		if err := RenderTrial(&plainHTML, hostileTrial(t, "gpu.model"), "html", lang); err != nil {
			t.Fatal(err)
		}
		for _, h := range outsideMarkdown {
			tr := hostileTrial(t, h)
			what := fmt.Sprintf("trial %s %q", lang, h)
			want := strings.Join(strings.Fields(h), " ")
			var md, page, pdf bytes.Buffer
			for _, r := range []struct {
				format string
				buf    *bytes.Buffer
			}{{"md", &md}, {"html", &page}, {"pdf", &pdf}} {
				if err := RenderTrial(r.buf, tr, r.format, lang); err != nil {
					t.Fatalf("%s %s: %v", what, r.format, err)
				}
			}
			checkMarkdown(t, what+" md", md.Bytes(), want)
			checkHTML(t, what+" html", page.Bytes(), plainHTML.Bytes(), want)
			checkPDFText(t, pdftotext, what+" pdf", pdf.Bytes(), h)
		}
	}
}

// checkHTML parses doc and fails unless its elements and attribute names
// are, in order, those of plain (the same page with harmless text), and
// its text holds want.
func checkHTML(t *testing.T, what string, doc, plain []byte, want string) {
	t.Helper()
	got, text := htmlShape(t, doc)
	base, _ := htmlShape(t, plain)
	if g, b := strings.Join(got, " "), strings.Join(base, " "); g != b {
		t.Errorf("%s: the page's elements differ from the harmless page's:\n got %s\nwant %s", what, g, b)
	}
	if !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
		t.Errorf("%s: the text %q is not in the page as written", what, want)
	}
}

// htmlShape is a page's elements with their attribute names, in document
// order, and its text.
func htmlShape(t *testing.T, doc []byte) (shape []string, text string) {
	t.Helper()
	shape, text, err := htmlshape.Of(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return shape, text
}

var (
	pdfStream = regexp.MustCompile(`(?s)stream\r?\n.*?endstream`)
	pdfAction = regexp.MustCompile(`/(URI|Launch|JavaScript|JS|SubmitForm|OpenAction|AA)[\s/<(\[>]`)
)

// checkPDFText fails unless pdftotext reads h out of pdf, as written (its
// white space aside: the PDF wraps long cells), and the PDF holds no link
// or action.
func checkPDFText(t *testing.T, pdftotext, what string, pdf []byte, h string) {
	t.Helper()
	// The names as PDF tokens, outside the (compressed) streams, whose
	// bytes may spell anything.
	if m := pdfAction.Find(pdfStream.ReplaceAll(pdf, nil)); m != nil {
		t.Errorf("%s: the PDF holds %s", what, m)
	}
	f := filepath.Join(t.TempDir(), "page.pdf")
	if err := os.WriteFile(f, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pdftotext, "-raw", f, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("%s: pdftotext: %v\n%s", what, err, out)
	}
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	if !strings.Contains(squeeze(string(out)), squeeze(h)) {
		t.Errorf("%s: the PDF's text lacks %q:\n%s", what, h, out)
	}
}
