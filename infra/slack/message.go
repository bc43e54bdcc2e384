package slack

import (
	"fmt"
	"strings"
	"time"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackutilsx"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
)

// The vocabulary (incident and cause names, durations, failed-check lines,
// titles) is shared with the other channels (infra/notify/chantext).
func kindName(k string) string  { return chantext.KindName(k) }
func causeName(c string) string { return chantext.CauseName(c) }
func stamp(t time.Time) string  { return chantext.Stamp(t) }

// esc makes text that users and probes supply (node ids, provider names,
// check names and values, ticket summaries and references) inert in Slack:
// '&', '<' and '>' become the entities Slack documents, so "<!channel>"
// shows as text instead of pinging everyone and "<https://x|y>" is no link.
// Applied to the values only, never to our own markup (dates, bold, code).
func esc(s string) string { return slackutilsx.EscapeMessage(s) }

// slackDate renders t in each reader's own time zone, with a UTC fallback.
func slackDate(t time.Time) string {
	return fmt.Sprintf("<!date^%d^{date_short_pretty} {time_secs}|%s>", t.Unix(), stamp(t))
}

// Duration renders a duration for people: 4m40s, 2h05m, 3d4h.
func Duration(d time.Duration) string { return chantext.Duration(d) }

// FailedLine renders a failing check with its measured value and criterion.
func FailedLine(c notify.FailedCheck) string { return chantext.FailedLine(c) }

// Title is the one-line summary of an alert.
func Title(a notify.Alert) string { return chantext.Title(a) }

// Counted is the incident's verdict as every alert states it.
func Counted(a notify.Alert) string { return chantext.Counted(a) }

func emoji(a notify.Alert) string {
	switch a.Kind {
	case notify.AlertDeliveryOverdue:
		return ":red_circle:"
	case notify.AlertRecovered, notify.AlertDelivered:
		return ":large_green_circle:"
	case notify.AlertReclassified:
		return ":large_blue_circle:"
	case notify.AlertUnreachable:
		return ":red_circle:"
	default:
		return ":large_orange_circle:"
	}
}

// Text is the plain-text form (notification fallback and console). It is
// not escaped: the notifier escapes it when it posts it (see post).
func Text(a notify.Alert) string { return chantext.AlertText(a) }

// Blocks is the Block Kit form: a header, the facts as fields, what failed
// with its measured values, and the engine's evidence.
func Blocks(a notify.Alert) []slackapi.Block {
	md := func(s string) *slackapi.TextBlockObject {
		return slackapi.NewTextBlockObject(slackapi.MarkdownType, s, false, false)
	}
	header := slackapi.NewHeaderBlock(slackapi.NewTextBlockObject(slackapi.PlainTextType, truncate(emoji(a)+" "+esc(Title(a)), 150), true, false))
	fields := []*slackapi.TextBlockObject{
		md("*Node*\n" + esc(a.Node)),
		md("*Provider*\n" + esc(a.Provider)),
		md("*Incident*\n" + esc(kindName(a.IncidentKind))),
	}
	since, until := chantext.SinceUntil(a)
	fields = append(fields, md("*"+since+"*\n"+slackDate(a.Since)))
	if chantext.HasUntil(a) {
		fields = append(fields, md("*"+until+"*\n"+slackDate(a.Until)), md("*"+chantext.DurationName(a)+"*\n"+Duration(a.Duration)))
	}
	if !notify.IsDelivery(a) { // a delivery is no outage: its lateness earns the penalty
		fields = append(fields, md("*Counts as outage*\n"+Counted(a)))
	}
	if a.Kind == notify.AlertReclassified {
		fields = append(fields, md("*Cause*\n"+esc(causeName(a.Cause))))
	}
	blocks := []slackapi.Block{header, slackapi.NewSectionBlock(nil, fields, nil)}
	if len(a.Failed) > 0 {
		var lines []string
		for i, c := range a.Failed {
			if i == 10 {
				lines = append(lines, fmt.Sprintf("… and %d more", len(a.Failed)-10))
				break
			}
			lines = append(lines, "• `"+esc(FailedLine(c))+"`")
		}
		blocks = append(blocks, slackapi.NewSectionBlock(md(truncate("*What failed*\n"+strings.Join(lines, "\n"), 3000)), nil, nil))
	}
	if a.Detail != "" {
		blocks = append(blocks, slackapi.NewSectionBlock(md(truncate(esc(a.Detail), 3000)), nil, nil))
	}
	if b := ticketButtons(a); b != nil { // ticket_buttons.go
		blocks = append(blocks, b)
	}
	blocks = append(blocks, slackapi.NewContextBlock("", md("incident `"+esc(a.IncidentID)+"`")))
	return blocks
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
