package document

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/sla/scorecard"
)

func fp(x float64) *float64 { return &x }

func scorecardSample() *scorecard.Scorecard {
	good := scorecard.Figure{Value: fp(0.5), Unit: "h", N: 4, MinN: 3, Better: scorecard.Lower, Rank: 1, Ranked: 1}
	few := scorecard.Figure{Value: fp(9), Unit: "h", N: 1, MinN: 3, Better: scorecard.Lower, TooFew: true}
	return &scorecard.Scorecard{Schema: scorecard.Schema, From: "2026-03", To: "2026-03",
		Providers: []scorecard.Provider{{Provider: "<b>Evil</b> & Co"}, {Provider: "Fine"}},
		Table: scorecard.Table{Columns: []scorecard.Column{{Key: "delivery.p90_hours", Dimension: "delivery", Title: "order to delivery, p90", Unit: "h", Better: scorecard.Lower}},
			Rows: []scorecard.Row{{Provider: "<b>Evil</b> & Co", Cells: []scorecard.Figure{few}}, {Provider: "Fine", Cells: []scorecard.Figure{good}}}}}
}

func TestHTMLChartsEveryDimensionAndEscapes(t *testing.T) {
	var b bytes.Buffer
	if err := RenderScorecard(&b, scorecardSample(), "html"); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, w := range []string{"<svg", "too few: n=1 &lt; 3", "#1/1 0.50 h", "&lt;b&gt;Evil&lt;/b&gt; &amp; Co", `class="rank1"`} {
		if !strings.Contains(s, w) {
			t.Errorf("html lacks %q", w)
		}
	}
	if strings.Contains(s, "<b>Evil</b>") {
		t.Error("a provider's name went into the page unescaped")
	}
}

func TestRenderFormats(t *testing.T) {
	for _, f := range []string{"json", "md"} {
		var b bytes.Buffer
		if err := RenderScorecard(&b, scorecardSample(), f); err != nil || b.Len() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if err := RenderScorecard(&bytes.Buffer{}, scorecardSample(), "pdf"); err == nil || !strings.Contains(err.Error(), `--format "pdf": want one of json, md, html`) {
		t.Errorf("unknown format: %v", err)
	}
}

// The page says what makes a comparison unfair and marks unfinished
// cases: a warning above the table, "≥" on a figure unfinished cases can
// only raise, and a figure on one machine marked too few with why.
func TestHTMLShowsWarningsBoundsAndMachines(t *testing.T) {
	sc := scorecardSample()
	sc.Warnings = []string{"providers are compared over different months: Fine 2026-03; Other 2026-02"}
	open := scorecard.Figure{Value: fp(202.5), Unit: "h", N: 4, Machines: 4, MinN: 3, Better: scorecard.Lower, Censored: 1, Bound: scorecard.AtLeast, Rank: 1, Ranked: 1}
	lone := scorecard.Figure{Value: fp(2), Unit: "h", N: 3, Machines: 1, MinN: 3, Better: scorecard.Lower, TooFew: true}
	sc.Table.Rows[0].Cells, sc.Table.Rows[1].Cells = []scorecard.Figure{lone}, []scorecard.Figure{open}
	var b bytes.Buffer
	if err := RenderScorecard(&b, sc, "html"); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, w := range []string{`<p class="warning"><b>Warning:</b> providers are compared over different months`, "#1/1 ≥ 202.50 h", "n=4, 1 unfinished",
		"too few: 1 machines &lt; 3"} {
		if !strings.Contains(s, w) {
			t.Errorf("html lacks %q", w)
		}
	}
	b.Reset()
	if err := RenderScorecard(&b, sc, "md"); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"> **Warning:** providers are compared over different months", "**#1**/1 ≥ 202.50 h (n=4, 1 unfinished)", "2.00 h (too few: n=3 on 1 machines < 3)"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("markdown lacks %q", w)
		}
	}
}
