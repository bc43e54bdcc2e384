package statuspage

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// incidentView is one incident with its verdict and its timeline: when it
// started, when the backend confirmed it, when its alert went out, the
// tickets about it (opened, answered, resolved, hardware replaced), a
// reclassification, and its end.
func (h *Handler) incidentView(ctx context.Context, pr *i18n.Printer, nd *node, inc store.Incident, v verdict, tickets []store.Ticket, now time.Time) Incident {
	end := inc.End
	if inc.Open() {
		end = now
	}
	iv := Incident{ID: inc.ID, Node: nd.label, Kind: inc.Kind, KindText: pr.Word(inc.Kind), Zone: nd.loc.String(),
		Start: pr.Zoned(inc.Start, nd.loc), StartMS: inc.Start.UnixMilli(), Open: inc.Open(),
		Duration: pr.Dur(end.Sub(inc.Start).Round(time.Second)), Counted: v.Counted, CountedSeconds: v.CountedSeconds,
		Reason: v.reason(pr), start: inc.Start}
	if inc.Cause != "" {
		iv.Cause = pr.Word(inc.Cause)
	}
	if !inc.Open() {
		iv.End = pr.Zoned(inc.End, nd.loc)
	}
	if v.Counted {
		iv.Verdict = pr.T("yes: %s of %s counted", pr.Secs(v.CountedSeconds), iv.Duration)
	} else {
		iv.Verdict = pr.T("no: %s", iv.Reason)
	}
	if !nd.shows(terms.ShowEvidence) {
		// The check's name may carry a target (a host, an address): the
		// public id is keyed like the labels.
		m := hmac.New(sha256.New, h.labelKey)
		m.Write([]byte(nd.n.ID + "\x00" + inc.ID))
		iv.ID = "incident-" + hex.EncodeToString(m.Sum(nil))[:12]
	} else {
		var fails []msg.Text
		for _, f := range inc.Failed {
			s := pr.T("%s %s", f.Name, pr.Word(f.Verdict))
			if f.Value != "" {
				s = pr.T("%s: %s", s, pr.ProbeText(f.Value, f.ValueText, false))
			}
			fails = append(fails, msg.Plain(s))
		}
		iv.Detail = pr.Texts(fails)
		if iv.Detail == "" {
			iv.Detail = evidenceDetail(pr, nd.loc, inc)
		}
	}
	step := func(at time.Time, what string) {
		iv.Timeline = append(iv.Timeline, Step{At: pr.Zoned(at, nd.loc), What: what, at: at})
	}
	step(inc.Start, pr.T("started (the first failing observation)"))
	if !inc.ConfirmedAt.IsZero() && !inc.ConfirmedAt.Equal(inc.Start) {
		step(inc.ConfirmedAt, pr.T("confirmed by the backend"))
	}
	h.alertSteps(ctx, pr, nd, inc, step)
	for i := range tickets {
		t := &tickets[i]
		if !aboutIncident(t, inc, end) {
			continue
		}
		prio := t.Priority
		if nd.shows(terms.ShowTickets) {
			ref := t.ID
			if t.ProviderRef != "" {
				ref += " / " + t.ProviderRef
			}
			step(t.Opened, pr.T("ticket %s opened (%s)", ref, prio))
		} else {
			step(t.Opened, pr.T("ticket opened (%s)", prio))
		}
		for _, e := range t.Events {
			what := map[string]string{store.EventProviderResponded: "provider responded", store.EventCustomerReplied: "customer replied",
				store.EventResolved: "ticket resolved", store.EventHardwareReplaced: "hardware replaced"}[e.Type]
			if what != "" {
				step(e.At, pr.T(what))
			}
		}
	}
	if !inc.ReclassifiedAt.IsZero() {
		step(inc.ReclassifiedAt, pr.T("reclassified: %s", pr.Word(inc.Cause)))
	}
	if inc.Open() {
		step(now, pr.T("still open at %s", pr.Zoned(now, nd.loc)))
	} else {
		step(inc.End, pr.T("ended (repaired)"))
	}
	sort.SliceStable(iv.Timeline, func(i, j int) bool { return iv.Timeline[i].at.Before(iv.Timeline[j].at) })
	return iv
}

// evidenceDetail is the engine's account of why an incident opened, the
// detail of one without failed checks: in English the Evidence as stored,
// byte for byte; in another language its sentence translated, its
// instants on the node's clock with the zone named as the page names it;
// a record kept without its sentence shows its English, marked in Chinese
// as the system's record.
func evidenceDetail(pr *i18n.Printer, loc *time.Location, inc store.Incident) string {
	if pr.Lang == i18n.EN {
		return inc.Evidence
	}
	return pr.Text(onClock(pr, loc, inc.EvidenceSentence()))
}

