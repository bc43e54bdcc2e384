// Package document writes every document a person reads or files: the
// monthly SLA report with its claim pages, the provider scorecard, and
// their sections, in Markdown, CSV, a self-contained HTML page with charts
// that prints cleanly, and PDF (github.com/go-pdf/fpdf, with an embedded
// CJK font), in English or Chinese (sla/i18n). The JSON forms are the
// domain's own (report.JSON, scorecard.JSON); chat messages are
// infra/notify/chantext's and the status page is functions/statuspage's.
//
// Files are named <subject>_<medium>.go: report_md.go, report_html.go,
// report_pdf.go, report_csv.go; scorecard_md.go, scorecard_html.go,
// scorecard_pdf.go; report_<section>.go for the sections every medium
// of the report draws from report_sections.go's one layout. It is an
// adapter: the figures are computed only in sla/; here they are drawn.
//
// On the path of one observation (docs/architecture.md) this is step 11, the page: the report's
// rows drawn as the claim the renter files.
package document

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
)

// Formats are the names Render accepts.
var Formats = []string{"json", "md", "csv", "html", "pdf"}

// Extras are optional inputs a report can be rendered with.
type Extras struct {
	// Bill is the reconciliation of the provider's bill, if one was given.
	Bill *billing.Reconciliation
	// Lang is the language; empty means the contracts' report.lang when
	// they agree, else English.
	Lang i18n.Lang
	// BOM starts a CSV with the UTF-8 byte order mark (Excel).
	BOM bool
	// Lines is the bill judged line by line (a full bill's every line
	// item), shown in json, md and csv.
	Lines *billing.Full
	// Scorecard is the month's provider scorecard (sla/scorecard, built
	// from the same log), shown in json, md, html and pdf.
	Scorecard *scorecard.Scorecard
}

// Render writes r in format.
func Render(w io.Writer, r *report.Report, format string, x Extras) error {
	if format == "json" {
		// The documented form: the same keys in every language.
		if x.Lines == nil && x.Scorecard == nil {
			return report.JSON(w, r)
		}
		// The report's own fields stay where docs/reports.md puts them; the
		// bill and the scorecard are top-level fields of their own.
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(struct {
			*report.Report
			Bill      *billing.Full        `json:"bill_reconciliation,omitempty"`
			Scorecard *scorecard.Scorecard `json:"scorecard,omitempty"`
		}{r, x.Lines, x.Scorecard})
	}
	if !known(format) {
		return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
	}
	d, err := newDoc(r, x)
	if err != nil {
		return err
	}
	switch format {
	case "html":
		return writeHTML(w, d)
	case "pdf":
		return writePDF(w, r, d)
	case "csv":
		return writeCSV(w, r, d, x.BOM)
	}
	return writeMarkdown(w, d)
}

func known(format string) bool {
	for _, f := range append(Formats, "markdown") {
		if f == format {
			return true
		}
	}
	return false
}

// Ext is the file extension of a format.
func Ext(format string) string {
	if format == "markdown" {
		return "md"
	}
	return format
}
