package slack

import (
	slackapi "github.com/slack-go/slack"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
)

// TicketTitle is the one-line summary of a ticket message: which ticket, on
// which node, and what happened.
func TicketTitle(m notify.TicketMessage) string { return chantext.TicketTitle(m) }

// TicketText is the plain-text form of a ticket message (escaped when
// posted, like Text).
func TicketText(m notify.TicketMessage) string {
	return chantext.TicketTextWithin(m, chantext.TextMax, esc)
}

// TicketBlocks is the Block Kit form of a ticket message.
func TicketBlocks(m notify.TicketMessage) []slackapi.Block {
	md := func(s string) *slackapi.TextBlockObject {
		return slackapi.NewTextBlockObject(slackapi.MarkdownType, s, false, false)
	}
	emoji := ":ticket:"
	if m.Kind == notify.TicketBreached {
		emoji = ":red_circle:"
	} else if m.Kind == notify.TicketWarning {
		emoji = ":warning:"
	}
	x := chantext.WordsOf(m.Lang, m.Zone)
	header := slackapi.NewHeaderBlock(slackapi.NewTextBlockObject(slackapi.PlainTextType, truncate(emoji+" "+esc(x.TicketTitle(m)), 150), true, false))
	fields := []*slackapi.TextBlockObject{
		md("*" + x.Label("Node") + "*\n" + esc(m.Node)),
		md("*" + x.Label("Provider") + "*\n" + esc(m.Provider)),
		md("*" + x.Label("Opened") + "*\n" + date(x, m.Zone, m.Opened)),
	}
	blocks := []slackapi.Block{header, slackapi.NewSectionBlock(nil, fields, nil)}
	if m.Text != "" {
		blocks = append(blocks, slackapi.NewSectionBlock(md(truncate(esc(m.Text), 3000)), nil, nil))
	}
	return append(blocks, slackapi.NewContextBlock("", md(x.TicketRef("`"+esc(m.Ticket)+"`"))))
}
