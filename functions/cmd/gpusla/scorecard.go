package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/document"
	"github.com/gpusla/gpusla/functions/monthreport"
	"github.com/gpusla/gpusla/functions/wiring"
	gstore "github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/terms"
)

func init() {
	commands = append(commands, newScorecardCmd)
}

// scorecardLong is `gpusla scorecard --help`'s text.
const scorecardLong = `Reads contract terms and the event log (--events FILE, "-" for standard input),
or the local backend's store (--data DIR, node by node on every core, the same
scorecard without exporting a log), and prints the provider scorecard
(docs/scorecard.md): per provider and per provider × GPU model, delivery,
hardware truth, reliability, network, support, billing and performance, each
figure with the observations it rests on and its rank, and the fleet
baselines. --to defaults to the month before --as-of (default now), --from
to --to.

--trial is the seed's own method: one node rented from each provider, the
same checks on each, one page side by side — delivery, acceptance over every
result of the trial, the four steps after delivery (nvidia-smi against the
order, gpustat idle, df -h, curl -I), gpu_burn 30 min, bandwidthTest 90 %,
nccl-tests all_reduce, power within 5 %, iperf3 70 %, ping 2 ms, the 22:00
test ticket, billing granularity and what the trial cost — each judged
against the seed's criterion (docs/scorecard.md, "Trial mode"), never ranked,
with what to ask each provider next (md, html, pdf or json; --lang en or zh).`

func newScorecardCmd() *cobra.Command {
	var termsFiles []string
	var eventsFile, data, from, to, format, asOf, billFile, ratesFile, output, langFlag, claimsFile string
	var trial bool
	var workers int
	cmd := &cobra.Command{
		Use:   "scorecard --terms FILE (--events FILE | --data DIR) [--from YYYY-MM --to YYYY-MM]",
		Short: "Compare providers on what the probes measured, over a run of months",
		Long:  scorecardLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(termsFiles) == 0 {
				return fmt.Errorf("--terms is required")
			}
			if (eventsFile == "") == (data == "") {
				return fmt.Errorf("give one of --events FILE or --data DIR")
			}
			check := document.CheckScorecardFormat
			if trial {
				check = document.CheckTrialFormat
			}
			if err := check(format); err != nil {
				return err
			}
			lang, err := i18n.Parse(langFlag)
			if err != nil {
				return fmt.Errorf("--lang: %w", err)
			}
			opts, err := scorecardOptions(from, to, asOf, billFile, ratesFile)
			if err != nil {
				return err
			}
			opts.Trial = trial
			all, err := monthreport.ReadTerms(termsFiles)
			if err != nil {
				return err
			}
			if data != "" {
				return scorecardFromStore(cmd, data, workers, all, opts, claimsFile, format, lang, output)
			}
			b, err := scorecard.NewBuilder(all, opts)
			if err != nil {
				return err
			}
			if eventsFile == "-" {
				err = b.ReadLog("stdin", cmd.InOrStdin())
			} else {
				err = readScorecardEvents(b, eventsFile)
			}
			if err != nil {
				return err
			}
			// A node whose contract no terms define is left out and named.
			monthreport.WarnSkipped(cmd.ErrOrStderr(), b.Skipped())
			if trial {
				tr, err := b.BuildTrial()
				if err != nil {
					return err
				}
				return emitTrial(cmd, tr, format, lang, output)
			}
			sc, err := b.Build()
			if err != nil {
				return err
			}
			return emitScorecard(cmd, sc, all, claimsFile, nil, opts.AsOf, format, output)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&termsFiles, "terms", nil, "contract terms file (YAML), or a folder of them (data/terms: its *.yaml files); repeat for several")
	f.StringVar(&eventsFile, "events", "", `event log (JSON lines), "-" for standard input`)
	f.StringVar(&data, "data", "", "build from the local backend's store in this data folder (or the DynamoDB table $GPUSLA_TABLE names), node by node, instead of --events")
	f.IntVar(&workers, "workers", 0, "with --data: nodes read at once (default: one per processor)")
	f.StringVar(&from, "from", "", "first month, YYYY-MM (default --to)")
	f.StringVar(&to, "to", "", "last month, YYYY-MM (default the month before --as-of)")
	f.StringVar(&format, "format", "md", "output format: json, md or html")
	f.StringVar(&asOf, "as-of", "", "judge as of this RFC 3339 instant (default now)")
	f.StringVar(&billFile, "bill", "", "provider bills (CSV: node,period,billed_hours,amount) for over-billing, any months in range")
	f.StringVar(&ratesFile, "rates", "", "exchange rates (YAML: base: USD, rates: {CNY: 0.1385}) to compare prices billed in different currencies")
	f.StringVar(&claimsFile, "claims", "", "the claims ledger (gpusla claims list --format json, or GET /v1/claims) for what each provider's claims recovered; with --data, that store's ledger by default")
	f.BoolVar(&trial, "trial", false, "the one-node-per-provider trial page instead of the scorecard (docs/scorecard.md, \"Trial mode\")")
	f.StringVar(&langFlag, "lang", "en", "language of the --trial page: en or zh")
	f.StringVarP(&output, "output", "o", "", "write to this file (atomically) instead of standard output")
	return cmd
}

