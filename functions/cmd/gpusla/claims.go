package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/document"
	"github.com/gpusla/gpusla/functions/tables"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/internal/atomicfile"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/report"
)

func init() {
	commands = append(commands, newClaimsCmd)
}

// ledgerFlags are every claims command's way to the ledger.
type ledgerFlags struct{ data, server string }

func (f *ledgerFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.data, "data", "./data", "data folder of the local backend")
	cmd.Flags().StringVar(&f.server, "server", "", "the running backend instead (key with the claims scope: $"+wiring.EnvAPIKey+")")
}

// run opens the ledger and runs do on it; a refusal is worded with the
// flag its field names.
func (f *ledgerFlags) run(cmd *cobra.Command, do func(ledgerClient) error) error {
	c, done, err := openLedger(cmd.Context(), f.data, f.server)
	if err != nil {
		return err
	}
	defer done()
	return claimsErr(cmd, do(c))
}

// claimsErr words a refusal by the flag its field names (granted →
// --granted), or by the field itself when it is no flag of cmd (the claim
// or credit key argument, a report's field).
func claimsErr(cmd *cobra.Command, err error) error {
	var ae *app.Error
	if !errors.As(err, &ae) || ae.Field == "" {
		return err
	}
	if err != error(ae) {
		// Wrapped with where it was found (a bill's line): that context
		// names the problem, not a flag.
		return err
	}
	flag := strings.ReplaceAll(ae.Field, "_", "-")
	if cmd.Flags().Lookup(flag) != nil {
		return fmt.Errorf("--%s: %s", flag, ae.Msg)
	}
	return fmt.Errorf("%s: %s", ae.Field, ae.Msg)
}

func newClaimsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "claims", Short: "The claims ledger: each claim followed until the credit is on a bill (docs/claims.md)",
		Long: `Each month's claim per contract, drafted from its sealed report (the report job
does it, or claims draft), is followed here: when and how it was sent, the
provider's answer, the credits later bills carry against it (claims bill reads
them), and what is still owed. The provider's own deadlines (the terms'
claim.answer_within and claim.credit_within) are alerted on every channel when
they pass, and claims letter writes the follow-up.

Every command works on the local store (stop serve first: it holds the file
locked) or, with --server, on a running backend with an API key that has the
claims scope in $` + wiring.EnvAPIKey + `. Every fact is recorded with who and when.`}
	for _, c := range []func() *cobra.Command{newClaimsListCmd, newClaimsShowCmd, newClaimsDraftCmd, newClaimsSentCmd, newClaimsAnswerCmd,
		newClaimsCreditCmd, newClaimsBillCmd, newClaimsApplyCmd, newClaimsLetterCmd, newClaimsRecoveryCmd} {
		cmd.AddCommand(c())
	}
	return cmd
}

func newClaimsListCmd() *cobra.Command {
	var f ledgerFlags
	var format, out string
	var credits bool
	cmd := &cobra.Command{
		Use:   "list [--credits] [--format table|json|csv] [-o FILE]",
		Short: "List the claims (or, with --credits, every credit line read from a bill)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "table" && format != "json" && format != "csv" {
				return fmt.Errorf("--format: %q is not table, json or csv", format)
			}
			return f.run(cmd, func(c ledgerClient) error {
				return withOutput(cmd, out, func(w io.Writer) error {
					if credits {
						return listCredits(cmd, c, w, format)
					}
					return listClaims(cmd, c, w, format)
				})
			})
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVar(&credits, "credits", false, "list the bill credit lines: applied to a claim, or why they match none")
	cmd.Flags().StringVar(&format, "format", "table", "table, json or csv (the export a finance team reconciles with)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	return cmd
}

func listClaims(cmd *cobra.Command, c ledgerClient, w io.Writer, format string) error {
	vs, err := c.list(cmd.Context())
	if err != nil {
		return err
	}
	switch format {
	case "json":
		return writeJSONTo(w, map[string]any{"claims": vs})
	case "csv":
		rows := make([]document.LedgerRow, len(vs))
		for i, v := range vs {
			rows[i] = document.LedgerRow{Claim: v.Claim.Claim, Status: v.Status}
		}
		return document.ClaimsCSV(w, rows)
	}
	rows := make([]tables.ClaimRow, len(vs))
	for i, v := range vs {
		rows[i] = tables.ClaimRow{Claim: v.Claim.Claim, Status: v.Status}
	}
	return tables.Claims(w, rows)
}

func listCredits(cmd *cobra.Command, c ledgerClient, w io.Writer, format string) error {
	bs, err := c.credits(cmd.Context())
	if err != nil {
		return err
	}
	switch format {
	case "json":
		return writeJSONTo(w, map[string]any{"credits": bs})
	case "csv":
		return document.CreditsCSV(w, bs)
	}
	return tables.Credits(w, bs)
}

func writeJSONTo(w io.Writer, v any) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(v)
}

// withOutput runs write on -o FILE (written whole, or not at all, through
// internal/atomicfile) or standard output.
func withOutput(cmd *cobra.Command, out string, write func(io.Writer) error) error {
	if out == "" {
		return write(cmd.OutOrStdout())
	}
	return atomicfile.Write(out, 0o644, write)
}

func newClaimsShowCmd() *cobra.Command {
	var f ledgerFlags
	cmd := &cobra.Command{
		Use:   "show CLAIM",
		Short: "Show one claim (CONTRACT/YYYY-MM) as JSON, with where it stands",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, func(c ledgerClient) error {
				v, err := c.get(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				return writeJSONTo(cmd.OutOrStdout(), v)
			})
		},
	}
	f.add(cmd)
	return cmd
}

