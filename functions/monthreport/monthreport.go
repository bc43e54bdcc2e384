// Package monthreport builds one month's SLA report offline from contract
// terms files and an event log, as `gpusla report` and `gpusla bundle` do,
// and writes it rendered whole, so a failure never leaves half a report.
// The errors name the flags of those commands (--month, --as-of, --bill):
// both take them alike and this is the one place that reads them.
package monthreport

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/functions/document"
	"github.com/gpusla/gpusla/internal/atomicfile"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/terms"
)

// Request says which report to build.
type Request struct {
	Terms  []string  // contract terms files (YAML, docs/terms.md); a file may hold several contracts
	Events string    // event log (JSON lines, docs/events.md); "-" reads Stdin
	Stdin  io.Reader // read when Events is "-"
	Month  string    // YYYY-MM, each contract's month in its own time zone
	// AsOf (RFC 3339) leaves out what was received after it and judges
	// pending tickets and ongoing outages at it. "" means the last instant
	// the event log records (events.LastKnown), no later than Now: the
	// same log then gives the same report in every format and on every
	// day. A log read from Stdin cannot be read twice and is judged at Now.
	AsOf string
	Now  func() time.Time // nil: the system clock
	// Seal sets the report's evidence seal (report.Seal: the observations
	// hash and chain head the bundle of this log would carry), which the
	// claim page quotes. It reads Events again, so a log from Stdin is
	// left unsealed.
	Seal bool
	// Scorecard also builds the month's provider scorecard (sla/scorecard)
	// from the same pass over the log, for the report's scorecard section.
	Scorecard bool
	// Books, when set, builds the month from the backend's store instead
	// of Events (`gpusla report --data`: app.Books, node by node on every
	// core). The report is then judged at AsOf, else at the last instant
	// the store records (LastKnown; no later than now), and not sealed: the
	// seal is the evidence bundle's, which is made from a log.
	Books func(all []*terms.Terms, year int, month time.Month, asOf time.Time) (*report.Report, error)
	// LastKnown is, with Books, the last instant the store records: that
	// of the log it exports (events.LastKnown). Judged at now instead, a
	// store read after `gpusla serve` stopped counts the time since against
	// every node, though no backend was there to hear it.
	LastKnown func() (time.Time, error)
}

// Build reads every terms file and the event log and builds the month's
// report. A malformed line fails the whole build with its line number. A
// node registered under a contract no terms file defines is left out and
// returned in skipped with its contract (the command warns); every other
// node is reported.
func Build(r Request) (rep *report.Report, skipped []report.Skipped, err error) {
	rep, _, skipped, err = BuildWithScorecard(r)
	return rep, skipped, err
}

// logReader is what reads the log: the report's builder, or the
// scorecard's that builds the same report.
type logReader interface {
	ReadLog(name string, r io.Reader) error
}

