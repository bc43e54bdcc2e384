package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
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
	var data, start, end, announced, server string
	var in app.NewMaintenance
	cmd := &cobra.Command{
		Use:   "add (--contract ID | --node NODE) --start T --end T --announced-at T [--summary TEXT] [--override REASON]",
		Short: "Record a maintenance notice the provider announced",
		Long: `Records a maintenance window the provider announced, for every node of a
contract or for one node. Announced at least the contract's maintenance.notice
before its start, the window is taken out of the month, live (GET /v1/incidents,
the status page) and in the monthly report alike; announced later, downtime in
it counts. Times are RFC 3339. A window is at most 7 days long, starts no more
than 62 days ago nor a year ahead.

The notice is recorded with when and by whom (cli:$USER here, the API key
with --server). A notice recorded after its window began, or after an outage
it covers began, takes out nothing before its recording nor of an outage
already under way then, unless --override says why it should (a provider's
e-mail that reached you late); the monthly report names every such notice in
its retroactive section, with the override (docs/reports.md).

The local store's file is locked while serve runs: stop serve first, or send
the notice to the running backend with --server URL and an API key with the
admin scope in $` + wiring.EnvAPIKey + ` (POST /v1/maintenance).`,
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
			if server != "" {
				var m store.Maintenance
				req := httpapi.MaintenanceRequest{Contract: in.Contract, Node: in.Node, Start: in.Start.Format(time.RFC3339Nano),
					End: in.End.Format(time.RFC3339Nano), AnnouncedAt: in.AnnouncedAt.Format(time.RFC3339Nano), Summary: in.Summary,
					Override: in.Override}
				if err := remoteAdmin(cmd.Context(), server, httpapi.PathMaintenance, req, &m); err != nil {
					return err
				}
				return printMaintenance(cmd, m)
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
			in.By = cliActor()
			m, err := o.Service.AnnounceMaintenance(cmd.Context(), in)
			if err != nil {
				return flagError(err)
			}
			return printMaintenance(cmd, m)
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
	f.StringVar(&in.Override, "override", "", "why a notice recorded late should still take out its whole window (the report names it)")
	f.StringVar(&server, "server", "", "send it to this running backend instead (key: $"+wiring.EnvAPIKey+")")
	return cmd
}

func printMaintenance(cmd *cobra.Command, m store.Maintenance) error {
	_, err := fmt.Fprintf(cmd.OutOrStdout(), "maintenance %s recorded %s by %s: %s to %s, announced %s\n", m.ID,
		m.CreatedAt.Format(time.RFC3339), m.RecordedBy, m.Start.Format(time.RFC3339), m.End.Format(time.RFC3339), m.AnnouncedAt.Format(time.RFC3339))
	if err == nil && m.CreatedAt.After(m.Start) && m.Override == "" {
		_, err = fmt.Fprintln(cmd.OutOrStdout(), "recorded after its start: it takes out nothing before its recording nor of an outage already under way (give --override with the reason, or the report counts it so)")
	}
	return err
}
