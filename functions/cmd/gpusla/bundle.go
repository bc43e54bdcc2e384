package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/bundle"
)

func init() {
	commands = append(commands, newBundleCmd)
}

func newBundleCmd() *cobra.Command {
	var (
		termsFiles []string
		eventsFile string
		month      string
		asOf       string
		output     string
	)
	cmd := &cobra.Command{
		Use:   "bundle --terms FILE --events FILE --month YYYY-MM -o CLAIM.zip",
		Short: "Write the claim evidence bundle: report, raw observations behind each counted outage, manifest",
		Long: `Builds the month's report like ` + "`gpusla report`" + ` and writes a zip to file
with the provider: report.json and report.html, observations.jsonl (the event
log's own lines for every batch around each counted outage) and manifest.json
(SHA-256 of each file, the batches with their hash chain, the chain head).
Check it with ` + "`gpusla verify`" + `. The event log must be a file (it is read twice).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(termsFiles) == 0 || eventsFile == "" || output == "" {
				return fmt.Errorf("--terms, --events and -o are required")
			}
			b, err := newMonthBuilder(termsFiles, month, asOf)
			if err != nil {
				return err
			}
			if err := readEvents(b, eventsFile); err != nil {
				return err
			}
			rep, err := b.Build()
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			man, err := bundle.Write(&buf, rep, func() (io.ReadCloser, error) { return os.Open(eventsFile) })
			if err != nil {
				return err
			}
			if err := writeReport(output, buf.Bytes()); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d counted outages, %d batches; chain head %s\n", output, len(man.Intervals), len(man.Batches), man.ChainHead)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&termsFiles, "terms", nil, "contract terms file (YAML); repeat for several")
	f.StringVar(&eventsFile, "events", "", "event log (JSON lines)")
	f.StringVar(&month, "month", "", "month to report, YYYY-MM")
	f.StringVar(&asOf, "as-of", "", "judge the report as of this RFC 3339 instant (default now)")
	f.StringVarP(&output, "output", "o", "", "bundle file to write (atomically)")
	return cmd
}
