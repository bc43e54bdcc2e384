package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/terms"
)

// fallbackTerms judge a node whose contract no loaded terms define
// (registered before its terms were removed; AddNode refuses unknown
// contracts): the terms format's default of what is unavailable.
var fallbackTerms = &terms.Terms{Uptime: terms.Uptime{
	Unavailable: map[incident.Kind]bool{incident.Unreachable: true, incident.GPULost: true}}}

// termsOf is the node's contract, or fallbackTerms.
func (s *Service) termsOf(n store.Node) *terms.Terms {
	if tm, ok := s.contract(n); ok {
		return tm
	}
	return fallbackTerms
}

// counts is the contract's verdict on an incident's kind and cause
// (account.Counts, as the monthly report judges it).
func (s *Service) counts(n store.Node, kind incident.Kind, cause string) (bool, string) {
	ok, why := account.Counts(s.termsOf(n), kind, cause)
	return ok, why.String()
}

// Judging is what a node's incidents are judged with besides its terms.
type Judging struct {
	Node store.Node
	// FirstHeartbeat starts the node's service (zero: none yet, nothing is
	// in service); its release ends it.
	FirstHeartbeat time.Time
	// Maintenance may hold notices of other nodes and contracts: only
	// those covering Node apply.
	Maintenance []store.Maintenance
	// Backend is the backend's own downtime (BackendOutages): the part of
	// an unreachable incident inside it is not the provider's.
	Backend interval.Set
	// Notices are when tickets on the node were opened: under a contract
	// whose clock starts at the renter's notice, an outage counts from the
	// first inside it (account.NoticeClock).
	Notices []time.Time
	// The window: an open incident lasts until To.
	From, To time.Time
}

// JudgedPart is one part of an incident (store.Incident.Outages) with its
// verdict; Index is the incident's in the list judged.
type JudgedPart struct {
	Index int
	store.Part
	account.Verdict
}

// Verdicts judges a node's incidents as the monthly report does, under the
// node's contract (JudgeIncidents).
func (s *Service) Verdicts(j Judging, incs []store.Incident) (account.Books, []JudgedPart) {
	return JudgeIncidents(s.termsOf(j.Node), j, incs)
}

// JudgeIncidents judges a node's incidents over [j.From, j.To) as the
// monthly report does (account.JudgeAll): the books' period is the part of
// the window from the first heartbeat to the release, maintenance
// announced in time is taken out, and an unreachable incident is cut by
// cause from its evidence and the backend's downtime (incident.SplitGap,
// the report's rule), each part judged as its own row. The status page,
// which has the terms but not the service, calls it too.
func JudgeIncidents(tm *terms.Terms, j Judging, incs []store.Incident) (account.Books, []JudgedPart) {
	period := interval.Interval{Start: j.From, End: j.To}
	if j.FirstHeartbeat.IsZero() {
		period.End = j.From
	} else if j.FirstHeartbeat.After(j.From) {
		period.Start = j.FirstHeartbeat
	}
	if rel := j.Node.ReleasedAt; !rel.IsZero() && rel.Before(period.End) {
		period.End = rel
	}
	if period.End.Before(period.Start) {
		period.End = period.Start
	}
	var parts []JudgedPart
	var outs []account.Outage
	for i, inc := range incs {
		for _, p := range inc.Outages(j.To, j.Backend) {
			parts = append(parts, JudgedPart{Index: i, Part: p})
			outs = append(outs, p.Outage)
		}
	}
	var ms []account.Maintenance
	for _, m := range j.Maintenance {
		if m.Applies(j.Node) {
			ms = append(ms, m.Account())
		}
	}
	books, vs := account.JudgeAll(tm, interval.Interval{Start: j.From, End: j.To}, period, outs, ms, j.Notices)
	for k := range parts {
		parts[k].Verdict = vs[k]
	}
	return books, parts
}