// BuildWithScorecard is Build, and with r.Scorecard the month's provider
// scorecard too: the scorecard's builder reads the log once and builds the
// month's report with it (the same report, TestMonthReportsEqualStandaloneReports).
func BuildWithScorecard(r Request) (*report.Report, *scorecard.Scorecard, []report.Skipped, error) {
	if r.Books != nil {
		rep, err := fromStore(r)
		if err != nil {
			return nil, nil, nil, err
		}
		return rep, nil, rep.LeftOut, nil
	}
	rb, sb, err := newBuilder(r)
	if err != nil {
		return nil, nil, nil, err
	}
	var lr logReader = rb
	if sb != nil {
		lr = sb
	}
	if r.Events == "-" {
		err = lr.ReadLog("stdin", r.Stdin)
	} else {
		err = readEvents(lr, r.Events)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	var rep *report.Report
	var sc *scorecard.Scorecard
	var skipped []report.Skipped
	if sb != nil {
		skipped = sb.Skipped()
		var reps []*report.Report
		if sc, reps, err = sb.BuildWithReports(); err != nil {
			return nil, nil, nil, err
		}
		rep = reps[0]
	} else {
		if rep, err = rb.Build(); err != nil {
			return nil, nil, nil, err
		}
		skipped = rb.Skipped()
	}
	if r.Seal && r.Events != "-" {
		if err := bundle.SealReport(rep, func() (io.ReadCloser, error) { return os.Open(r.Events) }); err != nil {
			return nil, nil, nil, err
		}
	}
	return rep, sc, skipped, nil
}

// WarnSkipped writes one warning line per node left out of the report
// (Build's skipped) to w, naming the node and its contract.
func WarnSkipped(w io.Writer, skipped []report.Skipped) {
	for _, s := range skipped {
		fmt.Fprintf(w, "gpusla: warning: node %s left out of the report: %s\n", s.Node, s.Reason)
	}
}

// newBuilder makes the report's builder, or with r.Scorecard the
// scorecard's for the one month.
func newBuilder(r Request) (*report.Builder, *scorecard.Builder, error) {
	m, err := time.Parse("2006-01", r.Month)
	if err != nil {
		return nil, nil, fmt.Errorf("--month %q: want YYYY-MM", r.Month)
	}
	at, err := r.asOf()
	if err != nil {
		return nil, nil, err
	}
	all, err := ReadTerms(r.Terms)
	if err != nil {
		return nil, nil, err
	}
	if r.Scorecard {
		month := scorecard.Month{Year: m.Year(), Month: m.Month()}
		sb, err := scorecard.NewBuilder(all, scorecard.Options{From: month, To: month, AsOf: at})
		return nil, sb, err
	}
	rb, err := report.NewBuilder(all, report.Options{Year: m.Year(), Month: m.Month(), AsOf: at})
	return rb, nil, err
}

// fromStore builds the month with r.Books.
func fromStore(r Request) (*report.Report, error) {
	if r.Scorecard {
		return nil, fmt.Errorf("--scorecard reads an event log: give --events, not --data")
	}
	m, err := time.Parse("2006-01", r.Month)
	if err != nil {
		return nil, fmt.Errorf("--month %q: want YYYY-MM", r.Month)
	}
	at, err := r.asOf()
	if err != nil {
		return nil, err
	}
	all, err := ReadTerms(r.Terms)
	if err != nil {
		return nil, err
	}
	return r.Books(all, m.Year(), m.Month(), at)
}

// asOf is the instant the report is judged at: --as-of, else the last
// instant the log records (no later than now), else now.
func (r Request) asOf() (time.Time, error) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	if r.AsOf != "" {
		return ParseAsOf(r.AsOf, now())
	}
	at := now().UTC()
	var last time.Time
	switch {
	case r.Books != nil && r.LastKnown != nil:
		var err error
		if last, err = r.LastKnown(); err != nil {
			return at, err
		}
	case r.Events == "-" || r.Books != nil:
		return at, nil
	default:
		f, err := os.Open(r.Events)
		if err != nil {
			return at, fmt.Errorf("read events: %w", err)
		}
		defer f.Close()
		if last, err = events.LastKnown(r.Events, f); err != nil {
			return at, err
		}
	}
	if !last.IsZero() && last.Before(at) {
		at = last.UTC()
	}
	return at, nil
}

// ParseAsOf reads --as-of: an RFC 3339 instant no later than now. A
// report judged at a future instant would count what nobody has seen yet
// (an undelivered node's wait, an unanswered ticket, missing heartbeats)
// up to it, and claim money for it that the provider can refuse.
func ParseAsOf(s string, now time.Time) (time.Time, error) {
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return at, fmt.Errorf("--as-of %q: want an RFC 3339 instant such as 2026-04-01T00:00:00Z", s)
	}
	// An instant written to the second (a backend's summary, "as of
	// 22:29:16Z") may be the current second rounded up: the second now is
	// in is not the future.
	ceil := now.Truncate(time.Second)
	if ceil.Before(now) {
		ceil = ceil.Add(time.Second)
	}
	if at.After(ceil) {
		return at, fmt.Errorf("--as-of %s is after now (%s): a report is judged at an instant that has passed, as nothing after now is known", s, now.UTC().Format(time.RFC3339Nano))
	}
	return at, nil
}

// ReadTerms reads every --terms file or folder (report, bundle and
// scorecard); a file may hold several contracts.
func ReadTerms(files []string) ([]*terms.Terms, error) {
	var all []*terms.Terms
	for _, f := range files {
		ts, err := terms.ReadPath(f)
		if err != nil {
			return nil, err
		}
		all = append(all, ts...)
	}
	return all, nil
}

