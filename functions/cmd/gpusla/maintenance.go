package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/wiring"
)

func init() {
	commands = append(commands, newMaintenanceCmd)
}

func newMaintenanceCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "maintenance", Short: "Record the provider's maintenance notices (local store)"}
	cmd.AddCommand(newMaintenanceAddCmd())
	return cmd
}

func newMaintenanceAddCmd() *cobra.Command {
	var data, start, end, announced string
	var in app.NewMaintenance
	cmd := &cobra.Command{
		Use:   "add (--contract ID | --node NODE) --start T --end T --announced-at T [--summary TEXT]",
		Short: "Record a maintenance notice the provider announced",
		Long: `Records a maintenance window the provider announced, for every node of a
contract or for one node. Announced at least the contract's maintenance.notice
before its start, the window is taken out of the month, live (GET /v1/incidents,
the status page) and in the monthly report alike; announced later, downtime in
it counts. Times are RFC 3339. Stop serve first (the store file is locked while
it runs).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			for _, f := range []struct {
				name, value string
				to          *time.Time
			}{{"start", start, &in.Start}, {"end", end, &in.End}, {"announced_at", announced, &in.AnnouncedAt}} {
				if *f.to, err = app.ParseTime(f.name, f.value); err != nil {
					return flagError(err)
				}
			}
			o, err := wiring.FromEnv().OpenOffline(cmd.Context(), data, false) // $GPUSLA_TABLE: DynamoDB
			if err != nil {
				return err
			}
			defer o.Close()
			book, err := o.Terms()
			if err != nil {
				return err
			}
			o.Service.SetTerms(book)
			m, err := o.Service.AnnounceMaintenance(cmd.Context(), in)
			if err != nil {
				return flagError(err)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "maintenance %s recorded: %s to %s, announced %s\n", m.ID,
				m.Start.Format(time.RFC3339), m.End.Format(time.RFC3339), m.AnnouncedAt.Format(time.RFC3339))
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "./data", "data folder of the local backend")
	f.StringVar(&in.Contract, "contract", "", "the contract whose every node the notice covers")
	f.StringVar(&in.Node, "node", "", "the one node the notice covers")
	f.StringVar(&start, "start", "", "when the window starts (RFC 3339)")
	f.StringVar(&end, "end", "", "when it ends (RFC 3339)")
	f.StringVar(&announced, "announced-at", "", "when the provider announced it (RFC 3339)")
	f.StringVar(&in.Summary, "summary", "", "what the provider said it is for")
	return cmd
}
