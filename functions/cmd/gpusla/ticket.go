package main

import (
	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"

	"github.com/gpusla/gpusla/functions/tables"
	"github.com/gpusla/gpusla/functions/wiring"
)

func init() {
	commands = append(commands, newTicketCmd)
}

func newTicketCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "ticket", Short: "List provider tickets and their clocks, request replacements (local store)"}
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
			o, desk, err := openDesk(cmd, data)
			if err != nil {
				return err
			}
			defer o.Close()
			list, err := desk.List(cmd.Context(), open)
			if err != nil {
				return err
			}
			return tables.Tickets(cmd.OutOrStdout(), desk, list, o.Service.Now())
		},
	}
	list.Flags().BoolVar(&open, "open", false, "only tickets still open")
	cmd.PersistentFlags().StringVar(&data, "data", "./data", "data folder of the local backend")
	cmd.AddCommand(list, newRequestReplacementCmd(&data))
	return cmd
}

// openDesk opens the local store and its ticket desk.
func openDesk(cmd *cobra.Command, data string) (*wiring.Offline, *app.TicketDesk, error) {
	o, err := wiring.FromEnv().OpenOffline(cmd.Context(), data, false)
	if err != nil {
		return nil, nil, err
	}
	desk, err := o.Tickets()
	if err != nil {
		o.Close()
		return nil, nil, err
	}
	return o, desk, nil
}
