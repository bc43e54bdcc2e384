// Package scorecardgen renders the provider scorecard (sla/scorecard): JSON
// and Markdown are the domain's own; here is the self-contained ScorecardHTML scorecardPage,
// the comparison table and one inline SVG scorecardChart per dimension. The figures
// are computed only in sla/scorecard; here they are drawn.
package document

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpusla/gpusla/sla/scorecard"
)

// ScorecardFormats are the names RenderScorecard accepts.
var ScorecardFormats = []string{"json", "md", "html"}

// CheckScorecardFormat says whether RenderScorecard knows format, before any work is done.
func CheckScorecardFormat(format string) error {
	switch format {
	case "json", "md", "markdown", "html":
		return nil
	}
	return fmt.Errorf("--format %q: want one of %s", format, strings.Join(ScorecardFormats, ", "))
}

// RenderScorecard writes sc in format.
func RenderScorecard(w io.Writer, sc *scorecard.Scorecard, format string) error {
	if err := CheckScorecardFormat(format); err != nil {
		return err
	}
	switch format {
	case "json":
		return scorecard.JSON(w, sc)
	case "md", "markdown":
		return ScorecardMarkdown(w, sc)
	}
	return ScorecardHTML(w, sc)
}
