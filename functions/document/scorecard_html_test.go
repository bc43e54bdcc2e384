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
