package billing

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Markdown writes the full bill's judgment as a section of the report.
func (f *Full) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Bill reconciliation %s\n\n", f.Month)
	for _, cur := range currencies(f.Billed) {
		fmt.Fprintf(&b, "- %s: billed %.2f; over-billed **%.2f**; %.2f on lines that cannot be verified\n", cur, f.Billed[cur], f.OverBilled[cur], f.Unverified[cur])
	}
	b.WriteString("\n| line | node | kind | quantity | billed | expected | verdict | why | evidence needed |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, j := range f.Items {
		exp := "—"
		if j.Expected != nil {
			exp = fmt.Sprintf("%.2f", *j.Expected)
		}
		verdict := j.Verdict
		if j.Verdict == VerdictOverBilled {
			verdict = fmt.Sprintf("**over-billed by %.2f %s**", j.Over, j.Currency)
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %.2f %s | %s | %s | %s | %s |\n", j.Line, cell(j.Node), j.Kind, fh(j.Quantity), j.Billed, j.Currency,
			exp, verdict, cell(j.Why), cell(j.Needed))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CSV writes one row per bill line, after a blank line, as a second table.
func (f *Full) CSV(w io.Writer) error {
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"bill_line", "node", "kind", "quantity", "billed_amount", "currency", "expected_amount", "over_amount", "verdict", "why", "evidence_needed"}); err != nil {
		return err
	}
	for _, j := range f.Items {
		exp := ""
		if j.Expected != nil {
			exp = strconv.FormatFloat(*j.Expected, 'f', 2, 64)
		}
		if err := cw.Write([]string{strconv.Itoa(j.Line), j.Node, j.Kind, fh(j.Quantity), strconv.FormatFloat(j.Billed, 'f', 2, 64), j.Currency,
			exp, strconv.FormatFloat(j.Over, 'f', 2, 64), j.Verdict, j.Why, j.Needed}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func currencies(m map[string]float64) []string {
	var out []string
	for c := range m {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ") }
