package document

import (
	"encoding/csv"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/report"
)

// BOM is the UTF-8 byte order mark; Excel reads a CSV file as UTF-8 only
// when it starts with one (otherwise, in a Chinese locale, as GBK).
const BOM = "\ufeff"

// writeCSV writes one row per node, for spreadsheets. In English the header is
// the documented machine names and the words are machine words
// (docs/reports.md); in another language the sheet is for the people who
// open it, so the header and the words (a status, yes or no, a verdict)
// are translated alike. Numbers and times stay plain in every language (no
// digit grouping, RFC 3339 times) so a spreadsheet reads numbers as numbers.
func writeCSV(w io.Writer, r *report.Report, d *doc, bom bool) error {
	if bom {
		if _, err := io.WriteString(w, BOM); err != nil {
			return err
		}
	}
	cw := sheet{csv.NewWriter(w)}
	head := []string{"month", "contract", "provider", "node", "gpu_model", "gpus", "period_seconds", "excluded_seconds",
		"uptime_target_percent", "uptime_observed_percent", "uptime_claimable_percent", "observed_outage_seconds",
		"claimable_outage_seconds", "outages", "tickets", "tickets_breached", "delivery_status", "delivery_seconds",
		"charge", "credit_percent", "credit_capped", "claim", "currency", "claim_deadline", "downtime_credit", "provisional_as_of"}
	if err := cw.row(csvHead(d, head)); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	// A node with no uptime figure (not in service) has an empty cell,
	// never a number.
	opt := func(v *float64) string {
		if v == nil {
			return ""
		}
		return f(*v)
	}
	// A row of a month not over as of the as-of instant says so in every
	// row: a spreadsheet's rows are read one by one.
	provisional := map[string]string{}
	for _, c := range r.Contracts {
		if c.Provisional {
			provisional[c.Contract] = r.AsOf
		}
	}
	for k := range r.Nodes {
		n := &r.Nodes[k]
		row := []string{r.Month, n.Contract, n.Provider, n.Node, n.Hardware.GPUModel, strconv.Itoa(n.Hardware.GPUCount),
			i(n.Period.Seconds), i(n.Period.ExcludedSeconds), f(n.Uptime.TargetPercent), opt(n.Uptime.ObservedPercent),
			opt(n.Uptime.ClaimablePercent), i(n.Uptime.ObservedOutageSeconds), i(n.Uptime.ClaimableOutageSeconds),
			strconv.Itoa(len(n.Outages)), strconv.Itoa(len(n.Tickets)), strconv.Itoa(breached(n)), csvWord(d, n.Delivery.Status),
			i(n.Delivery.Seconds), strconv.FormatFloat(n.Billing.Charge, 'f', 2, 64), f(n.Credit.Percent),
			csvBool(d, n.Credit.Capped), strconv.FormatFloat(n.Credit.Amount, 'f', 2, 64), n.Currency, n.ClaimDeadline,
			strconv.FormatFloat(n.Credit.DowntimeAmount, 'f', 2, 64), provisional[n.Contract]}
		if err := cw.row(row); err != nil {
			return err
		}
	}
	if d.Full != nil {
		if err := csvLines(w, cw, d); err != nil {
			return err
		}
	}
	if err := csvRetro(w, cw, d, r.Retroactive); err != nil {
		return err
	}
	if err := csvLeftOut(w, cw, d, r.LeftOut); err != nil {
		return err
	}
	if err := csvSources(w, cw, d, r.Contracts); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// sheet is a csv.Writer that writes every cell through sheetCell, so no
// cell of any table of the file can be read as a formula, whoever wrote
// the text in it.
type sheet struct{ *csv.Writer }

func (s sheet) row(cells []string) error {
	safe := make([]string, len(cells))
	for i, c := range cells {
		safe[i] = sheetCell(c)
	}
	return s.Write(safe)
}

// sheetCell neutralises a cell a spreadsheet would run as a formula, by
// OWASP's rule for CSV injection: a cell whose first character (after any
// spaces, which a spreadsheet may skip) is =, +, -, @, a tab or a carriage
// return gets a leading ', which makes the cell text. A bill's node id
// "=HYPERLINK(…)" or "@SUM(…)" is then shown as written, never evaluated.
// A plain decimal number (-12.50, the sign and digits only) is left as it
// is: it cannot be a formula, and gpusla's own negative amounts (a
// credit's) must stay numbers a spreadsheet adds up.
func sheetCell(s string) string {
	t := strings.TrimLeft(s, " ")
	if t == "" || !strings.ContainsRune("=+-@\t\r", rune(t[0])) || plainDecimal.MatchString(s) {
		return s
	}
	return "'" + s
}

// plainDecimal is a number as gpusla writes it (strconv's 'f' format).
var plainDecimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// csvWord is a machine word in English, its translation otherwise.
func csvWord(d *doc, w string) string {
	if d.P.Lang == "en" {
		return w
	}
	return d.P.Word(w)
}

func csvBool(d *doc, b bool) string {
	if d.P.Lang == "en" {
		return strconv.FormatBool(b)
	}
	return d.P.Yes(b)
}

// csvRetro writes the retroactive records as a table of their own, after
// a blank line: machine values, the effect translated.
func csvRetro(w io.Writer, cw sheet, d *doc, rs report.Retroactive) error {
	cw.Flush()
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	head := []string{"retroactive_record", "node", "kind", "ticket", "claimed_at", "recorded_at", "recorded_by", "late_seconds",
		"override", "honoured", "at_stake_seconds", "effect"}
	if err := cw.row(csvHead(d, head)); err != nil {
		return err
	}
	for _, x := range rs.Records {
		effect := x.Effect
		if d.P.Lang != "en" {
			effect = d.P.Text(x.EffectText)
		}
		if err := cw.row([]string{x.ID, x.Node, x.Kind, x.Ticket, x.ClaimedAt, x.RecordedAt, x.RecordedBy, strconv.FormatInt(x.LateSeconds, 10),
			x.Override, csvBool(d, x.Honoured), strconv.FormatInt(x.AtStakeSeconds, 10), effect}); err != nil {
			return err
		}
	}
	return nil
}

// csvHead is the header in the document's language: the machine names in
// English, their translation otherwise.
func csvHead(d *doc, head []string) []string {
	if d.P.Lang == "en" {
		return head
	}
	out := make([]string, len(head))
	for i, h := range head {
		out[i] = d.P.T("csv:" + h)
	}
	return out
}

// csvLines writes the bill judged line by line as a second table, after a
// blank line: one row per bill line, machine values, sentences translated.
func csvLines(w io.Writer, cw sheet, d *doc) error {
	cw.Flush()
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	head := []string{"bill_line", "node", "kind", "quantity", "billed_amount", "currency", "expected_amount", "over_amount", "verdict", "why", "evidence_needed"}
	if err := cw.row(csvHead(d, head)); err != nil {
		return err
	}
	money := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	for _, j := range d.Full.Items {
		// English keeps the JSON's own sentences, number for number.
		why, needed := j.Why, j.Needed
		if d.P.Lang != "en" {
			why, needed = d.P.Texts(j.WhyText), d.P.Text(j.NeededText)
		}
		exp := ""
		if j.Expected != nil {
			exp = money(*j.Expected)
		}
		if err := cw.row([]string{strconv.Itoa(j.Line), j.Node, j.Kind, strconv.FormatFloat(j.Quantity, 'f', -1, 64), money(j.Billed), j.Currency,
			exp, money(j.Over), csvWord(d, j.Verdict), why, needed}); err != nil {
			return err
		}
	}
	// Rows of an imported bill that were read but not judged, one row per
	// reason, so the file's total is accounted for.
	for _, l := range d.Full.LeftOut {
		why := l.Reason
		if d.P.Lang != "en" {
			why = d.P.Text(l.Text)
		}
		if err := cw.row([]string{"", "", "", strconv.Itoa(l.Rows), money(l.Amount), l.Currency, "", "", csvWord(d, billing.VerdictNotJudged), why, ""}); err != nil {
			return err
		}
	}
	return nil
}
