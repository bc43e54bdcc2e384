package app

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// TicketDesk keeps provider tickets and their clocks: it opens tickets,
// records their events (idempotently), times them against the node's
// contract through sla/ticket, and tells Slack — in the ticket's thread —
// when a deadline is near or has passed. The HTTP API, the Slack endpoints
// and the watchdog all call it, so they agree by construction.
type TicketDesk struct {
	svc   *Service
	store store.TicketStore
	book  TermsBook
	log   *slog.Logger
	// status fetches providers' status pages (nil: infra/provstatus/poll).
	status StatusFetcher
}

// Tickets returns the service's ticket desk. The service's store must also
// implement TicketStore (both infra stores do).
func (s *Service) Tickets(book TermsBook) (*TicketDesk, error) {
	ts, ok := s.store.(store.TicketStore)
	if !ok {
		return nil, fmt.Errorf("tickets: the store %T does not keep tickets (no TicketStore)", s.store)
	}
	if book == nil {
		book = TermsBook{}
	}
	if s.terms.Load() == nil {
		s.SetTerms(book) // the service judges nodes by the same terms
	}
	return &TicketDesk{svc: s, store: ts, book: book, log: s.log}, nil
}

// ClaimOnce records key as used until expires; store.ErrExists if it is
// already, unexpired. A Slack request's signature is claimed so that a
// replay of the request is refused.
func (d *TicketDesk) ClaimOnce(ctx context.Context, key string, expires time.Time) error {
	return d.store.ClaimOnce(ctx, key, expires)
}

// Service returns the application service the desk belongs to.
func (d *TicketDesk) Service() *Service { return d.svc }

// Contract looks up one contract's terms in the installed book.
func (d *TicketDesk) Contract(id string) (*terms.Terms, bool) {
	tm, ok := d.Terms()[id]
	return tm, ok
}

// Terms returns the loaded contract terms.
func (d *TicketDesk) Terms() TermsBook { return d.book }

// WarnFraction is the share of a target's allowance after which the
// watchdog warns that its deadline is near.
const WarnFraction = 0.8

// MaxFutureSkew is how far in the future an event time may lie (clock
// differences between people and the backend); more is a mistake.
const MaxFutureSkew = 2 * time.Minute

// MaxPastTicket is how long ago a ticket may be entered as opened: longer
// than any claim window (the longest example ends about 61 days after the
// month) and the evidence kept (DefaultRetention), so a real late entry
// fits and a wrong clock (year 0001) does not.
const MaxPastTicket = DefaultRetention

func inputErr(field, format string, a ...any) error { return Errorf(EInvalid, field, format, a...) }

// OpenRequest opens a ticket.
type OpenRequest struct {
	Node        string
	Priority    string
	Category    string
	ProviderRef string
	Summary     string
	At          time.Time // zero: now
	By          string
	// Key makes the open idempotent: the same key always names the same
	// ticket (a Slack button clicked twice opens one ticket).
	Key        string
	IncidentID string
	Thread     string // post into this thread (an incident alert's)
}

var ticketIDRe = regexp.MustCompile(`^T-[a-z2-7]{8}$`)

// ValidTicketID reports whether id has the shape of a ticket id.
func ValidTicketID(id string) bool { return ticketIDRe.MatchString(id) }

func ticketID(key string) (string, error) {
	if key != "" {
		h := sha256.Sum256([]byte("ticket-open\x00" + key))
		return "T-" + lowerB32.EncodeToString(h[:5]), nil
	}
	r, err := randomB32(5)
	return "T-" + r, err
}

func (d *TicketDesk) termsFor(n store.Node) (*terms.Terms, error) {
	tm, ok := d.book[n.Contract]
	if !ok {
		return nil, fmt.Errorf("node %s is rented under contract %q, which no loaded terms file defines (known: %s)",
			n.ID, n.Contract, strings.Join(d.book.Contracts(), ", "))
	}
	return tm, nil
}

