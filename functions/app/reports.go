package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/terms"
)

// ReportBlobs is where monthly reports are kept (infra/blob: S3 or the
// data folder). Get returns an error wrapping store.ErrNotFound (as
// blob.ErrNotFound does) for a name that holds nothing.
type ReportBlobs interface {
	Put(ctx context.Context, name string, data []byte) error
	Get(ctx context.Context, name string) ([]byte, error)
}

// ReportRenderer renders a report in one of the generator's formats and
// writes the evidence bundle; functions/document and functions/bundle do
// it, wired in by the mains so the application does not depend on them.
type ReportRenderer interface {
	// Render writes r in format, with sc (nil: none) as its provider
	// scorecard section where the format has one.
	Render(w io.Writer, r *report.Report, format string, sc *scorecard.Scorecard) error
	// Bundle writes the evidence zip for r from the log it was built from
	// (reopened by open), sets r.Seal (the claim page quotes it) and
	// returns its chain head.
	Bundle(w io.Writer, r *report.Report, open func() (io.ReadCloser, error)) (string, error)
	// RenderScorecard renders the provider scorecard (sla/scorecard) in
	// json, md, html or pdf; lang is the PDF's language.
	RenderScorecard(w io.Writer, sc *scorecard.Scorecard, format string, lang i18n.Lang) error
}

// ReportJob generates each contract's monthly report once the month is
// over in the contract's time zone and Delay has passed (late spool data
// arrives first), stores every format and the evidence bundle, posts a
// notice of it (with the PDF where a channel can carry it) to every channel
// of Notices, and reminds the team 7 and 2 days before each
// claim deadline and on its last day. Run is idempotent: it is meant to be called every hour
// (EventBridge Scheduler, or serve's cron), and markers in the blob store
// say what was done, so a retried or overlapping run repeats nothing.
type ReportJob struct {
	Desk  *TicketDesk
	Blobs ReportBlobs
	// Notices are the channels the month's report and the claim
	// reminders go to (nil: none); each channel gets each once.
	Notices  NoticeChannels
	Renderer ReportRenderer
	// Delay after midnight on the 1st (contract time) before generating.
	Delay time.Duration
	// Formats stored besides the JSON (default html, pdf, md, csv).
	Formats []string
	// ScorecardMonths is how many months the provider scorecard stored
	// beside each month's report covers, the report's month last
	// (scorecard.json, .md, .html and, when the report has a PDF, .pdf);
	// 0 stores none. The mains set DefaultScorecardMonths unless the
	// operator says otherwise (GPUSLA_SCORECARD_MONTHS).
	ScorecardMonths int
	// TempDir holds the month's exported log while the bundle is written
	// (default os.TempDir(); a Lambda's /tmp).
	TempDir string
	// Parts, when set, builds each month apart (FanOut, reports_apart.go):
	// its node-months go to this queue, the parts function builds them,
	// and a later run assembles the month once every part is in or
	// PartsWait has passed since they were sent. Nil: the month is built
	// here from its exported log.
	Parts     WorkQueue
	PartsWait time.Duration
	Log       *slog.Logger
}

// DefaultScorecardMonths: a quarter, the report's month and the two before
// it — enough tickets and deliveries for most figures to be ranked, recent
// enough to say how a provider is doing now.
const DefaultScorecardMonths = 3

// CheckScorecardMonths refuses a span the scorecard cannot cover.
func CheckScorecardMonths(n int) error {
	if n < 0 || n > scorecard.MaxMonths {
		return fmt.Errorf("%d months: want 0 (no scorecard) to %d", n, scorecard.MaxMonths)
	}
	return nil
}

// ScorecardFile is the name of a month's stored scorecard in format.
func ScorecardFile(month, contract, format string) string {
	return ReportPrefix(month, contract) + "/scorecard." + format
}

// DefaultReportDelay lets a node's spool drain after a month-end outage.
const DefaultReportDelay = 6 * time.Hour

// ReminderDays are the reminders before each claim deadline, in days
// before it; 0 is "on the day": the start of the last day to file, in the
// contract's zone. Claim windows as short as 10 days need the 2-day one.
var ReminderDays = []int{7, 2, 0}

// reminderDue is when the reminder d days before deadline is due: d
// calendar days before it on the contract's clock (loc), as the claim
// window itself is counted, so that a daylight-saving change in between
// does not move it an hour off the deadline's wall time. Day 0 is the
// start of the calendar day (in loc) holding the last instant before the
// deadline, which is exclusive.
func reminderDue(deadline time.Time, d int, loc *time.Location) time.Time {
	if d > 0 {
		return deadline.In(loc).AddDate(0, 0, -d)
	}
	last := deadline.Add(-time.Nanosecond).In(loc)
	return time.Date(last.Year(), last.Month(), last.Day(), 0, 0, 0, 0, loc)
}

