// Package chantext renders the application's alerts and ticket messages as
// the markdown of the chat robots that have no Block Kit (Feishu/Lark cards,
// DingTalk and WeCom group robots), in one place, so each channel package
// only wraps the text in its own request. Text users and probes supply
// (node ids, provider names, check values, evidence, ticket text) is escaped
// for each robot's markdown dialect; our own markup never is.
//
// These robots have no threads, so a follow-up (recovered, reclassified,
// update) quotes the incident it is about: the reader sees which message it
// closes without scrolling back.
package chantext

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
)

// KindName is the readable name of an incident kind in English, the
// documents' word (sla/i18n), so an alert, the status page and the report
// name a kind alike; unknown kinds as they are.
func KindName(k string) string { return english().kind(k) }

// CauseName is the readable form of a cause, in the documents' English.
func CauseName(c string) string { return english().cause(c) }

// kind names an incident kind in w's language: the catalog's word, the one
// the report and the status page use.
func (w words) kind(k string) string { return w.p.Word(k) }

// cause names whose fault a gap was, in the report's words.
func (w words) cause(c string) string { return w.p.Word(c) }

// causeLine is the cause an alert states, with the cause the earlier
// messages gave when this one corrects it: "network failure (first said:
// no data …)".
func (w words) causeLine(a notify.Alert) string {
	if a.PrevCause == "" || a.PrevCause == a.Cause {
		return w.cause(a.Cause)
	}
	return w.t("%s (first said: %s)", w.cause(a.Cause), w.cause(a.PrevCause))
}

// ShowsCause says whether an alert states its cause: a correction, and
// the recovery of an unreachable gap (the cause its books end with).
func ShowsCause(a notify.Alert) bool {
	return a.Cause != "" && (a.Kind == notify.AlertReclassified || a.Kind == notify.AlertRecovered && a.IncidentKind == "unreachable")
}

// SinceUntil names an alert's Since and Until fields: an incident's start
// and end, or a delivery's order and its due instant or delivery.
func SinceUntil(a notify.Alert) (since, until string) {
	switch a.Kind {
	case notify.AlertDeliveryOverdue:
		return "Ordered", "Due"
	case notify.AlertDelivered:
		return "Ordered", "Delivered"
	}
	return "Since", "Until"
}

// HasUntil says whether an alert's Until and Duration are set: a recovery's
// end, a delivery's due instant or delivery.
func HasUntil(a notify.Alert) bool {
	return a.Kind == notify.AlertRecovered || notify.IsDelivery(a)
}

// DurationName names an alert's Duration field.
func DurationName(a notify.Alert) string {
	switch a.Kind {
	case notify.AlertDeliveryOverdue:
		return "Target"
	case notify.AlertDelivered:
		return "Late by"
	}
	return "Duration"
}

// Stamp renders an instant in UTC (Slack, the webhook's data).
func Stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// stamp renders an instant on the contract's clock with the zone named,
// once, so no message shows one instant on two clocks: 2026-11-30
// 18:00:30 (China Standard Time), 2026年11月30日 18:00:30（北京时间）; UTC as
// Stamp.
func (w words) stamp(t time.Time) string {
	t = t.In(w.loc)
	zone := w.p.ZoneName(w.loc, t, t)
	switch {
	case w.zh():
		return t.Format("2006年1月2日 15:04:05") + "（" + zone + "）"
	case w.loc == time.UTC:
		return Stamp(t)
	}
	return t.Format("2006-01-02 15:04:05") + " (" + zone + ")"
}

// dur is a duration in words of the language (30 minutes, 30分钟).
func (w words) dur(d time.Duration) string { return w.p.Words(d.Round(time.Second)) }

// Duration renders a duration for people: 4m40s, 2h05m, 3d4h (Slack).
func Duration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Hour:
		return d.String()
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
	}
}

// FailedLine renders a failing check with its measured value and criterion.
func FailedLine(c notify.FailedCheck) string { return english().failedLine(c) }