// scorecardOptions reads the flags, naming the one that is wrong.
func scorecardOptions(from, to, asOf, billFile, ratesFile string) (scorecard.Options, error) {
	var o scorecard.Options
	o.AsOf = time.Now().UTC()
	if asOf != "" {
		t, err := monthreport.ParseAsOf(asOf, o.AsOf)
		if err != nil {
			return o, err
		}
		o.AsOf = t
	}
	prev := o.AsOf.UTC().AddDate(0, 0, -o.AsOf.UTC().Day()+1).AddDate(0, -1, 0)
	o.To = scorecard.Month{Year: prev.Year(), Month: prev.Month()}
	var err error
	if to != "" {
		if o.To, err = scorecard.ParseMonth(to); err != nil {
			return o, fmt.Errorf("--to: %w", err)
		}
	}
	o.From = o.To
	if from != "" {
		if o.From, err = scorecard.ParseMonth(from); err != nil {
			return o, fmt.Errorf("--from: %w", err)
		}
	}
	if ratesFile != "" {
		data, err := readAtMost(ratesFile, scorecard.MaxRatesBytes)
		if err != nil {
			return o, fmt.Errorf("--rates: %w", err)
		}
		if o.Rates, err = scorecard.ParseRates(ratesFile, data); err != nil {
			return o, fmt.Errorf("--rates: %w", err)
		}
	}
	if billFile != "" {
		fh, err := os.Open(billFile)
		if err != nil {
			return o, fmt.Errorf("--bill: %w", err)
		}
		defer fh.Close()
		if o.Bill, err = billing.ParseCSV(billFile, fh); err != nil {
			return o, err
		}
	}
	return o, nil
}

func readScorecardEvents(b *scorecard.Builder, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--events: %w", err)
	}
	defer f.Close()
	return b.ReadLog(path, f)
}

// scorecardFromStore builds the scorecard (or the trial page) from the
// store in data node by node on workers (app.Books): the one the months'
// exported log gives (TestStoreScorecardIsTheLogs), without the log.
func scorecardFromStore(cmd *cobra.Command, data string, workers int, all []*terms.Terms, o scorecard.Options, claimsFile, format string, lang i18n.Lang, output string) error {
	st, _, err := wiring.FromEnv().OpenExisting(cmd.Context(), data) // $GPUSLA_TABLE: DynamoDB
	if err != nil {
		return fmt.Errorf("--data %s: %w", data, err)
	}
	defer st.Close()
	bk := app.Books{Store: st, Status: st, Terms: all, Workers: workers}
	if o.Trial {
		tr, reps, err := bk.Trial(cmd.Context(), o)
		if err != nil {
			return fmt.Errorf("--data %s: %w", data, err)
		}
		monthreport.WarnSkipped(cmd.ErrOrStderr(), reps[0].LeftOut)
		return emitTrial(cmd, tr, format, lang, output)
	}
	sc, reps, err := bk.Scorecard(cmd.Context(), o)
	if err != nil {
		return fmt.Errorf("--data %s: %w", data, err)
	}
	monthreport.WarnSkipped(cmd.ErrOrStderr(), reps[0].LeftOut)
	fromStore := func() ([]claims.Claim, error) { return ledgerOf(cmd.Context(), st, data) }
	return emitScorecard(cmd, sc, all, claimsFile, fromStore, o.AsOf, format, output)
}

