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
	cmd.AddCommand(newTermsCheckCmd())
	return cmd
}

func newTermsCheckCmd() *cobra.Command {
	var lang string
	cmd := &cobra.Command{
		Use:   "check FILE...",
		Short: "Check terms files on their own and say what each contract promises",
		Long: `Reads each terms file (YAML, docs/terms.md) as serve, the Lambdas and
gpusla report read it. A file with a mistake is named with its line, field and
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