func (w words) failedLine(c notify.FailedCheck) string {
	var b strings.Builder
	head := c.Name
	if c.GPU != nil {
		head = w.t("%s (GPU %d)", c.Name, *c.GPU)
	}
	if c.Value != "" {
		b.WriteString(w.t("%s: %s", head, w.p.ProbeText(c.Value, c.ValueText, false)))
	} else {
		b.WriteString(w.t("%s: %s", head, w.p.Word(c.Verdict)))
	}
	if c.Criterion != "" {
		b.WriteString(w.t(" (want %s)", w.p.ProbeText(c.Criterion, c.CriterionText, true)))
	}
	if c.Detail != "" {
		b.WriteString(w.t(" — %s", w.p.ProbeText(c.Detail, c.DetailText, true)))
	}
	return b.String()
}

// Title is the one-line summary of an alert (plain text).
func Title(a notify.Alert) string { return englishAt(time.UTC).title(a, Duration) }

// title is Title in w's words, durations written by dur.
func (w words) title(a notify.Alert, dur func(time.Duration) string) string {
	k := w.kind(a.IncidentKind)
	switch a.Kind {
	case notify.AlertDeliveryOverdue:
		return w.t("%s delivery overdue: not delivered %s after the order", a.Node, dur(a.Duration))
	case notify.AlertDelivered:
		return w.t("%s delivered %s late", a.Node, dur(a.Duration))
	case notify.AlertRecovered:
		return w.t("%s recovered: %s for %s", a.Node, k, dur(a.Duration))
	case notify.AlertReclassified:
		if !a.Counted {
			return w.t("Correction: %s %s — does not count against the provider", a.Node, k)
		}
		return w.t("Correction: %s %s — counts against the provider", a.Node, k)
	case notify.AlertUpdate:
		return w.t("%s %s: update", a.Node, k)
	case notify.AlertLimits:
		return w.t("%s: over its bounds, its alerts held for the rest of the hour", a.Node)
	default:
		return a.Node + " " + k
	}
}

var ticketWhat = map[notify.TicketKind]string{
	notify.TicketOpened:   "ticket %s on %s: opened",
	notify.TicketRecorded: "ticket %s on %s: update",
	notify.TicketWarning:  "ticket %s on %s: deadline near",
	notify.TicketBreached: "ticket %s on %s: deadline BREACHED",
}

// TicketTitle is the one-line summary of a ticket message (plain text).
func TicketTitle(m notify.TicketMessage) string { return english().ticketTitle(m) }

func (w words) ticketTitle(m notify.TicketMessage) string {
	if f, ok := ticketWhat[m.Kind]; ok {
		return w.t(f, m.Ticket, m.Node)
	}
	return "ticket " + m.Ticket + " on " + m.Node + ": " + string(m.Kind)
}

// Level is how urgent a message is; each robot shows it its own way (card
// header colour, font colour, emoji).
type Level int

// Levels.
const (
	Info     Level = iota // reclassified, ticket opened or updated
	Warning               // degraded, update, ticket deadline near
	Critical              // unreachable, ticket deadline breached
	Resolved              // recovered
)

// AlertLevel is an alert's level.
func AlertLevel(a notify.Alert) Level {
	switch a.Kind {
	case notify.AlertRecovered, notify.AlertDelivered:
		return Resolved
	case notify.AlertDeliveryOverdue:
		return Critical
	case notify.AlertReclassified:
		return Info
	case notify.AlertUnreachable:
		return Critical
	default:
		return Warning
	}
}

// TicketLevel is a ticket message's level.
func TicketLevel(m notify.TicketMessage) Level {
	switch m.Kind {
	case notify.TicketBreached:
		return Critical
	case notify.TicketWarning:
		return Warning
	default:
		return Info
	}
}

// Emoji marks a level in text (the robots render Unicode emoji as is).
func (l Level) Emoji() string {
	switch l {
	case Critical:
		return "🔴"
	case Warning:
		return "🟠"
	case Resolved:
		return "🟢"
	default:
		return "🔵"
	}
}
