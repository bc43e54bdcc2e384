package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/eventexport"
	"github.com/gpusla/gpusla/functions/monthreport"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/terms"
)

func init() {
	commands = append(commands, newReportCmd)
}

// reportLong is `gpusla report --help`.
const reportLong = `Reads contract terms (YAML, docs/terms.md; --terms may be repeated, a file may
hold several contracts, a folder such as data/terms gives each of its *.yaml files) and an event log (JSON lines, docs/events.md; "-" reads
standard input), and prints the month's report for every node: uptime observed
and claimable, outages with cause and evidence, tickets against their targets,
delivery, credits, the total claim and the claim deadline.

The month is each contract's calendar month in its own time zone. --as-of
(RFC 3339) leaves out what was received after it and judges pending tickets
and ongoing outages at it; without it the report is judged at the last
instant the event log records (standard input: now), so the md and the pdf
of one log say the same. A month not over as of then is provisional: every
page and the JSON say "provisional, as of …" and no claim letter is written.
A month that has not begun is refused. A malformed line fails the whole run
with its line number; no partial report is ever printed.

--data DIR builds the month from the local backend's store instead
($GPUSLA_TABLE: DynamoDB), node by node on --workers cores (default all):
the same report the store's exported log gives, without writing and
reading the log; it is not sealed (the seal is the evidence bundle's:
gpusla bundle, or the monthly job). serve's demo node is left out of a month
its demo was over in (released before the month ended: a node of your own was
registered), with a line on standard error saying so; the months the demo ran
alone keep it.

A node registered under a contract no --terms file defines cannot be judged:
it is left out (with its tickets), every other node is reported, and the
node is named with its contract in the document itself (left_out, and a
section in md, csv, html and pdf) and in a warning on standard error. The
exit status is then 3 (partial report: written, but not for every node);
1 is any other failure, when nothing is written.`

func newReportCmd() *cobra.Command {
	var (
		req        monthreport.Request
		out        monthreport.Output
		data       string
		claimsFile string
		workers    int
	)
	cmd := &cobra.Command{
		Use:   "report --terms FILE (--events FILE | --data DIR) --month YYYY-MM",
		Short: "Print the month's SLA report from contract terms and an event log",
		Long:  reportLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(req.Terms) == 0 {
				return fmt.Errorf("--terms is required")
			}
			if (req.Events == "") == (data == "") {
				return fmt.Errorf("give one of --events FILE or --data DIR")
			}
			// A bad --lang is refused before the log is read.
			if err := out.Check(); err != nil {
				return err
			}
			req.Stdin = cmd.InOrStdin()
			req.Seal = true
			var fromStore func() ([]claims.Claim, error) // the --data store's ledger
			if data != "" {
				closeStore, err := fromData(cmd.Context(), data, workers, out.Bill != "", &req, &fromStore)
				if err != nil {
					return err
				}
				defer closeStore()
			}
			out.Terms = req.Terms // an itemized bill is priced by the contracts' price sheets
			rep, sc, skipped, err := monthreport.BuildWithScorecard(req)
			if err != nil {
				return err
			}
			if sc != nil {
				if err := reportScorecardClaims(sc, rep, req.Terms, claimsFile, fromStore); err != nil {
					return err
				}
			}
			out.Scorecard = sc
			out.Stdout = cmd.OutOrStdout()
			if err := monthreport.Write(rep, out); err != nil {
				return err
			}
			// serve's demo node, over, is left out: the renter's own
			// month, not a partial one.
			for _, d := range rep.DemoOver {
				fmt.Fprintf(cmd.ErrOrStderr(), "gpusla: node %s left out: %s\n", d.Node, d.Reason)
			}
			if rep.Provisional {
				var open []string
				for _, c := range rep.Contracts {
					if c.Provisional {
						open = append(open, c.Contract+" ("+c.TimeZone+")")
					}
				}
				// A month over in one zone and not in another: the finished
				// contracts keep their letters, and the sentence says whose
				// month is provisional.
				if len(open) > 0 && len(open) < len(rep.Contracts) {
					fmt.Fprintf(cmd.ErrOrStderr(), "gpusla: %s is not over as of %s for %s: that part is provisional and holds no claim letter\n", rep.Month, rep.AsOf, strings.Join(open, ", "))
				} else {
					fmt.Fprintf(cmd.ErrOrStderr(), "gpusla: %s is not over as of %s: the report is provisional and holds no claim letter\n", rep.Month, rep.AsOf)
				}
			}
			// The others' report stands; the left-out node is named, and
			// the exit status says the report is partial.
			monthreport.WarnSkipped(cmd.ErrOrStderr(), skipped)
			return partial("report", skipped)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&req.Terms, "terms", nil, "contract terms file (YAML), or a folder of them (data/terms: its *.yaml files); repeat for several")
	f.StringVar(&req.Events, "events", "", `event log (JSON lines), "-" for standard input`)
	f.StringVar(&data, "data", "", "build the month from the local backend's store in this data folder instead of --events")
	f.IntVar(&workers, "workers", 0, "with --data: nodes built at once (default: one per processor)")
	f.StringVar(&req.Month, "month", "", "month to report, YYYY-MM")
	f.StringVar(&out.Format, "format", "json", "output format: json, md, csv, html or pdf")
	f.StringVar(&out.Lang, "lang", "", "language of md, csv, html and pdf: en or zh (default: the contracts' report.lang, else en); json keeps its keys")
	f.BoolVar(&out.BOM, "bom", false, "start a CSV with a UTF-8 byte order mark, so Excel opens it as UTF-8")
	f.StringVar(&out.Bill, "bill", "", "provider's bill (CSV, docs/bills.md: node,period,billed_hours,amount, or the full form with a kind column) to judge line by line; shown in every format")
	f.StringVar(&out.BillFormat, "bill-format", "", "form of --bill: gpusla (the CSV of docs/bills.md, the default) or aws-cur (an AWS Cost and Usage Report CSV, resources tagged gpusla-node)")
	f.StringVar(&claimsFile, "claims", "", "with --scorecard: the claims ledger (gpusla claims list --format json) for what each provider's claims recovered; with --data, that store's ledger by default")
	f.BoolVar(&req.Scorecard, "scorecard", false, "add the month's provider scorecard section (each provider's headline figures beside the whole fleet, with n; docs/scorecard.md) to json, md, html and pdf")
	f.StringVar(&req.AsOf, "as-of", "", "judge the report as of this RFC 3339 instant (default: the last instant the event log records, so every format and every run of one log agree; with --data, the store's: its log's, or the backend's last tick or stop)")
	f.StringVarP(&out.Path, "output", "o", "", "write the report to this file (atomically) instead of standard output")
	return cmd
}