// Open opens a ticket. It returns the ticket and whether this call created
// it (false: the key had opened it already).
func (d *TicketDesk) Open(ctx context.Context, r OpenRequest) (store.Ticket, bool, error) {
	now := d.svc.Now()
	if r.Node == "" {
		return store.Ticket{}, false, inputErr("node", "missing")
	}
	n, err := d.svc.store.GetNode(ctx, r.Node)
	if errors.Is(err, store.ErrNotFound) {
		return store.Ticket{}, false, inputErr("node", "no node %q is registered", r.Node)
	}
	if err != nil {
		return store.Ticket{}, false, fmt.Errorf("open ticket: %w", err)
	}
	tm, err := d.termsFor(n)
	if err != nil {
		return store.Ticket{}, false, inputErr("node", "%v", err)
	}
	if !slices.Contains(tm.Support.Priorities, r.Priority) {
		return store.Ticket{}, false, inputErr("priority", "%q is not a priority of contract %s (one of %s)", r.Priority, tm.Contract, strings.Join(tm.Support.Priorities, ", "))
	}
	if r.Category != store.CategoryGeneral && r.Category != store.CategoryHardware {
		return store.Ticket{}, false, inputErr("category", "%q is neither empty nor %q", r.Category, store.CategoryHardware)
	}
	if len(r.ProviderRef) > 256 {
		return store.Ticket{}, false, inputErr("provider_ref", "longer than 256 characters")
	}
	if len(r.Summary) > 2000 {
		return store.Ticket{}, false, inputErr("summary", "longer than 2000 characters")
	}
	at := r.At.UTC()
	if at.IsZero() {
		at = now
	}
	if at.After(now.Add(MaxFutureSkew)) {
		return store.Ticket{}, false, inputErr("at", "%s is in the future", at.Format(time.RFC3339))
	}
	if at.Before(now.Add(-MaxPastTicket)) {
		// 0001-01-01T00:00:01Z and every other clock mistake.
		return store.Ticket{}, false, inputErr("at", "%s is more than %s ago", at.Format(time.RFC3339), MaxPastTicket)
	}
	if n.Released(at) {
		// Given back: the provider owes nothing more for it, so nothing
		// opened from then on may start a response, resolution or
		// replacement clock (and earn a penalty).
		return store.Ticket{}, false, Errorf(EConflict, "node", "node %s was released (given back) at %s: it is no longer rented, so a ticket opened at %s would start no clock",
			n.ID, n.ReleasedAt.Format(time.RFC3339), at.Format(time.RFC3339))
	}
	id, err := ticketID(r.Key)
	if err != nil {
		return store.Ticket{}, false, err
	}
	t := store.Ticket{ID: id, Node: n.ID, Provider: n.Provider, Contract: n.Contract, Priority: r.Priority, Category: r.Category,
		ProviderRef: r.ProviderRef, Summary: r.Summary, Opened: at, OpenedBy: r.By, OpenKey: r.Key,
		IncidentID: r.IncidentID, Thread: r.Thread, Open: true, Version: 1, CreatedAt: now, UpdatedAt: now}
	tim := ticket.Evaluate(toSLA(&t), tm, now)
	t.AddNotice(store.TicketNotice{Key: store.NoticeOpened, Kind: store.NoticeOpened, Text: openedText(&t, tim, tm), CreatedAt: now})
	err = d.store.CreateTicket(ctx, t)
	if errors.Is(err, store.ErrExists) && r.Key != "" {
		old, gerr := d.store.GetTicket(ctx, id)
		return old, false, gerr
	}
	if err != nil {
		return store.Ticket{}, false, fmt.Errorf("open ticket: %w", err)
	}
	d.log.Info("ticket opened", "ticket", t.ID, "node", t.Node, "priority", t.Priority, "off_hours", tim.OffHours)
	return t, true, nil
}

// EventRequest records one event on a ticket.
type EventRequest struct {
	Type             string // a log type or a short name of TicketEventTypes
	At               time.Time
	AwaitingCustomer bool
	Key              string // idempotency key; a repeat records nothing
	By               string
}

// Recorded is what Record did.
type Recorded struct {
	Ticket store.Ticket
	Event  store.TicketEvent
	// Repeat: the key had been recorded already; nothing changed.
	Repeat bool
}

