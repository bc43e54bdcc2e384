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

// Verdicts judges a node's incidents over [from, to) as the monthly report
// does (account.JudgeAll under the node's contract): the books' period is
// the part of the window after the node's first heartbeat (zero: none yet,
// nothing is in service) and before its release, an open incident lasts
// until to, and the maintenance notices announced in time are taken out.
func (s *Service) Verdicts(n store.Node, firstHeartbeat time.Time, incs []store.Incident, maint []store.Maintenance, from, to time.Time) (account.Books, []account.Verdict) {
	return JudgeIncidents(s.termsOf(n), n, firstHeartbeat, incs, maint, from, to)
}

// JudgeIncidents is Verdicts under the given terms (the status page, which
// has the terms but not the service, calls it too). maint may hold notices
// of other nodes and contracts: only those covering n are applied.
func JudgeIncidents(tm *terms.Terms, n store.Node, firstHeartbeat time.Time, incs []store.Incident, maint []store.Maintenance, from, to time.Time) (account.Books, []account.Verdict) {
	period := interval.Interval{Start: from, End: to}
	if firstHeartbeat.IsZero() {
		period.End = from
	} else if firstHeartbeat.After(from) {
		period.Start = firstHeartbeat
	}
	if !n.ReleasedAt.IsZero() && n.ReleasedAt.Before(period.End) {
		period.End = n.ReleasedAt
	}
	if period.End.Before(period.Start) {
		period.End = period.Start
	}
	outs := make([]account.Outage, len(incs))
	for i, inc := range incs {
		outs[i] = inc.Outage(to)
	}
	var ms []account.Maintenance
	for _, m := range maint {
		if m.Applies(n) {
			ms = append(ms, m.Account())
		}
	}
	return account.JudgeAll(tm, period, outs, ms)
}

// JudgedIncident is a stored incident with its verdict over the window it
// was asked for: the same fields, meaning the same, as a report's outage
// row (docs/report.md, "Counted").
type JudgedIncident struct {
	store.Incident
	Seconds         int64  `json:"seconds"`
	ObservedSeconds int64  `json:"observed_seconds"`
	CountedSeconds  int64  `json:"counted_seconds"`
	Counted         bool   `json:"counted"`
	Reason          string `json:"reason,omitempty"`
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
		_, vs := s.Verdicts(n, first, byNode[id], maint, from, to)
		for i, inc := range byNode[id] {
			v := vs[i]
			out = append(out, JudgedIncident{Incident: inc, Seconds: v.Seconds, ObservedSeconds: v.ObservedSeconds,
				CountedSeconds: v.CountedSeconds, Counted: v.Counted, Reason: v.Reason.String()})
		}
	}
	return out, nil
}
