package store

import (
	"context"
	"sort"
	"time"

	"github.com/gpusla/gpusla/infra/provstatus"
)

// ProviderStatusStore keeps what the providers' own status pages said: each
// incident a page listed, one record per (contract, incident id), and each
// contract's poll state (validators for a conditional GET, failures in a
// row, when to fetch next). Declared apart from Store like TicketStore;
// both stores implement it and infra/store/storetest holds its contract.
//
// The same rules hold: conditional single-item writes only. A re-fetch of a
// page writes an incident again only when the page changed it, with the
// version it read, so two pollers racing write it once; the loser gets
// ErrConflict and finds the winner's record on its next poll.
type ProviderStatusStore interface {
	// PutProviderIncident writes inc if the stored version equals prev (0:
	// none stored yet), storing inc.Version = prev+1; otherwise ErrConflict.
	// It returns the stored version.
	PutProviderIncident(ctx context.Context, inc ProviderIncident, prev int64) (int64, error)
	// GetProviderIncident returns one; ErrNotFound if absent.
	GetProviderIncident(ctx context.Context, contract, id string) (ProviderIncident, error)
	// ListProviderIncidents returns the incidents of contract ("" every
	// contract) that overlap [from, to) — an unresolved one lasts to
	// infinity, one of a format that cannot say when it ended lasts to its
	// last update — ordered by contract, start and id.
	ListProviderIncidents(ctx context.Context, contract string, from, to time.Time) ([]ProviderIncident, error)

	// GetStatusPoll returns a contract's poll state; ErrNotFound before
	// its first poll.
	GetStatusPoll(ctx context.Context, contract string) (StatusPoll, error)
	// PutStatusPoll writes p if the stored version equals prev (0: new),
	// storing p.Version = prev+1; ErrConflict otherwise.
	PutStatusPoll(ctx context.Context, p StatusPoll, prev int64) (int64, error)
	// ListStatusPolls returns every contract's poll state, by contract.
	ListStatusPolls(ctx context.Context) ([]StatusPoll, error)
}

// ProviderIncident is one incident a contract's provider listed on its
// status page, as last fetched.
type ProviderIncident struct {
	Contract string `json:"contract"`
	// Source is the page's URL and Format its format (terms.StatusFormat).
	Source  string              `json:"source"`
	Format  string              `json:"format"`
	Version int64               `json:"version"`
	Page    provstatus.Incident `json:"page"`
	// FirstSeen is when the backend first fetched it; FetchedAt when it
	// fetched what Page holds. A report as of an instant uses only what
	// was first seen by then.
	FirstSeen time.Time `json:"first_seen"`
	FetchedAt time.Time `json:"fetched_at"`
}

// ID is the page's id of the incident.
func (p ProviderIncident) ID() string { return p.Page.ID }

// Until is how far the incident reaches for listing: its end, its last
// update when the format cannot say it ended, or open-ended (zero) while
// the page says it is not resolved.
func (p ProviderIncident) Until() time.Time {
	switch {
	case p.Page.Resolved:
		return p.Page.End
	case p.Page.Status == "":
		return p.Page.Updated
	}
	return time.Time{}
}

// Overlaps reports whether the incident touches [from, to).
func (p ProviderIncident) Overlaps(from, to time.Time) bool {
	u := p.Until()
	return p.Page.Start.Before(to) && (u.IsZero() || !u.Before(from))
}

// StatusPoll is a contract's status page poll state.
type StatusPoll struct {
	Contract string `json:"contract"`
	URL      string `json:"url"`
	Format   string `json:"format"`
	Version  int64  `json:"version"`
	// ETag and LastModified are the last successful fetch's validators,
	// sent back for a 304; they hold only while URL is the terms' URL.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	// NextAt is when to fetch next (claimed before fetching, so two
	// pollers never fetch at once); Failures counts failures in a row.
	NextAt      time.Time `json:"next_at"`
	Failures    int       `json:"failures,omitempty"`
	LastErr     string    `json:"last_err,omitempty"`
	LastAttempt time.Time `json:"last_attempt,omitzero"`
	// FirstSuccess and LastSuccess bound the time the page was read;
	// Fetches and FailedFetches count every attempt.
	FirstSuccess  time.Time `json:"first_success,omitzero"`
	LastSuccess   time.Time `json:"last_success,omitzero"`
	Fetches       int64     `json:"fetches,omitempty"`
	FailedFetches int64     `json:"failed_fetches,omitempty"`
}

// SortProviderIncidents orders incidents by contract, start and id, the
// order ListProviderIncidents returns.
func SortProviderIncidents(l []ProviderIncident) {
	sort.Slice(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.Contract != b.Contract {
			return a.Contract < b.Contract
		}
		if !a.Page.Start.Equal(b.Page.Start) {
			return a.Page.Start.Before(b.Page.Start)
		}
		return a.ID() < b.ID()
	})
}