func readEvents(b logReader, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	defer f.Close()
	return b.ReadLog(path, f)
}

// Output says how to write a report.
type Output struct {
	Format string // json, md, csv, html or pdf (document.Render)
	Bill   string // provider's bill (CSV, docs/bills.md: the node form or the itemized one) to judge; "" for none
	// BillFormat is Bill's form: "" or "gpusla" (docs/bills.md's CSV), or
	// "aws-cur" (an AWS Cost and Usage Report CSV).
	BillFormat string
	Terms      []string  // terms files whose price sheets (prices) judge an itemized bill's lines
	Lang       string    // en or zh (i18n.Parse); "" for the contracts' report.lang, else en
	BOM        bool      // start a CSV with the UTF-8 byte order mark (Excel)
	Path       string    // file to write atomically; "" writes to Stdout
	Stdout     io.Writer // used when Path is ""
	// Scorecard is the month's provider scorecard (BuildWithScorecard), shown
	// as the report's scorecard section in json, md, html and pdf; nil for none.
	Scorecard *scorecard.Scorecard
}

// Check refuses a bad --lang or --bill-format, so a command can do so
// before reading the log.
func (o Output) Check() error {
	if _, err := o.lang(); err != nil {
		return err
	}
	if !slices.Contains(BillFormats, o.BillFormat) {
		return fmt.Errorf("--bill-format %q: want one of %s", o.BillFormat, strings.Join(BillFormats[1:], ", "))
	}
	if o.BillFormat != "" && o.Bill == "" {
		return fmt.Errorf("--bill-format %s: give the bill with --bill", o.BillFormat)
	}
	return nil
}

// BillFormats are the forms of bill --bill-format names ("" is gpusla).
var BillFormats = []string{"", "gpusla", "aws-cur"}

func (o Output) lang() (i18n.Lang, error) {
	if o.Lang == "" {
		return "", nil
	}
	l, err := i18n.Parse(o.Lang)
	if err != nil {
		return "", fmt.Errorf("--lang: %w", err)
	}
	return l, nil
}

