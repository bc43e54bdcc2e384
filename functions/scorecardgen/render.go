// Package scorecardgen renders the provider scorecard (sla/scorecard): JSON
// and Markdown are the domain's own; here is the self-contained HTML page,
// the comparison table and one inline SVG chart per dimension. The figures
// are computed only in sla/scorecard; here they are drawn.
package scorecardgen

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpusla/gpusla/sla/scorecard"
)

// Formats are the names Render accepts.
var Formats = []string{"json", "md", "html"}

// CheckFormat says whether Render knows format, before any work is done.
func CheckFormat(format string) error {
	switch format {
	case "json", "md", "markdown", "html":
		return nil
	}
	return fmt.Errorf("--format %q: want one of %s", format, strings.Join(Formats, ", "))
}

// Render writes sc in format.
func Render(w io.Writer, sc *scorecard.Scorecard, format string) error {
	if err := CheckFormat(format); err != nil {
		return err
	}
	switch format {
	case "json":
		return scorecard.JSON(w, sc)
	case "md", "markdown":
		return scorecard.Markdown(w, sc)
	}
	return HTML(w, sc)
}