func newClaimsDraftCmd() *cobra.Command {
	var data string
	cmd := &cobra.Command{
		Use:   "draft --report REPORT.json",
		Short: "Draft each contract's claim from a sealed month's report (the report job does it by itself)",
		Long: `Reads a month's report in JSON (gpusla report --events LOG --format json: a report
built from an event log carries the seal of its evidence bundle; one built with
--data does not, so export the store's month first: gpusla export --data DIR
--month YYYY-MM -o month.jsonl) and drafts the claim of every contract
whose report asks for a credit, with its amount, currency, deadline and seal. A
claim drafted before is left as it is. A provisional month (the report as of
before the month ends) or an unsealed report drafts nothing. Local store only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, _ := cmd.Flags().GetString("report")
			r, err := readReportJSON(path)
			if err != nil {
				return err
			}
			c, done, err := openLedger(cmd.Context(), data, "")
			if err != nil {
				return err
			}
			defer done()
			ds, err := c.(localLedger).l.Draft(cmd.Context(), r, cliActor())
			if err != nil {
				return draftErr(cmd, path, err)
			}
			if len(ds) == 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "gpusla: %s reports no contract for %s (no node was in service): nothing to draft\n", path, r.Month)
			}
			for _, d := range ds {
				if d.Outcome == "provisional" {
					fmt.Fprintf(cmd.OutOrStdout(), "%s: provisional: its month is not over in its zone as of %s; draft it from a report made after the month\n", d.Claim, r.AsOf)
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", d.Claim, d.Outcome)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&data, "data", "./data", "data folder of the local backend")
	cmd.Flags().String("report", "", "the month's report, JSON")
	_ = cmd.MarkFlagRequired("report")
	return cmd
}

// draftErr is claims draft's refusal, naming its flag; an unsealed report
// also says how to get a sealed one, since the report a renter reaches
// first (gpusla report --data) is never sealed.
func draftErr(cmd *cobra.Command, path string, err error) error {
	var ae *app.Error
	if errors.As(err, &ae) && ae.Field == "seal" {
		return fmt.Errorf("--report %s: not sealed, and a claim rests on sealed evidence. A report built from the store "+
			"(gpusla report --data) carries no seal: export the month's log (gpusla export --data DIR --month YYYY-MM -o month.jsonl) "+
			"and build the report from it (gpusla report --events month.jsonl --terms … --month YYYY-MM --format json), "+
			"which is sealed as its evidence bundle (gpusla bundle) is", path)
	}
	return claimsErr(cmd, err)
}

// maxReportJSON bounds the report claims draft reads: a month of a large
// fleet is a few megabytes.
const maxReportJSON = 256 << 20

func readReportJSON(path string) (*report.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--report: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxReportJSON+1))
	if err != nil {
		return nil, fmt.Errorf("--report: %w", err)
	}
	if len(raw) > maxReportJSON {
		return nil, fmt.Errorf("--report %s: more than %d bytes; not a month's report", path, maxReportJSON)
	}
	var r report.Report
	if err := json.Unmarshal(raw, &r); err != nil || r.Schema != report.Schema {
		return nil, fmt.Errorf("--report %s: not a month's report in JSON (schema %s): %v", path, report.Schema, err)
	}
	return &r, nil
}

// printClaim is the one line a recording command prints.
func printClaim(cmd *cobra.Command, v app.ClaimView) error {
	st := v.Status
	note := dueNote(st)
	// The renter's own deadline, said when it is recorded: a claim sent at
	// or after it may be refused for that alone.
	deadline := v.Deadline.In(v.Loc()).Format("2006-01-02 15:04 MST")
	switch {
	case st.SentEarly:
		note += "; sent before the claim window opened (" + v.Opens.In(v.Loc()).Format("2006-01-02 15:04 MST") +
			"): the provider's text takes a claim only from then and may refuse this one for that alone; send it again once the window is open"
	case st.SentLate:
		note += "; sent at or after the claim deadline (" + deadline + "): the provider may refuse it for that alone"
	case st.Expired:
		note += "; never sent, and the claim deadline (" + deadline + ") has passed"
	case v.OpensHolidaysMissing != 0 && v.Sent != nil:
		note += fmt.Sprintf("; the terms list no holidays for %d: the claim window opened on %s at the earliest (weekdays counted), later if a holiday fell on one; the provider may hold a claim sent before its own opening to be early",
			v.OpensHolidaysMissing, v.Opens.In(v.Loc()).Format("2006-01-02 15:04 MST"))
	}
	_, err := fmt.Fprintf(cmd.OutOrStdout(), "claim %s: %s; claimed %s %s, received %s, outstanding %s%s\n", v.ID, st.State,
		v.Amount, v.Currency, st.Received, st.Outstanding, note)
	return err
}

func dueNote(st claimStatus) string {
	switch {
	case st.AnswerOverdue:
		return "; the provider's deadline to answer passed on " + st.AnswerDue.Format("2006-01-02 15:04 MST")
	case st.CreditOverdue:
		return "; the provider's deadline to credit passed on " + st.CreditDue.Format("2006-01-02 15:04 MST")
	case st.AnswerLate:
		return "; answered after the provider's deadline"
	}
	return ""
}

// billFormats are the bill formats claims bill reads.
var billFormats = []string{billing.FormatGpusla, billing.FormatAWSCUR}
