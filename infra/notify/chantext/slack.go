package chantext

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/ticket"
)

// Slack's replies to `/gpusla` commands and button clicks
// (functions/slackapi), in Slack's mrkdwn (*bold*, `code`, :shortcodes:,
// which only Slack shows). A reply about one ticket is in the words of the
// ticket's contract (SlackFor); the rest are the command's own English.

// SlackReplies writes the replies about one contract's tickets.
type SlackReplies struct{ w words }

// SlackFor is the replies in a contract's language and on its clock.
func SlackFor(lang, zone string) SlackReplies { return SlackReplies{wordsOf(lang, zone)} }

// Opened is the reply to a ticket opened: its priority, in or off hours,
// and when the first response is due. tim is nil when the ticket cannot be
// timed (its contract is not loaded).
func (r SlackReplies) Opened(t TicketFacts, tim *ticket.Timing) string {
	w := r.w
	if tim == nil {
		return w.t("Ticket *%s* opened for %s (%s).", t.ID, t.Node, t.Priority)
	}
	s := w.t("Ticket *%s* opened for *%s* (%s, %s)", t.ID, t.Node, t.Priority, w.hours(*tim))
	if tim.Response != nil && !tim.Response.Deadline.IsZero() {
		s += w.t(": first response due %s", w.stamp(tim.Response.Deadline))
	}
	return s + w.t(".")
}

// OpenedFromButton is Opened for the alert's "Ticket opened" button.
func (r SlackReplies) OpenedFromButton(t TicketFacts, tim *ticket.Timing) string {
	return r.Opened(t, tim) + r.w.space() + r.w.t("Use `/gpusla ticket open` instead for another priority or a provider reference.")
}

// AlreadyOpened answers a second "Ticket opened" click.
func (r SlackReplies) AlreadyOpened(t TicketFacts) string {
	return r.w.t("Ticket *%s* was already opened for this incident (by %s).", t.ID, t.By)
}

// Ref is the reply to a provider reference recorded.
func (r SlackReplies) Ref(t TicketFacts) string {
	return r.w.t("Ticket *%s* (%s): provider ref %s.", t.ID, t.Node, t.ProviderRef)
}

var recordedNames = map[string]string{events.TypeProviderResponded: "provider responded", events.TypeCustomerReplied: "customer replied",
	events.TypeTicketResolved: "resolved", events.TypeHardwareReplaced: "hardware replaced"}

// Recorded is the reply to an event recorded (repeat: it was already).
func (r SlackReplies) Recorded(t TicketFacts, e TicketEvent, repeat bool) string {
	w := r.w
	what := w.t(recordedNames[e.Type])
	if repeat {
		return w.t("Already recorded: %s on *%s* at %s.", what, t.ID, w.stamp(e.At))
	}
	s := w.t("Recorded: %s on *%s* at %s", what, t.ID, w.stamp(e.At))
	if e.Late > 0 {
		s += w.t(" — %s target breached, *%s late*", w.target(e.Target), w.dur(e.Late))
	} else if e.Target != "" {
		s += w.t(" — %s target met", w.target(e.Target))
	}
	return s + w.t(".")
}

// TicketLine is an open ticket in `/gpusla status`: its first running
// target, breached or due.
func (r SlackReplies) TicketLine(t TicketFacts, tim *ticket.Timing) string {
	w := r.w
	s := fmt.Sprintf("*%s* %s", t.ID, t.Priority)
	if t.ProviderRef != "" {
		s += " (" + t.ProviderRef + ")"
	}
	if tim == nil {
		return s
	}
	for _, c := range []struct {
		name string
		c    *ticket.Clock
	}{{"response", tim.Response}, {"resolution", tim.Resolution}, {"replacement", tim.Replacement}} {
		if c.c == nil || !c.c.Done.IsZero() {
			continue
		}
		due := w.stamp(c.c.Deadline)
		if c.c.Status == ticket.Breached {
			return s + w.t(" — :rotating_light: %s BREACHED (due %s, %s ago)", w.target(c.name), due, w.dur(c.c.Late.Round(time.Minute)))
		}
		return s + w.t(" — %s due %s (in %s)", w.target(c.name), due, w.dur((c.c.Target-c.c.Elapsed).Round(time.Minute)))
	}
	return s
}

