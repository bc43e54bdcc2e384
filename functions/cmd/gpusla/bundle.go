package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/functions/monthreport"
)

func init() {
	commands = append(commands, newBundleCmd)
}

func newBundleCmd() *cobra.Command {
	var (
		req            monthreport.Request
		output, ledger string
	)
	cmd := &cobra.Command{
		Use:   "bundle --terms FILE --events FILE --month YYYY-MM -o CLAIM.zip",
		Short: "Write the claim evidence bundle: report, raw observations behind each counted outage, manifest",
		Long: `Builds the month's report like ` + "`gpusla report`" + ` and writes a zip to file
with the provider: report.json and report.html, observations.jsonl (the event
log's own lines for every batch around each counted outage) and manifest.json
(SHA-256 of each file, the batches with their hash chain, the chain head).
Check it with ` + "`gpusla verify`" + `. The event log must be a file (it is read twice).
With --claims (the ledger as ` + "`gpusla claims list --format json`" + ` writes it) the month's
claims go in claims.json, with when each was sent, answered and credited and by
whom; verify checks that each rests on the bundle's own chain head.
As with the report, a node whose contract no --terms file defines is left
out and named (in report.json, report.html and on standard error), and the
exit status is 3: the bundle was written, but it is partial.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(req.Terms) == 0 || req.Events == "" || output == "" {
				return fmt.Errorf("--terms, --events and -o are required")
			}
			if req.Events == "-" {
				return fmt.Errorf("--events: the bundle reads the log twice, so it must be a file, not standard input")
			}
			rep, skipped, err := monthreport.Build(req)
			if err != nil {
				return err
			}
			claims, err := readLedger(ledger)
			if err != nil {
				return err
			}
			man, err := monthreport.WriteBundleWithClaims(output, rep, req.Events, claims)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d counted outages, %d batches; chain head %s\n", output, len(man.Intervals), len(man.Batches), man.ChainHead)
			monthreport.WarnSkipped(cmd.ErrOrStderr(), skipped)
			return partial("bundle's report", skipped)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&req.Terms, "terms", nil, "contract terms file (YAML), or a folder of them (data/terms: its *.yaml files); repeat for several")
	f.StringVar(&req.Events, "events", "", "event log (JSON lines)")
	f.StringVar(&req.Month, "month", "", "month to report, YYYY-MM")
	f.StringVar(&req.AsOf, "as-of", "", "judge the report as of this RFC 3339 instant (default: the last instant the event log records, so every format and every run of one log agree)")
	f.StringVarP(&output, "output", "o", "", "bundle file to write (atomically)")
	f.StringVar(&ledger, "claims", "", "the claims ledger as JSON (gpusla claims list --format json): the month's claims go in the bundle")
	return cmd
}

// readLedger reads a claims ledger export ("" reads none).
func readLedger(path string) ([]bundle.LedgerClaim, error) {
	if path == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--claims: %w", err)
	}
	var doc struct {
		Claims []bundle.LedgerClaim `json:"claims"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("--claims %s: not the ledger as gpusla claims list --format json writes it: %v", path, err)
	}
	return doc.Claims, nil
}