// partial is nil when no node was left out, else the error whose exit
// status (exitPartial) tells a scheduled run the written report is not the
// whole fleet's.
func partial(what string, skipped []report.Skipped) error {
	if len(skipped) == 0 {
		return nil
	}
	return &exitError{code: exitPartial, msg: fmt.Sprintf("the %s is partial: %d node(s) left out, named above and in the document (exit status %d)", what, len(skipped), exitPartial)}
}

// reportScorecardClaims adds to the report's scorecard section what each
// provider's claims recovered as of the report's instant.
func reportScorecardClaims(sc *scorecard.Scorecard, rep *report.Report, termsFiles []string, claimsFile string, fromStore func() ([]claims.Claim, error)) error {
	if claimsFile == "" && fromStore == nil {
		return nil
	}
	all, err := monthreport.ReadTerms(termsFiles)
	if err != nil {
		return err
	}
	asOf, err := time.Parse(time.RFC3339, rep.AsOf)
	if err != nil {
		return fmt.Errorf("report as_of %q: %w", rep.AsOf, err)
	}
	return scorecardClaims(sc, all, claimsFile, fromStore, asOf)
}

// fromData opens the --data folder's store (or the DynamoDB table
// $GPUSLA_TABLE names) and has req build the month from it, node by node
// on workers (app.Books; the readings kept when a bill is judged), and
// ledger read its claims ledger. The returned func closes the store. The
// demo node of a month its demo was over in is left out by the books
// (report.DemoOver), as by the store's exported log.
func fromData(ctx context.Context, data string, workers int, keepReadings bool, req *monthreport.Request, ledger *func() ([]claims.Claim, error)) (func() error, error) {
	st, _, err := wiring.FromEnv().OpenExisting(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("--data %s: %w", data, err)
	}
	*ledger = func() ([]claims.Claim, error) { return ledgerOf(ctx, st, data) }
	req.Books = func(all []*terms.Terms, year int, month time.Month, asOf time.Time) (*report.Report, error) {
		// The days serve's books sealed are read from their digests; this
		// reader seals none (nil clock): it may be looking at a copy.
		bk := app.Books{Store: st, Status: st, Terms: all, Workers: workers, KeepReadings: keepReadings}.WithDigests(st, nil)
		return bk.Month(ctx, year, month, asOf)
	}
	req.LastKnown = func() (time.Time, error) { return lastKnown(ctx, st) }
	return st.Close, nil
}

// lastKnown is the last instant the store records: the latest of what the
// log `gpusla export` writes from it says the backend knew
// (events.LastKnown) and of the backend's own liveness records (its last
// watchdog tick, or its stop). A store read after serve stopped is judged
// when serve stopped, not at now: the time since is no node's outage, no
// backend heard it. A backend still running is judged at its last tick,
// so nodes that went silent count until then. The batches, the export's
// bulk, are not replayed: each is known at its receipt, and only those
// received after everything else is known are read (app.LastBatchKnown);
// the books then read the month once.
func lastKnown(ctx context.Context, st eventexport.Store) (time.Time, error) {
	var last time.Time
	sel, err := eventexport.Select("", "", "", nil)
	if err != nil {
		return last, err
	}
	sel.NoBatches = true
	runs, err := st.ListBackendRuns(ctx, sel.From, sel.To)
	if err != nil {
		return last, fmt.Errorf("backend runs: %w", err)
	}
	for _, r := range runs {
		if r.LastTick.After(last) {
			last = r.LastTick
		}
	}
	if _, err = eventexport.Into(ctx, st, sel, func(e *events.Event) error {
		if k := e.KnownAt(); k.After(last) {
			last = k
		}
		return nil
	}); err != nil {
		return last, err
	}
	batch, err := app.LastBatchKnown(ctx, st, last)
	if batch.After(last) {
		last = batch
	}
	return last, err
}