// Write renders rep as o says. The whole report is rendered before a byte
// is written, so a bad bill, language or format leaves no partial output.
func Write(rep *report.Report, o Output) error {
	l, err := o.lang()
	if err != nil {
		return err
	}
	if err := o.Check(); err != nil {
		return err
	}
	if l == "" && len(rep.Contracts) == 0 {
		// No contract has a node this month: the report is still in the
		// language the terms given agree on.
		l = termsLang(o.Terms)
	}
	x := document.Extras{Lang: l, BOM: o.BOM, Scorecard: o.Scorecard}
	if o.Bill != "" {
		if x.Bill, x.Lines, err = JudgeBillAs(rep, o.Terms, o.Bill, o.BillFormat); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := document.Render(&buf, rep, o.Format, x); err != nil {
		return err
	}
	return Emit(o.Stdout, o.Path, buf.Bytes())
}

// termsLang is the report.lang every terms file's contracts agree on; ""
// when they do not, or cannot be read (Build read them already).
func termsLang(files []string) i18n.Lang {
	all, err := ReadTerms(files)
	if err != nil || len(all) == 0 {
		return ""
	}
	l := all[0].Paperwork.Lang
	for _, t := range all[1:] {
		if t.Paperwork.Lang != l {
			return ""
		}
	}
	got, _ := i18n.Parse(l)
	return got
}

// Emit writes a rendered document (report, scorecard) to path whole or
// not at all, or to stdout when path is "".
func Emit(stdout io.Writer, path string, data []byte) error {
	if path == "" {
		_, err := stdout.Write(data)
		return err
	}
	return WriteFile(path, data)
}

// JudgeBillAs is JudgeBill for a bill of the given form (BillFormats).
func JudgeBillAs(r *report.Report, termsFiles []string, path, format string) (*billing.Reconciliation, *billing.Full, error) {
	if format != "aws-cur" {
		return JudgeBill(r, termsFiles, path)
	}
	f, err := openBill(path, billing.MaxCURBytes)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	items, left, err := billing.ParseAWSCUR(path, f)
	if err != nil {
		return nil, nil, err
	}
	// AWS bills calendar months in UTC; a contract's month in another zone
	// covers other hours, and every per-month share would be misjudged.
	zone := map[string]string{}
	for _, n := range r.Nodes {
		zone[n.Node] = n.TimeZone
	}
	for _, it := range items {
		if z, ok := zone[it.Node]; ok && z != "UTC" && z != "Etc/UTC" {
			return nil, nil, fmt.Errorf("%s:%d: node %s: an AWS bill is in UTC months, but the node's contract is in %s; give the contract timezone: UTC to reconcile it", path, it.Line, it.Node, z)
		}
	}
	rec, full, err := judgeItems(r, termsFiles, items)
	if err != nil {
		return nil, nil, err
	}
	full.LeftOut = left
	return rec, full, nil
}

// JudgeBill reads the provider's bill (CSV: the node form or the full,
// itemized form of docs/bills.md, told apart by a kind column) and judges
// it against the report and the contracts' prices (termsFiles): the GPU
// time reconciled node by node (nil when an itemized bill has none), and
// every line judged. A malformed line stops the report with its line and
// field named.
func JudgeBill(r *report.Report, termsFiles []string, path string) (*billing.Reconciliation, *billing.Full, error) {
	f, err := openBill(path, billing.MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	// Streamed, never read whole: the header (one line, at most
	// MaxLineBytes) tells the two forms apart, the parsers bound the rest.
	data := bufio.NewReaderSize(f, billing.MaxLineBytes)
	first, _ := data.Peek(billing.MaxLineBytes)
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	head, _ := csv.NewReader(bytes.NewReader(first)).Read()
	if !billing.IsItemized(head) {
		lines, err := billing.ParseCSV(path, data)
		if err != nil {
			return nil, nil, err
		}
		rec, err := billing.Reconcile(r, lines)
		if err != nil {
			return nil, nil, err
		}
		full, err := billing.JudgeLines(r, lines)
		return rec, full, err
	}
	items, err := billing.ParseItems(path, data)
	if err != nil {
		return nil, nil, err
	}
	return judgeItems(r, termsFiles, items)
}

// openBill opens the bill at path, refusing before reading it one longer
// than max bytes (docs/bills.md, "Size bounds"); a file whose size cannot
// be told beforehand (a pipe) is bounded as it is read.
func openBill(path string, max int64) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--bill: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > max {
		f.Close()
		return nil, fmt.Errorf("--bill %s: %d bytes; a bill is at most %d bytes (%d MiB; docs/bills.md): split it", path, st.Size(), max, max>>20)
	}
	return f, nil
}

// judgeItems judges an itemized bill's lines against the report and the
// terms files' prices, with the node reconciliation of its GPU-time lines.
func judgeItems(r *report.Report, termsFiles []string, items []billing.Item) (*billing.Reconciliation, *billing.Full, error) {
	all, err := ReadTerms(termsFiles)
	if err != nil {
		return nil, nil, err
	}
	book := map[string]*terms.Terms{}
	for _, t := range all {
		book[t.Contract] = t
	}
	full, err := billing.JudgeItems(r, book, items)
	if err != nil {
		return nil, nil, err
	}
	var rec *billing.Reconciliation
	if compute := billing.ComputeLines(items); len(compute) > 0 {
		if rec, err = billing.Reconcile(r, compute); err != nil {
			return nil, nil, err
		}
	}
	return rec, full, nil
}

// WriteFile writes a report or bundle atomically: a reader never sees half
// of one.
func WriteFile(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// WriteBundle writes the claim evidence bundle of rep (functions/bundle)
// to path atomically; the event log it was built from is read again for
// the observations behind each counted outage, so it must be a file.
func WriteBundle(path string, rep *report.Report, events string) (*bundle.Manifest, error) {
	return WriteBundleWithClaims(path, rep, events, nil)
}

// WriteBundleWithClaims is WriteBundle with the claims ledger's claims of
// the month in the bundle's claims.json.
func WriteBundleWithClaims(path string, rep *report.Report, events string, ledger []bundle.LedgerClaim) (*bundle.Manifest, error) {
	var buf bytes.Buffer
	man, err := bundle.WriteWithClaims(&buf, rep, func() (io.ReadCloser, error) { return os.Open(events) }, ledger)
	if err != nil {
		return nil, err
	}
	if err := WriteFile(path, buf.Bytes()); err != nil {
		return nil, err
	}
	return man, nil
}
