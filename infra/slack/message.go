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
func stamp(t time.Time) string { return chantext.Stamp(t) }

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

// date renders t on the clock of the message's contract, the zone named,
// as every other channel and the message's own text show it (one clock per
// message); a message without a contract zone (an old record) in each
// reader's zone.
func date(x chantext.Words, zone string, t time.Time) string {
	if zone == "" {
		return slackDate(t)
	}
	return x.Stamp(t)
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

// Text is the plain-text form (notification fallback and console), at
// most chantext.TextMax bytes once escaped, cut like the robots' messages.
// It is not escaped: the notifier escapes it when it posts it (see post).
func Text(a notify.Alert) string { return chantext.AlertTextWithin(a, chantext.TextMax, esc) }

// Blocks is the Block Kit form: a header, the facts as fields, what failed
// with its measured values, and the engine's evidence.
func Blocks(a notify.Alert) []slackapi.Block {
	md := func(s string) *slackapi.TextBlockObject {
		return slackapi.NewTextBlockObject(slackapi.MarkdownType, s, false, false)
	}
	x := chantext.WordsOf(a.Lang, a.Zone)
	label := func(name string) string { return "*" + x.Label(name) + "*\n" }
	header := slackapi.NewHeaderBlock(slackapi.NewTextBlockObject(slackapi.PlainTextType, truncate(emoji(a)+" "+esc(x.Title(a)), 150), true, false))
	fields := []*slackapi.TextBlockObject{
		md(label("Node") + esc(a.Node)),
		md(label("Provider") + esc(a.Provider)),
	}
	if a.IncidentKind != "" {
		fields = append(fields, md(label("Incident")+esc(x.Kind(a.IncidentKind))))
	}
	since, until := chantext.SinceUntil(a)
	fields = append(fields, md(label(since)+date(x, a.Zone, a.Since)))
	if chantext.HasUntil(a) {
		fields = append(fields, md(label(until)+date(x, a.Zone, a.Until)), md(label(chantext.DurationName(a))+x.Dur(a.Duration)))
	}
	if notify.AboutAnIncident(a) { // a delivery is no outage: its lateness earns the penalty
		fields = append(fields, md(label("Counts under the contract")+esc(x.Verdict(a))))
	}
	if chantext.ShowsCause(a) {
		fields = append(fields, md(label("Cause")+esc(x.CauseLine(a))))
	}
	blocks := []slackapi.Block{header, slackapi.NewSectionBlock(nil, fields, nil)}
	if len(a.Failed) > 0 {
		var lines []string
		for i, c := range a.Failed {
			if i == 10 {
				lines = append(lines, x.More(len(a.Failed)-10))
				break
			}
			lines = append(lines, "• `"+esc(x.FailedLine(c))+"`")
		}
		blocks = append(blocks, slackapi.NewSectionBlock(md(truncate(label("What failed")+strings.Join(lines, "\n"), 3000)), nil, nil))
	}
	if a.Detail != "" {
		blocks = append(blocks, slackapi.NewSectionBlock(md(truncate(esc(a.Detail), 3000)), nil, nil))
	}
	if b := ticketButtons(a); b != nil { // ticket_buttons.go
		blocks = append(blocks, b)
	}
	blocks = append(blocks, slackapi.NewContextBlock("", md(x.IncidentRef("`"+esc(a.IncidentID)+"`"))))
	return blocks
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
