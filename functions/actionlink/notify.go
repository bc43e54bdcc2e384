package actionlink

import (
	"context"

	"github.com/gpusla/gpusla/infra/notify"
)

// Notifier puts the signed replacement link on the alerts of Next that
// offer a replacement (notify.OffersReplacement), at delivery: each
// delivery (and each retry) signs its own link, so its lifetime runs from
// when the team sees it, and no link is ever stored.
type Notifier struct {
	Next  notify.Notifier
	Links *Signer
}

// Notify signs the link and delivers. A link that cannot be signed (an id
// over the size limit) leaves the alert without it rather than unsent.
func (n Notifier) Notify(ctx context.Context, a notify.Alert) (string, error) {
	a.ReplacementURL = ""
	if notify.OffersReplacement(a) {
		if u, err := n.Links.ReplacementURL(a.Node, a.IncidentID); err == nil {
			a.ReplacementURL = u
		}
	}
	return n.Next.Notify(ctx, a)
}

// NotifyTicket delivers a ticket message unchanged.
func (n Notifier) NotifyTicket(ctx context.Context, m notify.TicketMessage) (string, error) {
	return n.Next.NotifyTicket(ctx, m)
}

// Channels is a backend's alert channels with the link on the channels
// that cannot call back (every type but Slack, whose own button does).
type Channels struct {
	Router interface {
		AlertChannels(contract string, a notify.Alert) []string
		TicketChannels(contract string, m notify.TicketMessage) []string
		Notifier(name string) (notify.Notifier, bool)
		Type(name string) string
	}
	Links *Signer
}

// AlertChannels names the channels of an alert.
func (c Channels) AlertChannels(contract string, a notify.Alert) []string {
	return c.Router.AlertChannels(contract, a)
}

// TicketChannels names the channels of a ticket message.
func (c Channels) TicketChannels(contract string, m notify.TicketMessage) []string {
	return c.Router.TicketChannels(contract, m)
}

// Notifier is a channel's notifier, with the link where it has no button.
func (c Channels) Notifier(name string) (notify.Notifier, bool) {
	n, ok := c.Router.Notifier(name)
	if !ok || c.Router.Type(name) == "slack" {
		return n, ok
	}
	return Notifier{Next: n, Links: c.Links}, true
}
