package bolt

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gpusla/gpusla/infra/store"
)

// Buckets of store.LedgerStore, created on first use like the ticket desk's,
// so an older data folder opens unchanged. ("claims" is ClaimOnce's.)
var (
	bLedgerClaims  = []byte("ledgerclaims")
	bLedgerCredits = []byte("ledgercredits")
)

func (s *Store) CreateClaim(_ context.Context, c store.Claim) error {
	if err := s.ensure(bLedgerClaims); err != nil {
		return err
	}
	c.Version = 1
	return wrap("create claim "+c.ID, s.putIfAbsent("CreateClaim", bLedgerClaims, []byte(c.ID), c))
}

func (s *Store) GetClaim(_ context.Context, id string) (store.Claim, error) {
	var c store.Claim
	if err := s.ensure(bLedgerClaims); err != nil {
		return c, err
	}
	return c, wrap("get claim "+id, s.get("GetClaim", bLedgerClaims, []byte(id), &c))
}

func (s *Store) UpdateClaim(_ context.Context, c store.Claim, prev int64) error {
	if err := s.ensure(bLedgerClaims); err != nil {
		return err
	}
	if prev < 1 {
		return fmt.Errorf("update claim %s: previous version %d: %w", c.ID, prev, store.ErrConflict)
	}
	c.Version = prev + 1
	raw, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("update claim %s: %w", c.ID, err)
	}
	return wrap("update claim "+c.ID, s.putVersioned("UpdateClaim", bLedgerClaims, []byte(c.ID), raw, prev, store.ErrNotFound))
}

func (s *Store) ListClaims(_ context.Context) ([]store.Claim, error) {
	out, err := listAll[store.Claim](s, "ListClaims", bLedgerClaims)
	store.SortClaims(out)
	return out, wrap("list claims", err)
}

// listAll decodes every record of a ledger bucket.
func listAll[T any](s *Store, method string, bucket []byte) ([]T, error) {
	if err := s.ensure(bucket); err != nil {
		return nil, err
	}
	var out []T
	err := s.scan(method, bucket, nil, nil, func(_, v []byte) (bool, error) {
		var r T
		if err := json.Unmarshal(v, &r); err != nil {
			return false, err
		}
		out = append(out, r)
		return true, nil
	})
	return out, err
}

func (s *Store) PutBillCredit(_ context.Context, b store.BillCredit, prev int64) (int64, error) {
	if err := s.ensure(bLedgerCredits); err != nil {
		return 0, err
	}
	b.Version = prev + 1
	raw, err := json.Marshal(b)
	if err == nil {
		err = s.putVersioned("PutBillCredit", bLedgerCredits, []byte(b.Key), raw, prev, store.ErrConflict)
	}
	if err != nil {
		return 0, wrap("put bill credit "+b.Key, err)
	}
	return b.Version, nil
}

func (s *Store) GetBillCredit(_ context.Context, key string) (store.BillCredit, error) {
	var b store.BillCredit
	if err := s.ensure(bLedgerCredits); err != nil {
		return b, err
	}
	return b, wrap("get bill credit "+key, s.get("GetBillCredit", bLedgerCredits, []byte(key), &b))
}

func (s *Store) ListBillCredits(_ context.Context) ([]store.BillCredit, error) {
	out, err := listAll[store.BillCredit](s, "ListBillCredits", bLedgerCredits)
	store.SortBillCredits(out)
	return out, wrap("list bill credits", err)
}

var _ store.LedgerStore = (*Store)(nil)
