package chantext

import (
	"fmt"
	"strings"
	"unicode/utf8"

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
	cut     bool // some user text was left out to fit
}

// Button opens URL; Label is plain text.
type Button struct {
	Label string
	URL   string
}

// limits are how much user text a message carries; render halves them
// until the body fits the dialect's MaxBytes.
type limits struct{ failed, detail int }

// Alert renders an alert in dialect d, in the words of its contract
// (Lang, Zone).
func Alert(d Dialect, a notify.Alert) Message {
	w := wordsOf(a.Lang, a.Zone)
	return fit(d, w, func(l limits) Message { return alert(d, w, a, l) })
}

// Ticket renders a ticket message in dialect d, in its contract's words.
func Ticket(d Dialect, m notify.TicketMessage) Message {
	w := wordsOf(m.Lang, m.Zone)
	return fit(d, w, func(l limits) Message { return ticketMessage(d, w, m, l) })
}

// fit renders with the most user text that fits d.MaxBytes. A message that
// had to be cut says so on its last line (… (truncated), …（已截断）), so
// no reader takes a shortened list or evidence for the whole.
func fit(d Dialect, w words, render func(limits) Message) Message {
	mark := w.t("… (truncated)")
	room := d.MaxBytes - len(d.NL) - len(mark)
	l := limits{failed: 10, detail: 2000}
	for {
		m := render(l)
		if !m.cut && len(m.Body) <= d.MaxBytes {
			return m
		}
		if len(m.Body) <= room || l.detail < 20 {
			if len(m.Body) > room { // only our own lines left: cut them
				m.Body = clipBytes(m.Body, room)
			}
			m.Body += d.NL + mark
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
	w     words
	lines []string
}

func (b *body) add(line string) { b.lines = append(b.lines, line) }

// field is a labelled line; the label is a catalog sentence.
func (b *body) field(name, escaped string) {
	colon := b.w.p.Colon() // ": ", "："
	mark := strings.TrimRight(colon, " ")
	b.add("**" + b.w.t(name) + mark + "**" + colon[len(mark):] + escaped)
}
func (b *body) String() string { return strings.Join(b.lines, b.d.NL) }

func alert(d Dialect, w words, a notify.Alert, l limits) Message {
	title := w.title(a, w.dur)
	m := Message{Title: AlertLevel(a).Emoji() + " " + title, Level: AlertLevel(a)}
	e := d.Escape
	b := &body{d: d, w: w}
	if d.TitleInBody {
		b.add("### " + AlertLevel(a).Emoji() + " " + e(title))
	}
	if a.Kind == notify.AlertRecovered || a.Kind == notify.AlertReclassified || a.Kind == notify.AlertUpdate {
		// No threads in these robots: quote the incident this follows up.
		verb := "About: %s %s %s since %s (incident %s)"
		if a.Kind == notify.AlertRecovered {
			verb = "Closes: %s %s %s since %s (incident %s)"
		}
		opening := Warning
		if a.IncidentKind == "unreachable" {
			opening = Critical
		}
		b.add(d.Quote(w.t(verb, opening.Emoji(), e(a.Node), e(w.kind(a.IncidentKind)), w.stamp(a.Since), e(a.IncidentID))))
	}
	b.field("Node", e(a.Node))
	b.field("Provider", e(a.Provider))
	if a.IncidentKind != "" {
		b.field("Incident", e(w.kind(a.IncidentKind)))
	}
	since, until := SinceUntil(a)
	b.field(since, w.stamp(a.Since))
	if HasUntil(a) {
		b.field(until, w.stamp(a.Until))
		b.field(DurationName(a), w.dur(a.Duration))
	}
	if opensIncident(a) {
		b.field("Counts under the contract", e(w.verdict(a)))
	}
	if a.Kind == notify.AlertReclassified {
		b.field("Counts as outage", w.p.Yes(a.Counted))
	}
	if ShowsCause(a) {
		b.field("Cause", e(w.causeLine(a)))
	}
	if len(a.Failed) > 0 {
		b.add("**" + w.t("What failed") + "**")
		for i, c := range a.Failed {
			if i == l.failed {
				b.add(d.Bullet + w.t("… and %d more", len(a.Failed)-l.failed))
				m.cut = true
				break
			}
			b.add(d.Bullet + e(clip(w.failedLine(c), 300)))
		}
	}
	if a.Detail != "" {
		b.add(d.EscapeBlock(clip(a.Detail, l.detail)))
		m.cut = m.cut || utf8.RuneCountInString(a.Detail) > l.detail
	}
	if a.ReplacementURL != "" && notify.OffersReplacement(a) {
		bt := Button{Label: w.t(notify.ReplacementLabel), URL: a.ReplacementURL}
		if d.LinksInBody {
			b.add(d.link(bt))
		} else {
			m.Buttons = append(m.Buttons, bt)
		}
	}
	b.add(w.t("incident %s", e(a.IncidentID)))
	m.Body = b.String()
	return m
}

// opensIncident: the first alert of an outage, which says whether it
// counts under the contract (a delivery is no outage).
func opensIncident(a notify.Alert) bool {
	return (a.Kind == notify.AlertDegraded || a.Kind == notify.AlertUnreachable) && !notify.IsDelivery(a)
}

// verdict is what the contract says of an incident so far: yes; not yet,
// and when it will (under the contract's minimum); or no, and why (the
// report's reason for the same row, in the contract's language).
func (w words) verdict(a notify.Alert) string {
	switch {
	case a.Counted:
		return w.p.Yes(true)
	case a.NotYet && a.Reason != "":
		return w.t("not yet — %s", a.Reason)
	case a.Reason != "":
		return w.t("no — %s", a.Reason)
	}
	return w.p.Yes(false)
}

func ticketMessage(d Dialect, w words, t notify.TicketMessage, l limits) Message {
	lv := TicketLevel(t)
	emoji := "🎫"
	if lv != Info {
		emoji = lv.Emoji()
	}
	title := w.ticketTitle(t)
	m := Message{Title: emoji + " " + title, Level: lv}
	e := d.Escape
	b := &body{d: d, w: w}
	if d.TitleInBody {
		b.add("### " + emoji + " " + e(title))
	}
	b.field("Node", e(t.Node))
	if t.Provider != "" {
		b.field("Provider", e(t.Provider))
	}
	b.field("Opened", w.stamp(t.Opened))
	if t.Text != "" {
		b.add(d.EscapeBlock(clip(t.Text, l.detail)))
		m.cut = utf8.RuneCountInString(t.Text) > l.detail
	}
	b.add(w.t("ticket %s", e(t.Ticket)))
	m.Body = b.String()
	return m
}

// TextMax bounds the plain-text form of a message where a channel carries
// it: Slack's fallback text (chat.postMessage asks to keep text within
// 4,000 characters; it cuts a message at 40,000) and the generic webhook's
// "text". Bytes, after the channel's escaping: never more characters.
const TextMax = 4000

// AlertText is the plain-text form of an alert (console, the generic
// webhook's "text"): one line, no markup, in the alert's words, at most
// TextMax bytes (AlertTextWithin).
func AlertText(a notify.Alert) string { return AlertTextWithin(a, TextMax, nil) }

// AlertTextWithin is AlertText in at most bound bytes once escape (nil:
// none) is applied, cut as the robots' messages are: at most ten failing
// checks, then fewer and less of the evidence until it fits, a cut text
// ending "… (truncated)" in the alert's words.
func AlertTextWithin(a notify.Alert, bound int, escape func(string) string) string {
	w := wordsOf(a.Lang, a.Zone)
	return fitText(w, bound, escape, func(l limits) (string, bool) { return alertText(w, a, l) })
}

func alertText(w words, a notify.Alert, l limits) (string, bool) {
	var b strings.Builder
	cut := false
	since, until := SinceUntil(a)
	fmt.Fprintf(&b, "[%s] %s — %s, %s", Tag(a), w.title(a, w.dur), w.inline("Provider", a.Provider), w.inline(since, w.stamp(a.Since)))
	if HasUntil(a) {
		fmt.Fprintf(&b, ", %s", w.inline(until, w.stamp(a.Until)))
	}
	for i, c := range a.Failed {
		if i == l.failed {
			fmt.Fprintf(&b, "; %s", w.t("… and %d more", len(a.Failed)-l.failed))
			cut = true
			break
		}
		fmt.Fprintf(&b, "; %s", clip(w.failedLine(c), 300))
	}
	if notify.AboutAnIncident(a) { // a delivery is no outage: its lateness earns the penalty
		fmt.Fprintf(&b, "; %s", w.inline("Counts under the contract", w.verdict(a)))
	}
	if ShowsCause(a) {
		fmt.Fprintf(&b, "; %s", w.inline("Cause", w.causeLine(a)))
	}
	if a.Detail != "" {
		fmt.Fprintf(&b, "; %s", clip(a.Detail, l.detail))
		cut = cut || utf8.RuneCountInString(a.Detail) > l.detail
	}
	fmt.Fprintf(&b, " (%s)", w.t("incident %s", a.IncidentID))
	return b.String(), cut
}

// fitText renders with the most user text that fits bound bytes once
// escaped: render's limits halve until it does; a text that had to be cut
// ends with the mark, and one still too long with only our own words left
// is cut at a character boundary.
func fitText(w words, bound int, escape func(string) string, render func(limits) (string, bool)) string {
	size := func(s string) int {
		if escape != nil {
			return len(escape(s))
		}
		return len(s)
	}
	mark := " " + w.t("… (truncated)")
	l := limits{failed: 10, detail: 2000}
	for {
		s, cut := render(l)
		if cut {
			s += mark
		}
		if size(s) <= bound {
			return s
		}
		if l.detail < 20 {
			for size(s) > bound {
				r := []rune(strings.TrimSuffix(s, mark))
				s = string(r[:len(r)*9/10]) + mark
			}
			return s
		}
		l.failed, l.detail = max(1, l.failed/2), l.detail/2
	}
}

// Tag is what a plain-text alert is, at its start: the incident kind for
// an opening ("gpu_lost", "unreachable": the alert names the kind, never
// the generic "degraded"), else the alert kind ("recovered",
// "reclassified", "update", "delivery_overdue").
func Tag(a notify.Alert) string {
	if opensIncident(a) && a.IncidentKind != "" {
		return a.IncidentKind
	}
	return string(a.Kind)
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

// TicketText is the plain-text form of a ticket message, in its words, at
// most TextMax bytes (TicketTextWithin).
func TicketText(m notify.TicketMessage) string { return TicketTextWithin(m, TextMax, nil) }

// TicketTextWithin is TicketText in at most bound bytes once escaped, its
// text cut as AlertTextWithin cuts an alert's evidence.
func TicketTextWithin(m notify.TicketMessage, bound int, escape func(string) string) string {
	w := wordsOf(m.Lang, m.Zone)
	return fitText(w, bound, escape, func(l limits) (string, bool) {
		return fmt.Sprintf("[ticket_%s] %s — %s, %s; %s (%s)", m.Kind, w.ticketTitle(m), w.inline("Provider", m.Provider),
			w.inline("Opened", w.stamp(m.Opened)), clip(m.Text, l.detail), w.t("ticket %s", m.Ticket)), utf8.RuneCountInString(m.Text) > l.detail
	})
}
