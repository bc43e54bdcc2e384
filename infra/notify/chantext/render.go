package chantext

import (
	"fmt"
	"strings"

	"github.com/gpusla/gpusla/infra/notify"
)

// Message is a rendered message: a plain-text title (card header, DingTalk's
// notification title), its level, and the body in the dialect's markdown.
type Message struct {
	Title string
	Level Level
	Body  string
	// Buttons are link buttons under the body (Feishu's card buttons,
	// DingTalk's actionCard); a dialect without buttons (WeCom) has them as
	// markdown links in Body instead, and Buttons empty.
	Buttons []Button
}

// Button opens URL; Label is plain text.
type Button struct {
	Label string
	URL   string
}

// limits are how much user text a message carries; render halves them
// until the body fits the dialect's MaxBytes.
type limits struct{ failed, detail int }

// Alert renders an alert in dialect d.
func Alert(d Dialect, a notify.Alert) Message {
	return fit(d, func(l limits) Message { return alert(d, a, l) })
}

// Ticket renders a ticket message in dialect d.
func Ticket(d Dialect, m notify.TicketMessage) Message {
	return fit(d, func(l limits) Message { return ticket(d, m, l) })
}

func fit(d Dialect, render func(limits) Message) Message {
	l := limits{failed: 10, detail: 2000}
	for {
		m := render(l)
		if len(m.Body) <= d.MaxBytes || l.detail < 20 {
			if len(m.Body) > d.MaxBytes { // only our own lines left: cut them
				m.Body = clipBytes(m.Body, d.MaxBytes)
			}
			return m
		}
		l.failed, l.detail = max(1, l.failed/2), l.detail/2
	}
}

// clipBytes cuts s to at most n bytes on a line boundary, so no escape or
// entity is cut in half.
func clipBytes(s string, n int) string {
	for len(s) > n {
		i := strings.LastIndexByte(s[:len(s)-1], '\n')
		if i <= 0 {
			return ""
		}
		s = strings.TrimRight(s[:i], "\n")
	}
	return s
}

type body struct {
	d     Dialect
	lines []string
}

func (b *body) add(line string)            { b.lines = append(b.lines, line) }
func (b *body) field(name, escaped string) { b.add("**" + name + ":** " + escaped) }
func (b *body) String() string             { return strings.Join(b.lines, b.d.NL) }

func alert(d Dialect, a notify.Alert, l limits) Message {
	m := Message{Title: AlertLevel(a).Emoji() + " " + Title(a), Level: AlertLevel(a)}
	e := d.Escape
	b := &body{d: d}
	if d.TitleInBody {
		b.add("### " + AlertLevel(a).Emoji() + " " + e(Title(a)))
	}
	if a.Kind == notify.AlertRecovered || a.Kind == notify.AlertReclassified || a.Kind == notify.AlertUpdate {
		// No threads in these robots: quote the incident this follows up.
		verb := "About"
		if a.Kind == notify.AlertRecovered {
			verb = "Closes"
		}
		opening := Warning
		if a.IncidentKind == "unreachable" {
			opening = Critical
		}
		b.add(d.Quote(fmt.Sprintf("%s: %s %s %s since %s (incident %s)", verb, opening.Emoji(),
			e(a.Node), e(KindName(a.IncidentKind)), Stamp(a.Since), e(a.IncidentID))))
	}
	b.field("Node", e(a.Node))
	b.field("Provider", e(a.Provider))
	b.field("Incident", e(KindName(a.IncidentKind)))
	since, until := SinceUntil(a)
	b.field(since, Stamp(a.Since))
	if HasUntil(a) {
		b.field(until, Stamp(a.Until))
		b.field(DurationName(a), Duration(a.Duration))
	}
	if a.Kind == notify.AlertReclassified {
		counted := "yes"
		if !a.Counted {
			counted = "no"
		}
		b.field("Counts as outage", counted)
		b.field("Cause", e(CauseName(a.Cause)))
	}
	if len(a.Failed) > 0 {
		b.add("**What failed**")
		for i, c := range a.Failed {
			if i == l.failed {
				b.add(fmt.Sprintf("- … and %d more", len(a.Failed)-l.failed))
				break
			}
			b.add("- " + e(clip(FailedLine(c), 300)))
		}
	}
	if a.Detail != "" {
		b.add(d.EscapeBlock(clip(a.Detail, l.detail)))
	}
	if a.ReplacementURL != "" && notify.OffersReplacement(a) {
		bt := Button{Label: notify.ReplacementLabel, URL: a.ReplacementURL}
		if d.LinksInBody {
			b.add(d.link(bt))
		} else {
			m.Buttons = append(m.Buttons, bt)
		}
	}
	b.add("incident " + e(a.IncidentID))
	m.Body = b.String()
	return m
}

func ticket(d Dialect, t notify.TicketMessage, l limits) Message {
	lv := TicketLevel(t)
	emoji := "🎫"
	if lv != Info {
		emoji = lv.Emoji()
	}
	m := Message{Title: emoji + " " + TicketTitle(t), Level: lv}
	e := d.Escape
	b := &body{d: d}
	if d.TitleInBody {
		b.add("### " + emoji + " " + e(TicketTitle(t)))
	}
	b.field("Node", e(t.Node))
	if t.Provider != "" {
		b.field("Provider", e(t.Provider))
	}
	b.field("Opened", Stamp(t.Opened))
	if t.Text != "" {
		b.add(d.EscapeBlock(clip(t.Text, l.detail)))
	}
	b.add("ticket " + e(t.Ticket))
	m.Body = b.String()
	return m
}

// AlertText is the plain-text form of an alert (console, the generic
// webhook's "text"): one line, no markup.
func AlertText(a notify.Alert) string {
	var b strings.Builder
	since, until := SinceUntil(a)
	fmt.Fprintf(&b, "[%s] %s — provider %s, %s %s", a.Kind, Title(a), a.Provider, strings.ToLower(since), Stamp(a.Since))
	if HasUntil(a) {
		fmt.Fprintf(&b, ", %s %s", strings.ToLower(until), Stamp(a.Until))
	}
	for _, c := range a.Failed {
		fmt.Fprintf(&b, "; %s", FailedLine(c))
	}
	if !notify.IsDelivery(a) { // a delivery is no outage: its lateness earns the penalty
		fmt.Fprintf(&b, "; counts as outage: %s", Counted(a))
	}
	if a.Kind == notify.AlertReclassified {
		fmt.Fprintf(&b, "; cause: %s", CauseName(a.Cause))
	}
	if a.Detail != "" {
		fmt.Fprintf(&b, "; %s", a.Detail)
	}
	fmt.Fprintf(&b, " (incident %s)", a.IncidentID)
	return b.String()
}

// Counted is the incident's verdict as every alert states it: "yes", or
// "no" with the contract's reason (the report's words for the same row,
// sla/account).
func Counted(a notify.Alert) string {
	switch {
	case a.Counted:
		return "yes"
	case a.Reason != "":
		return "no — " + a.Reason
	}
	return "no"
}

// TicketText is the plain-text form of a ticket message.
func TicketText(m notify.TicketMessage) string {
	return fmt.Sprintf("[ticket_%s] %s — provider %s, opened %s; %s (ticket %s)",
		m.Kind, TicketTitle(m), m.Provider, Stamp(m.Opened), m.Text, m.Ticket)
}
