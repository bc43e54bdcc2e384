package document

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/golden"
	"github.com/gpusla/gpusla/sla/scorecard/scorecardtest"
)

// The golden two-provider scorecard (sla/scorecard's scenario, figures
// worked by hand there) as `gpusla scorecard --format md` writes it.
func TestScorecardMarkdownGolden(t *testing.T) {
	var md bytes.Buffer
	if err := ScorecardMarkdown(&md, scorecardtest.Golden(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "scorecard-two-providers.md", md.Bytes())
}

func TestMarkdownShowsRanksAndTooFew(t *testing.T) {
	var md bytes.Buffer
	if err := ScorecardMarkdown(&md, scorecardtest.Golden(t)); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	for _, w := range []string{
		"| Alpha | **#2**/2 2.60 h (n=3) |", // delivery p90
		"40.0 min (too few: n=1 < 3)",       // Alpha's one off-hours ticket
		"## Fleet baselines",                // the fleet section
		"**b3** from 2026-03-02 03:00Z (still slow at its last run): slower than its siblings",
		"Not ranked for too few observations: ",
	} {
		if !strings.Contains(s, w) {
			t.Errorf("markdown lacks %q:\n%s", w, s)
		}
	}
}
