package document

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/document/documenttest"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

// provisionalClaim is the claim month as of 20 November, ten days before
// it is over in the contract's zone.
func provisionalClaim(t *testing.T) *report.Report {
	t.Helper()
	tm, err := documenttest.Terms()
	if err != nil {
		t.Fatal(err)
	}
	return buildReport(t, tm, report.Options{Year: 2026, Month: time.November, AsOf: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)},
		"claim-month", documenttest.ClaimMonth().Events)
}

// TestProvisionalMonthSaysSoEverywhere: a month not over as of --as-of is
// marked "provisional, as of …" in the JSON, in the title and a banner of
// md and html, on every page of the PDF and in every CSV row, in both
// languages, and no claim letter is written; the finished month has
// neither the mark nor a missing letter.
func TestProvisionalMonthSaysSoEverywhere(t *testing.T) {
	r := provisionalClaim(t)
	if !r.Provisional || len(r.Contracts) == 0 || !r.Contracts[0].Provisional {
		t.Fatalf("report as of %s of 2026-11: provisional %v, contracts %+v", r.AsOf, r.Provisional, r.Contracts)
	}
	var js bytes.Buffer
	if err := Render(&js, r, "json", Extras{}); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Provisional bool   `json:"provisional"`
		AsOf        string `json:"as_of"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || !back.Provisional || back.AsOf != "2026-11-20T00:00:00Z" {
		t.Fatalf("json: %+v %v", back, err)
	}
	for lang, w := range map[i18n.Lang]struct{ mark, letter, banner string }{
		i18n.EN: {"provisional, as of 2026-11-20", "Claim for service credits", "this report holds no claim letter"},
		i18n.ZH: {"临时报告，截至2026年11月20日", "服务赔偿申请书", "本报告不附索赔函"},
	} {
		for _, format := range []string{"md", "html"} {
			var buf bytes.Buffer
			if err := Render(&buf, r, format, Extras{Lang: lang}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if !strings.Contains(out, w.mark) || !strings.Contains(out, w.banner) {
				t.Errorf("%s %s lacks %q or %q", lang, format, w.mark, w.banner)
			}
			if strings.Contains(out, w.letter) {
				t.Errorf("%s %s of a month not over holds a claim letter (%q)", lang, format, w.letter)
			}
		}
		var pdf bytes.Buffer
		if err := Render(&pdf, r, "pdf", Extras{Lang: lang}); err != nil {
			t.Fatal(err)
		}
		pages := strings.Split(strings.TrimRight(documenttest.PDFText(t, pdf.Bytes()), "\f\n"), "\f")
		if len(pages) < 2 {
			t.Fatalf("%s pdf: %d pages", lang, len(pages))
		}
		for i, pg := range pages {
			if !strings.Contains(pg, w.mark) {
				t.Errorf("%s pdf page %d does not say %q:\n%.300s", lang, i+1, w.mark, pg)
			}
			if strings.Contains(pg, w.letter) {
				t.Errorf("%s pdf page %d is a claim letter", lang, i+1)
			}
		}
		var csv bytes.Buffer
		if err := Render(&csv, r, "csv", Extras{Lang: lang}); err != nil {
			t.Fatal(err)
		}
		rows := strings.Split(strings.TrimSpace(csv.String()), "\n")
		for _, row := range rows[1 : 1+len(r.Nodes)] {
			if !strings.HasSuffix(row, ",2026-11-20T00:00:00Z") {
				t.Errorf("%s csv row does not carry the provisional as-of: %s", lang, row)
			}
		}
	}
	// The finished month: a letter, no mark.
	done := buildClaim(t)
	var md bytes.Buffer
	if err := Render(&md, done, "md", Extras{Lang: i18n.EN}); err != nil {
		t.Fatal(err)
	}
	if done.Provisional || strings.Contains(md.String(), "provisional") || !strings.Contains(md.String(), "Claim for service credits") {
		t.Errorf("the month as of %s: provisional %v, or its md lacks the letter", done.AsOf, done.Provisional)
	}
}

// TestFutureMonthRefused: a month that has not begun as of the as-of
// instant in a contract's zone is refused, naming the zone and when the
// month begins; the first instant of the month is accepted.
func TestFutureMonthRefused(t *testing.T) {
	tm, err := documenttest.Terms()
	if err != nil {
		t.Fatal(err)
	}
	// The month begins last in the westernmost zone given.
	start, zone := time.Time{}, ""
	for _, c := range tm {
		if s := time.Date(2026, 12, 1, 0, 0, 0, 0, c.Calendar.Loc); s.After(start) {
			start, zone = s, c.Calendar.Loc.String()
		}
	}
	_, err = report.NewBuilder(tm, report.Options{Year: 2026, Month: time.December, AsOf: start.Add(-time.Second)})
	if err == nil || !strings.Contains(err.Error(), "month 2026-12 has not begun") || !strings.Contains(err.Error(), zone) {
		t.Fatalf("a second before the month: %v", err)
	}
	if _, err := report.NewBuilder(tm, report.Options{Year: 2026, Month: time.December, AsOf: start}); err != nil {
		t.Fatalf("the month's first instant: %v", err)
	}
}
