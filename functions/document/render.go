// Package reportgen renders the monthly SLA report (sla/report) in every
// format the renter needs: the documented JSON, Markdown for Slack and mail,
// CSV for spreadsheets, a self-contained HTML page with charts that prints
// cleanly, and a PDF (github.com/go-pdf/fpdf) with an embedded CJK font.
// Every human format opens with the claim page of each contract and is
// written in English or Chinese (sla/i18n). It is an adapter: the
// report's figures are computed only in sla/report; here they are drawn.
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
		// The report's own fields stay where docs/report.md puts them; the
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
