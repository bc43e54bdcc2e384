package report

import (
	"sort"
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/delivery"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
	"github.com/gpusla/gpusla/sla/usage"
)

// nodeMonth is what every part of one node's report is judged against: the
// contract, the month's bounds in the contract's zone, and the part of the
// month the node was in service.
type nodeMonth struct {
	n         *nodeAcc
	tm        *terms.Terms
	ms, me    time.Time // the month, in the contract's zone
	asOf      time.Time
	end       time.Time // month end, as_of or release, whichever comes first
	delivered time.Time // by the contract's rule (delivery.Instant); zero if not yet
	period    interval.Interval
}

func (b *Builder) month(n *nodeAcc) nodeMonth {
	m := nodeMonth{n: n, tm: n.tm, asOf: b.opts.AsOf}
	m.ms, m.me = calendar.MonthBounds(b.opts.Year, b.opts.Month, n.tm.Calendar.Loc)
	m.end = minTime(m.me, m.asOf, n.released)
	var first time.Time
	if n.firstAt != 1<<63-1 {
		first = time.Unix(0, n.firstAt)
	}
	accepted := n.accepted.At()
	// The delivery starts the node's service: under counts_until:
	// acceptance_passed a machine is in service (and billed from delivery)
	// from its first passing acceptance check, not from a first heartbeat
	// with the wrong card.
	m.delivered = delivery.Instant(n.tm.Delivery, first, accepted)
	// Nothing is delivered before it was ordered: a probe heard before the
	// order (a node registered after its first heartbeats) starts the
	// service at the order, and its silences before it are no one's
	// outage — the provider owes nothing for a node not yet ordered.
	if o := n.reg.OrderedAt; !m.delivered.IsZero() && m.delivered.Before(o) {
		m.delivered = o
	}
	start := m.ms
	if m.delivered.IsZero() || m.delivered.After(start) {
		start = m.delivered
	}
	if !m.delivered.IsZero() && m.end.After(start) {
		m.period = interval.Interval{Start: start, End: m.end}
	}
	return m
}

// serviceMonthEnd is the end of the node's service month, which a claim
// window counts from: the calendar month's, or under uptime.partial_month:
// whole_days, for a node released inside the month, the midnight that
// begins the day of its release in the contract's zone. Such a text's
// service months are the term's ("第4个服务月度是指6月1日到6月16日") and its
// window runs from the end of the one that missed ("未达标的相应服务月度结束后
// 六十（60）个自然日"); of the two ends a release day allows (the day counted
// whole in the month's minutes, or left out as the example leaves out 17
// June), the earlier is taken, so the deadline is never later than the
// provider's.
func (m nodeMonth) serviceMonthEnd() time.Time {
	r := m.n.released
	if m.tm.Uptime.PartialMonth != terms.WholeDays || r.IsZero() || !r.After(m.ms) || !r.Before(m.me) {
		return m.me
	}
	d := r.In(m.tm.Calendar.Loc)
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, d.Location())
}

// buildNode assembles one node's month. The parts are computed in the order
// they depend on each other: outages give the uptime books, tickets and
// delivery give penalties, and billing with both gives the credit.
func (b *Builder) buildNode(n *nodeAcc, tickets []*ticket.Ticket, backend interval.Set) Node {
	m := b.month(n)
	tm := n.tm
	nr := Node{Node: n.id, Contract: tm.Contract, Provider: tm.Provider, Currency: tm.Currency, TimeZone: tm.TimeZone,
		Hardware: Hardware{GPUModel: n.reg.Hardware.GPUModel, GPUCount: n.reg.Hardware.GPUCount}, InstanceID: n.reg.InstanceID, Region: n.reg.Region,
		Outages: []Outage{}, Maintenance: []Maint{}, Tickets: []Ticket{}, Evidence: []Evidence{},
		ClaimDeadline: ts(tm.Claim.Deadline(m.serviceMonthEnd(), tm.Calendar.Loc), tm)}
	if !m.period.Empty() {
		nr.Period = Period{InService: true, Start: ts(m.period.Start, tm), End: ts(m.period.End, tm), Seconds: secs(m.period.Duration())}
	}
	nr.Period.Released = !n.released.IsZero() && m.end.Equal(n.released)

	notices := make([]time.Time, 0, len(tickets))
	for _, t := range tickets {
		notices = append(notices, t.Opened)
	}
	books, outs, raw := b.outages(m, backend, notices, &nr)
	if len(books.Claimable) > 0 {
		nr.ClaimDeadline = ts(tm.Claim.DeadlineFrom(m.serviceMonthEnd(), tm.Calendar.Loc, claimFrom(tm, books, raw, m.me)), tm)
	}
	nr.IncidentClaims = incidentClaims(tm, books, raw, m.asOf)
	b.releaseRecord(m, &nr)
	penalties := m.tickets(tickets, &nr)
	b.ticketRecords(m, &nr)
	penalties = append(penalties, m.delivery(&nr)...)
	m.billing(books, outs, penalties, &nr)
	nr.Breach = breach(&nr)
	nr.Approximate = approximate(tm, books, raw, nr.Uptime, m.me)
	nr.Evidence = append(nr.Evidence, m.evidence()...)
	nr.Evidence = append(nr.Evidence, n.usageBad...)
	if len(n.usage) > 0 {
		var last time.Time
		if s := n.probe.Spans; len(s) > 0 {
			last = minTime(time.Unix(0, s[len(s)-1].Last), m.end)
		}
		nr.Usage = usage.Summarize(n.usage, m.period.Start, m.period.End, last)
	}
	return nr
}

