package robot

import (
	"context"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
)

// Chat is the notify.Notifier of a markdown robot: it renders alerts and
// ticket messages in Dialect and hands them to Send. These robots have no
// threads, so it returns no thread reference (a ticket's thread is shared by
// its channels and must stay Slack's), and follow-ups quote the incident
// instead of replying to it.
type Chat struct {
	Dialect chantext.Dialect
	Send    func(context.Context, chantext.Message) error
}

// Notify posts an alert.
func (c Chat) Notify(ctx context.Context, a notify.Alert) (string, error) {
	return "", c.Send(ctx, chantext.Alert(c.Dialect, a))
}

// NotifyTicket posts a ticket message.
func (c Chat) NotifyTicket(ctx context.Context, m notify.TicketMessage) (string, error) {
	return "", c.Send(ctx, chantext.Ticket(c.Dialect, m))
}

// PostNotice posts a notice to the team (a month's report, a claim
// reminder). A robot's webhook cannot carry a file: the notice's lines say
// where the files are.
func (c Chat) PostNotice(ctx context.Context, n notify.Notice) error {
	return c.Send(ctx, chantext.Notice(c.Dialect, n))
}
