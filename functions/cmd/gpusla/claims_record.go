package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/tables"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/claims"
)

type claimStatus = claims.Status

// amountJSON is a flag's amount as the API takes it (a decimal, exact);
// "" is absent.
func amountJSON(v string) []byte {
	if v == "" {
		return nil
	}
	return []byte(`"` + strings.ReplaceAll(v, `"`, ``) + `"`)
}

func newClaimsSentCmd() *cobra.Command {
	var f ledgerFlags
	var req httpapi.SentRequest
	cmd := &cobra.Command{
		Use:   "sent CLAIM --at T [--via support_case|ticket|email|web_form|letter] [--reference CASE]",
		Short: "Record when and how a claim was sent, with the provider's case number",
		Long: `Records that the claim reached the provider: when (RFC 3339), how, and the
case or ticket number it gave (a credit line quoting it is matched to this
claim); --via defaults to the channel the contract's terms name
(claim.channel). A claim is sent once: the same again changes nothing, another is
refused naming the one recorded. The provider's deadlines to answer and to
credit count from here.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, func(c ledgerClient) error {
				v, err := c.sent(cmd.Context(), args[0], req)
				if err != nil {
					return err
				}
				return printClaim(cmd, v)
			})
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&req.At, "at", "", "when it was sent (RFC 3339)")
	cmd.Flags().StringVar(&req.Via, "via", "", "how: "+strings.Join(claims.Vias, ", ")+" (default: the contract's claim.channel)")
	cmd.Flags().StringVar(&req.Reference, "reference", "", "the provider's case or ticket number")
	return cmd
}

func newClaimsAnswerCmd() *cobra.Command {
	var f ledgerFlags
	var req httpapi.AnswerRequest
	var granted string
	cmd := &cobra.Command{
		Use:   "answer CLAIM --at T --outcome accepted|partial|refused [--granted AMOUNT] [--currency CUR] [--reason TEXT] [--reference REF]",
		Short: "Record the provider's answer: accepted, partly (with the amount granted) or refused",
		Long: `Records the provider's answer to a sent claim, with its reason and reference
as it gave them. accepted grants the whole claim; partial needs --granted, more
than 0 and less than claimed (a decimal, at most two decimals); refused grants
nothing. --currency, when given, must be the claim's. An answer dated before the
claim was sent is refused, as is a second, different answer.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Granted = amountJSON(granted)
			return f.run(cmd, func(c ledgerClient) error {
				v, err := c.answer(cmd.Context(), args[0], req)
				if err != nil {
					return err
				}
				return printClaim(cmd, v)
			})
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&req.At, "at", "", "when the provider answered (RFC 3339)")
	cmd.Flags().StringVar(&req.Outcome, "outcome", "", "accepted, partial or refused")
	cmd.Flags().StringVar(&granted, "granted", "", "the amount granted (partial)")
	cmd.Flags().StringVar(&req.Currency, "currency", "", "the amount's currency (checked against the claim's)")
	cmd.Flags().StringVar(&req.Reason, "reason", "", "the provider's reason, as it gave it")
	cmd.Flags().StringVar(&req.Reference, "reference", "", "the provider's reference for its answer")
	return cmd
}

