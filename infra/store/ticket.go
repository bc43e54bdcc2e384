package store

import (
	"context"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

// TicketStore is what the ticket desk keeps: provider tickets, API keys and
// one-time claims (request replays, idempotency). It is declared apart from
// Store so the backend's contract stays small; both stores implement it and
// infra/store/storetest holds its contract tests (ticket.go there).
//
// The same rules as Store hold: conditional single-item writes only. A
// ticket is ONE item holding its whole timeline, so recording an event is one
// versioned write of that item: two Slack clicks racing each other cannot
// both append, and the loser re-reads and sees the winner's event.
type TicketStore interface {
	// CreateTicket stores a new ticket (Version 1); ErrExists if its id is taken.
	CreateTicket(ctx context.Context, t Ticket) error
	// GetTicket returns a ticket; ErrNotFound if absent.
	GetTicket(ctx context.Context, id string) (Ticket, error)
	// UpdateTicket writes t if the stored version equals prev (t.Version =
	// prev+1); ErrConflict if it changed, ErrNotFound if absent.
	UpdateTicket(ctx context.Context, t Ticket, prev int64) error
	// ListTickets returns tickets ordered by (Opened, ID); openOnly keeps
	// those still Open (the watchdog's list, cheap to read).
	ListTickets(ctx context.Context, openOnly bool) ([]Ticket, error)

	// CreateAPIKey stores a new API key; ErrExists if its id is taken.
	CreateAPIKey(ctx context.Context, k APIKey) error
	// GetAPIKey returns a key by id; ErrNotFound if absent.
	GetAPIKey(ctx context.Context, id string) (APIKey, error)
	// UpdateAPIKey writes k if the stored version equals prev; ErrConflict
	// otherwise, ErrNotFound if absent.
	UpdateAPIKey(ctx context.Context, k APIKey, prev int64) error
	// ListAPIKeys returns every key, ordered by id.
	ListAPIKeys(ctx context.Context) ([]APIKey, error)

	// ClaimOnce records key until expires; ErrExists if an unexpired claim
	// of the same key exists. It is how a replayed Slack request is refused.
	ClaimOnce(ctx context.Context, key string, expires time.Time) error
}

// Ticket categories.
const (
	CategoryGeneral  = ""
	CategoryHardware = "hardware" // the contract's hardware replacement target applies
)

// Ticket is a support ticket the renter opened in the provider's system,
// with its whole timeline. Times are UTC.
type Ticket struct {
	ID       string `json:"id"`
	Node     string `json:"node"`
	Provider string `json:"provider,omitempty"`
	Contract string `json:"contract,omitempty"`
	Priority string `json:"priority"`
	// Category "hardware" makes the replacement target apply.
	Category    string    `json:"category,omitempty"`
	ProviderRef string    `json:"provider_ref,omitempty"`
	Summary     string    `json:"summary,omitempty"`
	Opened      time.Time `json:"opened"`
	OpenedBy    string    `json:"opened_by,omitempty"`
	// OpenKey is the idempotency key it was opened with (the same key
	// opens nothing new).
	OpenKey string `json:"open_key,omitempty"`
	// IncidentID links a ticket opened from an incident alert.
	IncidentID string `json:"incident_id,omitempty"`
	// Thread is the notifier's reference of the ticket's messages (the
	// incident alert's thread when opened from one).
	Thread string        `json:"thread,omitempty"`
	Events []TicketEvent `json:"events,omitempty"`
	// Notices are the ticket's outgoing messages (an outbox): written in the
	// same versioned write as the change they tell of, sent after, retried
	// by the watchdog until delivered.
	Notices []TicketNotice `json:"notices,omitempty"`
	// Open is true until every target it has is met or breached for good
	// (resolved, and replaced for hardware tickets) and its notices are sent.
	Open      bool      `json:"open"`
	Version   int64     `json:"version"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Ticket event types (the event log's names, docs/events.md).
const (
	EventProviderResponded = events.TypeProviderResponded
	EventCustomerReplied   = events.TypeCustomerReplied
	EventResolved          = events.TypeTicketResolved
	EventHardwareReplaced  = events.TypeHardwareReplaced
)

// TicketEventTypes lists the events a ticket records, in the API's short
// names ("responded") and the log's names.
var TicketEventTypes = map[string]string{
	"provider_responded": EventProviderResponded,
	"responded":          EventProviderResponded,
	"customer_replied":   EventCustomerReplied,
	"replied":            EventCustomerReplied,
	"resolved":           EventResolved,
	"hardware_replaced":  EventHardwareReplaced,
	"replaced":           EventHardwareReplaced,
}

// TicketEvent is one thing that happened to a ticket.
type TicketEvent struct {
	Type string    `json:"type"`
	At   time.Time `json:"at"`
	// AwaitingCustomer (provider responded): the provider asked us something.
	AwaitingCustomer bool `json:"awaiting_customer,omitempty"`
	// Key is the idempotency key it was recorded with: a repeat is a no-op.
	Key        string    `json:"key,omitempty"`
	By         string    `json:"by,omitempty"`
	RecordedAt time.Time `json:"recorded_at"`
	// Late is how far past its deadline this event came, for the event that
	// met a target late (first response, resolution, replacement).
	Late   time.Duration `json:"late,omitempty"`
	Target string        `json:"target,omitempty"` // which target it completed
}

// Notice kinds.
const (
	NoticeOpened   = "opened"
	NoticeRecorded = "recorded"
	NoticeWarning  = "warning"
	NoticeBreached = "breached"
)

// TicketNotice is one outgoing message about a ticket.
type TicketNotice struct {
	Key       string    `json:"key"` // unique within the ticket, e.g. "response/warning"
	Kind      string    `json:"kind"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
	SentAt    time.Time `json:"sent_at,omitzero"`
	// SentTo lists the named channels that have it while others are still
	// failing (SentAt is set once all have it), so a retry sends only to
	// those that do not.
	SentTo        []string  `json:"sent_to,omitempty"`
	Attempts      int       `json:"attempts,omitempty"`
	LastAttemptAt time.Time `json:"last_attempt_at,omitzero"`
	LastErr       string    `json:"last_err,omitempty"`
}

// Event returns the ticket's first event of type typ (ok false if none).
func (t *Ticket) Event(typ string) (TicketEvent, bool) {
	for _, e := range t.Events {
		if e.Type == typ {
			return e, true
		}
	}
	return TicketEvent{}, false
}

// HasKey returns the event recorded with idempotency key key, if any (an
// empty key matches nothing).
func (t *Ticket) HasKey(key string) (TicketEvent, bool) {
	if key == "" {
		return TicketEvent{}, false
	}
	for _, e := range t.Events {
		if e.Key == key {
			return e, true
		}
	}
	return TicketEvent{}, false
}

// Notice returns the notice with key, or nil.
func (t *Ticket) Notice(key string) *TicketNotice {
	for i := range t.Notices {
		if t.Notices[i].Key == key {
			return &t.Notices[i]
		}
	}
	return nil
}

// AddNotice appends a notice unless one with the key exists; it reports
// whether it added one.
func (t *Ticket) AddNotice(n TicketNotice) bool {
	if t.Notice(n.Key) != nil {
		return false
	}
	t.Notices = append(t.Notices, n)
	return true
}

// Unsent reports whether any notice is still to be delivered.
func (t *Ticket) Unsent() bool {
	for _, n := range t.Notices {
		if n.SentAt.IsZero() {
			return true
		}
	}
	return false
}

// APIKey is a credential for the ticket API. Only a hash of its secret is
// stored: the token is shown once, at creation, and a copy of the store does
// not let anyone call the API.
type APIKey struct {
	ID   string `json:"id"`   // public part of the token, e.g. "k7q2m4xa"
	Name string `json:"name"` // who or what uses it
	// Hash is hex SHA-256 of the secret part. The secret is 256 random bits,
	// so a fast hash is enough: there is nothing to guess from it.
	Hash      string    `json:"hash"`
	CreatedAt time.Time `json:"created_at"`
	RevokedAt time.Time `json:"revoked_at,omitzero"`
	LastUsed  time.Time `json:"last_used,omitzero"`
	Version   int64     `json:"version"`
}

// String never shows the hash.
func (k APIKey) String() string { return fmt.Sprintf("api key %s (%s)", k.ID, k.Name) }
