package i18n_test

import (
	"testing"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/scorecard"
)

func v(x float64) *float64 { return &x }

// Each kind of cell in both languages: a small share keeps two decimals, a
// too-few figure names its minimum and has no rank, nothing measured is a
// dash with its n.
func TestCells(t *testing.T) {
	en, zh := i18n.New(i18n.EN), i18n.New(i18n.ZH)
	for _, c := range []struct {
		f                          scorecard.Figure
		en, enRank, zhCell, zhRank string
	}{
		{scorecard.Figure{Value: v(0.0029), Unit: "share", N: 3, MinN: 3, Rank: 2, Ranked: 2}, "0.29 % (n=3)", "#2 of 2", "0.29 %（n=3）", "第2 / 2名"},
		{scorecard.Figure{Value: v(0.5), Unit: "share", N: 6, MinN: 3, Rank: 1, Ranked: 2}, "50.0 % (n=6)", "#1 of 2", "50.0 %（n=6）", "第1 / 2名"},
		{scorecard.Figure{Value: v(40), Unit: "min", N: 1, MinN: 3, TooFew: true}, "40.0 min (too few: n=1 < 3)", "–", "40.0 min（观测过少：n=1 < 3）", "–"},
		{scorecard.Figure{Value: v(39.75), Unit: "min per node-month", N: 3, MinN: 3, Rank: 2, Ranked: 2}, "39.75 min per node-month (n=3)", "#2 of 2", "39.75分钟/节点月（n=3）", "第2 / 2名"},
		{scorecard.Figure{Unit: "ms", N: 0, MinN: 10}, "– (n=0)", "–", "–（n=0）", "–"},
		// The MTTR minimum counts closed incidents: 4, of which 2 open.
		{scorecard.Figure{Value: v(3), Unit: "h", N: 4, Censored: 2, Bound: scorecard.AtLeast, MinN: 3, MinFinished: true, Machines: 3, TooFew: true},
			"≥ 3.00 h (too few: 2 finished of n=4 < 3)", "–", "≥ 3.00 h（已完成的观测过少：仅2个已完成（n=4）< 3）", "–"},
	} {
		if got := en.FigureCell(c.f); got != c.en {
			t.Errorf("en cell %q, want %q", got, c.en)
		}
		if got := en.FigureRank(c.f); got != c.enRank {
			t.Errorf("en rank %q, want %q", got, c.enRank)
		}
		if got := zh.FigureCell(c.f); got != c.zhCell {
			t.Errorf("zh cell %q, want %q", got, c.zhCell)
		}
		if got := zh.FigureRank(c.f); got != c.zhRank {
			t.Errorf("zh rank %q, want %q", got, c.zhRank)
		}
		if c.f.MinFinished {
			if got := i18n.PlainCell(c.f); got != c.en {
				t.Errorf("plain cell %q, want %q", got, c.en)
			}
		}
	}
	if zh.Dimension("network") != "网络稳定性" || en.Dimension("network") != "network stability" {
		t.Errorf("network: %q / %q", en.Dimension("network"), zh.Dimension("network"))
	}
	if en.ScorecardTitle("2026-03", "2026-03") != "Provider scorecard March 2026" || en.ScorecardTitle("2026-01", "2026-03") != "Provider scorecard January 2026 to March 2026" {
		t.Errorf("titles %q, %q", en.ScorecardTitle("2026-03", "2026-03"), en.ScorecardTitle("2026-01", "2026-03"))
	}
}
