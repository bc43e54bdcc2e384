package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/infra/provstatus"
	"github.com/gpusla/gpusla/infra/provstatus/poll"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
)

// StatusFetcher fetches a provider's status page (infra/provstatus/poll's
// Fetcher): one conditional GET of a public address (or of the page's own
// private host, when the terms allow it), parsed in the terms' format.
type StatusFetcher interface {
	Fetch(ctx context.Context, page *terms.ProviderPage, v poll.Validators) (poll.Result, error)
}

// StatusFetchTimeout bounds one status page fetch on the minute tick, so
// the pages of every contract fit in the watchdog's run beside its own work.
const StatusFetchTimeout = 10 * time.Second

// statusBudget is the time a fetch needs left in the tick's context: a page
// that cannot be fetched in it is left for the next tick (it stays due).
const statusBudget = StatusFetchTimeout + 5*time.Second

// SetStatusFetcher replaces the status page fetcher (tests; a proxy).
func (d *TicketDesk) SetStatusFetcher(f StatusFetcher) { d.status = f }

func (d *TicketDesk) statusFetcher() StatusFetcher {
	if d.status == nil {
		return &poll.Fetcher{Timeout: StatusFetchTimeout, UserAgent: "gpusla status page poller (+https://github.com/gpusla/gpusla)"}
	}
	return d.status
}

// StatusPollResult counts what one PollStatusPages did.
type StatusPollResult struct {
	Pages, Fetched, NotModified, Failed int
	// Stored counts provider incidents written for the first time,
	// Updated those the page changed since they were stored.
	Stored, Updated int
}

// PollStatusPages fetches the status page of every contract whose terms
// name one and that is due (provider_status_page.every after the last fetch, longer
// after failures: poll.Backoff), and stores each incident the page lists.
//
// Each page is first claimed with a versioned write of its poll state
// (next fetch moved on), so two pollers — a slow Lambda and the next tick —
// never fetch it at once. A fetch is conditional on the last one's ETag and
// Last-Modified. An incident is written only when new or changed, with the
// version read, so a re-fetch never duplicates one; incidents that drop off
// the page (Statuspage lists the last 50) stay stored, since they happened.
// A failing page is logged and backed off, never an error of the tick; the
// error is the store's.
func (d *TicketDesk) PollStatusPages(ctx context.Context, now time.Time) (StatusPollResult, error) {
	var res StatusPollResult
	var ps store.ProviderStatusStore
	for _, c := range d.book.Contracts() {
		tm := d.book[c]
		if tm.ProviderStatusPage == nil {
			continue
		}
		if ps == nil {
			var ok bool
			if ps, ok = d.svc.store.(store.ProviderStatusStore); !ok {
				return res, fmt.Errorf("status pages: the store %T keeps no provider incidents (no ProviderStatusStore)", d.svc.store)
			}
		}
		if dl, ok := ctx.Deadline(); ok && dl.Sub(now) < statusBudget {
			break // the next tick fetches what is left: it is still due
		}
		if err := d.pollPage(ctx, ps, tm, now, &res); err != nil {
			return res, fmt.Errorf("status page of %s: %w", c, err)
		}
	}
	if res.Fetched+res.Failed > 0 {
		d.log.Info("status pages", "pages", res.Pages, "fetched", res.Fetched, "not_modified", res.NotModified, "failed", res.Failed,
			"stored", res.Stored, "updated", res.Updated)
	}
	return res, nil
}

func (d *TicketDesk) pollPage(ctx context.Context, ps store.ProviderStatusStore, tm *terms.Terms, now time.Time, res *StatusPollResult) error {
	sp := tm.ProviderStatusPage
	st, err := ps.GetStatusPoll(ctx, tm.Contract)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	same := st.URL == sp.URL && st.Format == string(sp.Format)
	if same && now.Before(st.NextAt) {
		return nil // not due
	}
	res.Pages++
	if !same {
		// Another page: the old validators say nothing of it.
		st = store.StatusPoll{Contract: tm.Contract, URL: sp.URL, Format: string(sp.Format), Version: st.Version,
			FirstSuccess: st.FirstSuccess, LastSuccess: st.LastSuccess, Fetches: st.Fetches, FailedFetches: st.FailedFetches}
	}
	// Claim: the next fetch moves on before this one starts.
	st.LastAttempt, st.NextAt = now, now.Add(sp.Every)
	v, err := ps.PutStatusPoll(ctx, st, st.Version)
	if errors.Is(err, store.ErrConflict) {
		return nil // another poller has it
	}
	if err != nil {
		return err
	}
	r, ferr := d.statusFetcher().Fetch(ctx, sp, poll.Validators{ETag: st.ETag, LastModified: st.LastModified})
	st.Fetches++
	if ferr != nil {
		res.Failed++
		st.Failures++
		st.FailedFetches++
		// The reason, not the error, is kept and logged: bounded, and
		// holding nothing the server sent.
		st.LastErr = poll.Reason(ferr)
		st.NextAt = now.Add(poll.Backoff(sp.Every, st.Failures))
		d.log.Warn("status page fetch failed", "contract", tm.Contract, "failures", st.Failures, "next", st.NextAt, "err", st.LastErr)
	} else {
		res.Fetched++
		st.Failures, st.LastErr = 0, ""
		st.ETag, st.LastModified = r.Validators.ETag, r.Validators.LastModified
		if st.FirstSuccess.IsZero() {
			st.FirstSuccess = now
		}
		st.LastSuccess = now
		if r.NotModified {
			res.NotModified++
		}
		for _, inc := range r.Incidents {
			if err := d.keepProviderIncident(ctx, ps, tm, inc, now, res); err != nil {
				return err
			}
		}
	}
	if _, err := ps.PutStatusPoll(ctx, st, v); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return nil
}