func reminderName(d int) string {
	if d == 0 {
		return "day"
	}
	return fmt.Sprintf("%dd", d)
}

// ReportRun says what one run did.
type ReportRun struct {
	Generated []string `json:"generated"` // "2026-11/us-example"
	Posted    []string `json:"posted"`
	Reminders []string `json:"reminders"`
	// Skipped names each node left out of the months generated in this
	// run because no loaded terms define its contract (it cannot be judged;
	// one such node must not cost every other contract its report).
	Skipped []string `json:"skipped,omitempty"`
	// Scorecards names each scorecard stored beside a generated report
	// ("2026-11/us-example 2026-09..2026-11"); ScorecardFailed each one
	// that could not be built or stored, with why. Its report was stored
	// all the same.
	Scorecards      []string `json:"scorecards,omitempty"`
	ScorecardFailed []string `json:"scorecard_failed,omitempty"`
	// Claims names each claim drafted into the ledger ("us-example/2026-11");
	// ClaimAlerts each provider deadline alerted on (docs/claims.md).
	Claims      []string `json:"claims,omitempty"`
	ClaimAlerts []string `json:"claim_alerts,omitempty"`
	// Pending names each month built apart whose parts are still out.
	Pending []string `json:"pending,omitempty"`
}

// nodesLeftOut is what the reports leave out, from one listing of the
// nodes: unknown, the nodes whose contract the loaded terms do not
// define (node id → contract), left out of every month; and the nodes
// themselves, in which each month's ended demo is found (skip).
type nodesLeftOut struct {
	nodes   []store.Node
	unknown map[string]string
}

// leftOut lists the nodes once for the reports' left-out nodes.
func (j *ReportJob) leftOut(ctx context.Context) (*nodesLeftOut, error) {
	nodes, err := j.Desk.svc.store.ListNodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	book := j.Desk.Terms()
	l := &nodesLeftOut{nodes: nodes, unknown: map[string]string{}}
	for _, n := range nodes {
		if _, ok := book[n.Contract]; !ok {
			l.unknown[n.ID] = n.Contract
		}
	}
	return l, nil
}

// ReportPrefix is a contract's month folder in the blob store.
func ReportPrefix(month, contract string) string { return month + "/" + contract }

// IsNotFound reports whether err says the record or blob does not exist.
func IsNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// Run does whatever is due at now: for each contract, last month's report
// (generated once, then posted), reminders of the last months' open claims
// and the claims to follow; then the claims whose provider deadline passed.
func (j *ReportJob) Run(ctx context.Context, now time.Time) (ReportRun, error) {
	r := &reportRun{job: j, log: j.Log, book: j.Desk.Terms(), now: now}
	if r.log == nil {
		r.log = slog.Default()
	}
	over, err := j.demoOver(ctx, now)
	r.fail(err)
	r.over = over
	for _, c := range r.book.Contracts() {
		r.contract(ctx, c)
	}
	reminded, err := j.remindIncidents(ctx, over, now)
	r.fail(err)
	r.res.Reminders = append(r.res.Reminders, reminded...)
	alerts, err := j.watchClaims(ctx, over, now)
	r.fail(err)
	res := &r.res
	res.ClaimAlerts = alerts
	if len(res.Generated)+len(res.Posted)+len(res.Reminders)+len(res.Claims)+len(res.ClaimAlerts)+len(res.Pending) > 0 {
		r.log.Info("reports", "generated", res.Generated, "pending", res.Pending, "posted", res.Posted, "reminders", res.Reminders, "scorecards", res.Scorecards,
			"claims", res.Claims, "claim_alerts", res.ClaimAlerts)
	}
	return r.res, errors.Join(r.errs...)
}

// reportRun is one run of the report job: what it did, what failed.
type reportRun struct {
	job  *ReportJob
	log  *slog.Logger
	book TermsBook
	now  time.Time
	res  ReportRun
	// over: the contracts of the ended demo, reminded of nothing.
	over map[string]bool
	errs []error
	// left: the nodes whose contract no loaded terms define, and the
	// nodes listed for them, looked up once, when a month is first
	// generated.
	left *nodesLeftOut
}

func (r *reportRun) fail(err error) {
	if err != nil {
		r.errs = append(r.errs, err)
	}
}

