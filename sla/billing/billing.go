// Package billing reconciles the provider's bill with the month's report:
// what was billed for each node against what the contract says should be
// billed (its price and billing granularity: per-second or rounded up to the
// hour) and against the hours the node was actually usable.
//
// The bill is a CSV file the renter exports from the provider's console or
// types in; ParseCSV reads it strictly and names the line and field of
// anything it cannot use, so a reconciliation is never built on a misread bill.
//
// On the path from an observation to a report row, this is the step after
// the report: the month's report rows held to the provider's bill.
package billing

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
)

// Line is one line of the provider's bill: a node's charge for a period.
type Line struct {
	Line   int    // line number in the file (1 is the header)
	Node   string // node id as the report knows it
	Period string // YYYY-MM
	// Hours is the billed node-hours (a node of 8 GPUs billed for a day is
	// 24); HasHours says the column was present and filled.
	Hours    float64
	HasHours bool
	Amount   float64
	HasAmt   bool
	Currency string
	// Parts are the bill lines this one sums (ComputeLines: a node's GPU
	// time split over several lines, judged together as one charge); nil
	// for a line of its own.
	Parts []Line
}

// Columns the bill may have; node, period and one of billed_hours or
// amount are required.
var columns = []string{"node", "period", "billed_hours", "amount", "currency"}

// maxLines bounds a bill: a renter with more than this many node-months in
// one file has split it wrong, and a runaway file must not exhaust memory.
const maxLines = 100000

