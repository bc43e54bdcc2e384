package main

import (
	"fmt"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/sla/ticket"
)

func init() {
	commands = append(commands, newTicketCmd)
}

func newTicketCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "ticket", Short: "List provider tickets and their clocks (local store)"}
	var data string
	var open bool
	list := &cobra.Command{
		Use:   "list [--open]",
		Short: "List tickets with their targets, deadlines and lateness",
		Long: `Lists the tickets in the local store (stop ` + "`gpusla serve`" + ` first: the store is
locked while it runs), each timed against its node's contract terms
($` + wiring.EnvTerms + ` or <data>/terms) as of now. Tickets are opened and updated
through the API (docs/tickets.md) or Slack (/gpusla ticket …).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env := wiring.FromEnv()
			store, box, err := env.OpenExisting(cmd.Context(), data)
			if err != nil {
				return err
			}
			defer store.Close()
			book, _, err := env.LoadTermsFrom(filepath.Join(data, wiring.TermsDir))
			if err != nil {
				return err
			}
			svc, err := app.New(app.Config{Store: store, Notifier: noNotifier{}, Box: box})
			if err != nil {
				return err
			}
			desk, err := svc.Tickets(book)
			if err != nil {
				return err
			}
			list, err := desk.List(cmd.Context(), open)
			if err != nil {
				return err
			}
			now := svc.Now()
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TICKET\tNODE\tPRIO\tOPENED (UTC)\tHOURS\tRESPONSE\tRESOLUTION\tREPLACEMENT")
			for i := range list {
				t := &list[i]
				tim, _, err := desk.Timing(t, now)
				if err != nil {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t?\t%v\t\t\n", t.ID, t.Node, t.Priority, t.Opened.Format("2006-01-02 15:04"), err)
					continue
				}
				hours := "business"
				if tim.OffHours {
					hours = "off (" + string(tim.DayKind) + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Node, t.Priority, t.Opened.Format("2006-01-02 15:04"), hours,
					clockCell(tim.Response), clockCell(tim.Resolution), clockCell(tim.Replacement))
			}
			return tw.Flush()
		},
	}
	list.Flags().BoolVar(&open, "open", false, "only tickets still open")
	cmd.PersistentFlags().StringVar(&data, "data", "./data", "data folder of the local backend")
	cmd.AddCommand(list)
	return cmd
}

// clockCell renders one target: "met 12m0s", "BREACHED 7m0s late (due …)",
// "pending, due … (in 5m0s)", or "-" when the contract sets none.
func clockCell(c *ticket.Clock) string {
	if c == nil {
		return "-"
	}
	due := c.Deadline.UTC().Format("01-02 15:04")
	switch c.Status {
	case ticket.Met:
		return "met in " + c.Elapsed.Round(time.Second).String()
	case ticket.Breached:
		return fmt.Sprintf("BREACHED %s late (due %s)", c.Late.Round(time.Second), due)
	default:
		return fmt.Sprintf("pending, due %s (in %s)", due, (c.Target - c.Elapsed).Round(time.Second))
	}
}
