package app

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// TicketEvents converts a ticket into the event log's ticket events
// (docs/events.md "Ticket events"), so the monthly report times it exactly
// as the desk did. Ids are stable (ticket id + position), so exporting twice
// or concatenating exports repeats nothing.
func TicketEvents(t *store.Ticket) []events.Event {
	out := make([]events.Event, 0, 1+len(t.Events))
	out = append(out, events.Event{Type: events.TypeTicketOpened, ID: t.ID + "/opened", Ticket: t.ID, Node: t.Node,
		At: t.Opened.UTC(), Priority: t.Priority, Category: t.Category, ProviderRef: t.ProviderRef, Summary: t.Summary,
		RecordedAt: t.CreatedAt.UTC(), RecordedBy: t.OpenedBy})
	for i, e := range t.Events {
		ev := events.Event{Type: e.Type, ID: fmt.Sprintf("%s/%d/%s", t.ID, i+1, shortType(e.Type)), Ticket: t.ID, At: e.At.UTC(),
			AwaitingCustomer: e.AwaitingCustomer, RecordedAt: e.RecordedAt.UTC(), RecordedBy: e.By}
		if e.Type == store.EventHardwareReplaced {
			ev.Node = t.Node
		}
		out = append(out, ev)
	}
	return out
}

// NodeRegisteredEvent is a node's registration as an event.
func NodeRegisteredEvent(n *store.Node) events.Event {
	e := events.Event{Type: events.TypeNodeRegistered, ID: "node/" + n.ID, Node: n.ID, Contract: n.Contract,
		OrderedAt: n.OrderedAt.UTC(), Hardware: &events.Hardware{GPUModel: n.GPUModel, GPUCount: max(n.GPUCount, 1), GPUMemoryMiB: n.GPUMemoryMiB}}
	if n.HeartbeatInterval >= time.Second {
		e.HeartbeatIntervalS = int(n.HeartbeatInterval / time.Second)
	}
	if n.PushInterval >= time.Second {
		e.PushIntervalS = int(n.PushInterval / time.Second)
	}
	return e
}

// ExportTickets emits every ticket's events (docs/events.md "Ticket
// events"); the backend's export (Export) and `gpusla export` call it for
// the ticket part of the log. It returns how many events it emitted.
func ExportTickets(ctx context.Context, st store.TicketStore, emit func(*events.Event) error) (int, error) {
	list, err := st.ListTickets(ctx, false)
	if err != nil {
		return 0, fmt.Errorf("export tickets: %w", err)
	}
	n := 0
	for i := range list {
		for _, e := range TicketEvents(&list[i]) {
			if err := emit(&e); err != nil {
				return n, fmt.Errorf("export ticket %s: %w", list[i].ID, err)
			}
			n++
		}
	}
	return n, nil
}

// ExportTickets writes every ticket's events to w.
func (d *TicketDesk) ExportTickets(ctx context.Context, w *events.Writer) error {
	_, err := ExportTickets(ctx, d.store, w.Write)
	return err
}

// ExportFunc writes an event log (docs/events.md).
type ExportFunc func(ctx context.Context, w *events.Writer) error

// MonthExport is the export a month's report needs: everything the store
// knows around the month (Export, two days either side so every time zone's
// month and the report's lookback are covered) and every ticket.
func (d *TicketDesk) MonthExport(year int, month time.Month) ExportFunc {
	return d.RangeExport(monthWindow(year, month))
}

// monthWindow is the span a month's export covers.
func monthWindow(year int, month time.Month) (from, to time.Time) {
	return report.Window(year, month)
}

// RangeExport is everything the store knows from from to to (Export) and
// every ticket.
func (d *TicketDesk) RangeExport(from, to time.Time) ExportFunc {
	return d.rangeExport(from, to, nil)
}

// rangeExport is RangeExport without the nodes in skip: neither their own
// events nor their tickets' (a ticket's later events name only the ticket,
// which TicketEvents emits after the opening that names the node).
func (d *TicketDesk) rangeExport(from, to time.Time, skip map[string]string) ExportFunc {
	return d.selectExport(ExportSelect{From: from, To: to}, skip)
}

// SkipFilter hands emit every event but those of the nodes in skip and of
// their tickets (a ticket's later events name no node): the job's export
// leaves out the nodes no loaded terms define.
func SkipFilter(skip map[string]string, emit func(*events.Event) error) func(*events.Event) error {
	if len(skip) == 0 {
		return emit
	}
	dropped := map[string]bool{} // tickets of skipped nodes
	return func(e *events.Event) error {
		if _, ok := skip[e.Node]; ok && e.Node != "" {
			if e.Ticket != "" {
				dropped[e.Ticket] = true
			}
			return nil
		}
		if e.Ticket != "" && dropped[e.Ticket] {
			return nil
		}
		return emit(e)
	}
}

// selectExport is rangeExport of sel.
func (d *TicketDesk) selectExport(sel ExportSelect, skip map[string]string) ExportFunc {
	from, to := sel.From, sel.To
	return func(ctx context.Context, w *events.Writer) error {
		emit := SkipFilter(skip, w.Write)
		if _, err := Export(ctx, d.svc.store, sel, emit); err != nil {
			return err
		}
		if _, err := ExportTickets(ctx, d.store, emit); err != nil {
			return err
		}
		// What the providers' status pages said, for the report's
		// acknowledged / unacknowledged / unseen lists.
		if ps, ok := d.svc.store.(store.ProviderStatusStore); ok {
			if _, err := ExportProviderStatus(ctx, ps, from, to, w.Write); err != nil {
				return err
			}
		}
		return nil
	}
}

// ReadExport streams export into read through a pipe: a month of minute
// heartbeats is gigabytes of log, and the SLA builders keep only running
// state, so neither side ever holds the whole log.
func ReadExport(ctx context.Context, export ExportFunc, read func(io.Reader) error) error {
	pr, pw := io.Pipe()
	go func() {
		w := events.NewWriter(pw)
		err := export(ctx, w)
		if err == nil {
			err = w.Flush()
		}
		pw.CloseWithError(err)
	}()
	err := read(pr)
	pr.CloseWithError(err) // stops the exporter if the reader gave up early
	return err
}

// MonthReport builds the month's report with the SLA engine (sla/report)
// as of asOf, from export (nil: MonthExport). A node whose contract no
// loaded terms define is left out and named in skipped with its contract
// (report.Builder.Skipped), as the scheduled job leaves it out: one such
// node never costs the others their report.
func (d *TicketDesk) MonthReport(ctx context.Context, year int, month time.Month, asOf time.Time, export ExportFunc) (*report.Report, []report.Skipped, error) {
	if export == nil {
		export = d.MonthExport(year, month)
	}
	all := make([]*terms.Terms, 0, len(d.book))
	for _, c := range d.book.Contracts() {
		all = append(all, d.book[c])
	}
	b, err := report.NewBuilder(all, report.Options{Year: year, Month: month, AsOf: asOf})
	if err != nil {
		return nil, nil, err
	}
	if err := ReadExport(ctx, export, func(r io.Reader) error { return b.ReadLog("export", r) }); err != nil {
		return nil, nil, fmt.Errorf("month report: %w", err)
	}
	rep, err := b.Build()
	if err != nil {
		return nil, nil, err
	}
	return rep, b.Skipped(), nil
}
