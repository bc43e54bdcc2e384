package chantext

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/ticket"
)

// The ticket notices' text (what people read in the ticket's thread and in
// the robots' groups), written once when the notice is raised, in the
// contract's language and on its clock: one text for every channel, so it
// carries no channel's syntax (no Slack shortcode, no slash command).

// TicketFacts are what a notice says of its ticket.
type TicketFacts struct {
	ID, Node, Priority, ProviderRef, Summary, Contract string
	Opened                                             time.Time
	// Recorded is when the backend recorded the opening, By who did:
	// a ticket recorded well after it was opened says so.
	Recorded time.Time
	By       string
}

// TicketEvent is a recorded event of a ticket (a response, a reply, the
// resolution, the replacement); Target and Late name the target it met
// or missed.
type TicketEvent struct {
	Type             string // events.TypeProviderResponded and the rest
	At, RecordedAt   time.Time
	By               string
	AwaitingCustomer bool
	// Paused: the contract pauses the resolution clock while waiting.
	Paused bool
	Target string
	Late   time.Duration
}

var targetNames = map[string]string{"response": "first response", "resolution": "resolution", "replacement": "hardware replacement"}

var eventNames = map[string]string{events.TypeProviderResponded: "Provider responded", events.TypeCustomerReplied: "Customer replied",
	events.TypeTicketResolved: "Resolved", events.TypeHardwareReplaced: "Hardware replaced"}

// target names a ticket target: the catalog's word in Chinese.
func (w words) target(name string) string {
	if w.zh() {
		return w.t(name)
	}
	return targetNames[name]
}

func (w words) hours(tim ticket.Timing) string {
	if tim.OffHours {
		return w.t("off-hours (%s)", w.p.Word(string(tim.DayKind)))
	}
	return w.t("business hours")
}

func (w words) providerRef(t TicketFacts) string {
	if t.ProviderRef != "" {
		return w.t("provider ref %s", t.ProviderRef)
	}
	return w.t("no provider ref")
}

// space separates sentences: none between Chinese ones.
func (w words) space() string {
	if w.zh() {
		return ""
	}
	return " "
}

// retro says, of a ticket time recorded later than events.RecordSlack
// after it, that it was, by whom, and that the report names it.
func (w words) retro(at, recorded time.Time, by string) string {
	if !events.Retroactive(at, recorded) {
		return ""
	}
	if by == "" {
		by = w.t("an unknown recorder")
	}
	return w.space() + w.t("Recorded %s later by %s: timed as dated, and named in the report's retroactive records.", w.dur(recorded.Sub(at)), by)
}

func (w words) clockLine(name string, c *ticket.Clock) string {
	due := w.t("no business time ahead in the calendar")
	if !c.Deadline.IsZero() {
		due = w.t("due %s", w.stamp(c.Deadline))
	}
	return w.t("%s %s (%s, %s clock)", w.target(name), due, w.dur(c.Target), w.p.Word(string(c.Clock)))
}

// TicketOpenedText is the notice of a ticket opened: its priority, when,
// in or off business hours, and its targets with their deadlines.
func TicketOpenedText(lang, zone string, t TicketFacts, tim ticket.Timing) string {
	w := wordsOf(lang, zone)
	var b strings.Builder
	b.WriteString(w.t("Ticket %s opened for %s: %s, opened %s — %s.", t.ID, t.Node, t.Priority, w.stamp(t.Opened), w.hours(tim)))
	if t.ProviderRef != "" {
		b.WriteString(w.space() + w.t("Provider ref %s.", t.ProviderRef))
	}
	if t.Summary != "" {
		fmt.Fprintf(&b, "%s%q%s", w.space(), t.Summary, w.t("."))
	}
	b.WriteString(w.retro(t.Opened, t.Recorded, t.By))
	var lines []string
	for _, c := range []struct {
		n string
		c *ticket.Clock
	}{{"response", tim.Response}, {"resolution", tim.Resolution}, {"replacement", tim.Replacement}} {
		if c.c != nil {
			lines = append(lines, w.clockLine(c.n, c.c))
		}
	}
	if len(lines) > 0 {
		b.WriteString(w.space() + w.t("Targets: %s.", strings.Join(lines, w.t("; "))))
	} else {
		b.WriteString(w.space() + w.t("Contract %s sets no target for %s.", t.Contract, t.Priority))
	}
	return b.String()
}

