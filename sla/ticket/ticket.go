// Package ticket times a support ticket against the contract: first
// response, resolution (with the clock paused while the provider waits for
// the customer, if the terms allow) and hardware replacement. A ticket opened
// outside business hours — by the contract's calendar, holidays and adjusted
// working days included — is off-hours and gets the off-hours target. Every
// verdict is "as of" an instant: a ticket with no response is breached the
// moment its deadline passes, not at month end.
//
// On the path from an observation to a report row, this is the step beside
// incidents for tickets: ticket events → each ticket row's timing verdicts.
package ticket

import (
	"sort"
	"time"

	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/terms"
)

// Statuses of a target.
const (
	Met      = "met"
	Breached = "breached"
	Pending  = "pending"
)

// Ticket is what is known of one ticket.
type Ticket struct {
	ID, Node, Priority, Category, ProviderRef, Summary string
	Opened                                             time.Time
	// Responses are the provider's answers; AwaitingCustomer marks those
	// that asked the customer something.
	Responses       []Response
	CustomerReplies []time.Time
	Resolved        time.Time
	Replaced        time.Time
	// Released is when the node was given back (zero: still rented). The
	// provider owes nothing for it from then on: a ticket opened then has
	// no clock, and a replacement not due before it is not late.
	Released time.Time
}

// Response is one provider answer.
type Response struct {
	At               time.Time
	AwaitingCustomer bool
}

// Clock is one target's verdict.
type Clock struct {
	Target   time.Duration
	Clock    terms.Clock
	Deadline time.Time // zero if it cannot be computed (no business time ahead)
	Done     time.Time // when it was met (zero: not yet)
	// Elapsed is the time counted against the target (clock-aware, pauses
	// removed) up to Done or to the as-of instant.
	Elapsed time.Duration
	Paused  time.Duration
	Status  string
	Late    time.Duration // how far past the deadline (breached only)
	// HolidaysUnknown are the years the verdict depends on whose holidays
	// the terms do not list (calendar.Covers): the years a business clock
	// runs through to its deadline, or the opening's year where it chose
	// between the business-hours and off-hours targets. A day closed in
	// them that the terms cannot name (1 January 2027, say, under terms
	// listing 2026's holidays) would move the deadline later, so a breach
	// read on weekdays alone may be none.
	HolidaysUnknown []int
}

// Timing is a ticket's verdicts.
type Timing struct {
	OffHours    bool
	DayKind     calendar.DayKind
	Response    *Clock // nil: the priority has no response target
	Resolution  *Clock // nil: no resolution target
	Replacement *Clock // nil: not a hardware ticket or no replacement promise
}

// Evaluate times t under tm as of asOf. Events after asOf are ignored.
func Evaluate(t *Ticket, tm *terms.Terms, asOf time.Time) Timing {
	cal := tm.Calendar
	_, kind := cal.Day(calendar.DateOf(t.Opened, cal.Loc))
	tim := Timing{OffHours: !cal.InBusiness(t.Opened), DayKind: kind}
	if !t.Released.IsZero() && !t.Opened.Before(t.Released) {
		return tim // opened once the node was no longer rented: no clock runs
	}
	pick := func(tg terms.Target) time.Duration {
		if tim.OffHours {
			return tg.OffHours
		}
		return tg.BusinessHours
	}
	if tg, ok := tm.Support.Response[t.Priority]; ok {
		var first time.Time
		for _, r := range sortedResponses(t) {
			if !r.At.Before(t.Opened) && !r.At.After(asOf) {
				first = r.At
				break
			}
		}
		tim.Response = measure(cal, t.Opened, pick(tg), tg.Clock, first, nil, asOf)
		tim.Response.HolidaysUnknown = unknownYears(cal, tg, t.Opened, tim.Response, asOf)
	}
	if tg, ok := tm.Support.Resolution[t.Priority]; ok {
		var pauses []pause
		if tm.Support.PauseAwaitingCustomer {
			pauses = pausesOf(t, asOf)
		}
		tim.Resolution = measure(cal, t.Opened, pick(tg), tg.Clock, visible(t.Resolved, asOf), pauses, asOf)
		tim.Resolution.HolidaysUnknown = unknownYears(cal, tg, t.Opened, tim.Resolution, asOf)
	}
	if t.Category == "hardware" && tm.Replacement.Within > 0 {
		// A machine given back is not replaced: the clock stops at the
		// release, so only a deadline passed while it was rented is late.
		at := asOf
		if !t.Released.IsZero() && t.Released.Before(at) {
			at = t.Released
		}
		tim.Replacement = measure(cal, t.Opened, tm.Replacement.Within, tm.Replacement.Clock, visible(t.Replaced, at), nil, at)
		tim.Replacement.HolidaysUnknown = unknownYears(cal, terms.Target{BusinessHours: tm.Replacement.Within, OffHours: tm.Replacement.Within,
			Clock: tm.Replacement.Clock}, t.Opened, tim.Replacement, at)
	}
	return tim
}

