package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"

	"github.com/gpusla/gpusla/functions/reportgen"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// reconcileBill reads the provider's bill (CSV: the node form or the full,
// itemized form of docs/bills.md, told apart by a kind column) and judges it
// against the report and the contracts' prices; a malformed line stops the
// report with its line and field named.
func reconcileBill(r *report.Report, termsFiles []string, path string) (reportgen.Extras, error) {
	var x reportgen.Extras
	data, err := os.ReadFile(path)
	if err != nil {
		return x, fmt.Errorf("--bill: %w", err)
	}
	head, _ := csv.NewReader(bytes.NewReader(data)).Read()
	if billing.IsItemized(head) {
		book := map[string]*terms.Terms{}
		for _, f := range termsFiles {
			ts, err := terms.ReadFile(f)
			if err != nil {
				return x, err
			}
			for _, t := range ts {
				book[t.Contract] = t
			}
		}
		items, err := billing.ParseItems(path, bytes.NewReader(data))
		if err != nil {
			return x, err
		}
		if x.Lines, err = billing.JudgeItems(r, book, items); err != nil {
			return x, err
		}
		if compute := billing.ComputeLines(items); len(compute) > 0 {
			x.Bill, err = billing.Reconcile(r, compute)
		}
		return x, err
	}
	lines, err := billing.ParseCSV(path, bytes.NewReader(data))
	if err != nil {
		return x, err
	}
	if x.Bill, err = billing.Reconcile(r, lines); err != nil {
		return x, err
	}
	x.Lines, err = billing.JudgeLines(r, lines)
	return x, err
}
