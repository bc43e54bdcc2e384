package report

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
)

// ProviderStatus compares the provider's own status page with what the
// probes measured, for a contract whose terms name a page. It is a
// listing only: acknowledgement never changes what is counted, claimed or
// credited — those come from the measurements alone.
//
// The rule: a provider incident spans from its start to its resolution
// (unresolved on a page that has states: to the report's end; on RSS and
// Atom, which have none, to its last update), widened by the terms'
// provider_status_page.slack on both sides. It and an outage row overlap when the
// widened incident begins before the row ends and ends at or after the row
// begins. A counted outage (counted_seconds > 0) is acknowledged when some
// provider incident overlaps it, unacknowledged otherwise. A provider
// incident no outage row of the contract's nodes overlaps (counted or not,
// of any kind) is unseen — listed only when a node of the contract was in
// service during it, since otherwise the probes could not have seen it.
type ProviderStatus struct {
	URL          string   `json:"url"`
	Format       string   `json:"format"`
	SlackSeconds int64    `json:"slack_seconds"`
	Keywords     []string `json:"keywords"`
	// Polled is when the backend read the page (null: the log says it
	// never did, so "never acknowledged" may mean "never read").
	Polled *StatusPolled `json:"polled"`
	// Incidents are the page's incidents touching the month that concern
	// the contract (its keywords), by start; Ignored counts those that
	// matched no keyword.
	Incidents      []ProviderIncident `json:"incidents"`
	Ignored        int                `json:"ignored"`
	Acknowledged   []OutageAck        `json:"acknowledged"`
	Unacknowledged []OutageAck        `json:"unacknowledged"`
	Unseen         []string           `json:"unseen"` // provider incident ids
}

// StatusPolled is the span over which the page was read.
type StatusPolled struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Fetches   int64  `json:"fetches"`
	Failures  int64  `json:"failures"`
	LastError string `json:"last_error,omitempty"`
}

// ProviderIncident is one incident of the provider's page.
type ProviderIncident struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Status     string   `json:"status,omitempty"`
	Impact     string   `json:"impact,omitempty"`
	Start      string   `json:"start"`
	End        string   `json:"end,omitempty"` // resolved at; "" when the page does not say
	Resolved   bool     `json:"resolved"`
	Updated    string   `json:"updated,omitempty"`
	Link       string   `json:"link,omitempty"`
	Components []string `json:"components"`
	FirstSeen  string   `json:"first_seen"` // when the backend first fetched it
	// Watched: a node of the contract was in service during it; Outages
	// counts the outage rows it overlaps (any kind, counted or not).
	Watched bool `json:"watched"`
	Outages int  `json:"outages"`
	// ResolvedAfterAsOf: the page resolved it only after the as-of
	// instant, so at it the incident was open (end "", resolved false).
	ResolvedAfterAsOf bool `json:"resolved_after_as_of,omitempty"`
}

// OutageAck is a counted outage and the provider incidents that
// acknowledged it (none in the unacknowledged list).
type OutageAck struct {
	Node           string   `json:"node"`
	Kind           string   `json:"kind"`
	Check          string   `json:"check,omitempty"`
	Start          string   `json:"start"`
	End            string   `json:"end"`
	CountedSeconds int64    `json:"counted_seconds"`
	Incidents      []string `json:"incidents"`
}

// providerAcc holds what the log said of a contract's page.
type providerAcc struct {
	incidents []events.Event
	polled    *events.Event // the latest span read
}

// maxProviderIncidents bounds what one contract's page can add to a
// report (a page lists tens).
const maxProviderIncidents = 10000

func (b *Builder) providerEvent(e *events.Event) {
	if b.provider == nil {
		b.provider = map[string]*providerAcc{}
	}
	a := b.provider[e.Contract]
	if a == nil {
		a = &providerAcc{}
		b.provider[e.Contract] = a
	}
	switch e.Type {
	case events.TypeProviderIncident:
		if e.ReceivedAt.After(b.opts.AsOf) {
			b.input.AfterAsOf++ // the backend had not read it yet
			return
		}
		if len(a.incidents) < maxProviderIncidents {
			a.incidents = append(a.incidents, *e)
		}
	case events.TypeStatusPagePolled:
		if e.Start.After(b.opts.AsOf) {
			b.input.AfterAsOf++
			return
		}
		if a.polled == nil || e.End.After(a.polled.End) {
			c := *e
			a.polled = &c
		}
	}
}

type tspan struct{ start, end time.Time }

func (s tspan) overlaps(o tspan) bool { return s.start.Before(o.end) && !s.end.Before(o.start) }

func parseTS(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s) // the report's own instants
	return t
}

// providerStatus compares the page with the contract's node rows.
func (b *Builder) providerStatus(tm *terms.Terms, nodes []Node) *ProviderStatus {
	sp := tm.ProviderStatusPage
	ps := &ProviderStatus{URL: sp.URL, Format: string(sp.Format), SlackSeconds: secs(sp.Slack), Keywords: slices.Clone(sp.Keywords),
		Incidents: []ProviderIncident{}, Acknowledged: []OutageAck{}, Unacknowledged: []OutageAck{}, Unseen: []string{}}
	if ps.Keywords == nil {
		ps.Keywords = []string{}
	}
	acc := b.provider[tm.Contract]
	if acc == nil {
		acc = &providerAcc{}
	}
	if p := acc.polled; p != nil {
		to := p.End
		if to.After(b.opts.AsOf) {
			to = b.opts.AsOf
		}
		ps.Polled = &StatusPolled{From: ts(p.Start, tm), To: ts(to, tm), Fetches: p.Count, Failures: p.Failures, LastError: p.Reason}
	}
	pincs := b.pageIncidents(tm, acc, ps)
	rows, watched := acknowledge(nodes, pincs, ps)
	for i, p := range pincs {
		ps.Incidents = append(ps.Incidents, p.row(tm, rows[i], watched[i]))
		if rows[i] == 0 && watched[i] {
			ps.Unseen = append(ps.Unseen, p.e.ProviderRef)
		}
	}
	sortByStart(ps.Acknowledged)
	sortByStart(ps.Unacknowledged)
	return ps
}

