package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/gpusla/gpusla/infra/store"
)

// Every record the application changes (a node's state, an incident, a
// ticket, an API key) is changed the same way, under optimistic
// concurrency: read it with its version, change the copy, write it back
// only if the stored version is still the one read. A writer that lost the
// race (store.ErrConflict) starts over from a fresh read, so concurrent
// requests, Lambdas and watchdog runs never overwrite each other's change
// and need no lock. update is that loop, once.

// maxRetries bounds re-reads after a version conflict; contention on one
// record is at most a few concurrent requests, so this is never reached in
// practice and an error says so if it is.
const maxRetries = 32

func errTooContended(what string) error {
	return fmt.Errorf("%s: still conflicting after %d attempts", what, maxRetries)
}

var (
	// errUnchanged, from a change, means there is nothing to write:
	// update returns the record as the change left it, unwritten.
	errUnchanged = errors.New("nothing to write")
	// errReread, from a change, means the record was read from a source
	// that may be stale (a cheap first read) and what it shows must be
	// decided on a fresh one: update starts over as after a conflict.
	errReread = errors.New("read again")
)

// versioned is how update reads and writes one record. read returns it as
// stored (attempt counts from 0, for a first read from a list or a stale
// replica); write stores the changed copy if the stored version is still
// the one read, returning it as stored, or store.ErrConflict.
type versioned[T any] struct {
	read  func(ctx context.Context, attempt int) (T, error)
	write func(ctx context.Context, v T) (T, error)
}

// update reads a record, lets change alter it and writes it back with the
// version it read, starting over on a conflict (at most maxRetries
// times). change's own errors end it as they are; errUnchanged ends it
// without a write. what names the record in the error when contention
// never ends.
func update[T any](ctx context.Context, what string, r versioned[T], change func(*T) error) (T, error) {
	for attempt := 0; attempt < maxRetries; attempt++ {
		v, err := r.read(ctx, attempt)
		if err != nil {
			return v, err
		}
		switch err := change(&v); {
		case errors.Is(err, errUnchanged):
			return v, nil
		case errors.Is(err, errReread), errors.Is(err, store.ErrConflict):
			// A conflict met while deciding (a record the attempt wrote
			// on the way) is the same lost race.
			continue
		case err != nil:
			return v, err
		}
		stored, err := r.write(ctx, v)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		return stored, err
	}
	var zero T
	return zero, errTooContended(what)
}

// ticketRecord reads and writes ticket id; what names the operation in
// store errors. A missing ticket is "ticket ID: not found" (ErrNotFound).
func ticketRecord(st store.TicketStore, id, what string) versioned[store.Ticket] {
	return versioned[store.Ticket]{
		read: func(ctx context.Context, _ int) (store.Ticket, error) {
			t, err := st.GetTicket(ctx, id)
			switch {
			case errors.Is(err, store.ErrNotFound):
				return t, fmt.Errorf("ticket %s: %w", id, store.ErrNotFound)
			case err != nil:
				return t, fmt.Errorf("%s: %w", what, err)
			}
			return t, nil
		},
		write: func(ctx context.Context, t store.Ticket) (store.Ticket, error) {
			if err := st.UpdateTicket(ctx, t, t.Version); err != nil {
				if errors.Is(err, store.ErrConflict) {
					return t, err
				}
				return t, fmt.Errorf("%s: %w", what, err)
			}
			t.Version++
			return t, nil
		},
	}
}

// updateTicket changes ticket id with update; what names the operation
// ("record on ticket T-1") in its errors.
func (d *TicketDesk) updateTicket(ctx context.Context, id, what string, change func(*store.Ticket) error) (store.Ticket, error) {
	return update(ctx, what, ticketRecord(d.store, id, what), change)
}

// incidentRecord reads and writes incident id of node. With fresh, an
// incident missing from the store (a record lost to a crash) is created
// from fresh() instead: its write is a create, and an incident created in
// the meantime is a conflict like any other.
func (s *Service) incidentRecord(node, id string, fresh func() store.Incident) versioned[store.Incident] {
	return versioned[store.Incident]{
		read: func(ctx context.Context, _ int) (store.Incident, error) {
			inc, err := s.store.GetIncident(ctx, node, id)
			if errors.Is(err, store.ErrNotFound) && fresh != nil {
				return fresh(), nil
			}
			return inc, err
		},
		write: func(ctx context.Context, inc store.Incident) (store.Incident, error) {
			if inc.Version == 0 {
				if err := s.store.CreateIncident(ctx, inc); errors.Is(err, store.ErrExists) {
					return inc, store.ErrConflict
				} else if err != nil {
					return inc, err
				}
				inc.Version = 1
				return inc, nil
			}
			if err := s.store.UpdateIncident(ctx, inc, inc.Version); err != nil {
				return inc, err
			}
			inc.Version++
			return inc, nil
		},
	}
}