// onClock is t with each instant in it written as the page writes its
// times (Printer.Zoned in loc).
func onClock(pr *i18n.Printer, loc *time.Location, t msg.Text) msg.Text {
	if len(t.Args) == 0 {
		return t
	}
	out := msg.Text{Format: t.Format, Args: make([]any, len(t.Args))}
	for i, a := range t.Args {
		switch v := a.(type) {
		case msg.Time:
			a = pr.Zoned(v.Time, loc)
		case msg.Text:
			a = onClock(pr, loc, v)
		}
		out.Args[i] = a
	}
	return out
}

// aboutIncident: the ticket was opened from the incident's alert, or on
// its node while it was open (a ticket opened by hand names no incident).
func aboutIncident(t *store.Ticket, inc store.Incident, end time.Time) bool {
	if t.Node != inc.Node {
		return false
	}
	if t.IncidentID != "" {
		return t.IncidentID == inc.ID
	}
	return !t.Opened.Before(inc.Start) && t.Opened.Before(end)
}

// alertSteps adds when the incident's opening alert was delivered, on each
// channel its route names (the earliest), or that it is not yet.
func (h *Handler) alertSteps(ctx context.Context, pr *i18n.Printer, nd *node, inc store.Incident, step func(time.Time, string)) {
	kind := notify.AlertDegraded
	if inc.Kind == string(incident.Unreachable) {
		kind = notify.AlertUnreachable
	}
	channels := []string{""}
	if h.c.Channels != nil {
		channels = h.c.Channels.AlertChannels(nd.n.Contract, notify.Alert{Kind: kind, Node: nd.n.ID, Provider: nd.n.Provider,
			IncidentID: inc.ID, IncidentKind: inc.Kind})
	}
	var sent []string
	var first time.Time
	attempts, pending := 0, false
	for _, ch := range channels {
		rec, err := h.c.Nodes.GetAlert(ctx, nd.n.ID, inc.ID, kind, ch)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			h.c.Log.Warn("status page: alert record", "node", nd.n.ID, "incident", inc.ID, "err", err)
			continue
		}
		if rec.SentAt.IsZero() {
			pending, attempts = true, max(attempts, rec.Attempts)
			continue
		}
		if first.IsZero() || rec.SentAt.Before(first) {
			first = rec.SentAt
		}
		if ch != "" && nd.team {
			sent = append(sent, ch) // the team's channel names: team view only
		}
	}
	switch {
	case !first.IsZero() && len(sent) > 0:
		step(first, pr.T("alert sent (%s)", strings.Join(sent, ", ")))
	case !first.IsZero():
		step(first, pr.T("alert sent"))
	case pending:
		step(inc.Start, pr.T("alert not delivered yet (%d attempts)", attempts))
	}
}

// ticketRows are the open tickets of the drawn nodes, each with its
// nearest pending deadline, in the node's contract zone.
func (h *Handler) ticketRows(pr *i18n.Printer, nodes []*node, tickets []store.Ticket, now time.Time, p *Page) []TicketRow {
	byID := map[string]*node{}
	for _, nd := range nodes {
		byID[nd.n.ID] = nd
	}
	var out []TicketRow
	for i := range tickets {
		t := &tickets[i]
		nd, drawn := byID[t.Node]
		if !t.Open || !drawn {
			continue
		}
		row := TicketRow{Node: nd.label, Priority: t.Priority, Opened: pr.Zoned(t.Opened, nd.loc), Status: pr.Word("no_target"), opened: t.Opened}
		if nd.shows(terms.ShowTickets) {
			row.ID, row.Summary, row.ProviderRef = t.ID, t.Summary, t.ProviderRef
		}
		tim, _, err := h.c.Tickets.Timing(t, now)
		if err != nil {
			if p.Mode == Private {
				p.Notes = append(p.Notes, fmt.Sprintf("ticket %s: %v", t.ID, err))
			}
			out = append(out, row)
			continue
		}
		row.OffHours = tim.OffHours
		// The nearest deadline still pending, else the first breached.
		var target, status string
		var deadline time.Time
		for _, c := range []struct {
			name string
			c    *ticket.Clock
		}{{"response", tim.Response}, {"resolution", tim.Resolution}, {"replacement", tim.Replacement}} {
			if c.c == nil || c.c.Deadline.IsZero() || c.c.Status == ticket.Met {
				continue
			}
			if deadline.IsZero() || (c.c.Status == ticket.Pending && (status != ticket.Pending || c.c.Deadline.Before(deadline))) {
				target, deadline, status = c.name, c.c.Deadline, c.c.Status
			}
		}
		if !deadline.IsZero() {
			row.Target, row.Deadline, row.DeadlineMS = pr.T(target), pr.Zoned(deadline, nd.loc), deadline.UnixMilli()
			row.Overdue, row.Status = deadline.Before(now), pr.Word(status)
		}
		out = append(out, row)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].opened.Before(out[j].opened) })
	return out
}