// unknownYears are the years c's verdict under tg depends on that cal
// does not cover: on the business clock, every year from the opening to the
// deadline (to asOf when there is none); on the wall clock, the opening's
// year if it chose between two targets and c is breached by the shorter
// one alone (late by both, the breach stands whichever the day was), else
// none.
func unknownYears(cal *calendar.Calendar, tg terms.Target, opened time.Time, c *Clock, asOf time.Time) []int {
	first, last := calendar.DateOf(opened, cal.Loc).Year, 0
	switch {
	case tg.Clock == terms.Business:
		end := c.Deadline
		if end.IsZero() {
			end = asOf
		}
		last = calendar.DateOf(end, cal.Loc).Year
	case tg.OffHours != tg.BusinessHours && c.Status == Breached && c.Elapsed <= max(tg.OffHours, tg.BusinessHours):
		last = first
	}
	var out []int
	for y := first; y <= last; y++ {
		if !cal.Covers(y) {
			out = append(out, y)
		}
	}
	return out
}

func visible(t, asOf time.Time) time.Time {
	if t.After(asOf) {
		return time.Time{}
	}
	return t
}

func sortedResponses(t *Ticket) []Response {
	rs := append([]Response(nil), t.Responses...)
	sort.Slice(rs, func(a, b int) bool { return rs[a].At.Before(rs[b].At) })
	return rs
}

type pause struct{ from, to time.Time }

// pausesOf: from each answer that awaits the customer to the customer's
// next reply (or the resolution, or asOf).
func pausesOf(t *Ticket, asOf time.Time) []pause {
	replies := append([]time.Time(nil), t.CustomerReplies...)
	sort.Slice(replies, func(a, b int) bool { return replies[a].Before(replies[b]) })
	var out []pause
	var until time.Time
	for _, r := range sortedResponses(t) {
		if !r.AwaitingCustomer || r.At.After(asOf) || r.At.Before(until) {
			continue
		}
		end := asOf
		for _, c := range replies {
			if c.After(r.At) {
				if c.Before(end) {
					end = c
				}
				break
			}
		}
		if res := visible(t.Resolved, asOf); !res.IsZero() && res.Before(end) {
			end = res
		}
		if end.After(r.At) {
			out = append(out, pause{r.At, end})
			until = end
		}
	}
	return out
}

func elapsed(cal *calendar.Calendar, clock terms.Clock, a, b time.Time) time.Duration {
	if clock == terms.Business {
		return cal.BusinessBetween(a, b)
	}
	if b.After(a) {
		return b.Sub(a)
	}
	return 0
}

// measure is one target: started at start, met at done (zero: not yet).
func measure(cal *calendar.Calendar, start time.Time, target time.Duration, clock terms.Clock, done time.Time, pauses []pause, asOf time.Time) *Clock {
	c := &Clock{Target: target, Clock: clock, Done: done}
	end := asOf
	if !done.IsZero() {
		end = done
	}
	for _, p := range pauses {
		to := p.to
		if to.After(end) {
			to = end
		}
		c.Paused += elapsed(cal, clock, p.from, to)
	}
	c.Elapsed = elapsed(cal, clock, start, end) - c.Paused
	// The deadline moves out by the paused time (measured on the same clock).
	if clock == terms.Business {
		if d, ok := cal.AddBusiness(start, target+c.Paused); ok {
			c.Deadline = d
		}
	} else {
		c.Deadline = start.Add(target + c.Paused)
	}
	switch {
	case !done.IsZero() && c.Elapsed <= target:
		c.Status = Met
	case !done.IsZero():
		c.Status, c.Late = Breached, c.Elapsed-target
	case c.Elapsed >= target:
		// No answer and the deadline has come: breached at that very instant.
		c.Status, c.Late = Breached, c.Elapsed-target
	default:
		c.Status = Pending
	}
	return c
}
