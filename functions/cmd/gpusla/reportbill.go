package main

import (
	"fmt"
	"os"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/report"
)

// reconcileBill reads the provider's bill (CSV) and compares it with the
// report; a malformed line stops the report with its line and field named.
func reconcileBill(r *report.Report, path string) (*billing.Reconciliation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--bill: %w", err)
	}
	defer f.Close()
	lines, err := billing.ParseCSV(path, f)
	if err != nil {
		return nil, err
	}
	return billing.Reconcile(r, lines)
}