// pageIncident is a provider incident of the month as the page showed it
// at the as-of instant (late: resolved only after it), with its span
// widened by the slack.
type pageIncident struct {
	e    *events.Event
	wide tspan
	late bool
}

// pageIncidents are the provider incidents whose span overlaps the month
// (up to the as-of instant) and that concern the contract (the others are
// counted in ps.Ignored), by start and id.
func (b *Builder) pageIncidents(tm *terms.Terms, acc *providerAcc, ps *ProviderStatus) []pageIncident {
	sp := tm.ProviderStatusPage
	ms, me := calendar.MonthBounds(b.opts.Year, b.opts.Month, tm.Calendar.Loc)
	end := me
	if b.opts.AsOf.Before(end) {
		end = b.opts.AsOf
	}
	month := tspan{ms, end}
	var pincs []pageIncident
	for i := range acc.incidents {
		e, until, late := b.asOfView(&acc.incidents[i])
		if !(tspan{e.Start, until}).overlaps(month) {
			continue
		}
		if !sp.Concerns(e.Summary, e.Components) {
			ps.Ignored++
			continue
		}
		pincs = append(pincs, pageIncident{e, tspan{e.Start.Add(-sp.Slack), until.Add(sp.Slack)}, late})
	}
	sort.Slice(pincs, func(i, j int) bool {
		if !pincs[i].e.Start.Equal(pincs[j].e.Start) {
			return pincs[i].e.Start.Before(pincs[j].e.Start)
		}
		return pincs[i].e.ProviderRef < pincs[j].e.ProviderRef
	})
	return pincs
}

// asOfView is the incident e as the page showed it at the as-of instant,
// and until when it lasted: its resolution; open on a page with states, the
// as-of instant; open on RSS or Atom, its last update. Late says it was
// resolved only after the as-of instant, so at it the page still showed
// the incident open.
func (b *Builder) asOfView(e *events.Event) (view *events.Event, until time.Time, late bool) {
	late = e.Resolved && e.End.After(b.opts.AsOf)
	if late {
		c := *e
		c.Resolved, c.End = false, time.Time{}
		e = &c
	}
	until = e.End
	switch {
	case late || !e.Resolved && e.Status != "":
		until = b.opts.AsOf // open on a page with states: ongoing
	case !e.Resolved:
		until = e.At // RSS, Atom: its last update is all that is known
	}
	if until.After(b.opts.AsOf) {
		until = b.opts.AsOf
	}
	if until.Before(e.Start) {
		until = e.Start
	}
	return e, until, late
}

// acknowledge files each counted outage of the nodes as acknowledged (by
// the incidents that overlap it) or not, and says of each incident how many
// outage rows it overlaps and whether a node was in service during it.
func acknowledge(nodes []Node, pincs []pageIncident, ps *ProviderStatus) (rows []int, watched []bool) {
	rows = make([]int, len(pincs))
	watched = make([]bool, len(pincs))
	for _, n := range nodes {
		if n.Period.InService {
			per := tspan{parseTS(n.Period.Start), parseTS(n.Period.End)}
			for i, p := range pincs {
				watched[i] = watched[i] || p.wide.overlaps(per)
			}
		}
		for _, o := range n.Outages {
			os := tspan{parseTS(o.Start), parseTS(o.End)}
			var by []string
			for i, p := range pincs {
				if p.wide.overlaps(os) {
					rows[i]++
					by = append(by, p.e.ProviderRef)
				}
			}
			if o.CountedSeconds == 0 {
				continue
			}
			a := OutageAck{Node: n.Node, Kind: o.Kind, Check: o.Check, Start: o.Start, End: o.End, CountedSeconds: o.CountedSeconds, Incidents: by}
			if len(by) > 0 {
				ps.Acknowledged = append(ps.Acknowledged, a)
			} else {
				a.Incidents = []string{}
				ps.Unacknowledged = append(ps.Unacknowledged, a)
			}
		}
	}
	return rows, watched
}

// row is the incident's report row: outages, the outage rows it overlaps;
// watched, whether a node was in service during it.
func (p pageIncident) row(tm *terms.Terms, outages int, watched bool) ProviderIncident {
	e := p.e
	pi := ProviderIncident{ID: e.ProviderRef, Title: e.Summary, Status: e.Status, Impact: e.Impact, Start: ts(e.Start, tm),
		Resolved: e.Resolved, Updated: ts(e.At, tm), Link: e.Link, Components: slices.Clone(e.Components), FirstSeen: ts(e.ReceivedAt, tm),
		Watched: watched, Outages: outages, ResolvedAfterAsOf: p.late}
	if pi.Components == nil {
		pi.Components = []string{}
	}
	if e.Resolved {
		pi.End = ts(e.End, tm)
	}
	return pi
}

// sortByStart orders outage rows by start, then node.
func sortByStart(l []OutageAck) {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := parseTS(l[i].Start), parseTS(l[j].Start)
		if !a.Equal(b) {
			return a.Before(b)
		}
		return strings.Compare(l[i].Node, l[j].Node) < 0
	})
}
