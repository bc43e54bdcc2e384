package bundle

import (
	"io"

	"github.com/gpusla/gpusla/functions/reportgen"
	"github.com/gpusla/gpusla/sla/report"
)

// Renderer renders reports (functions/reportgen) and writes evidence
// bundles for the application's monthly job (app.ReportRenderer).
type Renderer struct{}

// Render writes r in format.
func (Renderer) Render(w io.Writer, r *report.Report, format string) error {
	return reportgen.Render(w, r, format, reportgen.Extras{})
}

// Bundle writes the evidence zip and returns its chain head.
func (Renderer) Bundle(w io.Writer, r *report.Report, open func() (io.ReadCloser, error)) (string, error) {
	m, err := Write(w, r, open)
	if err != nil {
		return "", err
	}
	return m.ChainHead, nil
}
