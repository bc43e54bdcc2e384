package bundle

import (
	"io"
	"time"

	"github.com/gpusla/gpusla/functions/document"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
)

// Renderer renders reports and scorecards (functions/document) and writes
// evidence bundles for the application's monthly job
// (app.ReportRenderer).
type Renderer struct{}

// Render writes r in format; sc (nil: none) is its provider scorecard
// section in the documents people read (md, html, pdf). The json stays
// the documented report form and the csv one row per node: the scorecard
// has its own files beside them.
func (Renderer) Render(w io.Writer, r *report.Report, format string, sc *scorecard.Scorecard) error {
	var x document.Extras
	if format == "md" || format == "html" || format == "pdf" {
		x.Scorecard = sc
	}
	return document.Render(w, r, format, x)
}

// RenderScorecard writes sc in format: json, md and html as `gpusla
// scorecard` writes them, pdf in lang.
func (Renderer) RenderScorecard(w io.Writer, sc *scorecard.Scorecard, format string, lang i18n.Lang) error {
	if format == "pdf" {
		return document.ScorecardPDF(w, sc, lang)
	}
	return document.RenderScorecard(w, sc, format)
}

// Bundle writes the evidence zip and returns its chain head.
func (Renderer) Bundle(w io.Writer, r *report.Report, open func() (io.ReadCloser, error)) (string, error) {
	m, err := Write(w, r, open)
	if err != nil {
		return "", err
	}
	return m.ChainHead, nil
}

// FollowUp writes the follow-up letter on a claim (document.FollowUpLetter)
// for the report job's claim alerts.
func (Renderer) FollowUp(w io.Writer, c claims.Claim, st claims.Status, d claims.Deadlines, renter, contractNumber string, date time.Time, lang i18n.Lang) error {
	return document.FollowUpLetter(w, document.FollowUp{Claim: c, Status: st, Deadlines: d, Renter: renter, ContractNumber: contractNumber, Date: date}, lang)
}
