package chantext

import (
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/sla/i18n"
)

// words are the language and clock of one message: the contract's
// report.lang and time zone (notify.Alert.Lang and Zone), through the
// catalogs the documents use (sla/i18n), so a zh contract's robot messages
// read as its reports do.
type words struct {
	p   *i18n.Printer
	loc *time.Location
}

// english is the words of a message without a contract language: English,
// UTC (Slack, the console, old records).
func english() words { return englishAt(time.UTC) }

func englishAt(loc *time.Location) words { return words{p: i18n.New(i18n.EN), loc: loc} }

// wordsOf is lang and zone's words; an unknown language is English and an
// unknown zone UTC (a record written before they were carried).
func wordsOf(lang, zone string) words {
	l, err := i18n.Parse(lang)
	if err != nil {
		l = i18n.EN
	}
	loc := time.UTC
	if zone != "" {
		if z, err := time.LoadLocation(zone); err == nil {
			loc = z
		}
	}
	return words{p: i18n.New(l), loc: loc}
}

func (w words) zh() bool { return w.p.Lang == i18n.ZH }

// t translates an English sentence of the catalog.
func (w words) t(key string, args ...any) string { return w.p.T(key, args...) }

// inline is a label and its value inside a line of plain text: "provider
// acme" in English, "服务商：acme" in Chinese.
func (w words) inline(label, value string) string {
	if w.zh() {
		return w.t(label) + "：" + value
	}
	return strings.ToLower(label) + " " + value
}

// Words are a contract's words for a channel that lays its messages out
// itself (Slack's Block Kit): the same labels, titles, times, durations
// and verdicts the robots show.
type Words struct{ w words }

// WordsOf is the words of lang and zone (an alert's or ticket message's
// Lang and Zone; empty: English, UTC).
func WordsOf(lang, zone string) Words { return Words{wordsOf(lang, zone)} }

// Label is a field's label ("Node", "Since", "Counts under the contract").
func (x Words) Label(name string) string { return x.w.t(name) }

// Stamp is an instant on the contract's clock, the zone named.
func (x Words) Stamp(t time.Time) string { return x.w.stamp(t) }

// Dur is a duration in words.
func (x Words) Dur(d time.Duration) string { return x.w.dur(d) }

// Kind and Cause name an incident kind and a cause; CauseLine is an
// alert's cause with the one it corrects.
func (x Words) Kind(k string) string            { return x.w.kind(k) }
func (x Words) Cause(c string) string           { return x.w.cause(c) }
func (x Words) CauseLine(a notify.Alert) string { return x.w.causeLine(a) }

// Title is an alert's one-line summary; TicketTitle a ticket message's.
func (x Words) Title(a notify.Alert) string               { return x.w.title(a, x.w.dur) }
func (x Words) TicketTitle(m notify.TicketMessage) string { return x.w.ticketTitle(m) }

// Verdict is what the contract says of the incident (Counts under the
// contract); Yes is yes or no.
func (x Words) Verdict(a notify.Alert) string { return x.w.verdict(a) }
func (x Words) Yes(b bool) string             { return x.w.p.Yes(b) }

// FailedLine is a failing check with its value and criterion.
func (x Words) FailedLine(c notify.FailedCheck) string { return x.w.failedLine(c) }

// More is "… and N more"; IncidentRef and TicketRef the closing id lines.
func (x Words) More(n int) string            { return x.w.t("… and %d more", n) }
func (x Words) IncidentRef(id string) string { return x.w.t("incident %s", id) }
func (x Words) TicketRef(id string) string   { return x.w.t("ticket %s", id) }
