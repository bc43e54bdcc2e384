// Package reportgen renders the monthly SLA report (sla/report) in every
// format the renter needs: the documented JSON, Markdown for Slack and CSV
// (delegated to sla/report), a self-contained HTML page with charts that
// prints cleanly, and a PDF (github.com/go-pdf/fpdf). It is an adapter: the
// report's figures are computed only in sla/report; here they are drawn.
package reportgen

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/report"
)

// Formats are the names Render accepts.
var Formats = []string{"json", "md", "csv", "html", "pdf"}

// Render writes r in format.
func Render(w io.Writer, r *report.Report, format string, x Extras) error {
	switch format {
	case "html":
		return HTML(w, r, x)
	case "pdf":
		return PDF(w, r, x)
	case "json":
		if x.Lines == nil {
			return report.JSON(w, r)
		}
		// The report's own fields stay where docs/report.md puts them; the
		// bill is one more top-level field.
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(struct {
			*report.Report
			Bill *billing.Full `json:"bill_reconciliation"`
		}{r, x.Lines})
	case "md", "markdown", "csv":
		if err := report.Render(w, r, format); err != nil || x.Lines == nil {
			return err
		}
		if format == "csv" {
			return x.Lines.CSV(w)
		}
		return x.Lines.Markdown(w)
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

// Ext is the file extension of a format.
func Ext(format string) string {
	if format == "markdown" {
		return "md"
	}
	return format
}