// SlackNode is one node's line in `/gpusla status`. Lang and Zone are its
// contract's report.lang and time zone: a reply that covers nodes of
// several contracts writes each node's part in its own contract's words,
// as that node's alerts and ticket lines are (empty: English, UTC).
type SlackNode struct {
	ID, Provider, Contract string
	Lang, Zone             string
	Heard                  bool          // a state exists
	Ago                    time.Duration // since it was last heard
	Unreachable            time.Time     // zero: not unreachable
	Open                   []SlackOpen
	Tickets                []string // TicketLine of each open ticket
}

// SlackOpen is an open check incident of a node.
type SlackOpen struct {
	Kind  string
	Since time.Time
}

// SlackStatus is the reply to `/gpusla status`: each node's part in its
// contract's language and on its clock; the one line about no node at
// all, which belongs to no contract, in English.
func SlackStatus(nodes []SlackNode) string {
	var b strings.Builder
	if len(nodes) == 0 {
		b.WriteString("No node is registered.")
	}
	for _, n := range nodes {
		b.WriteString(wordsOf(n.Lang, n.Zone).statusLine(n))
	}
	return strings.TrimSpace(b.String())
}

// statusLine is one node's part of the status reply.
func (w words) statusLine(n SlackNode) string {
	state := ":white_circle: " + w.t("never heard from")
	if n.Heard {
		state = ":large_green_circle: " + w.t("up, last heard %s ago", w.dur(n.Ago))
		if !n.Unreachable.IsZero() {
			state = ":red_circle: " + w.t("*unreachable* since %s", w.stamp(n.Unreachable))
		}
	}
	open := make([]string, 0, len(n.Open))
	for _, o := range n.Open {
		open = append(open, w.t("%s since %s", w.kind(o.Kind), w.stamp(o.Since)))
	}
	sort.Strings(open)
	var b strings.Builder
	b.WriteString(w.t("*%s* (%s, %s) %s", n.ID, n.Provider, n.Contract, state) + "\n")
	for _, o := range open {
		b.WriteString(w.t("   • incident: %s", o) + "\n")
	}
	for _, t := range n.Tickets {
		b.WriteString(w.t("   • ticket %s", t) + "\n")
	}
	return b.String()
}

// The command replies without a contract.
func SlackBuildingReport(month string) string {
	return fmt.Sprintf(":hourglass_flowing_sand: Building the report for %s; it will appear here.", month)
}

// SlackBuildingScorecard acknowledges `/gpusla scorecard`.
func SlackBuildingScorecard(from, to string) string {
	return fmt.Sprintf(":hourglass_flowing_sand: Building the provider scorecard %s to %s; it will appear here.", from, to)
}

// SlackError is a refusal or failure as the person sees it.
func SlackError(text string) string { return ":x: " + text }

// SlackNotFound adds how ticket ids look to a "not found".
func SlackNotFound(err error) string {
	return SlackError(err.Error() + " — ticket ids look like T-abcd2345; `/gpusla status` lists open ones")
}

// SlackInternal is our own failure.
const SlackInternal = ":x: internal error; nothing was recorded if this message is all you got — try again"

// SlackNoNode answers `/gpusla status NODE` for an unknown node.
func SlackNoNode(node string) string { return fmt.Sprintf(":x: no node %q is registered", node) }

// SlackNoTicketYet answers a record button before any ticket.
const SlackNoTicketYet = "No ticket is open for this incident yet: press *Ticket opened* first (or `/gpusla ticket open`)."

// SlackReportFailed and SlackScorecardFailed say a job failed.
func SlackReportFailed(month string, err error) string {
	return SlackError("the report for " + month + " could not be built: " + err.Error())
}

