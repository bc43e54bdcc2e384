package robot

import (
	"context"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
)

// Chat is the notify.Notifier of a markdown robot: it renders alerts and
// ticket messages in Dialect and hands them to Send. These robots have no
// threads, so the reference it returns is the incident (or ticket) id, and
// follow-ups quote the incident instead of replying to it.
type Chat struct {
	Dialect chantext.Dialect
	Send    func(context.Context, chantext.Message) error
}

// Notify posts an alert.
func (c Chat) Notify(ctx context.Context, a notify.Alert) (string, error) {
	return a.IncidentID, c.Send(ctx, chantext.Alert(c.Dialect, a))
}

// NotifyTicket posts a ticket message.
func (c Chat) NotifyTicket(ctx context.Context, m notify.TicketMessage) (string, error) {
	return m.Ticket, c.Send(ctx, chantext.Ticket(c.Dialect, m))
}
