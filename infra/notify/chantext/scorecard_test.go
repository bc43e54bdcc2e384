package chantext

import (
	"strings"
	"testing"

	"github.com/gpusla/gpusla/sla/scorecard"
)

// The Slack comparison leads with what makes it unfair, and marks a
// figure unfinished cases can only raise.
func TestScorecardSaysItsWarningsAndBounds(t *testing.T) {
	v := 202.5
	sc := &scorecard.Scorecard{From: "2026-03", To: "2026-03", AsOf: "2026-04-05T00:00:00Z",
		Warnings:  []string{"providers are compared over different months: A 2026-03; B 2026-02"},
		Providers: []scorecard.Provider{{Provider: "A"}},
		Table: scorecard.Table{Columns: []scorecard.Column{{Key: "delivery.p90_hours", Dimension: "delivery", Title: "order to delivery, p90", Better: scorecard.Lower}},
			Rows: []scorecard.Row{{Provider: "A", Cells: []scorecard.Figure{{Value: &v, Unit: "h", N: 4, Machines: 4, MinN: 3, Censored: 1, Bound: scorecard.AtLeast, Rank: 1, Ranked: 1}}}}}}
	got := Scorecard(sc, SlackMax)
	for _, w := range []string{":warning: providers are compared over different months: A 2026-03; B 2026-02.\n", "A *#1*/1 ≥ 202.50 h (n=4, 1 unfinished)"} {
		if !strings.Contains(got, w) {
			t.Errorf("slack text lacks %q:\n%s", w, got)
		}
	}
}
