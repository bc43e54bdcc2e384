package document

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/scorecard/scorecardtest"
)

// poisonEverywhere is poison and every other field of r whose text comes
// from outside gpusla: what the provider's node reports (an outage's check
// name and evidence, the integrity evidence of its spool, its disks' and
// boots' names), the instance id and region, and who released the node
// and why.
func poisonEverywhere(r *report.Report, h string) {
	poison(r, h)
	for i := range r.Nodes {
		n := &r.Nodes[i]
		n.InstanceID, n.Region = h, h
		n.Period.ReleaseRecordedBy, n.Period.ReleaseOverride = h, h
		for k := range n.Outages {
			o := &n.Outages[k]
			o.Check, o.Evidence, o.EvidenceText = h, []string{h}, []msg.Text{msg.Plain(h)}
		}
		for k := range n.Evidence {
			n.Evidence[k].Detail, n.Evidence[k].Text = h, msg.Plain(h)
		}
		if u := n.Usage; u != nil {
			for k := range u.Disks {
				u.Disks[k].Name = h
			}
			for k := range u.Boots {
				u.Boots[k].ID = h
			}
		}
	}
}

// pdfSample is the part of outsideMarkdown the PDF is read back for (each
// PDF costs a pdftotext run): markup of each kind, a formula, a newline.
var pdfSample = []string{`<img src=x onerror=alert(1)>`, "[click](javascript:alert(1))", "=1+1", "a|b", "x\n\n<div onclick=alert(1)>y</div>", "# heading"}

// TestEveryFormatKeepsOutsideTextInert: every string of outsideMarkdown,
// put in every field of the claim month's and the provider month's reports
// that comes from outside (poisonEverywhere), goes through each section of
// each format in each language as text: Markdown holds no raw HTML, link,
// image or code block and keeps its tables (checkMarkdown); HTML has the
// very elements and attributes the same report with a harmless name gives,
// and the text as written; the JSON reads back with the text intact; no CSV
// cell is a formula; the PDF (for pdfSample) has the text as written and no
// link or action.
func TestEveryFormatKeepsOutsideTextInert(t *testing.T) {
	pdftotext := testenv.LookPath(t, "pdftotext", "poppler-utils (scripts/setup.sh installs it)")
	claim, x := hostileReport(t)
	withUsage(claim)
	for _, c := range []struct {
		r *report.Report
		x Extras
	}{{claim, x}, {providerReport(t), Extras{}}} {
		for _, lang := range i18n.Langs {
			c.x.Lang = lang
			poisonEverywhere(c.r, "harmless name")
			plain := render(t, c.r, "html", c.x)
			for _, h := range outsideMarkdown {
				poisonEverywhere(c.r, h)
				what := fmt.Sprintf("%s %s %q", c.r.Contracts[0].Contract, lang, h)
				want := strings.Join(strings.Fields(h), " ")
				checkMarkdown(t, what+" md", render(t, c.r, "md", c.x), want)
				checkHTML(t, what+" html", render(t, c.r, "html", c.x), plain, want)
				checkJSON(t, what+" json", render(t, c.r, "json", c.x), h)
				checkCSV(t, what+" csv", render(t, c.r, "csv", c.x))
				for _, s := range pdfSample {
					if s == h {
						checkPDFText(t, pdftotext, what+" pdf", render(t, c.r, "pdf", c.x), h)
					}
				}
			}
		}
	}
}

func render(t *testing.T, r *report.Report, format string, x Extras) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, r, format, x); err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return buf.Bytes()
}

// checkJSON fails unless doc is a report whose nodes' provider reads back
// as h.
func checkJSON(t *testing.T, what string, doc []byte, h string) {
	t.Helper()
	var back report.Report
	if err := json.Unmarshal(doc, &back); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	for _, n := range back.Nodes {
		if n.Provider != h {
			t.Errorf("%s: provider %q, want %q", what, n.Provider, h)
		}
	}
}

// checkCSV fails on a cell a spreadsheet would run as a formula.
func checkCSV(t *testing.T, what string, doc []byte) {
	t.Helper()
	cr := csv.NewReader(bytes.NewReader(doc))
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	for i, rec := range recs {
		for _, c := range rec {
			if c != "" && strings.ContainsRune("=+-@\t\r", rune(strings.TrimLeft(c, " ")[0])) && !plainDecimal.MatchString(c) {
				t.Errorf("%s: record %d: cell %q would be run as a formula", what, i+1, c)
			}
		}
	}
}

// TestScorecardEveryFormatKeepsOutsideTextInert: the provider scorecard
// with every string of outsideMarkdown in every field from outside
// (poisonScorecard), in each of its formats: Markdown as checkMarkdown
// wants it, HTML with the harmless page's elements and attributes and the
// text as written, JSON that reads back with the text intact.
func TestScorecardEveryFormatKeepsOutsideTextInert(t *testing.T) {
	page := func(h, format string) []byte {
		sc := scorecardtest.Golden(t)
		poisonScorecard(sc, h)
		var b bytes.Buffer
		if err := RenderScorecard(&b, sc, format); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	plain := page("harmless name", "html")
	for _, h := range outsideMarkdown {
		what := fmt.Sprintf("scorecard %q", h)
		want := strings.Join(strings.Fields(h), " ")
		checkMarkdown(t, what+" md", page(h, "md"), want)
		checkHTML(t, what+" html", page(h, "html"), plain, want)
		var back scorecard.Scorecard
		if err := json.Unmarshal(page(h, "json"), &back); err != nil || len(back.Providers) == 0 || back.Providers[0].Provider != h {
			t.Errorf("%s json: %v", what, err)
		}
	}
}
