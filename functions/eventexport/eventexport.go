// Package eventexport writes the local store as the event log of
// docs/events.md (JSON lines) for `gpusla export`: which days to write, the
// events and tickets of the nodes asked for, and the file written whole or
// not at all, so `gpusla report --events` can recompute any month offline.
//
// On the path of one observation (docs/architecture.md) this is step 8: what the backend stored
// becomes the event log the engine reads.
package eventexport

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/atomicfile"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
)

// Store is what an export reads: nodes, batches, incidents, tickets and
// what the providers' status pages said.
type Store interface {
	store.Store
	store.TicketStore
	store.ProviderStatusStore
}

// Select is the selection of the export flags: --month YYYY-MM, or --from
// and --to (RFC 3339, either may be left open), and the nodes (none: all).
// The errors name the flags.
func Select(month, from, to string, nodes []string) (app.ExportSelect, error) {
	sel := app.ExportSelect{From: time.Unix(0, 0).UTC(), To: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), Nodes: nodes}
	if month != "" {
		if from != "" || to != "" {
			return sel, fmt.Errorf("--month and --from/--to: give one or the other")
		}
		m, err := time.Parse("2006-01", month)
		if err != nil {
			return sel, fmt.Errorf("--month %q: want YYYY-MM", month)
		}
		// What the month's report reads: every time zone's month, the
		// lookback before it and late data after it.
		sel.From, sel.To = report.Window(m.Year(), m.Month())
	}
	for _, f := range []struct {
		name, v string
		dst     *time.Time
	}{{"from", from, &sel.From}, {"to", to, &sel.To}} {
		if f.v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, f.v)
		if err != nil {
			return sel, fmt.Errorf("--%s %q: want an RFC 3339 time such as 2026-11-01T00:00:00Z", f.name, f.v)
		}
		*f.dst = t
	}
	if !sel.To.After(sel.From) {
		return sel, fmt.Errorf("--to must be after --from")
	}
	return sel, nil
}

// Write writes the selection to w as event lines, tickets included.
func Write(ctx context.Context, st Store, sel app.ExportSelect, w io.Writer) (app.ExportStats, error) {
	ew := events.NewWriter(w)
	stats, err := Into(ctx, st, sel, ew.Write)
	if err != nil {
		return stats, err
	}
	return stats, ew.Flush()
}

// Into hands the selection's events to emit, tickets included (those on
// the selected nodes), as `gpusla scorecard --data` reads the store.
func Into(ctx context.Context, st Store, sel app.ExportSelect, emit func(*events.Event) error) (app.ExportStats, error) {
	// Tickets too, as the backend's own month report reads them
	// (app.MonthExport): without them an offline report would show no
	// ticket and no late-response penalty. And the providers' own status
	// pages: the report lists which outages they acknowledged. They are
	// read first, as few as a month has, so that the backend's outage
	// since its stop reaches the latest of them (ExportSelect.Known);
	// they are written after the nodes' records, as before.
	var later []events.Event
	keep := func(e *events.Event) error {
		later = append(later, *e)
		if k := e.KnownAt(); k.After(sel.Known) {
			sel.Known = k
		}
		return nil
	}
	nt, err := app.ExportTickets(ctx, st, ticketFilter(sel.Nodes, keep))
	if err != nil {
		return app.ExportStats{}, err
	}
	ns, err := app.ExportProviderStatus(ctx, st, sel.From, sel.To, keep)
	if err != nil {
		return app.ExportStats{}, err
	}
	stats, err := app.Export(ctx, st, sel, emit)
	if err != nil {
		return stats, err
	}
	stats.Events += nt + ns
	for i := range later {
		if err := emit(&later[i]); err != nil {
			return stats, err
		}
	}
	return stats, nil
}

// ToFile writes the selection to path atomically (temp file, fsync,
// rename), or to stdout when path is "" or "-".
func ToFile(ctx context.Context, st Store, sel app.ExportSelect, path string, stdout io.Writer) (app.ExportStats, error) {
	var stats app.ExportStats
	if path == "" || path == "-" {
		bw := bufio.NewWriter(stdout)
		stats, err := Write(ctx, st, sel, bw)
		if err == nil {
			err = bw.Flush()
		}
		return stats, err
	}
	err := atomicfile.Write(path, 0o600, func(w io.Writer) (err error) {
		stats, err = Write(ctx, st, sel, w)
		return err
	})
	return stats, err
}

// Summary tells the operator what was written and which nodes were left
// out and why.
func Summary(w io.Writer, stats app.ExportStats) {
	for _, id := range stats.SkippedNodes {
		fmt.Fprintf(w, "gpusla export: node %s left out: it was registered without a GPU count, which docs/events.md requires\n", id)
	}
	fmt.Fprintf(w, "gpusla export: %d events (%d nodes, %d stored batches, %d heartbeat runs)\n",
		stats.Events, stats.Nodes, stats.Batches, stats.Runs)
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