// contract does what is due for contract c. A month whose report could
// not be read or generated, or is pending, leaves the contract's reminders
// and claims to the next run, which tries the report again first.
func (r *reportRun) contract(ctx context.Context, c string) {
	loc := r.book[c].Calendar.Loc
	local := r.now.In(loc)
	first := time.Date(local.Year(), local.Month(), 1, 0, 0, 0, 0, loc)
	if !r.now.Before(first.Add(r.job.Delay)) && !r.lastMonth(ctx, c, first.AddDate(0, -1, 0)) {
		return
	}
	// Reminders for the last few months' claims still open.
	for back := 1; back <= 4 && !r.over[c]; back++ {
		sent, err := r.job.remind(ctx, first.AddDate(0, -back, 0).Format("2006-01"), c, r.now)
		r.fail(err)
		r.res.Reminders = append(r.res.Reminders, sent...)
	}
	if !r.over[c] {
		sent, err := r.job.remindBeforeReport(ctx, r.book[c], first, r.now, r.left)
		r.fail(err)
		r.res.Reminders = append(r.res.Reminders, sent...)
	}
	drafted, err := r.job.followClaims(ctx, first, c)
	r.fail(err)
	r.res.Claims = append(r.res.Claims, drafted...)
	if !r.over[c] {
		drafted, err = r.job.followIncidents(ctx, r.book[c], first, r.now, r.left)
		r.fail(err)
		r.res.Claims = append(r.res.Claims, drafted...)
	}
}

// lastMonth generates the report of the month starting at prev for
// contract c unless it exists, and posts it; false when the report could
// not be read or generated, or is pending (built apart, parts still out).
func (r *reportRun) lastMonth(ctx context.Context, c string, prev time.Time) bool {
	month := prev.Format("2006-01")
	done, err := r.job.generated(ctx, month, c)
	if err != nil {
		r.fail(err)
		return false
	}
	if !done && !r.generate(ctx, c, prev) {
		return false
	}
	// Posted to some channels and failed on others: both are said.
	posted, err := r.job.post(ctx, month, c, r.now)
	r.fail(err)
	if posted {
		r.res.Posted = append(r.res.Posted, ReportPrefix(month, c))
	}
	return true
}

// generate writes the report of the month starting at prev for contract c,
// with the trailing months' scorecard; false when it could not, or when the
// month is built apart and still pending.
func (r *reportRun) generate(ctx context.Context, c string, prev time.Time) bool {
	month := prev.Format("2006-01")
	if !r.lookUpSkipped(ctx) {
		return false
	}
	sc, err := r.job.generate(ctx, prev.Year(), prev.Month(), c, r.now, r.left)
	if errors.Is(err, ErrPending) {
		r.log.Info("report: month pending", "month", ReportPrefix(month, c), "why", err)
		r.res.Pending = append(r.res.Pending, ReportPrefix(month, c))
		return false
	}
	if err != nil {
		r.fail(fmt.Errorf("report %s for %s: %w", month, c, err))
		return false
	}
	r.res.Generated = append(r.res.Generated, ReportPrefix(month, c))
	switch {
	case sc.Err != nil:
		r.res.ScorecardFailed = append(r.res.ScorecardFailed, ReportPrefix(month, c)+": "+sc.Err.Error())
	case sc.Span != "":
		r.res.Scorecards = append(r.res.Scorecards, ReportPrefix(month, c)+" "+sc.Span)
	}
	return true
}

// lookUpSkipped finds, once a run, the nodes left out of every report
// because no loaded terms define their contract, and says so; false when
// the nodes could not be listed.
func (r *reportRun) lookUpSkipped(ctx context.Context) bool {
	if r.left != nil {
		return true
	}
	left, err := r.job.leftOut(ctx)
	if err != nil {
		r.fail(err)
		return false
	}
	r.left = left
	skip := left.unknown
	known := r.book.Contracts()
	for _, id := range slices.Sorted(maps.Keys(skip)) {
		r.res.Skipped = append(r.res.Skipped, fmt.Sprintf("node %s: contract %q is defined by no loaded terms; left out of the reports (known: %s)",
			id, skip[id], strings.Join(known, ", ")))
		r.log.Error("report: node skipped, its contract is unknown", "node", id, "contract", skip[id], "known", strings.Join(known, ","))
	}
	return true
}

func (j *ReportJob) generated(ctx context.Context, month, contract string) (bool, error) {
	_, err := j.Blobs.Get(ctx, ReportPrefix(month, contract)+"/report.json")
	if err == nil {
		return true, nil
	}
	if IsNotFound(err) {
		return false, nil
	}
	return false, fmt.Errorf("report %s for %s: %w", month, contract, err)
}