// emitTrial writes the trial page in format.
func emitTrial(cmd *cobra.Command, tr *scorecard.Trial, format string, lang i18n.Lang, output string) error {
	var buf bytes.Buffer
	if err := document.RenderTrial(&buf, tr, format, lang); err != nil {
		return err
	}
	return monthreport.Emit(cmd.OutOrStdout(), output, buf.Bytes())
}

// emitScorecard adds the claims ledger's figures to sc and writes it in
// format.
func emitScorecard(cmd *cobra.Command, sc *scorecard.Scorecard, all []*terms.Terms, claimsFile string, fromStore func() ([]claims.Claim, error), asOf time.Time, format, output string) error {
	if err := scorecardClaims(sc, all, claimsFile, fromStore, asOf); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := document.RenderScorecard(&buf, sc, format); err != nil {
		return err
	}
	return monthreport.Emit(cmd.OutOrStdout(), output, buf.Bytes())
}

// readAtMost reads the file at path if it is at most max bytes: a regular
// file is judged by its size before anything is read, anything else (a
// pipe, a device) by reading one byte past max at the most. A longer file
// is refused, not cut: ParseRates names the bound.
func readAtMost(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > max {
		return nil, fmt.Errorf("%s: %d bytes; a rates file is at most %d bytes", path, st.Size(), max)
	}
	return io.ReadAll(io.LimitReader(f, max+1))
}

// MaxClaimsFile bounds --claims: a ledger holds a claim per contract and
// month, a few kilobytes each.
const MaxClaimsFile = 32 << 20

// scorecardClaims adds to sc what each provider's claims recovered: from
// the ledger file given (--claims), else from the --data store's ledger,
// else none. Each claim is held to the provider deadlines its contract's
// --terms state.
func scorecardClaims(sc *scorecard.Scorecard, all []*terms.Terms, file string, fromStore func() ([]claims.Claim, error), asOf time.Time) error {
	var cs []claims.Claim
	var err error
	switch {
	case file != "":
		cs, err = readClaimsFile(file)
	case fromStore != nil:
		cs, err = fromStore()
	default:
		return nil
	}
	if err != nil {
		return err
	}
	ds := map[string]claims.Deadlines{}
	for _, tm := range all {
		ds[tm.Contract] = claims.DeadlinesOf(tm)
	}
	sc.AddClaims(cs, ds, asOf)
	return nil
}

// readClaimsFile reads a ledger as `gpusla claims list --format json`
// writes it, refusing a claim whose id, month or amount is not one.
func readClaimsFile(path string) ([]claims.Claim, error) {
	raw, err := readAtMost(path, MaxClaimsFile)
	if err != nil {
		return nil, fmt.Errorf("--claims: %w", err)
	}
	if len(raw) > MaxClaimsFile {
		return nil, fmt.Errorf("--claims: %s: more than %d bytes", path, MaxClaimsFile)
	}
	var doc struct {
		Claims []claims.Claim `json:"claims"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("--claims: %s: not a claims ledger (gpusla claims list --format json): %w", path, err)
	}
	for i, c := range doc.Claims {
		contract, month, err := claims.ParseID(c.ID)
		switch {
		case err != nil:
			return nil, fmt.Errorf("--claims: %s: claim %d: %w", path, i+1, err)
		case contract != c.Contract || month != c.Month:
			return nil, fmt.Errorf("--claims: %s: claim %d: id %q is not contract %q, month %q", path, i+1, c.ID, c.Contract, c.Month)
		case c.Amount <= 0 || c.Currency == "":
			return nil, fmt.Errorf("--claims: %s: claim %s: no amount or currency", path, c.ID)
		}
	}
	return doc.Claims, nil
}

// ledgerOf is the ledger of an open store (none when it keeps none).
func ledgerOf(ctx context.Context, st any, data string) ([]claims.Claim, error) {
	ls, ok := st.(gstore.LedgerStore)
	if !ok {
		return nil, nil
	}
	stored, err := ls.ListClaims(ctx)
	if err != nil {
		return nil, fmt.Errorf("--data %s: claims: %w", data, err)
	}
	out := make([]claims.Claim, len(stored))
	for i, c := range stored {
		out[i] = c.Claim
	}
	return out, nil
}