// JudgedIncident is a stored incident with its verdict over the window it
// was asked for: the same fields, meaning the same, as a report's outage
// row (docs/reports.md, "Counted").
type JudgedIncident struct {
	store.Incident
	Seconds         int64  `json:"seconds"`
	ObservedSeconds int64  `json:"observed_seconds"`
	CountedSeconds  int64  `json:"counted_seconds"`
	Counted         bool   `json:"counted"`
	Reason          string `json:"reason,omitempty"`
	// Part and Parts: an unreachable incident whose parts had different
	// causes is listed once per part (Part 1 to Parts; Start, End and
	// Cause are the part's), as the report lists it; 0 for a whole one.
	Part  int `json:"part,omitempty"`
	Parts int `json:"parts,omitempty"`
}

// JudgedIncidents lists the incidents of one node (all nodes if node is
// empty) overlapping [from, to), each judged over that window (Verdicts).
func (s *Service) JudgedIncidents(ctx context.Context, node string, from, to time.Time) ([]JudgedIncident, error) {
	incs, err := s.store.ListIncidents(ctx, node, from, to)
	if err != nil {
		return nil, err
	}
	byNode := map[string][]store.Incident{}
	var order []string
	for _, inc := range incs {
		if _, ok := byNode[inc.Node]; !ok {
			order = append(order, inc.Node)
		}
		byNode[inc.Node] = append(byNode[inc.Node], inc)
	}
	out := []JudgedIncident{}
	maint, err := s.store.ListMaintenance(ctx, from, to)
	if err != nil {
		return nil, fmt.Errorf("incidents: %w", err)
	}
	backend, err := s.backendDown(ctx, from, to)
	if err != nil {
		return nil, fmt.Errorf("incidents: %w", err)
	}
	notices := map[string][]time.Time{}
	if ts, ok := s.store.(store.TicketStore); ok {
		tickets, err := ts.ListTickets(ctx, false)
		if err != nil {
			return nil, fmt.Errorf("incidents: %w", err)
		}
		for _, t := range tickets {
			notices[t.Node] = append(notices[t.Node], t.Opened)
		}
	}
	for _, id := range order {
		n, err := s.store.GetNode(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("incidents of %s: %w", id, err)
		}
		var first time.Time
		if st, err := s.store.GetState(ctx, id); err == nil {
			first = st.FirstHeartbeatAt
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("incidents of %s: %w", id, err)
		}
		incs := byNode[id]
		_, parts := s.Verdicts(Judging{Node: n, FirstHeartbeat: first, Maintenance: maint, Backend: backend,
			Notices: notices[id], From: from, To: to}, incs)
		count := map[int]int{}
		for _, p := range parts {
			count[p.Index]++
		}
		seen := map[int]int{}
		for _, p := range parts {
			inc := incs[p.Index]
			ji := JudgedIncident{Incident: inc, Seconds: p.Seconds, ObservedSeconds: p.ObservedSeconds,
				CountedSeconds: p.CountedSeconds, Counted: p.Verdict.Counted, Reason: p.Reason.String()}
			// The part's own instants and cause (the whole incident's when
			// it has one part; the backend's downtime may still name it).
			ji.Start, ji.Cause, ji.End = p.Span.Start, p.Cause, p.Span.End
			if p.Open {
				ji.End = time.Time{}
			}
			if count[p.Index] > 1 {
				seen[p.Index]++
				ji.Part, ji.Parts = seen[p.Index], count[p.Index]
			}
			out = append(out, ji)
		}
	}
	return out, nil
}

// backendDown is the backend's own downtime around [from, to), from its
// liveness records (the export's backend_outage events).
func (s *Service) backendDown(ctx context.Context, from, to time.Time) (interval.Set, error) {
	runs, err := s.store.ListBackendRuns(ctx, from.Add(-24*time.Hour), to)
	if err != nil {
		return nil, err
	}
	var ivs []interval.Interval
	for _, o := range BackendOutages(runs, from.Add(-24*time.Hour), to) {
		ivs = append(ivs, interval.Interval{Start: o.Start, End: o.End})
	}
	return interval.Union(ivs...), nil
}