func newClaimsCreditCmd() *cobra.Command {
	var f ledgerFlags
	var req httpapi.CreditRequest
	var amount string
	cmd := &cobra.Command{
		Use:   "credit CLAIM --period YYYY-MM --amount AMOUNT --currency CUR [--on T] [--reference REF] [--form coupon|voucher|cash]",
		Short: "Record by hand a credit a bill carries against a claim (a bill gpusla does not read)",
		Long: `Records a credit from a bill that claims bill cannot read (a PDF invoice, a
credit note): the bill's month, the amount given back (positive, at most two
decimals), its currency (the claim's), and the credit's own date when the bill
gives one. --form records a credit the provider gave back otherwise than on a
bill: coupon (JD Cloud compensates "in the form of coupon"), voucher or cash;
it pays the claim all the same, and the ledger keeps which it was. The same
credit twice is refused: a credit is applied once.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Amount = amountJSON(amount)
			return f.run(cmd, func(c ledgerClient) error {
				v, err := c.credit(cmd.Context(), args[0], req)
				if err != nil {
					return err
				}
				return printClaim(cmd, v)
			})
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&req.Period, "period", "", "the bill's month (YYYY-MM)")
	cmd.Flags().StringVar(&amount, "amount", "", "the amount credited")
	cmd.Flags().StringVar(&req.Currency, "currency", "", "its currency")
	cmd.Flags().StringVar(&req.On, "on", "", "the credit's own date on the bill (RFC 3339)")
	cmd.Flags().StringVar(&req.Reference, "reference", "", "the provider's reference on the credit")
	cmd.Flags().StringVar(&req.Form, "form", "", "how it was given back when not on a bill: coupon, voucher or cash")
	return cmd
}

func newClaimsBillCmd() *cobra.Command {
	var f ledgerFlags
	var contracts []string
	var format, currency string
	cmd := &cobra.Command{
		Use:   "bill FILE --contract ID [--contract ID…] [--bill-format gpusla|aws-cur] [--currency CUR]",
		Short: "Read a bill's credits and match each to the claim it pays",
		Long: `Reads the credits a provider's bill gives back — in the full CSV form lines of
kind credit or with a negative amount, in an AWS Cost and Usage Report its
Credit rows (docs/bills.md) — and matches each to an open claim of the bill's
contracts: by the provider's reference where the line gives one (or quotes it in
its description), otherwise by exactly the amount one claim still has
outstanding, on a bill for a month after the claim's. A credit that matches no
claim, or two, is listed with why and applied to nothing: apply it by hand with
claims apply. The same bill read again applies nothing twice.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(billFormats, format) {
				return fmt.Errorf("--bill-format: %q is not %s", format, strings.Join(billFormats, " or "))
			}
			if len(contracts) == 0 {
				return fmt.Errorf("--contract: missing: name the contract(s) the bill is for")
			}
			fh, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer fh.Close()
			bs, err := billing.ReadCredits(args[0], fh, format, currency)
			if err != nil {
				return err
			}
			return f.run(cmd, func(c ledgerClient) error {
				out, err := c.importCredits(cmd.Context(), httpapi.ImportRequest{Contracts: contracts, Credits: bs})
				if err != nil {
					return err
				}
				return printImport(cmd, out)
			})
		},
	}
	f.add(cmd)
	cmd.Flags().StringArrayVar(&contracts, "contract", nil, "a contract whose claims the bill's credits may pay (repeat for several)")
	cmd.Flags().StringVar(&format, "bill-format", billing.FormatGpusla, "gpusla (the CSV of docs/bills.md) or aws-cur")
	cmd.Flags().StringVar(&currency, "currency", "", "the currency of a CSV credit line that names none")
	return cmd
}

func printImport(cmd *cobra.Command, out []app.CreditOutcome) error {
	w := cmd.OutOrStdout()
	if len(out) == 0 {
		_, err := fmt.Fprintln(w, "the bill gives no credit back")
		return err
	}
	var bs []claims.BillCredit
	for _, o := range out {
		fmt.Fprintf(w, "%s lines %v: %s %s %s", o.Bill, o.Lines, o.Amount, o.Currency, o.Outcome)
		if o.Claim != "" {
			fmt.Fprintf(w, " → %s (%s)", o.Claim, o.MatchedBy)
		} else {
			fmt.Fprintf(w, ": %s", o.Unmatched)
		}
		fmt.Fprintln(w)
		bs = append(bs, o.BillCredit.BillCredit)
	}
	fmt.Fprintln(w)
	return tables.Credits(w, bs)
}

func newClaimsApplyCmd() *cobra.Command {
	var f ledgerFlags
	var claim string
	cmd := &cobra.Command{
		Use:   "apply KEY --claim CLAIM",
		Short: "Apply by hand a bill's credit line that matched no claim",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, func(c ledgerClient) error {
				v, err := c.apply(cmd.Context(), args[0], claim)
				if err != nil {
					return err
				}
				return printClaim(cmd, v)
			})
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&claim, "claim", "", "the claim it pays (CONTRACT/YYYY-MM)")
	return cmd
}

func newClaimsLetterCmd() *cobra.Command {
	var f ledgerFlags
	var lang string
	cmd := &cobra.Command{
		Use:   "letter CLAIM [--lang en|zh]",
		Short: "Write the follow-up letter for a claim whose provider let its own deadline pass",
		Long: `Writes the letter that chases the provider past its own deadline (to answer, or
to credit), in the contract's language unless --lang says otherwise: it cites the
claim, when and how it was sent, its sealed evidence, the clause that set the
deadline with the provider's words, what the bills carried so far and what is
outstanding. Refused while nothing is overdue.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, func(c ledgerClient) error {
				b, err := c.letter(cmd.Context(), args[0], lang)
				if err != nil {
					return err
				}
				_, err = cmd.OutOrStdout().Write(b)
				return err
			})
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&lang, "lang", "", "en or zh (default: the contract's report.lang)")
	return cmd
}

func newClaimsRecoveryCmd() *cobra.Command {
	var f ledgerFlags
	var format string
	cmd := &cobra.Command{
		Use:   "recovery [--format table|json]",
		Short: "What the claims recovered per provider and quarter: claimed, granted, received, refused, outstanding",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd, func(c ledgerClient) error {
				rec, err := c.recovery(cmd.Context())
				if err != nil {
					return err
				}
				if format == "json" {
					return writeJSONTo(cmd.OutOrStdout(), rec)
				}
				return tables.Recovery(cmd.OutOrStdout(), rec)
			})
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&format, "format", "table", "table or json")
	return cmd
}