// Record adds an event to ticket id. The event that completes a target
// after its deadline carries how late it was. The same idempotency key
// again answers the event recorded the first time (Repeat).
func (d *TicketDesk) Record(ctx context.Context, id string, r EventRequest) (Recorded, error) {
	typ, err := eventType(r)
	if err != nil {
		return Recorded{}, err
	}
	var rec Recorded
	t, err := d.updateTicket(ctx, id, "record on ticket "+id, func(t *store.Ticket) error {
		if e, seen := t.HasKey(r.Key); seen {
			rec = Recorded{Event: e, Repeat: true}
			return errUnchanged
		}
		ev, err := d.addEvent(ctx, t, typ, r)
		rec = Recorded{Event: ev}
		return err
	})
	if err != nil {
		return Recorded{}, err
	}
	rec.Ticket = t
	if !rec.Repeat {
		d.log.Info("ticket event", "ticket", t.ID, "type", typ, "late", rec.Event.Late, "target", rec.Event.Target)
	}
	return rec, nil
}

// eventType checks what the request says before anything is read: the
// event's type (the API's names or the short ones) and the key's length.
func eventType(r EventRequest) (string, error) {
	typ, ok := store.TicketEventTypes[r.Type]
	if !ok {
		for _, v := range store.TicketEventTypes {
			if v == r.Type {
				typ, ok = v, true
			}
		}
	}
	if !ok {
		return "", inputErr("type", "%q is not one of provider_responded, customer_replied, resolved, hardware_replaced", r.Type)
	}
	if len(r.Key) > 512 {
		return "", inputErr("idempotency_key", "longer than 512 characters")
	}
	return typ, nil
}

// addEvent appends the event to t as read: checked against the ticket (not
// before its opening, not ahead of now, no second resolution), marked with
// the target it completed (sla/ticket decides), the ticket closed when
// nothing runs any more, and the thread's notice queued.
func (d *TicketDesk) addEvent(ctx context.Context, t *store.Ticket, typ string, r EventRequest) (store.TicketEvent, error) {
	now := d.svc.Now()
	at := r.At.UTC()
	if at.IsZero() {
		at = now
	}
	if at.Before(t.Opened) {
		return store.TicketEvent{}, inputErr("at", "%s is before the ticket was opened (%s)", at.Format(time.RFC3339), t.Opened.Format(time.RFC3339))
	}
	if at.After(now.Add(MaxFutureSkew)) {
		return store.TicketEvent{}, inputErr("at", "%s is in the future", at.Format(time.RFC3339))
	}
	if prev, done := t.Event(typ); done && (typ == store.EventResolved || typ == store.EventHardwareReplaced) {
		return store.TicketEvent{}, Errorf(EConflict, "type", "ticket %s was already %s at %s", t.ID, shortType(typ), prev.At.Format(time.RFC3339))
	}
	n, err := d.svc.store.GetNode(ctx, t.Node)
	if err != nil {
		return store.TicketEvent{}, fmt.Errorf("record on ticket %s: node %s: %w", t.ID, t.Node, err)
	}
	tm, err := d.termsFor(n)
	if err != nil {
		return store.TicketEvent{}, err
	}
	ev := store.TicketEvent{Type: typ, At: at, AwaitingCustomer: r.AwaitingCustomer && typ == store.EventProviderResponded, Key: r.Key, By: r.By, RecordedAt: now}
	before := ticket.Evaluate(toSLA(t), tm, at)
	t.Events = append(t.Events, ev)
	after := ticket.Evaluate(toSLA(t), tm, at)
	if target, late, ok := ticket.Completed(before, after); ok {
		ev.Target, ev.Late = target, late
		t.Events[len(t.Events)-1] = ev
	}
	t.Open = stillOpen(t, after)
	t.UpdatedAt = now
	t.AddNotice(store.TicketNotice{Key: fmt.Sprintf("event/%d", len(t.Events)), Kind: store.NoticeRecorded, Text: recordedText(t, ev, after, tm), CreatedAt: now})
	if !t.Open && t.Unsent() {
		t.Open = true // stays listed until its notices are out
	}
	return ev, nil
}