// ContractReport keeps only one contract's nodes and summary.
func ContractReport(r *report.Report, contract string) *report.Report {
	out := *r
	out.Nodes, out.Contracts = []report.Node{}, []report.Contract{}
	for _, n := range r.Nodes {
		if n.Contract == contract {
			out.Nodes = append(out.Nodes, n)
		}
	}
	for _, c := range r.Contracts {
		if c.Contract == contract {
			out.Contracts = append(out.Contracts, c)
			// The contract's month in its own zone: cn-example's, over at
			// 06:00 Beijing on the 1st, is no longer provisional because
			// New York's month, in the same build, still runs.
			out.Provisional = c.Provisional
		}
	}
	return &out
}

// Generate builds, renders and stores one contract's month as of asOf.
// report.json is written last: its presence means the month is complete.
// Nodes whose contract no loaded terms define are left out (Run names them).
// The scorecard (ScorecardMonths) is stored beside it; its failure is
// logged and does not fail the report.
func (j *ReportJob) Generate(ctx context.Context, year int, month time.Month, contract string, asOf time.Time) error {
	left, err := j.leftOut(ctx)
	if err != nil {
		return err
	}
	_, err = j.generate(ctx, year, month, contract, asOf, left)
	return err
}

// scorecardDone says what became of a month's scorecard: Span its months
// ("" when none is kept), Err why it was not stored.
type scorecardDone struct {
	Span string
	Err  error
}

// scorecardSpan is the months of the scorecard kept beside the report of
// year-month: ScorecardMonths of them, that month last.
func (j *ReportJob) scorecardSpan(year int, month time.Month) (from, to scorecard.Month) {
	to = scorecard.Month{Year: year, Month: month}
	f := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1-j.ScorecardMonths, 0)
	return scorecard.Month{Year: f.Year(), Month: f.Month()}, to
}

// generate is Generate without the nodes left out (skip): it builds the month (and
// the scorecard) from the store's own records node by node where the
// store keeps its history (Books), else from the months' exported log,
// and stores every form.
func (j *ReportJob) generate(ctx context.Context, year int, month time.Month, contract string, asOf time.Time, left *nodesLeftOut) (scorecardDone, error) {
	if err := CheckScorecardMonths(j.ScorecardMonths); err != nil {
		return scorecardDone{}, fmt.Errorf("scorecard: %w", err) // the mains check it first
	}
	skip := j.skip(left, year, month, contract, asOf)
	if j.Parts != nil {
		return j.generateApart(ctx, year, month, contract, asOf, skip)
	}
	bk, ok := j.books(skip)
	if !ok {
		return j.generateFromLog(ctx, year, month, contract, asOf, skip)
	}
	full, sc, done, err := j.buildFromStore(ctx, bk, year, month, asOf, nil)
	if err != nil {
		return done, err
	}
	return j.storeBuilt(ctx, full, contract, sc, asOf, skip, done)
}

// skip is the nodes left out of contract's year-month: the unknown
// contracts' and the demo nodes whose demo was over in the month
// (DemoOver), found in the same listing, each said in the log when
// contract's month is the one it leaves empty.
func (j *ReportJob) skip(left *nodesLeftOut, year int, month time.Month, contract string, asOf time.Time) map[string]string {
	over := DemoOver(left.nodes, j.terms(), year, month, asOf)
	if len(over) == 0 {
		return left.unknown
	}
	out := maps.Clone(left.unknown)
	for _, n := range left.nodes {
		why, ok := over[n.ID]
		if !ok {
			continue
		}
		out[n.ID] = why
		if n.Contract == contract {
			j.logger().Info("report: the demo node is left out of the month", "month", time.Date(year, month, 1, 0, 0, 0, 0, time.UTC).Format("2006-01"),
				"node", n.ID, "contract", n.Contract, "why", why)
		}
	}
	return out
}

// books is the month's books over the job's store and loaded contracts,
// without the nodes in skip; false when the store keeps no history to
// read them from.
func (j *ReportJob) books(skip map[string]string) (Books, bool) {
	st, ok := j.Desk.svc.store.(BooksStore)
	if !ok {
		return Books{}, false
	}
	bk := Books{Store: st, Terms: j.terms(), Skip: skip}.WithDigests(st, j.Desk.svc.Now)
	if ps, ok := j.Desk.svc.store.(store.ProviderStatusStore); ok {
		bk.Status = ps
	}
	return bk, true
}

