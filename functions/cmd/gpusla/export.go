package main

import (
	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/eventexport"
	"github.com/gpusla/gpusla/functions/wiring"
)

func init() {
	commands = append(commands, newExportCmd)
}

func newExportCmd() *cobra.Command {
	var (
		data, from, to, month, output string
		nodes                         []string
	)
	cmd := &cobra.Command{
		Use:   "export [--month YYYY-MM | --from T --to T] [--node ID] [-o FILE]",
		Short: "Export the local store as the event log of docs/events.md (JSON lines)",
		Long: `Writes everything the local store knows — node registrations, observations,
dropped-batch and chain-break evidence, the backend's own outages — as JSON
lines in the format of docs/events.md, which ` + "`gpusla report --events`" + ` reads.
With -o the file is written whole or not at all (temp file, fsync, rename).
Stop ` + "`gpusla serve`" + ` first: the store file is locked while it runs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sel, err := eventexport.Select(month, from, to, nodes)
			if err != nil {
				return err
			}
			store, _, err := wiring.FromEnv().OpenExisting(cmd.Context(), data) // $GPUSLA_TABLE: DynamoDB
			if err != nil {
				return err
			}
			defer store.Close()
			stats, err := eventexport.ToFile(cmd.Context(), store, sel, output, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			eventexport.Summary(cmd.ErrOrStderr(), stats)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "./data", "data folder of the local backend")
	f.StringVar(&month, "month", "", "export the events around this calendar month (YYYY-MM)")
	f.StringVar(&from, "from", "", "start (RFC 3339)")
	f.StringVar(&to, "to", "", "end, exclusive (RFC 3339)")
	f.StringSliceVar(&nodes, "node", nil, "only these nodes (repeatable)")
	f.StringVarP(&output, "output", "o", "", "write to this file instead of standard output")
	return cmd
}
