package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/functions/replacement"
)

func init() {
	commands = append(commands, newVerifyCmd)
}

func newVerifyCmd() *cobra.Command {
	var keyID string
	cmd := &cobra.Command{
		Use:   "verify BUNDLE.zip|PACK.zip",
		Short: "Check a claim evidence bundle or a replacement pack offline and say exactly what does not match",
		Long: `Checks an evidence bundle written by ` + "`gpusla bundle`" + ` (or the monthly job)
without any network or store: every file against the SHA-256 in the manifest,
every observation line against its batch's digest, the batches' hash chain
(no batch missing inside the range kept for an outage unless the log itself
never had it), the chain head, and that every counted outage in report.json
has its evidence in the bundle.

Prints one line per problem (file, line where known, what differs) and exits
with status 1 if there is any; prints either way the observations SHA-256,
the chain head and the records SHA-256 as the bundle gives them, to compare
with those the claim page quotes.

A replacement evidence pack (` + "`gpusla ticket request-replacement`" + `) is checked
the same way: the ed25519 signature over its manifest (with --key, that the
signing key has that fingerprint), every file's SHA-256, each raw batch's hash
as recorded at ingest and the chain head over them.

A node's acceptance record (` + "`gpuprobe trial`" + `, acceptance.zip) is checked
the same way — the node's ed25519 signature over its manifest (with --key, the
fingerprint the node sent its backend in probe.trial.record), every file's
SHA-256, and that its verdict is the one its rows give — and each of the seed's
criteria is printed with its verdict and figure.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return fmt.Errorf("verify: %w", err)
			}
			defer f.Close()
			st, err := f.Stat()
			if err != nil {
				return fmt.Errorf("verify: %w", err)
			}
			if replacement.IsPack(f, st.Size()) {
				return verifyPack(cmd, f, st.Size(), args[0], keyID)
			}
			if replacement.IsRecord(f, st.Size()) {
				return verifyRecord(cmd, f, st.Size(), args[0], keyID)
			}
			res, err := bundle.Verify(f, st.Size())
			if err != nil {
				return fmt.Errorf("verify %s: %w", args[0], err)
			}
			out := cmd.OutOrStdout()
			for _, p := range res.Problems {
				fmt.Fprintln(out, "MISMATCH", p.String())
			}
			m := res.Manifest
			fmt.Fprintf(out, "%s: report %s as of %s; %d files, %d batches, %d observation lines, %d counted outages, %d records checked\n",
				args[0], m.Month, m.AsOf, res.Files, res.Batches, res.Lines, res.Intervals, res.Records)
			// The values a claim page quotes, each as this bundle gives it,
			// for the provider to hold the letter to.
			if res.ObservationsSHA256 != "" {
				fmt.Fprintf(out, "observations SHA-256 %s\n", res.ObservationsSHA256)
			}
			fmt.Fprintf(out, "chain head %s\n", res.ChainHead)
			if res.RecordsSHA256 != "" {
				fmt.Fprintf(out, "records SHA-256 %s\n", res.RecordsSHA256)
			}
			if res.Claims > 0 {
				fmt.Fprintf(out, "%d claim(s) in %s, each resting on this chain head\n", res.Claims, bundle.ClaimsFile)
			}
			if !res.OK() {
				return fmt.Errorf("%s does not verify: %d mismatch(es)", args[0], len(res.Problems))
			}
			fmt.Fprintln(out, "OK: every file, line and batch matches the manifest")
			return nil
		},
	}
	cmd.Flags().StringVar(&keyID, "key", "", "replacement packs: the signing key fingerprint the renter published; acceptance records: the node's key fingerprint")
	return cmd
}

func verifyPack(cmd *cobra.Command, f io.ReaderAt, size int64, name, keyID string) error {
	res, err := replacement.Verify(f, size, keyID)
	if err != nil {
		return fmt.Errorf("verify %s: %w", name, err)
	}
	out := mismatches(cmd, res.Problems)
	m := res.Manifest
	fmt.Fprintf(out, "%s: replacement request for node %s, incident %s, made %s; %d files, %d batches checked\n",
		name, m.Node, m.Incident, m.Created.Format(time.RFC3339), res.Files, res.Batches)
	fmt.Fprintf(out, "signed by key %s\nchain head %s\n", m.KeyID, res.ChainHead)
	if !res.OK() {
		return fmt.Errorf("%s does not verify: %d mismatch(es)", name, len(res.Problems))
	}
	fmt.Fprintln(out, "OK: the signature, every file and batch match the manifest")
	return nil
}

// mismatches prints one line per problem and returns where it printed.
func mismatches(cmd *cobra.Command, ps []replacement.Problem) io.Writer {
	out := cmd.OutOrStdout()
	for _, p := range ps {
		fmt.Fprintln(out, "MISMATCH", p.String())
	}
	return out
}
