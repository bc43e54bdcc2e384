package slack

import (
	slackapi "github.com/slack-go/slack"

	"github.com/gpusla/gpusla/infra/notify"
)

// ticketButtons are the "Ticket opened", "Provider responded" and
// "Resolved" buttons, and "Request replacement" where the hardware is at
// fault (notify.ReplacementKinds), on the first message of an incident (functions/slackapi
// handles the clicks): recording a provider ticket is one click, and its
// clock then runs in this message's thread. Later messages of the incident
// and webhook-only setups (no interactivity without an app) get none — nil.
func ticketButtons(a notify.Alert) slackapi.Block {
	if a.Thread != "" || (a.Kind != notify.AlertUnreachable && a.Kind != notify.AlertDegraded) {
		return nil
	}
	v := notify.IncidentButtonValue(a.Node, a.IncidentID)
	btn := func(id, label string, style slackapi.Style) *slackapi.ButtonBlockElement {
		b := slackapi.NewButtonBlockElement(id, v, slackapi.NewTextBlockObject(slackapi.PlainTextType, label, false, false))
		if style != "" {
			b.WithStyle(style)
		}
		return b
	}
	els := []slackapi.BlockElement{
		btn(notify.ActionTicketOpen, "Ticket opened", slackapi.StylePrimary),
		btn(notify.ActionTicketResponded, "Provider responded", ""),
		btn(notify.ActionTicketResolved, "Resolved", ""),
	}
	if notify.OffersReplacement(a) {
		// The machine's hardware is at fault: one click writes the
		// provider's ticket text and opens the hardware ticket.
		els = append(els, btn(notify.ActionRequestReplacement, notify.ReplacementLabel, slackapi.StyleDanger))
	}
	return slackapi.NewActionBlock("gpusla_ticket", els...)
}
