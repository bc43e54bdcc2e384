package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

// DraftIncidents puts each incident of report r that is over and counted
// in the ledger as its own claim, due at its own deadline (where the
// contract's window runs from the incident: report.Node.IncidentClaims),
// recorded by by. r may be the month so far: an incident is claimed as
// soon as it is over, not when the month is. One drafted before is left as
// it is ("exists"); one still under way is left for a later run.
func (l *Ledger) DraftIncidents(ctx context.Context, r *report.Report, by string) ([]Drafted, error) {
	asOf, err := reportAsOf(r)
	if err != nil {
		return nil, err
	}
	contracts := map[string]report.Contract{}
	for _, c := range r.Contracts {
		contracts[c.Contract] = c
	}
	now := l.svc.Now()
	var out []Drafted
	for _, n := range r.Nodes {
		c, ok := contracts[n.Contract]
		if !ok {
			continue
		}
		for _, ic := range n.IncidentClaims {
			if ic.Ongoing {
				continue
			}
			d, err := incidentDraftOf(r.Month, c, n.Node, ic, asOf, now, by)
			if err != nil {
				return out, err
			}
			cl, err := claims.NewIncident(d)
			if err != nil {
				return out, fmt.Errorf("node %s incident %s: %w", n.Node, ic.Start, domainErr(err))
			}
			dr, err := l.create(ctx, cl, now, by)
			if err != nil {
				return out, err
			}
			out = append(out, dr)
		}
	}
	return out, nil
}

// incidentDraftOf is node's incident ic of contract c's month as the
// report states it.
func incidentDraftOf(month string, c report.Contract, node string, ic report.IncidentClaim, asOf, now time.Time, by string) (claims.IncidentDraft, error) {
	var times [3]time.Time
	for i, f := range [][2]string{{"start", ic.Start}, {"end", ic.End}, {"deadline", ic.Deadline}} {
		t, err := time.Parse(time.RFC3339, f[1])
		if err != nil {
			return claims.IncidentDraft{}, Errorf(EInvalid, "incident_claims."+f[0], "node %s: %q is not an RFC 3339 time", node, f[1])
		}
		times[i] = t
	}
	return claims.IncidentDraft{Contract: c.Contract, Provider: c.Provider, Month: month, Currency: c.Currency,
		Incident: claims.Incident{Node: node, Start: times[0], End: times[1], Counted: ic.CountedSeconds},
		Deadline: times[2], TimeZone: c.TimeZone, Lang: c.Lang, AsOf: asOf, Record: claims.Record{RecordedAt: now, RecordedBy: by}}, nil
}

// RemindIncidents reminds of each unsent incident claim before its own
// deadline, as a month's claim is reminded (ReminderDays: 7 and 2 days
// before, and 00:00 of the last day to file in the contract's zone): the
// nearest reminder due, once. The run whose conditional write records it
// on the claim (Hold) posts it; a channel that failed has it taken back for
// the next run. A sent claim is reminded of nothing; the expired alert at
// the deadline is Watch's. skip names contracts nobody chases (the ended
// demo's).
func (l *Ledger) RemindIncidents(ctx context.Context, announce Announce, skip func(contract string) bool, now time.Time) ([]string, error) {
	var (
		sent []string
		errs []error
	)
	cs, err := l.listed(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		if c.Incident == nil || c.Sent != nil || !now.Before(c.Deadline) || (skip != nil && skip(c.Contract)) || coveredByMonth(cs, c.Claim) {
			continue
		}
		loc := c.Loc()
		days := -1
		for _, d := range ReminderDays {
			if !now.Before(reminderDue(c.Deadline, d, loc)) && (days < 0 || d < days) {
				days = d
			}
		}
		if days < 0 {
			continue
		}
		key := "reminder-" + reminderName(days)
		held, err := l.Hold(ctx, c.ID, key, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("claim %s %s: %w", c.ID, key, err))
			continue
		}
		if !held {
			continue
		}
		lang, perr := i18n.Parse(c.Lang)
		if perr != nil {
			lang = i18n.EN
		}
		lastDay := c.Deadline.Add(-time.Nanosecond).In(loc).Format("2006-01-02")
		chans, err := announce(ctx, ClaimMarker(c.ID, key), chantext.IncidentReminder(lang, c.Claim, lastDay, c.Deadline.Sub(now)), now)
		if len(chans) > 0 {
			sent = append(sent, c.ID+" "+key)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("claim %s %s: %w", c.ID, key, errors.Join(err, l.Unhold(ctx, c.ID, key, now))))
		}
	}
	return sent, errors.Join(errs...)
}

// coveredByMonth says incident claim c is the month's claim's to remind of
// or alert on: the month's claim is in the ledger and due no later than the
// incident (its own reminders and expired alert name that deadline), or was
// sent before the incident's deadline (it claimed the incident in time).
func coveredByMonth(cs []store.Claim, c claims.Claim) bool {
	id := claims.ID(c.Contract, c.Month)
	for _, m := range cs {
		if m.ID == id {
			return !m.Deadline.After(c.Deadline) || (m.Sent != nil && m.Sent.At.Before(c.Deadline))
		}
	}
	return false
}

// incidentReminded says one of contract's month's incident claims due at
// deadline, the month's claim's, was already reminded of key: the month's
// reminder would say it again.
func (l *Ledger) incidentReminded(ctx context.Context, contract, month string, deadline time.Time, key string) (bool, error) {
	cs, err := l.listed(ctx)
	if err != nil {
		return false, err
	}
	for _, c := range cs {
		if c.Incident != nil && c.Contract == contract && c.Month == month && c.Deadline.Equal(deadline) && c.Notice(key) != nil {
			return true, nil
		}
	}
	return false, nil
}