// buildFromStore builds the month of every contract from the store, and
// the scorecard of its trailing months when one is kept (last, when set,
// is the month already built). A scorecard that fails to build is logged
// and said in done; the report is then built without it.
func (j *ReportJob) buildFromStore(ctx context.Context, bk Books, year int, month time.Month, asOf time.Time, last *report.Report) (*report.Report, *scorecard.Scorecard, scorecardDone, error) {
	var done scorecardDone
	if j.ScorecardMonths > 0 {
		from, to := j.scorecardSpan(year, month)
		sc, reps, err := bk.scorecardWith(ctx, scorecard.Options{From: from, To: to, AsOf: asOf}, last)
		if err == nil {
			done.Span = from.String() + ".." + to.String()
			return reps[len(reps)-1], sc, done, nil
		}
		done.Err = err
		j.logger().Error("report: scorecard failed; the report is built without it", "month", to.String(), "err", err)
	}
	if last != nil {
		return last, nil, done, nil
	}
	full, err := bk.Month(ctx, year, month, asOf)
	return full, nil, done, err
}

// storeBuilt stores contract's part of the month full, with the
// scorecard sc (nil: none) and its claims, and the evidence bundle written
// from a log of the month that holds only the observations of the nodes
// with a counted outage (all a bundle keeps).
func (j *ReportJob) storeBuilt(ctx context.Context, full *report.Report, contract string, sc *scorecard.Scorecard, asOf time.Time, skip map[string]string, done scorecardDone) (scorecardDone, error) {
	if err := j.scorecardClaims(ctx, sc, asOf); err != nil {
		return done, err
	}
	tmp, err := os.CreateTemp(j.TempDir, "gpusla-bundle-*.jsonl")
	if err != nil {
		return done, fmt.Errorf("export: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := j.bundleLog(ctx, tmp, full, skip); err != nil {
		return done, err
	}
	open := func() (io.ReadCloser, error) { return os.Open(tmp.Name()) }
	return j.storeMonth(ctx, ContractReport(full, contract), contract, sc, open, done)
}

// generateFromLog builds the month from its exported log, and the
// scorecard from its months' (for a store that keeps no history).
func (j *ReportJob) generateFromLog(ctx context.Context, year int, month time.Month, contract string, asOf time.Time, skip map[string]string) (scorecardDone, error) {
	var done scorecardDone
	from, to := monthWindow(year, month)
	tmp, err := j.exportTemp(ctx, from, to, skip)
	if err != nil {
		return done, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	all := j.terms()
	b, err := report.NewBuilder(all, report.Options{Year: year, Month: month, AsOf: asOf})
	if err != nil {
		return done, err
	}
	if err := b.ReadLog("export", tmp); err != nil {
		return done, err
	}
	full, err := b.Build()
	if err != nil {
		return done, err
	}
	var sc *scorecard.Scorecard
	if j.ScorecardMonths > 0 {
		scFrom, scTo := j.scorecardSpan(year, month)
		if sc, done.Err = j.logScorecard(ctx, all, scFrom, scTo, asOf, skip); done.Err != nil {
			j.logger().Error("report: scorecard failed; the report is built without it", "month", ReportPrefix(scTo.String(), contract), "err", done.Err)
		} else {
			done.Span = scFrom.String() + ".." + scTo.String()
		}
	}
	if err := j.scorecardClaims(ctx, sc, asOf); err != nil {
		return done, err
	}
	open := func() (io.ReadCloser, error) { return os.Open(tmp.Name()) }
	return j.storeMonth(ctx, ContractReport(full, contract), contract, sc, open, done)
}

// exportTemp writes the export of [from, to) without the nodes in skip to
// a temporary file, rewound; the caller removes it.
func (j *ReportJob) exportTemp(ctx context.Context, from, to time.Time, skip map[string]string) (*os.File, error) {
	tmp, err := os.CreateTemp(j.TempDir, "gpusla-export-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	w := events.NewWriter(tmp)
	err = j.Desk.rangeExport(from, to, skip)(ctx, w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		_, err = tmp.Seek(0, io.SeekStart)
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("export: %w", err)
	}
	return tmp, nil
}

// logScorecard builds the scorecard of from..to from its months' exported
// log.
func (j *ReportJob) logScorecard(ctx context.Context, all []*terms.Terms, from, to scorecard.Month, asOf time.Time, skip map[string]string) (*scorecard.Scorecard, error) {
	sb, err := scorecard.NewBuilder(all, scorecard.Options{From: from, To: to, AsOf: asOf})
	if err != nil {
		return nil, err
	}
	lo, _ := monthWindow(from.Year, from.Month)
	_, hi := monthWindow(to.Year, to.Month)
	tmp, err := j.exportTemp(ctx, lo, hi, skip)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := sb.ReadLog("export", tmp); err != nil {
		return nil, err
	}
	return sb.Build()
}

// storeMonth writes the contract's report r: the evidence bundle first (it
// seals r, and every form's claim page quotes the seal), then each format,
// the scorecard (or why it is missing), and report.json last, whose
// presence means the month is complete. open reopens the log r was built
// from.
func (j *ReportJob) storeMonth(ctx context.Context, r *report.Report, contract string, sc *scorecard.Scorecard, open func() (io.ReadCloser, error), done scorecardDone) (scorecardDone, error) {
	prefix := ReportPrefix(r.Month, contract)
	formats := j.formats()
	var zb bytes.Buffer
	head, err := j.Renderer.Bundle(&zb, r, open)
	if err != nil {
		return done, fmt.Errorf("evidence bundle: %w", err)
	}
	if err := j.Blobs.Put(ctx, prefix+"/evidence.zip", zb.Bytes()); err != nil {
		return done, err
	}
	if err := j.Blobs.Put(ctx, prefix+"/chain-head.txt", []byte(head+"\n")); err != nil {
		return done, err
	}
	for _, f := range formats {
		var buf bytes.Buffer
		if err := j.Renderer.Render(&buf, r, f, sc); err != nil {
			return done, fmt.Errorf("render %s: %w", f, err)
		}
		if err := j.Blobs.Put(ctx, prefix+"/report."+f, buf.Bytes()); err != nil {
			return done, err
		}
	}
	// The scorecard before report.json, so that a complete month has it.
	if sc != nil {
		if err := j.storeScorecard(ctx, r.Month, contract, sc, formats); err != nil {
			done = scorecardDone{Err: err}
			j.logger().Error("report: scorecard not stored; the report is", "month", prefix, "err", err)
		}
	}
	if done.Err != nil {
		// Named beside the report, so that whoever opens the month sees why
		// its scorecard is missing.
		if err := j.Blobs.Put(ctx, prefix+"/scorecard-error.txt", []byte(done.Err.Error()+"\n")); err != nil {
			return done, err
		}
	}
	var js bytes.Buffer
	if err := j.Renderer.Render(&js, r, "json", nil); err != nil {
		return done, err
	}
	return done, j.Blobs.Put(ctx, prefix+"/report.json", js.Bytes())
}

// formats are the report's stored formats besides the JSON.
func (j *ReportJob) formats() []string {
	if len(j.Formats) == 0 {
		return []string{"html", "pdf", "md", "csv"}
	}
	return j.Formats
}

func (j *ReportJob) logger() *slog.Logger {
	if j.Log == nil {
		return slog.Default()
	}
	return j.Log
}

// ScorecardFormats are the scorecard's forms stored beside a report with
// the given formats: always JSON, and Markdown, HTML and PDF where the
// report has them.
func ScorecardFormats(reportFormats []string) []string {
	out := []string{"json"}
	for _, f := range []string{"md", "html", "pdf"} {
		if slices.Contains(reportFormats, f) {
			out = append(out, f)
		}
	}
	return out
}

// storeScorecard renders every form before storing any, so that a render
// failure stores none; the PDF is in the contract's language.
func (j *ReportJob) storeScorecard(ctx context.Context, month, contract string, sc *scorecard.Scorecard, formats []string) error {
	lang := j.summaryLang(contract)
	fs := ScorecardFormats(formats)
	bufs := make([]bytes.Buffer, len(fs))
	for i, f := range fs {
		if err := j.Renderer.RenderScorecard(&bufs[i], sc, f, lang); err != nil {
			return fmt.Errorf("render scorecard %s: %w", f, err)
		}
	}
	for i, f := range fs {
		if err := j.Blobs.Put(ctx, ScorecardFile(month, contract, f), bufs[i].Bytes()); err != nil {
			return fmt.Errorf("store scorecard %s: %w", f, err)
		}
	}
	return nil
}

func (j *ReportJob) load(ctx context.Context, month, contract string) (*report.Report, error) {
	raw, err := j.Blobs.Get(ctx, ReportPrefix(month, contract)+"/report.json")
	if err != nil {
		return nil, err
	}
	var r report.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("stored report %s/%s: %w", month, contract, err)
	}
	return &r, nil
}

// summaryLang is the language a contract's documents default to
// (report.lang), English when the contract is not loaded.
func (j *ReportJob) summaryLang(contract string) i18n.Lang {
	if tm, ok := j.Desk.Contract(contract); ok && tm != nil {
		if l, err := i18n.Parse(tm.Paperwork.Lang); err == nil {
			return l
		}
	}
	return i18n.EN
}

// announcer posts through the job's channels, marking in its blobs.
func (j *ReportJob) announcer() *Announcer {
	if j.Notices == nil {
		return nil
	}
	return &Announcer{Channels: j.Notices, Marks: j.Blobs}
}

// provider is the contract's provider as its terms name it ("" when the
// contract is not loaded): routes may pick channels by it.
func (j *ReportJob) provider(contract string) string {
	if tm, ok := j.Desk.Contract(contract); ok && tm != nil {
		return tm.Provider
	}
	return ""
}

// post sends the month's notice, with its PDF, to each channel that has
// not had it.
func (j *ReportJob) post(ctx context.Context, month, contract string, now time.Time) (bool, error) {
	a := j.announcer()
	if a == nil {
		return false, nil
	}
	prefix := ReportPrefix(month, contract)
	marker := prefix + "/posted"
	pending, err := a.Pending(ctx, marker, notify.Notice{Kind: notify.NoticeReport, Contract: contract, Provider: j.provider(contract)})
	if err != nil || len(pending) == 0 {
		return false, err
	}
	r, err := j.load(ctx, month, contract)
	if err != nil {
		return false, err
	}
	if len(r.Nodes) == 0 {
		// Nothing rented under this contract that month: nothing to tell.
		return false, j.Blobs.Put(ctx, marker+".txt", []byte("no nodes\n"))
	}
	head, _ := j.Blobs.Get(ctx, prefix+"/chain-head.txt")
	pdf, err := j.Blobs.Get(ctx, prefix+"/report.pdf")
	if err != nil {
		return false, fmt.Errorf("post %s: %w", prefix, err)
	}
	lang := j.summaryLang(contract)
	file := &notify.File{Name: fmt.Sprintf("gpusla-%s-%s.pdf", month, contract), Title: fmt.Sprintf("SLA report %s, %s", month, contract), Data: pdf}
	n := chantext.ReportNotice(r, strings.TrimSpace(string(head)), lang, prefix, file)
	line, err := j.scorecardLine(ctx, month, contract)
	if err != nil {
		return false, fmt.Errorf("post %s: %w", prefix, err)
	}
	if line != nil {
		n.Lines = append(n.Lines, line)
	}
	if len(r.Contracts) > 0 {
		rec, err := j.recoveryLines(ctx, r.Contracts[0].Provider, contract)
		if err != nil {
			return false, fmt.Errorf("post %s: %w", prefix, err)
		}
		n.Lines = append(n.Lines, rec...)
	}
	if n.Provider == "" {
		n.Provider = j.provider(contract)
	}
	sent, err := a.Announce(ctx, marker, n, now)
	if err != nil {
		err = fmt.Errorf("post %s: %w", prefix, err)
	}
	return len(sent) > 0, err
}

// scorecardLine is the notice's line pointing at the scorecard stored
// beside the report, in the contract's language; nil when none is.
func (j *ReportJob) scorecardLine(ctx context.Context, month, contract string) (notify.Line, error) {
	raw, err := j.Blobs.Get(ctx, ScorecardFile(month, contract, "json"))
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var sc struct {
		From      string            `json:"from"`
		To        string            `json:"to"`
		Providers []json.RawMessage `json:"providers"`
	}
	if err := json.Unmarshal(raw, &sc); err != nil {
		return nil, fmt.Errorf("stored scorecard %s: %w", ScorecardFile(month, contract, "json"), err)
	}
	name := ScorecardFile(month, contract, "json")
	if fs := ScorecardFormats(j.formats()); slices.Contains(fs, "html") {
		name = ScorecardFile(month, contract, "html")
	}
	return chantext.ScorecardLine(j.summaryLang(contract), sc.From, sc.To, len(sc.Providers), name), nil
}

// remind sends the reminders due for a stored month: each once per
// channel, from the moment it is due until the deadline.
func (j *ReportJob) remind(ctx context.Context, month, contract string, now time.Time) ([]string, error) {
	if j.announcer() == nil {
		return nil, nil
	}
	r, err := j.load(ctx, month, contract)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return j.remindOf(ctx, r, month, contract, now)
}

// remindOf sends the reminders due for report r of contract's month: the
// stored one, or the month so far where its claim is due before the
// report is written (remindBeforeReport).
func (j *ReportJob) remindOf(ctx context.Context, r *report.Report, month, contract string, now time.Time) ([]string, error) {
	a := j.announcer()
	var sent []string
	for _, c := range r.Contracts {
		deadline, err := time.Parse(time.RFC3339, c.ClaimDeadline)
		if err != nil || !now.Before(deadline) || c.Claim <= 0 {
			continue
		}
		loc, err := time.LoadLocation(c.TimeZone)
		if err != nil {
			loc = time.UTC
		}
		// The nearest reminder that is due; sending it makes the earlier
		// ones moot (a job that was down does not send a stale 7-day one).
		days := -1
		for _, d := range ReminderDays {
			if !now.Before(reminderDue(deadline, d, loc)) && (days < 0 || d < days) {
				days = d
			}
		}
		if days < 0 {
			continue
		}
		if l, lerr := j.Desk.Ledger(); lerr == nil {
			// Said already on the incident's own claim, due at the same
			// instant (a window counted from the incident).
			reminded, err := l.incidentReminded(ctx, contract, month, deadline, "reminder-"+reminderName(days))
			if err != nil {
				return sent, err
			}
			if reminded {
				continue
			}
		}
		held, skip, err := j.holdReminder(ctx, contract, month, reminderName(days), now)
		if err != nil {
			return sent, err
		}
		if skip {
			continue
		}
		prefix := ReportPrefix(month, contract)
		marker := fmt.Sprintf("%s/reminder-%s", prefix, reminderName(days))
		// The deadline is exclusive: name the last calendar day to file, in
		// the contract's zone, so that "deadline 1 February 00:00" is never
		// read as "file on 1 February".
		lastDay := deadline.Add(-time.Nanosecond).In(loc).Format("2006-01-02")
		n := chantext.ClaimReminder(j.summaryLang(contract), c, month, lastDay, deadline.Sub(now), prefix)
		to, err := a.Announce(ctx, marker, n, now)
		for _, ch := range to {
			for _, d := range ReminderDays {
				if d > days {
					if err := a.Mark(ctx, fmt.Sprintf("%s/reminder-%s", prefix, reminderName(d)), ch, now); err != nil {
						return sent, err
					}
				}
			}
		}
		if len(to) > 0 {
			sent = append(sent, prefix+"/"+reminderName(days))
		}
		if err != nil && held {
			err = errors.Join(err, j.unholdReminder(ctx, contract, month, reminderName(days), now))
		}
		if err != nil {
			return sent, fmt.Errorf("reminder %s: %w", marker, err)
		}
	}
	return sent, nil
}

// holdReminder decides a reminder against the month's claim in the ledger:
// skip when the claim was sent (a sent claim needs no reminder to file it)
// or when another run recorded this reminder on the claim first (the
// ledger's conditional write: of two runs at once, one posts); held when
// this run recorded it. Where the ledger holds no claim for the month yet
// (or the store keeps none), the reminder goes by the report's deadline
// and the channels' marks alone.
func (j *ReportJob) holdReminder(ctx context.Context, contract, month, name string, now time.Time) (held, skip bool, err error) {
	l, lerr := j.Desk.Ledger()
	if lerr != nil {
		return false, false, nil
	}
	id := claims.ID(contract, month)
	c, err := l.store.GetClaim(ctx, id)
	if IsNotFound(err) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("claim %s: %w", id, err)
	}
	if c.Sent != nil {
		return false, true, nil
	}
	held, err = l.Hold(ctx, id, "reminder-"+name, now)
	return held, !held, err
}

// unholdReminder takes back what holdReminder recorded at now, so the next
// run tries the channels that failed.
func (j *ReportJob) unholdReminder(ctx context.Context, contract, month, name string, now time.Time) error {
	l, err := j.Desk.Ledger()
	if err != nil {
		return nil
	}
	return l.Unhold(ctx, claims.ID(contract, month), "reminder-"+name, now)
}

// demoOver is the contracts of serve's built-in demo whose demo is over
// at now (a demo node released): their claims and reminders are nobody's
// to chase, the demo's provider being made up.
func (j *ReportJob) demoOver(ctx context.Context, now time.Time) (map[string]bool, error) {
	nodes, err := j.Desk.svc.store.ListNodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("nodes: %w", err)
	}
	over := map[string]bool{}
	for _, n := range nodes {
		if n.Demo && n.Released(now) {
			over[n.Contract] = true
		}
	}
	return over, nil
}
