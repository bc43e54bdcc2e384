package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// A month's report built node by node. Every node's row depends only on its
// own events and on what the month shares: the contracts, the backend's
// outages, the maintenance notices, the tickets and the fleet's stress
// figures. So a node's builder, fed the node's events and the shared ones
// with the fleet already computed (Options.FleetResult), builds the node's
// part (BuildPart) holding one node's records, and a builder fed only the
// shared events and every registration puts the parts together (Assemble):
// the contract totals, the providers' status pages, the retroactive
// section, the nodes left out. Build is the same two steps over one
// builder, so both ways of building give the same report, byte for byte
// (TestPartsMakeTheReport).

// Part is one node's share of the month's report.
type Part struct {
	// Node is its row; nil when the node has no part in the month (ordered
	// after it, given back before it) or was left out.
	Node *Node
	// Retro are its retroactive records; Unrecorded the ids of the
	// records without a recording time its books read (a contract's
	// notice is one record however many nodes it covers).
	Retro      []Retro
	Unrecorded []string
	// DemoOver, with no Node, is serve's demo node left out of a month its
	// demo was over in (demo.go), and why.
	DemoOver *Skipped `json:",omitempty"`
}

// validate checks the log as a whole and returns the ids of the nodes to
// report, sorted.
func (b *Builder) validate() ([]string, error) {
	ids := make([]string, 0, len(b.nodes))
	for id, n := range b.nodes {
		if _, skip := b.skipped[id]; skip {
			continue
		}
		if !n.registered {
			return nil, fmt.Errorf("node %s has events but no node_registered event", id)
		}
		ids = append(ids, id)
	}
	for id, ta := range b.tickets {
		if !ta.opened && ta.afterAsOf {
			delete(b.tickets, id) // opened, as recorded, after as_of
			continue
		}
		if !ta.opened {
			return nil, fmt.Errorf("ticket %s has events but no ticket_opened event", ta.t.ID)
		}
		if _, skip := b.skipped[ta.t.Node]; skip {
			delete(b.tickets, id) // about a node left out
			continue
		}
		if n, ok := b.nodes[ta.t.Node]; !ok || !n.registered {
			return nil, fmt.Errorf("ticket %s is about node %s, which was never registered", ta.t.ID, ta.t.Node)
		}
		if _, ok := b.nodes[ta.t.Node].tm.Support.Response[ta.t.Priority]; !ok {
			return nil, fmt.Errorf("ticket %s has priority %q, which contract %s does not define (it has %s)",
				ta.t.ID, ta.t.Priority, b.nodes[ta.t.Node].tm.Contract, strings.Join(b.nodes[ta.t.Node].tm.Support.Priorities, ", "))
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// BuildPart checks the log as Build does and builds node id's part. The
// builder must have been given the fleet (Options.FleetResult), unless the
// log it was fed is the whole fleet's.
func (b *Builder) BuildPart(id string) (Part, error) {
	if _, err := b.validate(); err != nil {
		return Part{}, err
	}
	if n := b.nodes[id]; n == nil || !n.registered {
		if _, skip := b.skipped[id]; skip {
			return Part{}, nil
		}
		return Part{}, fmt.Errorf("node %s: no node_registered event", id)
	}
	b.fleetRes = b.computeFleet()
	return b.part(id), nil
}

// part builds node id's row with the month's tickets and backend outages.
func (b *Builder) part(id string) Part {
	n := b.nodes[id]
	// A node ordered after the month, or given back before it, has no
	// part in it (TestReleasedBeforeMonthNotListed).
	ms, me := calendar.MonthBounds(b.opts.Year, b.opts.Month, n.tm.Calendar.Loc)
	if !n.reg.OrderedAt.Before(me) || (!n.released.IsZero() && !n.released.After(ms)) {
		return Part{}
	}
	if d := b.demoOver(n); d != nil {
		return Part{DemoOver: d}
	}
	var tickets []*ticket.Ticket
	for _, ta := range b.tickets {
		if ta.t.Node == id {
			tickets = append(tickets, &ta.t)
		}
	}
	b.retro = retroAcc{}
	nr := b.buildNode(n, tickets, interval.Union(b.backend...))
	p := Part{Node: &nr, Retro: b.retro.recs, Unrecorded: slices.Sorted(maps.Keys(b.retro.unrecorded))}
	b.retro = retroAcc{}
	return p
}

// Fleet is the fleet's comparison of the month (the report's Fleet): from
// the stress figures fed to the builder, or to the collector it was given
// (Options.Fleet). A node's builder is given it (Options.FleetResult), so
// that each node is judged against the whole fleet without holding it.
func (b *Builder) Fleet() *baseline.Result {
	b.fleetRes = b.computeFleet()
	return b.fleetRes
}

// Input is what the builder has read so far.
func (b *Builder) Input() Input { return b.input }

// Assemble puts the month's node parts together into the report: the
// builder has been fed every node's registration and the month's shared
// events (the contracts' provider status pages are read here), and in is
// what was read in all (the shared events once, each node's own). The
// parts may come in any order (workers finish when they finish; a log
// registers its nodes in the order they came): the report lists them in
// node id order. Two parts of one node are refused.
func (b *Builder) Assemble(parts []Part, in Input) (*Report, error) {
	if _, err := b.validate(); err != nil {
		return nil, err
	}
	parts = slices.Clone(parts)
	slices.SortStableFunc(parts, func(x, y Part) int { return strings.Compare(partNode(x), partNode(y)) })
	for i := 1; i < len(parts); i++ {
		if id := partNode(parts[i]); id != "" && id == partNode(parts[i-1]) {
			return nil, fmt.Errorf("assemble: node %s has two parts", id)
		}
	}
	b.fleetRes = b.computeFleet()
	return b.assemble(parts, in), nil
}

// partNode is the node a part is the row of; "" for a part without a row.
func partNode(p Part) string {
	if p.Node == nil {
		return ""
	}
	return p.Node.Node
}

// assemble is Assemble of parts in node order.
func (b *Builder) assemble(parts []Part, in Input) *Report {
	r := &Report{Schema: Schema, Month: fmt.Sprintf("%04d-%02d", b.opts.Year, b.opts.Month),
		AsOf: b.opts.AsOf.UTC().Format(time.RFC3339), Input: in, Nodes: []Node{}, Contracts: []Contract{}, Fleet: b.fleetRes}
	// The month is each contract's calendar month in its own zone; UTC's
	// stands in only for a report given no contract. A Beijing month read
	// six hours after it ended is over (its letter written) while the UTC
	// month still runs, and the report must not call it provisional.
	r.Provisional = len(b.contracts) == 0 && b.provisional(time.UTC)
	for _, tm := range b.contracts {
		r.Provisional = r.Provisional || b.provisional(tm.Calendar.Loc)
	}
	sums := map[string]*Contract{}
	retro := retroAcc{unrecorded: map[string]bool{}}
	for _, p := range parts {
		if p.DemoOver != nil {
			r.DemoOver = append(r.DemoOver, *p.DemoOver)
		}
		retro.recs = append(retro.recs, p.Retro...)
		for _, id := range p.Unrecorded {
			retro.unrecorded[id] = true
		}
		if p.Node == nil {
			continue
		}
		nr := *p.Node
		r.Nodes = append(r.Nodes, nr)
		c := sums[nr.Contract]
		if c == nil {
			c = b.contractSummary(b.contracts[nr.Contract])
			sums[nr.Contract] = c
		}
		c.add(&nr)
	}
	for _, c := range sums {
		c.Letter = letterOf(b.contracts[c.Contract], c, r.Nodes)
		if c.Provisional {
			c.Letter = LetterNone // a month not over has no claim yet
		}
		if tm := b.contracts[c.Contract]; tm.ProviderStatusPage != nil {
			var mine []Node
			for _, n := range r.Nodes {
				if n.Contract == c.Contract {
					mine = append(mine, n)
				}
			}
			c.ProviderStatus = b.providerStatus(tm, mine)
		}
		r.Contracts = append(r.Contracts, *c)
	}
	sort.Slice(r.Contracts, func(i, j int) bool { return r.Contracts[i].Contract < r.Contracts[j].Contract })
	b.retro = retro
	r.Retroactive = b.retroSection()
	b.retro = retroAcc{}
	r.LeftOut = b.Skipped()
	return r
}

// contractSummary is a contract's summary before its nodes are added.
func (b *Builder) contractSummary(tm *terms.Terms) *Contract {
	ms, me := calendar.MonthBounds(b.opts.Year, b.opts.Month, tm.Calendar.Loc)
	c := &Contract{Contract: tm.Contract, Provider: tm.Provider, Currency: tm.Currency, TimeZone: tm.TimeZone,
		Provisional: b.provisional(tm.Calendar.Loc), MonthStart: ts(ms, tm), MonthEnd: ts(me, tm), MonthSeconds: secs(me.Sub(ms)), UptimeTarget: tm.Uptime.Target,
		ClaimDeadline: ts(tm.Claim.Deadline(me, tm.Calendar.Loc), tm),
		Renter:        tm.Paperwork.Renter, ContractNumber: tm.Paperwork.ContractNumber, Lang: tm.Paperwork.Lang, Clauses: map[string]string{},
		Sources: sources(tm), Unverified: nonNil(tm.Unverified()), Procedure: procedureOf(tm), Approximations: approximationsOf(tm)}
	if tm.Claim.Procedure.OpensAfterWorkingDays > 0 {
		opens := ts(tm.Claim.Procedure.OpensAt(me, tm.Calendar), tm)
		if y := tm.Claim.Procedure.OpensUnknown(me, tm.Calendar); y != 0 {
			c.ClaimOpensEarliest, c.ClaimOpensHolidaysMissing = opens, y
		} else {
			c.ClaimOpens = opens
		}
	}
	for _, k := range terms.ClauseKeys {
		c.Clauses[k] = tm.Clause(k).String()
	}
	return c
}

// add counts one node's row in its contract's totals.
func (c *Contract) add(nr *Node) {
	c.Nodes++
	if !nr.Uptime.Met && nr.Uptime.NotJudged == "" {
		c.NodesBelow++
	}
	c.Charge = account.Money(c.Charge + nr.Billing.Charge)
	c.Claim = account.Money(c.Claim + nr.Credit.Amount)
	// A window that runs from the incident makes a breaching node's claim
	// due before the month's: the contract's letter is due by the earliest.
	if nd, err := time.Parse(time.RFC3339, nr.ClaimDeadline); err == nil && nr.Breach {
		if cd, err := time.Parse(time.RFC3339, c.ClaimDeadline); err == nil && nd.Before(cd) {
			c.ClaimDeadline = nr.ClaimDeadline
		}
	}
	c.ObservedSeconds += nr.Uptime.ObservedOutageSeconds
	c.ClaimSeconds += nr.Uptime.ClaimableOutageSeconds
	for _, t := range nr.Tickets {
		if t.Breached {
			c.TicketsBreached++
		}
	}
}

// Router says which builder of a month built node by node takes each event
// (Route). Tickets are routed to their node: a ticket's later events name
// only the ticket, so the router remembers each ticket's node from its
// opening, which the log holds first.
type Router struct {
	tickets map[string]string
}

// Route is where e goes: node, the builder of that node ("" none); all,
// every node's builder (a contract's maintenance notice, the backend's own
// outage); shared, the builder that assembles the month. An event that
// goes to the assembling builder is counted there (Input) and read by a
// node's builder before the node's own events; the others are counted by
// their node's builder.
func (r *Router) Route(e *events.Event) (node string, all, shared bool) {
	switch e.Type {
	case events.TypeNodeRegistered:
		return e.Node, false, true // the assembler names the nodes left out, and files the fleet's figures by model
	case events.TypeMaintenance:
		if e.Node != "" {
			return e.Node, false, false
		}
		return "", true, true
	case events.TypeBackendOutage:
		return "", true, true
	case events.TypeProviderIncident, events.TypeStatusPagePolled:
		return "", false, true
	case events.TypeTicketOpened:
		if r.tickets == nil {
			r.tickets = map[string]string{}
		}
		if _, seen := r.tickets[e.Ticket]; !seen {
			r.tickets[e.Ticket] = e.Node
		}
		return r.tickets[e.Ticket], false, true
	case events.TypeProviderResponded, events.TypeCustomerReplied, events.TypeTicketResolved, events.TypeHardwareReplaced:
		return r.tickets[e.Ticket], false, true // the assembler checks every ticket as Build does
	}
	return e.Node, false, false
}

// AddFleet files the stress figures of an observation as Add would, and
// nothing else: the assembling builder of a month built node by node is
// given every node's figures this way, and computes the fleet (Fleet) that
// every node's builder is then judged against.
func (b *Builder) AddFleet(e *events.Event) {
	if e.Type != events.TypeObservation || len(e.Checks) == 0 || e.ReceivedAt.After(b.opts.AsOf) {
		return
	}
	if at := e.TrueAt().UnixNano(); at >= b.winStart {
		b.collectFleet(e.Node, at, e.Checks)
	}
}
