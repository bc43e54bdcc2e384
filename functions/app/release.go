package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// MaxAdminLead is how far in the future an operator may date a release or
// a maintenance announcement: the slack of a clock a little ahead, never a
// plan (a release takes effect when it is recorded, a notice is announced
// when it is made).
const MaxAdminLead = 5 * time.Minute

// ReleaseNode ends the node's service period and billing at at (`gpusla
// node release`). at must be no earlier than the node's order and no later
// than now plus MaxAdminLead. Releasing again at the same instant returns
// the node unchanged; at another instant it is a conflict naming the
// recorded release. From the release on the node raises no alerts, the
// watchdog closes whatever was open at the release, observations after it
// are not evaluated, and the monthly report ends its period there.
func (s *Service) ReleaseNode(ctx context.Context, id string, at time.Time) (store.Node, error) {
	n, err := s.store.GetNode(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Node{}, Errorf(ENotFound, "node", "%q is not registered", id)
	}
	if err != nil {
		return store.Node{}, err
	}
	at = at.UTC()
	now := s.Now()
	switch {
	case at.IsZero():
		return store.Node{}, Errorf(EInvalid, "at", "missing")
	case at.Before(n.OrderedAt):
		return store.Node{}, Errorf(EInvalid, "at", "%s is before the node was ordered (%s)", at.Format(time.RFC3339), n.OrderedAt.Format(time.RFC3339))
	case at.After(now.Add(MaxAdminLead)):
		return store.Node{}, Errorf(EInvalid, "at", "%s is in the future (now %s; at most %s ahead is taken as clock slack)",
			at.Format(time.RFC3339), now.Format(time.RFC3339), MaxAdminLead)
	}
	got, err := s.store.ReleaseNode(ctx, id, at)
	if errors.Is(err, store.ErrConflict) {
		if cur, gerr := s.store.GetNode(ctx, id); gerr == nil {
			return store.Node{}, Errorf(EConflict, "at", "node %s was already released at %s; a release is recorded once",
				id, cur.ReleasedAt.Format(time.RFC3339Nano))
		}
		return store.Node{}, Errorf(EConflict, "at", "node %s was already released", id)
	}
	if err != nil {
		return store.Node{}, err
	}
	s.nodes.Delete(id) // this process's cache; others refresh within nodeCacheTTL
	s.log.Info("node released", "node", id, "at", got.ReleasedAt)
	return got, nil
}

// NewMaintenance is a maintenance notice as the provider announced it.
type NewMaintenance struct {
	Contract    string // every node of the contract; or
	Node        string // one node
	Start, End  time.Time
	AnnouncedAt time.Time
	Summary     string
}

// AnnounceMaintenance records a maintenance notice (`gpusla maintenance
// add`): the live verdicts and the monthly report take its window out of
// the books when it was announced at least the contract's
// maintenance.notice ahead. Exactly one of contract and node; the window
// must not be empty; the announcement must not lie in the future beyond
// MaxAdminLead. The same notice recorded again is a no-op; another notice
// of the same scope and start is a conflict.
func (s *Service) AnnounceMaintenance(ctx context.Context, in NewMaintenance) (store.Maintenance, error) {
	now := s.Now()
	bad := func(f, format string, a ...any) (store.Maintenance, error) {
		return store.Maintenance{}, Errorf(EInvalid, f, format, a...)
	}
	switch {
	case (in.Contract == "") == (in.Node == ""):
		return bad("contract", "name exactly one of a contract and a node")
	case in.Start.IsZero():
		return bad("start", "missing")
	case in.End.IsZero():
		return bad("end", "missing")
	case !in.End.After(in.Start):
		return bad("end", "%s is not after the start %s", in.End.UTC().Format(time.RFC3339), in.Start.UTC().Format(time.RFC3339))
	case in.AnnouncedAt.IsZero():
		return bad("announced_at", "missing")
	case in.AnnouncedAt.After(now.Add(MaxAdminLead)):
		return bad("announced_at", "%s is in the future (now %s)", in.AnnouncedAt.UTC().Format(time.RFC3339), now.Format(time.RFC3339))
	}
	if in.Node != "" {
		if _, err := s.store.GetNode(ctx, in.Node); errors.Is(err, store.ErrNotFound) {
			return bad("node", "%q is not registered", in.Node)
		} else if err != nil {
			return store.Maintenance{}, err
		}
	} else if book := s.TermsBook(); len(book) > 0 {
		if _, ok := book[in.Contract]; !ok {
			return bad("contract", "%q: unknown contract; known: %s", in.Contract, strings.Join(book.Contracts(), ", "))
		}
	}
	m := store.Maintenance{ID: store.MaintenanceID(in.Contract, in.Node, in.Start), Contract: in.Contract, Node: in.Node,
		Start: in.Start.UTC(), End: in.End.UTC(), AnnouncedAt: in.AnnouncedAt.UTC(), Summary: in.Summary, CreatedAt: now}
	err := s.store.PutMaintenance(ctx, m)
	if errors.Is(err, store.ErrExists) {
		got, lerr := s.store.ListMaintenance(ctx, m.Start, m.Start.Add(time.Nanosecond))
		if lerr != nil {
			return store.Maintenance{}, lerr
		}
		for _, x := range got {
			if x.ID == m.ID {
				if x.End.Equal(m.End) && x.AnnouncedAt.Equal(m.AnnouncedAt) && x.Summary == m.Summary {
					return x, nil
				}
				return store.Maintenance{}, Errorf(EConflict, "start", "a different notice %s is recorded (%s to %s, announced %s)", x.ID,
					x.Start.Format(time.RFC3339), x.End.Format(time.RFC3339), x.AnnouncedAt.Format(time.RFC3339))
			}
		}
		return store.Maintenance{}, fmt.Errorf("maintenance %s exists but is not listed", m.ID)
	}
	if err != nil {
		return store.Maintenance{}, err
	}
	s.log.Info("maintenance announced", "id", m.ID, "start", m.Start, "end", m.End, "announced_at", m.AnnouncedAt)
	return m, nil
}

// ParseTime reads an operator's RFC 3339 time for field, naming the field
// and the value when it is not one.
func ParseTime(field, value string) (time.Time, error) {
	if value == "" {
		return time.Time{}, Errorf(EInvalid, field, "missing")
	}
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		return time.Time{}, Errorf(EInvalid, field, "%q is not an RFC 3339 time such as 2026-03-10T12:00:00Z or 2026-03-10T20:00:00+08:00", value)
	}
	return t, nil
}