// keepProviderIncident stores inc if it is new or the page changed it.
func (d *TicketDesk) keepProviderIncident(ctx context.Context, ps store.ProviderStatusStore, tm *terms.Terms, inc provstatus.Incident, now time.Time, res *StatusPollResult) error {
	rec := store.ProviderIncident{Contract: tm.Contract, Source: tm.ProviderStatusPage.URL, Format: string(tm.ProviderStatusPage.Format), Page: inc,
		FirstSeen: now, FetchedAt: now}
	cur, err := ps.GetProviderIncident(ctx, tm.Contract, inc.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if _, err := ps.PutProviderIncident(ctx, rec, 0); err != nil && !errors.Is(err, store.ErrConflict) {
			return err
		}
		res.Stored++
		return nil
	case err != nil:
		return err
	}
	if sameIncident(cur.Page, inc) {
		return nil
	}
	rec.FirstSeen = cur.FirstSeen
	if _, err := ps.PutProviderIncident(ctx, rec, cur.Version); err != nil && !errors.Is(err, store.ErrConflict) {
		return err // a conflict: another poller wrote it, the next poll compares again
	}
	res.Updated++
	return nil
}

// sameIncident compares two incidents as stored (JSON: times in UTC, empty
// lists left out), so a store's round trip never reads as a change.
func sameIncident(a, b provstatus.Incident) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// ProviderIncidentEvent is a stored provider incident as the event log's
// provider_incident (docs/events.md). Its id is stable (contract and the
// page's id), so exporting twice repeats nothing.
func ProviderIncidentEvent(p *store.ProviderIncident) events.Event {
	e := events.Event{Type: events.TypeProviderIncident, ID: "provider/" + p.Contract + "/" + p.ID(), Contract: p.Contract,
		ProviderRef: p.ID(), Summary: p.Page.Title, Source: p.Source, Format: p.Format, Status: p.Page.Status, Impact: p.Page.Impact,
		Resolved: p.Page.Resolved, Start: p.Page.Start.UTC(), At: p.Page.Updated.UTC(), ReceivedAt: p.FirstSeen.UTC(),
		Link: p.Page.Link, Components: p.Page.Components}
	if p.Page.Resolved {
		e.End = p.Page.End.UTC()
	}
	return e
}

// ExportProviderStatus emits the provider incidents that overlap [from,
// to) and, per contract whose page was ever read, the span it was read
// over (status_page_polled), so an offline report knows which outages the
// provider acknowledged and whether the page was being watched at all. It
// returns how many events it emitted.
func ExportProviderStatus(ctx context.Context, ps store.ProviderStatusStore, from, to time.Time, emit func(*events.Event) error) (int, error) {
	incs, err := ps.ListProviderIncidents(ctx, "", from, to)
	if err != nil {
		return 0, fmt.Errorf("export provider incidents: %w", err)
	}
	n := 0
	for i := range incs {
		e := ProviderIncidentEvent(&incs[i])
		if err := emit(&e); err != nil {
			return n, err
		}
		n++
	}
	polls, err := ps.ListStatusPolls(ctx)
	if err != nil {
		return n, fmt.Errorf("export status page polls: %w", err)
	}
	for _, p := range polls {
		if p.FirstSuccess.IsZero() || p.Fetches < 1 {
			continue // never read: nothing to say it was watched
		}
		e := events.Event{Type: events.TypeStatusPagePolled, ID: "polled/" + p.Contract + "@" + p.LastSuccess.UTC().Format("20060102T150405.000Z"),
			Contract: p.Contract, Source: p.URL, Format: p.Format, Start: p.FirstSuccess.UTC(), End: p.LastSuccess.UTC(),
			Count: p.Fetches, Failures: min(p.FailedFetches, p.Fetches-1), Reason: p.LastErr}
		if err := emit(&e); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
