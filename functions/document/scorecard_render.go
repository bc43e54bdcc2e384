package document

// The provider scorecard (sla/scorecard) in the formats `gpusla scorecard`
// writes: its JSON is the domain's own, Markdown (scorecard_md.go) and the
// self-contained HTML page with one inline SVG chart per dimension
// (scorecard_html.go) are here; the PDF (scorecard_pdf.go) is drawn as the
// report's is.

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
