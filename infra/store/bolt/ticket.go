package bolt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/gpusla/gpusla/infra/store"
)

// Buckets of app.TicketStore. They are created on first use rather than in
// Open, so a data folder written before tickets existed opens unchanged.
var (
	bTickets = []byte("tickets")
	bAPIKeys = []byte("apikeys")
	bClaims  = []byte("claims")
)

// ensure creates bucket if it does not exist yet (one read transaction
// when it does).
func (s *Store) ensure(bucket []byte) error {
	exists := false
	_ = s.db.View(func(tx *bbolt.Tx) error { exists = tx.Bucket(bucket) != nil; return nil })
	if exists {
		return nil
	}
	return s.db.Update(func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	})
}

// ---- tickets

func (s *Store) CreateTicket(_ context.Context, t store.Ticket) error {
	if err := s.ensure(bTickets); err != nil {
		return err
	}
	t.Version = 1
	return wrap("create ticket "+t.ID, s.putIfAbsent("CreateTicket", bTickets, []byte(t.ID), t))
}

func (s *Store) GetTicket(_ context.Context, id string) (store.Ticket, error) {
	var t store.Ticket
	if err := s.ensure(bTickets); err != nil {
		return t, err
	}
	return t, wrap("get ticket "+id, s.get("GetTicket", bTickets, []byte(id), &t))
}

func (s *Store) UpdateTicket(_ context.Context, t store.Ticket, prev int64) error {
	if err := s.ensure(bTickets); err != nil {
		return err
	}
	if prev < 1 {
		return fmt.Errorf("update ticket %s: previous version %d: %w", t.ID, prev, store.ErrConflict)
	}
	t.Version = prev + 1
	raw, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("update ticket %s: %w", t.ID, err)
	}
	return wrap("update ticket "+t.ID, s.putVersioned("UpdateTicket", bTickets, []byte(t.ID), raw, prev, store.ErrNotFound))
}

func (s *Store) ListTickets(_ context.Context, openOnly bool) ([]store.Ticket, error) {
	if err := s.ensure(bTickets); err != nil {
		return nil, err
	}
	var out []store.Ticket
	err := s.scan("ListTickets", bTickets, nil, nil, func(_, v []byte) (bool, error) {
		var t store.Ticket
		if err := json.Unmarshal(v, &t); err != nil {
			return false, err
		}
		if !openOnly || t.Open {
			out = append(out, t)
		}
		return true, nil
	})
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Opened.Equal(out[j].Opened) {
			return out[i].Opened.Before(out[j].Opened)
		}
		return out[i].ID < out[j].ID
	})
	return out, wrap("list tickets", err)
}

// ---- API keys

func (s *Store) CreateAPIKey(_ context.Context, k store.APIKey) error {
	if err := s.ensure(bAPIKeys); err != nil {
		return err
	}
	k.Version = 1
	return wrap("create api key "+k.ID, s.putIfAbsent("CreateAPIKey", bAPIKeys, []byte(k.ID), k))
}

func (s *Store) GetAPIKey(_ context.Context, id string) (store.APIKey, error) {
	var k store.APIKey
	if err := s.ensure(bAPIKeys); err != nil {
		return k, err
	}
	return k, wrap("get api key "+id, s.get("GetAPIKey", bAPIKeys, []byte(id), &k))
}

func (s *Store) UpdateAPIKey(_ context.Context, k store.APIKey, prev int64) error {
	if err := s.ensure(bAPIKeys); err != nil {
		return err
	}
	if prev < 1 {
		return fmt.Errorf("update api key %s: previous version %d: %w", k.ID, prev, store.ErrConflict)
	}
	k.Version = prev + 1
	raw, err := json.Marshal(k)
	if err != nil {
		return fmt.Errorf("update api key %s: %w", k.ID, err)
	}
	return wrap("update api key "+k.ID, s.putVersioned("UpdateAPIKey", bAPIKeys, []byte(k.ID), raw, prev, store.ErrNotFound))
}

func (s *Store) ListAPIKeys(_ context.Context) ([]store.APIKey, error) {
	if err := s.ensure(bAPIKeys); err != nil {
		return nil, err
	}
	var out []store.APIKey
	err := s.scan("ListAPIKeys", bAPIKeys, nil, nil, func(_, v []byte) (bool, error) {
		var k store.APIKey
		if err := json.Unmarshal(v, &k); err != nil {
			return false, err
		}
		out = append(out, k)
		return true, nil
	})
	return out, wrap("list api keys", err)
}

// ---- one-time claims

// claimPrune bounds how many stored claims one ClaimOnce looks at to drop
// expired ones, so the bucket stays small without a sweeper of its own.
const claimPrune = 32

func (s *Store) ClaimOnce(_ context.Context, key string, expires time.Time) error {
	if err := s.ensure(bClaims); err != nil {
		return err
	}
	now := s.now()
	raw, err := json.Marshal(struct {
		Expires time.Time `json:"expires"`
	}{expires.UTC()})
	if err != nil {
		return err
	}
	s.Add("ClaimOnce", store.OpWrite, 1)
	err = s.commit.do(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bClaims)
		if old := b.Get([]byte(key)); old != nil && !claimExpired(old, now) {
			return store.ErrExists
		}
		c := b.Cursor()
		var stale [][]byte
		n := 0
		for k, v := c.First(); k != nil && n < claimPrune; k, v = c.Next() {
			n++
			if claimExpired(v, now) {
				stale = append(stale, append([]byte(nil), k...))
			}
		}
		for _, k := range stale {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return b.Put([]byte(key), raw)
	})
	if errors.Is(err, store.ErrExists) {
		s.Add("ClaimOnce", store.OpCondFailure, 1)
	}
	return wrap("claim "+key, err)
}

func claimExpired(raw []byte, now time.Time) bool {
	var c struct {
		Expires time.Time `json:"expires"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return true
	}
	return !now.Before(c.Expires)
}

var _ store.TicketStore = (*Store)(nil)