// ParseCSV reads a bill. name is used in error messages (the file name).
// The first line is a header naming the columns, in any order; unknown
// columns are an error (a typo would otherwise silently drop a figure).
func ParseCSV(name string, r io.Reader) ([]Line, error) {
	t, err := openTable(name, r, columns, []string{"node", "period"})
	if err != nil {
		return nil, err
	}
	col := t.col
	_, hasH := col["billed_hours"]
	_, hasA := col["amount"]
	if !hasH && !hasA {
		return nil, fmt.Errorf("%s:1: header needs a billed_hours or an amount column (have %s)", name, strings.Join(t.head, ","))
	}
	var out []Line
	seen := map[string]int{}
	err = t.each(func(rec []string, line int) error {
		get := func(c string) (string, bool) {
			i, ok := col[c]
			if !ok {
				return "", false
			}
			return strings.TrimSpace(rec[i]), true
		}
		l := Line{Line: line}
		l.Node, _ = get("node")
		if l.Node == "" {
			return fmt.Errorf("%s:%d: field node: empty", name, line)
		}
		l.Period, _ = get("period")
		if _, err := time.Parse("2006-01", l.Period); err != nil {
			return fmt.Errorf("%s:%d: field period: %q is not a month (want YYYY-MM)", name, line, l.Period)
		}
		if v, ok := get("billed_hours"); ok && v != "" {
			f, err := number(v)
			if err != nil {
				return fmt.Errorf("%s:%d: field billed_hours: %q %v", name, line, v, err)
			}
			l.Hours, l.HasHours = f, true
		}
		if v, ok := get("amount"); ok && v != "" {
			f, err := number(v)
			if err != nil {
				return fmt.Errorf("%s:%d: field amount: %q %v", name, line, v, err)
			}
			l.Amount, l.HasAmt = f, true
		}
		if !l.HasHours && !l.HasAmt {
			return fmt.Errorf("%s:%d: fields billed_hours and amount are both empty; give at least one", name, line)
		}
		l.Currency, _ = get("currency")
		key := l.Node + "\x00" + l.Period
		if prev, dup := seen[key]; dup {
			return fmt.Errorf("%s:%d: node %s, period %s is billed again (first on line %d)", name, line, l.Node, l.Period, prev)
		}
		seen[key] = line
		out = append(out, l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func csvErr(name string, err error) error {
	if be, ok := asBound(err); ok {
		return be
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: column %d: %v", name, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// number parses a non-negative decimal; a thousands separator or a
// currency sign is refused rather than guessed at.
func number(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errors.New("is not a plain decimal number (no currency sign, no thousands separator)")
	}
	if f < 0 {
		return 0, errors.New("is negative")
	}
	return f, nil
}

// Status of one node's reconciliation.
const (
	StatusMatches     = "matches"      // billed what the contract says, within a second / a cent
	StatusOverBilled  = "over_billed"  // billed more than the contract allows
	StatusUnderBilled = "under_billed" // billed less (reported, not a claim)
	StatusNotInReport = "not_in_report"
	StatusNotBilled   = "not_on_bill"
)

// Row is one node's reconciliation. Hours are node-hours.
type Row struct {
	Node     string `json:"node"`
	Contract string `json:"contract,omitempty"`
	BillLine int    `json:"bill_line,omitempty"`
	// BillLines are the lines a node's GPU time is split over, judged
	// together as one charge (Line.Parts); BillLine is the first.
	BillLines []int  `json:"bill_lines,omitempty"`
	Currency  string `json:"currency,omitempty"`
	// What the provider billed.
	BilledHours  *float64 `json:"billed_hours,omitempty"`
	BilledAmount *float64 `json:"billed_amount,omitempty"`
	// What the contract says: the billing period's exact length, the same
	// rounded to the contract's granularity, and its price.
	ExactHours         float64 `json:"exact_hours"`
	ContractHours      float64 `json:"contract_hours"`
	GranularitySeconds int64   `json:"granularity_seconds"`
	RoundingHours      float64 `json:"rounding_hours"` // contract − exact: what the granularity costs
	ContractAmount     float64 `json:"contract_amount"`
	// What was usable: in service and not in a counted outage.
	UsableHours  float64 `json:"usable_hours"`
	UsableAmount float64 `json:"usable_amount"` // usable hours at the contract price
	// Differences: billed − contract, billed − usable.
	OverHours      float64 `json:"over_contract_hours"`
	OverAmount     float64 `json:"over_contract_amount"`
	UnusableBilled float64 `json:"billed_not_usable_hours"`
	UnusableAmount float64 `json:"billed_not_usable_amount"`
	Status         string  `json:"status"`
	Note           string  `json:"note,omitempty"`
	// Notes are Note's sentences for people, in their language.
	Notes []msg.Text `json:"-"`
}

// Reconciliation is the whole bill against the report.
type Reconciliation struct {
	Month string `json:"month"`
	Rows  []Row  `json:"rows"`
	// Totals by currency.
	OverAmount     map[string]float64 `json:"over_contract_amount"`
	UnusableAmount map[string]float64 `json:"billed_not_usable_amount"`
}

// Tolerances: a bill is compared to the second and to the cent.
const (
	hourTol  = 1.0 / 3600
	moneyTol = 0.005
)

// Reconcile compares the bill's lines for the report's month with the
// report. A line for another month is an error naming its line: the bill
// and the report must be about the same month.
func Reconcile(r *report.Report, lines []Line) (*Reconciliation, error) {
	rc := &Reconciliation{Month: r.Month, Rows: []Row{}, OverAmount: map[string]float64{}, UnusableAmount: map[string]float64{}}
	byNode := map[string]*report.Node{}
	for i := range r.Nodes {
		byNode[r.Nodes[i].Node] = &r.Nodes[i]
	}
	billed := map[string]bool{}
	for _, l := range lines {
		if l.Period != r.Month {
			return nil, fmt.Errorf("bill line %d: field period: %s is not the report's month %s", l.Line, l.Period, r.Month)
		}
		n, ok := byNode[l.Node]
		if !ok {
			row := Row{Node: l.Node, BillLine: l.Line, Currency: l.Currency, Status: StatusNotInReport,
				Note: "the bill charges a node the report does not know"}
			if l.HasHours {
				row.BilledHours = ptr(l.Hours)
			}
			if l.HasAmt {
				row.BilledAmount = ptr(l.Amount)
			}
			rc.Rows = append(rc.Rows, row)
			continue
		}
		if l.Currency != "" && !strings.EqualFold(l.Currency, n.Currency) {
			return nil, fmt.Errorf("bill line %d: field currency: %s, but contract %s is in %s", l.Line, l.Currency, n.Contract, n.Currency)
		}
		billed[l.Node] = true
		row := base(n)
		row.BillLine = l.Line
		var notes []msg.Text
		for _, p := range l.Parts {
			row.BillLines = append(row.BillLines, p.Line)
		}
		if l.HasHours {
			row.BilledHours = ptr(l.Hours)
			row.OverHours = round6(l.Hours - row.ContractHours)
			row.UnusableBilled = round6(math.Max(0, l.Hours-row.UsableHours))
			if row.OverHours > hourTol {
				notes = append(notes, msg.New("billed %s h, the contract allows %s h", fh(l.Hours), fh(row.ContractHours)))
			}
		}
		perHour := n.Billing.PricePerGPUHour * float64(n.Billing.GPUs)
		if l.HasAmt {
			row.BilledAmount = ptr(l.Amount)
			row.OverAmount = money(l.Amount - row.ContractAmount)
			row.UnusableAmount = money(math.Max(0, l.Amount-row.UsableAmount))
			if row.OverAmount > moneyTol {
				notes = append(notes, msg.New("charged %.2f %s, the contract price gives %.2f", l.Amount, n.Currency, row.ContractAmount))
			}
		} else {
			// Hours only: price them at the contract rate.
			row.OverAmount = money(row.OverHours * perHour)
			row.UnusableAmount = money(row.UnusableBilled * perHour)
		}
		switch {
		case row.OverHours > hourTol || row.OverAmount > moneyTol:
			row.Status = StatusOverBilled
		case row.OverHours < -hourTol || row.OverAmount < -moneyTol:
			row.Status = StatusUnderBilled
		default:
			row.Status = StatusMatches
		}
		// Advertised per second (or minute), billed by the hour: the billed
		// hours are the exact period rounded up to a whole hour.
		if l.HasHours && row.OverHours > hourTol && row.GranularitySeconds < 3600 &&
			l.Hours == math.Ceil(row.ExactHours-hourTol) && math.Abs(l.Hours-row.ExactHours) > hourTol {
			notes = append(notes, msg.New("the bill rounds the %s h period up to whole hours; the contract bills per %s", fh(row.ExactHours), time.Duration(row.GranularitySeconds)*time.Second))
		}
		if row.RoundingHours > hourTol {
			notes = append(notes, msg.New("rounding to %s adds %s h", time.Duration(row.GranularitySeconds)*time.Second, fh(row.RoundingHours)))
		}
		row.Note, row.Notes = strings.Join(msg.Strings(notes), "; "), notes
		if row.Status == StatusOverBilled && row.OverAmount > 0 {
			rc.OverAmount[n.Currency] = money(rc.OverAmount[n.Currency] + row.OverAmount)
		}
		rc.UnusableAmount[n.Currency] = money(rc.UnusableAmount[n.Currency] + row.UnusableAmount)
		rc.Rows = append(rc.Rows, row)
	}
	for i := range r.Nodes {
		n := &r.Nodes[i]
		if !billed[n.Node] && n.Billing.BilledSeconds > 0 {
			row := base(n)
			notBilled := msg.New("the report has charges for this node but the bill has no line")
			row.Status, row.Note, row.Notes = StatusNotBilled, notBilled.String(), []msg.Text{notBilled}
			rc.Rows = append(rc.Rows, row)
		}
	}
	sort.SliceStable(rc.Rows, func(i, j int) bool { return rc.Rows[i].Node < rc.Rows[j].Node })
	return rc, nil
}

func base(n *report.Node) Row {
	b := n.Billing
	var exact float64
	if from, err := time.Parse(time.RFC3339, b.From); err == nil {
		if to, err := time.Parse(time.RFC3339, b.To); err == nil {
			// Clock hours the contract does not charge (AWS's six
			// minutes) are out of the exact time too: a correct invoice
			// leaves them out.
			exact = (to.Sub(from) - time.Duration(b.UnchargedSeconds)*time.Second).Hours()
		}
	}
	perHour := b.PricePerGPUHour * float64(b.GPUs)
	usable := float64(b.UsableSeconds) / 3600
	contract := float64(b.BilledSeconds) / 3600
	return Row{Node: n.Node, Contract: n.Contract, Currency: n.Currency, ExactHours: round6(exact), ContractHours: round6(contract),
		GranularitySeconds: b.GranularitySeconds, RoundingHours: round6(contract - exact), ContractAmount: b.Charge,
		UsableHours: round6(usable), UsableAmount: money(usable * perHour)}
}

func ptr(f float64) *float64 { return &f }

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func money(v float64) float64 { return math.Round(v*100) / 100 }

func fh(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