// TicketRecordedText is the notice of a recorded event, with the target
// it met or missed.
func TicketRecordedText(lang, zone string, t TicketFacts, e TicketEvent, tim ticket.Timing) string {
	w := wordsOf(lang, zone)
	var b strings.Builder
	b.WriteString(w.t("%s on %s at %s (%s after opening)", w.t(eventNames[e.Type]), t.ID, w.stamp(e.At), w.dur(e.At.Sub(t.Opened))))
	if e.AwaitingCustomer {
		b.WriteString(w.t(", waiting for our answer"))
		if e.Paused {
			b.WriteString(w.t(" — the resolution clock is paused"))
		}
	}
	var c *ticket.Clock
	switch e.Target {
	case "response":
		c = tim.Response
	case "resolution":
		c = tim.Resolution
	case "replacement":
		c = tim.Replacement
	}
	switch {
	case e.Target != "" && e.Late > 0 && c != nil:
		b.WriteString(w.t(". %s target BREACHED: %s late (due %s)", w.target(e.Target), w.dur(e.Late), w.stamp(c.Deadline)))
	case e.Target != "" && c != nil:
		b.WriteString(w.t(". %s target met: %s of %s", w.target(e.Target), w.dur(c.Elapsed), w.dur(c.Target)))
	}
	b.WriteString(w.t(".") + w.retro(e.At, e.RecordedAt, e.By))
	return b.String()
}

// TicketWarningText is the notice of a target's deadline drawing near,
// with what to do about it.
func TicketWarningText(lang, zone string, t TicketFacts, name string, c *ticket.Clock) string {
	w := wordsOf(lang, zone)
	return w.t("%s %s (%s, %s): %s due %s — %s left of %s (%s used). %s",
		t.ID, t.Node, t.Priority, w.providerRef(t), w.target(name), w.stamp(c.Deadline), w.dur(c.Target-c.Elapsed), w.dur(c.Target),
		fmt.Sprintf("%.0f %%", 100*float64(c.Elapsed)/float64(c.Target)), w.nudge(name, t.ID))
}

// TicketBreachedText is the notice of a target's deadline passed with
// nothing recorded.
func TicketBreachedText(lang, zone string, t TicketFacts, name string, c *ticket.Clock, tim ticket.Timing) string {
	w := wordsOf(lang, zone)
	return w.t("%s %s (%s, %s): %s target BREACHED — it was due %s (%s, %s, %s clock); nothing recorded yet.",
		t.ID, t.Node, t.Priority, w.providerRef(t), w.target(name), w.stamp(c.Deadline), w.dur(c.Target), w.hours(tim), w.p.Word(string(c.Clock)))
}

// nudge is what to do next, as a command any channel's reader can run
// (the CLI; Slack adds its own buttons).
func (w words) nudge(name, id string) string {
	switch name {
	case "response":
		return w.t("Chase the provider; record their answer with gpusla ticket responded %s.", id)
	case "resolution":
		return w.t("Escalate with the provider; record the fix with gpusla ticket resolved %s.", id)
	default:
		return w.t("Escalate the replacement with the provider.")
	}
}

// DeliveryOverdueText is the evidence line of a delivery overdue alert:
// the order, the contract's promise (what counts as delivered, within how
// long, by when) and how late it is so far.
func DeliveryOverdueText(lang, zone string, ordered time.Time, contract, what string, within time.Duration, due time.Time, late time.Duration) string {
	w := wordsOf(lang, zone)
	return w.t("Ordered %s; the contract (%s) promises delivery — the %s — within %s, by %s. Not delivered yet: %s late so far.",
		w.stamp(ordered), contract, w.t(what), w.dur(within), w.stamp(due), w.dur(late))
}

// DeliveredText is the evidence line of a late delivery's alert.
func DeliveredText(lang, zone string, delivered time.Time, what string, took time.Duration, contract string, within, late time.Duration) string {
	w := wordsOf(lang, zone)
	return w.t("Delivered at %s (the %s), %s after the order; the contract (%s) promises %s: %s late.",
		w.stamp(delivered), w.t(what), w.dur(took), contract, w.dur(within), w.dur(late))
}
