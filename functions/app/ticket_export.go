package app

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// TicketEvents converts a ticket into the event log's ticket events
// (docs/events.md "Ticket events"), so the monthly report times it exactly
// as the desk did. Ids are stable (ticket id + position), so exporting twice
// or concatenating exports repeats nothing.
func TicketEvents(t *Ticket) []events.Event {
	out := make([]events.Event, 0, 1+len(t.Events))
	out = append(out, events.Event{Type: events.TypeTicketOpened, ID: t.ID + "/opened", Ticket: t.ID, Node: t.Node,
		At: t.Opened.UTC(), Priority: t.Priority, Category: t.Category, ProviderRef: t.ProviderRef, Summary: t.Summary})
	for i, e := range t.Events {
		ev := events.Event{Type: e.Type, ID: fmt.Sprintf("%s/%d/%s", t.ID, i+1, shortType(e.Type)), Ticket: t.ID, At: e.At.UTC(),
			AwaitingCustomer: e.AwaitingCustomer}
		if e.Type == EventHardwareReplaced {
			ev.Node = t.Node
		}
		out = append(out, ev)
	}
	return out
}

// NodeRegisteredEvent is a node's registration as an event.
func NodeRegisteredEvent(n *Node) events.Event {
	e := events.Event{Type: events.TypeNodeRegistered, ID: "node/" + n.ID, Node: n.ID, Contract: n.Contract,
		OrderedAt: n.OrderedAt.UTC(), Hardware: &events.Hardware{GPUModel: n.GPUModel, GPUCount: max(n.GPUCount, 1), GPUMemoryMiB: n.GPUMemoryMiB}}
	if n.HeartbeatInterval >= time.Second {
		e.HeartbeatIntervalS = int(n.HeartbeatInterval / time.Second)
	}
	return e
}

// ExportTickets writes every ticket's events. The backend's full export
// calls it for the ticket part of the log.
func (d *TicketDesk) ExportTickets(ctx context.Context, w *events.Writer) error {
	list, err := d.store.ListTickets(ctx, false)
	if err != nil {
		return fmt.Errorf("export tickets: %w", err)
	}
	for i := range list {
		for _, e := range TicketEvents(&list[i]) {
			if err := w.Write(&e); err != nil {
				return fmt.Errorf("export ticket %s: %w", list[i].ID, err)
			}
		}
	}
	return nil
}

// ExportFunc writes an event log (docs/events.md).
type ExportFunc func(ctx context.Context, w *events.Writer) error

// ExportNodesAndTickets writes the node registrations and ticket events: the
// part of the log the desk owns. Uptime needs the observations too, which
// the backend's full export adds.
func (d *TicketDesk) ExportNodesAndTickets(ctx context.Context, w *events.Writer) error {
	nodes, err := d.svc.store.ListNodes(ctx)
	if err != nil {
		return fmt.Errorf("export nodes: %w", err)
	}
	for i := range nodes {
		e := NodeRegisteredEvent(&nodes[i])
		if err := w.Write(&e); err != nil {
			return err
		}
	}
	return d.ExportTickets(ctx, w)
}

// MonthReport builds the month's report with the SLA engine (sla/report)
// from an export (nil: ExportNodesAndTickets) as of asOf.
func (d *TicketDesk) MonthReport(ctx context.Context, year int, month time.Month, asOf time.Time, export ExportFunc) (*report.Report, error) {
	if export == nil {
		export = d.ExportNodesAndTickets
	}
	var buf bytes.Buffer
	w := events.NewWriter(&buf)
	if err := export(ctx, w); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	all := make([]*terms.Terms, 0, len(d.book))
	for _, c := range d.book.Contracts() {
		all = append(all, d.book[c])
	}
	b, err := report.NewBuilder(all, report.Options{Year: year, Month: month, AsOf: asOf})
	if err != nil {
		return nil, err
	}
	if err := b.ReadLog("export", &buf); err != nil {
		return nil, err
	}
	return b.Build()
}