// evidence lists the month's data-quality notices: batches the probe's spool
// dropped and breaks in the batch hash chain.
func (m nodeMonth) evidence() []Evidence {
	n, tm := m.n, m.tm
	sort.Slice(n.drops, func(i, j int) bool {
		if !n.drops[i].At.Equal(n.drops[j].At) {
			return n.drops[i].At.Before(n.drops[j].At)
		}
		return n.drops[i].ID < n.drops[j].ID
	})
	var out []Evidence
	for _, e := range n.drops {
		if e.At.Before(m.ms) || !e.At.Before(m.me) {
			continue
		}
		ev := Evidence{Kind: e.Type, At: ts(e.At, tm)}
		if e.Type == events.TypeBatchDropped {
			ev.Text = msg.New("probe spool dropped %d batches (seq %d to %d): %s", e.Batches, e.FromSeq, e.ToSeq, msg.FromProbe(e.Reason, nil))
		} else if e.Type == events.TypeChainRestart {
			ev.Text = msg.New("chain restarted at seq %d after seq %d (the probe lost its state; not an outage)", e.Seq, e.FromSeq)
		} else {
			ev.Text = msg.New("hash chain broken at batch seq %d: expected prev %s, got %s", e.Seq, short(e.ExpectedPrev), short(e.GotPrev))
		}
		ev.Detail = ev.Text.String()
		out = append(out, ev)
	}
	return out
}

func minTime(ts ...time.Time) time.Time {
	m := ts[0]
	for _, t := range ts[1:] {
		if !t.IsZero() && (m.IsZero() || t.Before(m)) {
			m = t
		}
	}
	return m
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// window is the calendar month to the as-of instant, whatever the node's
// service: the uptime's denominator under uptime.denominator:
// calendar_month ("total minutes in the month").
func (m nodeMonth) window() interval.Interval {
	return interval.Interval{Start: m.ms, End: minTime(m.me, m.asOf)}
}

// runsAfter is how far past the month's end the report reads the node's
// outages: a contract's downtime period is judged on each whole run
// (account.CountRuns), so an outage still going at midnight is followed
// until it ends, for a day at most (the export window holds at least that
// much after the month in every zone), never past as_of or the release.
const runsAfter = 24 * time.Hour

// horizon is where the node's outages are followed to: the end of its
// period, or, when the period ran to the month's end, up to runsAfter
// beyond it.
func (m nodeMonth) horizon() time.Time {
	if !m.end.Equal(m.me) {
		return m.end
	}
	return minTime(m.me.Add(runsAfter), m.asOf, m.n.released)
}

// incidentStart is when the month's first counted outage began as an
// incident: the start of the outage that holds its first counted second,
// which is earlier where the contract counts only from the renter's notice.
// A window "within 30 days of the incident" is then never read from a later
// instant than the provider's.
func incidentStart(books account.Books, outs []account.Outage) time.Time {
	return incidentAt(books.Claimable[0].Start, outs)
}

// incidentAt is when the incident holding the counted instant at began:
// the earliest of the outages (as they happened) under way at it.
func incidentAt(at time.Time, outs []account.Outage) time.Time {
	start := at
	for _, o := range outs {
		if !o.Span.Start.After(at) && o.Span.End.After(at) && o.Span.Start.Before(start) {
			start = o.Span.Start
		}
	}
	return start
}
