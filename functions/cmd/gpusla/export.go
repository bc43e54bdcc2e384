package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/atomicfile"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/sla/events"
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
			sel := app.ExportSelect{From: time.Unix(0, 0).UTC(), To: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), Nodes: nodes}
			if month != "" {
				if from != "" || to != "" {
					return fmt.Errorf("--month and --from/--to: give one or the other")
				}
				m, err := time.Parse("2006-01", month)
				if err != nil {
					return fmt.Errorf("--month %q: want YYYY-MM", month)
				}
				// A day either side covers every time zone's month and
				// the lookback the report needs at its start.
				sel.From, sel.To = m.AddDate(0, 0, -2), m.AddDate(0, 1, 2)
			}
			for name, dst := range map[string]*time.Time{"from": &sel.From, "to": &sel.To} {
				v := map[string]string{"from": from, "to": to}[name]
				if v == "" {
					continue
				}
				t, err := time.Parse(time.RFC3339, v)
				if err != nil {
					return fmt.Errorf("--%s %q: want an RFC 3339 time such as 2026-11-01T00:00:00Z", name, v)
				}
				*dst = t
			}
			if !sel.To.After(sel.From) {
				return fmt.Errorf("--to must be after --from")
			}
			store, _, err := wiring.FromEnv().OpenExisting(cmd.Context(), data) // $GPUSLA_TABLE: DynamoDB
			if err != nil {
				return err
			}
			defer store.Close()
			write := func(w io.Writer) (app.ExportStats, error) {
				ew := events.NewWriter(w)
				st, err := app.Export(cmd.Context(), store, sel, func(e *events.Event) error { return ew.Write(e) })
				if err != nil {
					return st, err
				}
				// Tickets too, as the backend's own month report reads them
				// (app.MonthExport): without them an offline report would
				// show no ticket and no late-response penalty.
				n, err := app.ExportTickets(cmd.Context(), store, ticketFilter(sel.Nodes, ew.Write))
				st.Events += n
				if err != nil {
					return st, err
				}
				return st, ew.Flush()
			}
			var stats app.ExportStats
			if output == "" || output == "-" {
				bw := bufio.NewWriter(cmd.OutOrStdout())
				if stats, err = write(bw); err == nil {
					err = bw.Flush()
				}
			} else {
				err = atomicfile.Write(output, 0o600, func(w io.Writer) (err error) {
					stats, err = write(w)
					return err
				})
				if err != nil {
					err = fmt.Errorf("write %s: %w", output, err)
				}
			}
			if err != nil {
				return err
			}
			for _, id := range stats.SkippedNodes {
				fmt.Fprintf(cmd.ErrOrStderr(), "gpusla export: node %s left out: it was registered without a GPU count, which docs/events.md requires\n", id)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "gpusla export: %d events (%d nodes, %d stored batches, %d heartbeat runs)\n",
				stats.Events, stats.Nodes, stats.Batches, stats.Runs)
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

// ticketFilter passes the events of tickets on the selected nodes (all
// when none is selected); a ticket's later events name no node, so they
// follow their opening event.
func ticketFilter(nodes []string, emit func(*events.Event) error) func(*events.Event) error {
	if len(nodes) == 0 {
		return emit
	}
	keep := map[string]bool{}
	return func(e *events.Event) error {
		if e.Type == events.TypeTicketOpened {
			keep[e.Ticket] = slices.Contains(nodes, e.Node)
		}
		if !keep[e.Ticket] {
			return nil
		}
		return emit(e)
	}
}
