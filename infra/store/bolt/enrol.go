package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/gpusla/gpusla/infra/store"
)

// Buckets of store.EnrolmentStore, created on first use so an older data
// folder opens unchanged. Tokens are keyed by id; enrolments by node, 0,
// time.
var (
	bEnrolTokens = []byte("enroltokens")
	bEnrolments  = []byte("enrolments")
)

func (s *Store) CreateEnrolToken(_ context.Context, t store.EnrolToken) error {
	if err := s.ensure(bEnrolTokens); err != nil {
		return err
	}
	return wrap("create enrolment token "+t.ID, s.putIfAbsent("CreateEnrolToken", bEnrolTokens, []byte(t.ID), t))
}

func (s *Store) GetEnrolToken(_ context.Context, id string) (store.EnrolToken, error) {
	var t store.EnrolToken
	if err := s.ensure(bEnrolTokens); err != nil {
		return t, err
	}
	return t, wrap("get enrolment token "+id, s.get("GetEnrolToken", bEnrolTokens, []byte(id), &t))
}

func (s *Store) ListEnrolTokens(_ context.Context) ([]store.EnrolToken, error) {
	if err := s.ensure(bEnrolTokens); err != nil {
		return nil, err
	}
	var out []store.EnrolToken
	err := s.scan("ListEnrolTokens", bEnrolTokens, nil, nil, func(_, v []byte) (bool, error) {
		var t store.EnrolToken
		if err := json.Unmarshal(v, &t); err != nil {
			return false, err
		}
		out = append(out, t)
		return true, nil
	})
	return out, wrap("list enrolment tokens", err)
}

// changeToken reads, changes and writes a token in one write transaction:
// change returns an error (store.ErrConflict) to write nothing.
func (s *Store) changeToken(method, id string, change func(*store.EnrolToken) error) (store.EnrolToken, error) {
	var t store.EnrolToken
	if err := s.ensure(bEnrolTokens); err != nil {
		return t, err
	}
	s.Add(method, store.OpWrite, 1)
	err := s.commit.do(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bEnrolTokens)
		raw := b.Get([]byte(id))
		if raw == nil {
			return store.ErrNotFound
		}
		t = store.EnrolToken{}
		if err := json.Unmarshal(raw, &t); err != nil {
			return fmt.Errorf("decode enrolment token: %w", err)
		}
		if err := change(&t); err != nil {
			return err
		}
		out, err := json.Marshal(t)
		if err != nil {
			return err
		}
		return b.Put([]byte(id), out)
	})
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
		s.Add(method, store.OpCondFailure, 1)
	}
	return t, wrap(method+" "+id, err)
}

func (s *Store) UseEnrolToken(_ context.Context, id string) (store.EnrolToken, error) {
	return s.changeToken("UseEnrolToken", id, func(t *store.EnrolToken) error {
		if !t.RevokedAt.IsZero() || t.Uses >= t.MaxUses {
			return store.ErrConflict
		}
		t.Uses++
		return nil
	})
}

func (s *Store) ReturnEnrolTokenUse(_ context.Context, id string) (store.EnrolToken, error) {
	return s.changeToken("ReturnEnrolTokenUse", id, func(t *store.EnrolToken) error {
		if t.Uses <= 0 {
			return store.ErrConflict
		}
		t.Uses--
		return nil
	})
}

func (s *Store) RevokeEnrolToken(_ context.Context, id string, at time.Time, by string) (store.EnrolToken, error) {
	return s.changeToken("RevokeEnrolToken", id, func(t *store.EnrolToken) error {
		if t.RevokedAt.IsZero() {
			t.RevokedAt, t.RevokedBy = at.UTC(), by
		}
		return nil
	})
}

func (s *Store) PutEnrolment(_ context.Context, e store.Enrolment) error {
	if err := s.ensure(bEnrolments); err != nil {
		return err
	}
	return wrap("put enrolment "+e.Node, s.putIfAbsent("PutEnrolment", bEnrolments, key(e.Node, timeKey(e.At)), e))
}

func (s *Store) ListEnrolments(_ context.Context, node string) ([]store.Enrolment, error) {
	if err := s.ensure(bEnrolments); err != nil {
		return nil, err
	}
	var prefix []byte
	if node != "" {
		prefix = key(node, "")
	}
	var out []store.Enrolment
	err := s.scan("ListEnrolments", bEnrolments, prefix, nil, func(_, v []byte) (bool, error) {
		var e store.Enrolment
		if err := json.Unmarshal(v, &e); err != nil {
			return false, err
		}
		out = append(out, e)
		return true, nil
	})
	store.SortEnrolments(out)
	return out, wrap("list enrolments", err)
}

func (s *Store) ReenrolNode(_ context.Context, n store.Node, prevSealed []byte) error {
	raw, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("encode node: %w", err)
	}
	s.Add("ReenrolNode", store.OpWrite, 1)
	err = s.commit.do(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bNodes)
		old := b.Get([]byte(n.ID))
		if old == nil {
			return store.ErrNotFound
		}
		var cur store.Node
		if err := json.Unmarshal(old, &cur); err != nil {
			return fmt.Errorf("decode node: %w", err)
		}
		if !bytes.Equal(cur.SealedSecret, prevSealed) {
			return store.ErrConflict
		}
		return b.Put([]byte(n.ID), raw)
	})
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
		s.Add("ReenrolNode", store.OpCondFailure, 1)
	}
	return wrap("re-enrol node "+n.ID, err)
}

var _ store.EnrolmentStore = (*Store)(nil)