// stillOpen: some target is still running (not done). A ticket whose every
// clock is done, or that was resolved (and replaced, if hardware), is closed.
func stillOpen(t *store.Ticket, tim ticket.Timing) bool {
	if _, ok := t.Event(store.EventResolved); !ok {
		return true
	}
	if c := tim.Replacement; c != nil && c.Done.IsZero() {
		return true
	}
	return false
}

// Get returns a ticket.
func (d *TicketDesk) Get(ctx context.Context, id string) (store.Ticket, error) {
	t, err := d.store.GetTicket(ctx, id)
	if err != nil {
		return store.Ticket{}, fmt.Errorf("ticket %s: %w", id, err)
	}
	return t, nil
}

// List returns tickets (open ones only if openOnly).
func (d *TicketDesk) List(ctx context.Context, openOnly bool) ([]store.Ticket, error) {
	return d.store.ListTickets(ctx, openOnly)
}

// Timing evaluates a ticket against its contract as of asOf.
func (d *TicketDesk) Timing(t *store.Ticket, asOf time.Time) (ticket.Timing, *terms.Terms, error) {
	tm, ok := d.book[t.Contract]
	if !ok {
		return ticket.Timing{}, nil, fmt.Errorf("ticket %s: contract %q is not loaded", t.ID, t.Contract)
	}
	st := toSLA(t)
	st.Released = d.svc.releasedAt(t.Node)
	return ticket.Evaluate(st, tm, asOf), tm, nil
}

// toSLA converts a ticket record into the SLA engine's ticket.
func toSLA(t *store.Ticket) *ticket.Ticket {
	st := &ticket.Ticket{ID: t.ID, Node: t.Node, Priority: t.Priority, Category: t.Category,
		ProviderRef: t.ProviderRef, Summary: t.Summary, Opened: t.Opened}
	for _, e := range t.Events {
		if k, ok := slaEvents[e.Type]; ok {
			st.Record(k, e.At, e.AwaitingCustomer)
		}
	}
	return st
}

// slaEvents are the stored event types the ticket's timing reads.
var slaEvents = map[string]ticket.Event{
	store.EventProviderResponded: ticket.ProviderResponded,
	store.EventCustomerReplied:   ticket.CustomerReplied,
	store.EventResolved:          ticket.TicketResolved,
	store.EventHardwareReplaced:  ticket.HardwareReplaced,
}

func shortType(typ string) string {
	switch typ {
	case store.EventProviderResponded:
		return "responded"
	case store.EventCustomerReplied:
		return "replied"
	case store.EventResolved:
		return "resolved"
	case store.EventHardwareReplaced:
		return "replaced"
	}
	return typ
}

// Describe sets a ticket's provider reference and/or summary (empty: keep),
// e.g. the provider's ticket number once known for a ticket opened with an
// alert's button. The priority and opening time are not editable: they
// decide the targets, and a claim must show what was recorded at the time.
func (d *TicketDesk) Describe(ctx context.Context, id, providerRef, summary string) (store.Ticket, error) {
	if providerRef == "" && summary == "" {
		return store.Ticket{}, inputErr("provider_ref", "nothing to change: give provider_ref or summary")
	}
	if len(providerRef) > 256 {
		return store.Ticket{}, inputErr("provider_ref", "longer than 256 characters")
	}
	if len(summary) > 2000 {
		return store.Ticket{}, inputErr("summary", "longer than 2000 characters")
	}
	t, err := d.updateTicket(ctx, id, "describe ticket "+id, func(t *store.Ticket) error {
		if (providerRef == "" || providerRef == t.ProviderRef) && (summary == "" || summary == t.Summary) {
			return errUnchanged
		}
		if providerRef != "" {
			t.ProviderRef = providerRef
		}
		if summary != "" {
			t.Summary = summary
		}
		t.UpdatedAt = d.svc.Now()
		return nil
	})
	if err != nil {
		return store.Ticket{}, err
	}
	return t, nil
}
