package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/termscheck"
	"github.com/gpusla/gpusla/sla/i18n"
)

func init() {
	commands = append(commands, newTermsCmd)
}

func newTermsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "terms", Short: "Check contract terms files"}
	cmd.AddCommand(newTermsCheckCmd(), newTermsShipCmd())
	return cmd
}

func newTermsCheckCmd() *cobra.Command {
	var lang string
	cmd := &cobra.Command{
		Use:   "check FILE|DIR...",
		Short: "Check terms files on their own and say what each contract promises",
		Long: `Reads each terms file (YAML, docs/terms.md) — a folder such as data/terms is
each of its *.yaml and *.yml files — as serve, the Lambdas and gpusla report
read it. A file with a mistake is named with its line, field and
the problem; a valid one is summed up contract by contract: provider, currency
and clock, the uptime target and what counts as down, credits and their cap,
maintenance, support targets, hardware replacement, delivery, the claim window
and the price, each stated or said to be absent. Everything is said in the
contract's report.lang (--lang overrides).

Exit status: 0 when every file is valid, 1 when any is not (every file is
still checked and named).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var l i18n.Lang
			if lang != "" {
				var err error
				if l, err = i18n.Parse(lang); err != nil {
					return fmt.Errorf("--lang: %w", err)
				}
			}
			failed, err := termscheck.Check(cmd.OutOrStdout(), args, l)
			if err != nil {
				return err
			}
			if failed > 0 {
				return &exitError{code: exitFailed, msg: fmt.Sprintf("%d of %d terms files are not valid", failed, len(args))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "", "language of the output: en or zh (default: each contract's report.lang, else en)")
	return cmd
}

func newTermsShipCmd() *cobra.Command {
	var lang, to string
	cmd := &cobra.Command{
		Use:   "ship --to DIR SOURCE...",
		Short: "Check contract terms and put them where the Lambdas read them (the Makefile's build step)",
		Long: `Puts the contract terms among SOURCE (terms files, or folders) into DIR,
the terms/ folder beside each function's bootstrap, as the Makefile does
for sam build (TERMS_DIR=folder). A file named on its own must be valid
terms. In a folder every *.yaml and *.yml file is read: one in which no
document has a top-level contract: key (a serve config, an alerts file) is
left out and named; every other one must be valid terms, checked as gpusla
terms check checks it.

Nothing is written unless every terms file is valid, no contract is defined
twice and no two files share a name. DIR then holds exactly the shipped
files: YAML files already in it that were not shipped are removed.

Exit status: 0 when shipped, 1 when any terms file is not valid (each is
named with its line and field, in its contract's language).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return fmt.Errorf("--to: the folder to put the terms in is required")
			}
			var l i18n.Lang
			if lang != "" {
				var err error
				if l, err = i18n.Parse(lang); err != nil {
					return fmt.Errorf("--lang: %w", err)
				}
			}
			failed, err := termscheck.Ship(cmd.OutOrStdout(), args, to, l)
			if err != nil {
				return err
			}
			if failed > 0 {
				return &exitError{code: exitFailed, msg: fmt.Sprintf("%d terms files are not valid; nothing was shipped", failed)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the folder the functions read their terms from (required)")
	cmd.Flags().StringVar(&lang, "lang", "", "language of the output: en or zh (default: each contract's report.lang, else en)")
	return cmd
}
