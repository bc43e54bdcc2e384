package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/eventexport"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
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
Serve's demo node is left out once its demo was over (released, a node of your
own registered) before the selection ends — its contract is no provider of
yours, so a report or claim from the log holds none of it — and said so on
standard error; --node demo-node exports it all the same.
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
			if len(nodes) == 0 {
				if sel.Nodes, err = leaveTheDemoOut(cmd, store, sel, month); err != nil {
					return err
				}
			}
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
	f.StringSliceVar(&nodes, "node", nil, "only these nodes (repeatable; default: every node but serve's demo node once its demo is over)")
	f.StringVarP(&output, "output", "o", "", "write to this file instead of standard output")
	return cmd
}

// leaveTheDemoOut is the nodes to export when no --node is given: every
// node but serve's demo node whose demo was over before the selection
// ends (the month's end, in UTC as the demo's terms are, with --month), as
// report --data leaves it out (app.DemoOver). Nil, everything, when no
// demo is over or the demo is all there is.
func leaveTheDemoOut(cmd *cobra.Command, st store.Store, sel app.ExportSelect, month string) ([]string, error) {
	all, err := st.ListNodes(cmd.Context())
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	end := sel.To
	if m, err := time.Parse("2006-01", month); err == nil {
		end = m.AddDate(0, 1, 0)
	}
	var keep, said []string
	for _, n := range all {
		if n.Demo && !n.ReleasedAt.IsZero() && n.ReleasedAt.Before(end) && !n.ReleasedAt.After(time.Now()) {
			said = append(said, fmt.Sprintf("gpusla export: left out %s: serve's demo node, its demo over since %s (released by %s); --node %s exports it",
				n.ID, n.ReleasedAt.UTC().Format(time.RFC3339), n.ReleaseRecordedBy, n.ID))
			continue
		}
		keep = append(keep, n.ID)
	}
	if len(said) == 0 || len(keep) == 0 {
		return nil, nil
	}
	for _, s := range said {
		fmt.Fprintln(cmd.ErrOrStderr(), s)
	}
	return keep, nil
}
