package slack

import (
	slackapi "github.com/slack-go/slack"

	"github.com/gpusla/gpusla/functions/app"
)

// ticketButtons are the "Ticket opened", "Provider responded" and
// "Resolved" buttons on the first message of an incident (functions/slackapi
// handles the clicks): recording a provider ticket is one click, and its
// clock then runs in this message's thread. Later messages of the incident
// and webhook-only setups (no interactivity without an app) get none — nil.
func ticketButtons(a app.Alert) slackapi.Block {
	if a.Thread != "" || (a.Kind != app.AlertUnreachable && a.Kind != app.AlertDegraded) {
		return nil
	}
	v := app.IncidentButtonValue(a.Node, a.IncidentID)
	btn := func(id, label string, style slackapi.Style) *slackapi.ButtonBlockElement {
		b := slackapi.NewButtonBlockElement(id, v, slackapi.NewTextBlockObject(slackapi.PlainTextType, label, false, false))
		if style != "" {
			b.WithStyle(style)
		}
		return b
	}
	return slackapi.NewActionBlock("gpusla_ticket",
		btn(app.ActionTicketOpen, "Ticket opened", slackapi.StylePrimary),
		btn(app.ActionTicketResponded, "Provider responded", ""),
		btn(app.ActionTicketResolved, "Resolved", ""))
}

// ticketTitle heads a ticket message: which ticket, on which node.
func ticketTitle(a app.Alert) string {
	what := map[app.AlertKind]string{app.AlertTicketOpened: "opened", app.AlertTicketRecorded: "update",
		app.AlertTicketWarning: "deadline near", app.AlertTicketBreached: "deadline BREACHED"}[a.Kind]
	if what == "" {
		what = string(a.Kind)
	}
	return "ticket " + a.IncidentID + " on " + a.Node + ": " + what
}