// SlackScorecardFailed: see SlackReportFailed.
func SlackScorecardFailed(from, to string, err error) string {
	return SlackError("the scorecard for " + from + " to " + to + " could not be built: " + err.Error())
}

// SlackReplacementNotSetUp answers "Request replacement" without the
// replacement service wired.
func SlackReplacementNotSetUp(node, incident string) string {
	return "Replacement requests are not set up on this backend: run `gpusla ticket request-replacement " + node +
		" --incident " + incident + "` where the data folder is."
}

// SlackReplacementRequested gives the ticket text to paste (again, when
// already requested, by whom).
func SlackReplacementRequested(id, text string, created bool, by string) string {
	if !created {
		if by != "" {
			by = " (by " + by + ")"
		}
		return "Replacement already requested: ticket *" + id + "* is open for this incident" + by + ". The text for the provider again:\n" + text
	}
	return "Replacement requested: hardware ticket *" + id + "* is open and its replacement clock runs. " +
		"Paste this into the provider's ticket system and attach the evidence pack:\n" + text
}

// SlackMax keeps a message inside Slack's 40 000-character text limit.
const SlackMax = 38000

// SlackReportSummary is the part of a month's report a channel reads: each
// node's uptime and claim, every ticket against its targets with the
// penalties the contract attaches to late ones.
func SlackReportSummary(rep *report.Report, skipped []report.Skipped) string {
	var b strings.Builder
	if rep.Provisional {
		// The month is not over: its figures are the service so far.
		fmt.Fprintf(&b, "*SLA report %s* (provisional, as of %s: the month is not over, so these figures will change and nothing can be claimed yet)\n", rep.Month, rep.AsOf)
	} else {
		fmt.Fprintf(&b, "*SLA report %s* (as of %s)\n", rep.Month, rep.AsOf)
	}
	for _, s := range skipped {
		fmt.Fprintf(&b, ":warning: node *%s* left out of the report: %s\n", s.Node, s.Reason)
	}
	tickets, breached := 0, 0
	for _, n := range rep.Nodes {
		fmt.Fprintf(&b, "*%s* (%s): uptime %.3f %% claimable, %.3f %% observed (target %.2f %%); claim %.2f %s\n",
			n.Node, n.Contract, n.Uptime.Claimable(), n.Uptime.ObservedFigure(), n.Uptime.TargetPercent, n.Credit.Amount, n.Currency)
		pen := map[string][]string{}
		for _, p := range n.Credit.Penalties {
			pen[p.Ref] = append(pen[p.Ref], fmt.Sprintf("%s +%.1f %%", p.Kind, p.Percent))
		}
		sort.Slice(n.Tickets, func(i, j int) bool { return n.Tickets[i].OpenedAt < n.Tickets[j].OpenedAt })
		for _, t := range n.Tickets {
			tickets++
			mark := ":white_check_mark:"
			if t.Breached {
				breached++
				mark = ":rotating_light:"
			}
			hours := "business hours"
			if t.OffHours {
				hours = "off-hours (" + t.OpenedOn + ")"
			}
			fmt.Fprintf(&b, "%s *%s* %s %s, opened %s %s", mark, t.Ticket, n.Node, t.Priority, t.OpenedAt, hours)
			for _, tg := range []struct {
				name string
				t    *report.Target
			}{{"response", t.Response}, {"resolution", t.Resolution}, {"replacement", t.Replacement}} {
				if tg.t == nil {
					continue
				}
				fmt.Fprintf(&b, "; %s %s", tg.name, tg.t.Status)
				if tg.t.LateSeconds > 0 {
					fmt.Fprintf(&b, " %s late", english().dur(time.Duration(tg.t.LateSeconds)*time.Second))
				}
			}
			if ps := pen[t.Ticket]; len(ps) > 0 {
				fmt.Fprintf(&b, " — penalty %s", strings.Join(ps, ", "))
			}
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "%d tickets, %d breached.", tickets, breached)
	s := b.String()
	if len(s) > SlackMax {
		s = strings.ToValidUTF8(s[:SlackMax], "") + "\n… (truncated; the full report has every line)"
	}
	return s
}
