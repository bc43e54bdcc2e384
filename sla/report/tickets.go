package report

import (
	"sort"
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// tickets judges the node's tickets opened in the month, in opening order,
// fills in their rows and returns the penalties late responses and late
// replacements earn.
func (m nodeMonth) tickets(tickets []*ticket.Ticket, nr *Node) []account.Penalty {
	tm := m.tm
	var penalties []account.Penalty
	sort.Slice(tickets, func(i, j int) bool {
		if !tickets[i].Opened.Equal(tickets[j].Opened) {
			return tickets[i].Opened.Before(tickets[j].Opened)
		}
		return tickets[i].ID < tickets[j].ID
	})
	for _, t := range tickets {
		if t.Opened.Before(m.ms) || !t.Opened.Before(m.me) {
			continue
		}
		t.Released = m.n.released // the clocks stop when the node is given back
		tim := ticket.Evaluate(t, tm, m.asOf)
		rt := Ticket{Ticket: t.ID, Priority: t.Priority, Category: t.Category, ProviderRef: t.ProviderRef, Summary: t.Summary,
			OpenedAt: ts(t.Opened, tm), OffHours: tim.OffHours, OpenedOn: string(tim.DayKind),
			Response: target(tim.Response, tm), Resolution: target(tim.Resolution, tm), Replacement: target(tim.Replacement, tm)}
		if tim.DayKind == calendar.Holiday {
			rt.OpenedOnName = tm.Calendar.Holidays[calendar.DateOf(t.Opened, tm.Calendar.Loc)]
		}
		for _, c := range []*ticket.Clock{tim.Response, tim.Resolution, tim.Replacement} {
			if c != nil && c.Status == ticket.Breached {
				rt.Breached = true
			}
		}
		// An unanswered ticket past its deadline is breached like a late
		// answer and earns the same penalty: a provider who never answers
		// must not do better than one who answers late.
		// A breach whose deadline runs through a year whose holidays the
		// terms do not list is reported and earns nothing: a holiday they
		// cannot name may move the deadline past the answer.
		if c := tim.Response; c != nil && c.Status == ticket.Breached && len(c.HolidaysUnknown) == 0 && tm.Support.LateResponsePenalty > 0 {
			reason := msg.New("first response %s late (target %s)", c.Late.Round(time.Second), c.Target)
			if c.Done.IsZero() {
				reason = msg.New("no first response, %s past the deadline (target %s)", c.Late.Round(time.Second), c.Target)
			}
			penalties = append(penalties, account.Penalty{Kind: "late_response", Ref: t.ID, Percent: tm.Support.LateResponsePenalty, Reason: reason})
		}
		if c := tim.Replacement; c != nil && c.Status == ticket.Breached && len(c.HolidaysUnknown) == 0 {
			if p := tm.Replacement.Penalty.For(c.Late); p > 0 {
				penalties = append(penalties, account.Penalty{Kind: "late_replacement", Ref: t.ID, Percent: p,
					Reason: msg.New("hardware replaced %s late (target %s)", c.Late.Round(time.Second), c.Target)})
			}
		}
		nr.Tickets = append(nr.Tickets, rt)
	}
	return penalties
}

func target(c *ticket.Clock, tm *terms.Terms) *Target {
	if c == nil {
		return nil
	}
	return &Target{TargetSeconds: secs(c.Target), Clock: string(c.Clock), Deadline: ts(c.Deadline, tm), At: ts(c.Done, tm),
		ElapsedSeconds: secs(c.Elapsed), PausedSeconds: secs(c.Paused), Status: c.Status, LateSeconds: secs(c.Late), HolidaysUnknown: c.HolidaysUnknown}
}
