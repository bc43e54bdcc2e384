package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/atomicfile"
	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/functions/i18n"
	"github.com/gpusla/gpusla/functions/reportgen"
	"github.com/gpusla/gpusla/sla/report"
)

func init() {
	commands = append(commands, newReportCmd)
}

func newReportCmd() *cobra.Command {
	var (
		termsFiles []string
		eventsFile string
		month      string
		format     string
		asOf       string
		output     string
		billFile   string
		lang       string
		bom        bool
	)
	cmd := &cobra.Command{
		Use:   "report --terms FILE --events FILE --month YYYY-MM",
		Short: "Print the month's SLA report from contract terms and an event log",
		Long: `Reads contract terms (YAML, docs/terms.md; --terms may be repeated, a file may
hold several contracts) and an event log (JSON lines, docs/events.md; "-" reads
standard input), and prints the month's report for every node: uptime observed
and claimable, outages with cause and evidence, tickets against their targets,
delivery, credits, the total claim and the claim deadline.

The month is each contract's calendar month in its own time zone. --as-of
(RFC 3339, default now) leaves out what was received after it and judges
pending tickets and ongoing outages at it. A malformed line fails the whole
run with its line number; no partial report is ever printed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(termsFiles) == 0 {
				return fmt.Errorf("--terms is required")
			}
			if eventsFile == "" {
				return fmt.Errorf("--events is required")
			}
			var docLang i18n.Lang
			if lang != "" {
				var err error
				if docLang, err = i18n.Parse(lang); err != nil {
					return fmt.Errorf("--lang: %w", err)
				}
			}
			b, err := newMonthBuilder(termsFiles, month, asOf)
			if err != nil {
				return err
			}
			if eventsFile == "-" {
				err = b.ReadLog("stdin", cmd.InOrStdin())
			} else {
				err = readEvents(b, eventsFile)
			}
			if err != nil {
				return err
			}
			rep, err := b.Build()
			if err != nil {
				return err
			}
			x := reportgen.Extras{BOM: bom, Lang: docLang}
			// The claim page quotes the evidence seal: the observations
			// hash and chain head the bundle of this log would carry.
			if eventsFile != "-" {
				if err := bundle.SealReport(rep, func() (io.ReadCloser, error) { return os.Open(eventsFile) }); err != nil {
					return err
				}
			}
			if billFile != "" {
				if x.Bill, err = reconcileBill(rep, billFile); err != nil {
					return err
				}
			}
			var buf bytes.Buffer
			if err := reportgen.Render(&buf, rep, format, x); err != nil {
				return err
			}
			return writeOutput(cmd, output, buf.Bytes())
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&termsFiles, "terms", nil, "contract terms file (YAML); repeat for several")
	f.StringVar(&eventsFile, "events", "", `event log (JSON lines), "-" for standard input`)
	f.StringVar(&month, "month", "", "month to report, YYYY-MM")
	f.StringVar(&format, "format", "json", "output format: json, md, csv, html or pdf")
	f.StringVar(&lang, "lang", "", "language of md, csv, html and pdf: en or zh (default: the contracts' report.lang, else en); json keeps its keys")
	f.BoolVar(&bom, "bom", false, "start a CSV with a UTF-8 byte order mark, so Excel opens it as UTF-8")
	f.StringVar(&billFile, "bill", "", "provider's bill (CSV: node,period,billed_hours,amount) to reconcile; shown in html and pdf")
	f.StringVar(&asOf, "as-of", "", "judge the report as of this RFC 3339 instant (default now)")
	f.StringVarP(&output, "output", "o", "", "write the report to this file (atomically) instead of standard output")
	return cmd
}

func readEvents(b *report.Builder, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	defer f.Close()
	return b.ReadLog(path, io.Reader(f))
}

// newMonthBuilder reads every terms file and starts a report builder for
// month (YYYY-MM) as of asOf (RFC 3339; empty means now). The flags are named
// in the errors because both report and bundle take them alike.
func newMonthBuilder(termsFiles []string, month, asOf string) (*report.Builder, error) {
	m, err := time.Parse("2006-01", month)
	if err != nil {
		return nil, fmt.Errorf("--month %q: want YYYY-MM", month)
	}
	at := time.Now().UTC()
	if asOf != "" {
		if at, err = time.Parse(time.RFC3339, asOf); err != nil {
			return nil, fmt.Errorf("--as-of %q: want an RFC 3339 instant such as 2026-04-01T00:00:00Z", asOf)
		}
	}
	all, err := readTermsFiles(termsFiles)
	if err != nil {
		return nil, err
	}
	return report.NewBuilder(all, report.Options{Year: m.Year(), Month: m.Month(), AsOf: at})
}

// writeReport writes a report or bundle atomically: a reader never sees
// half of one.
func writeReport(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
