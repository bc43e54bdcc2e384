package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gpusla/gpusla/infra/store"
)

// Claims ledger items (store.LedgerStore), in the same table:
//
//	record       pk       sk               read by
//	claim        LEDGER   CLAIM#<id>       GetItem; Query(LEDGER, CLAIM#…)
//	bill credit  LEDGER   CREDIT#<key>     GetItem; Query(LEDGER, CREDIT#…)
//
// One partition holds them all: a claim per contract and month, a credit
// line or two per bill; a renter's ledger is hundreds of items, read whole
// by every listing. ("CLAIM" alone is ClaimOnce's sort key, under another
// partition.)
const ledgerPK = "LEDGER"

func ledgerClaimSK(id string) string   { return "CLAIM#" + id }
func ledgerCreditSK(key string) string { return "CREDIT#" + key }
func ledgerItem(v any, sk string) (map[string]types.AttributeValue, error) {
	return marshal(v, ledgerPK, sk, nil)
}

func (s *Store) CreateClaim(ctx context.Context, c store.Claim) error {
	c.Version = 1
	item, err := ledgerItem(c, ledgerClaimSK(c.ID))
	if err != nil {
		return err
	}
	return wrap("create claim "+c.ID, s.putNew(ctx, "CreateClaim", item))
}

func (s *Store) GetClaim(ctx context.Context, id string) (store.Claim, error) {
	var c store.Claim
	// Consistent: a versioned update follows the read.
	err := s.get(ctx, "GetClaim", ledgerPK, ledgerClaimSK(id), true, &c)
	return c, wrap("get claim "+id, err)
}

func (s *Store) UpdateClaim(ctx context.Context, c store.Claim, prev int64) error {
	if prev < 1 {
		return fmt.Errorf("update claim %s: previous version %d: %w", c.ID, prev, store.ErrConflict)
	}
	c.Version = prev + 1
	item, err := ledgerItem(c, ledgerClaimSK(c.ID))
	if err != nil {
		return err
	}
	err = s.putVersioned(ctx, "UpdateClaim", item, prev)
	if errors.Is(err, store.ErrConflict) {
		var cur store.Claim
		if gerr := s.get(ctx, "UpdateClaim", ledgerPK, ledgerClaimSK(c.ID), true, &cur); errors.Is(gerr, store.ErrNotFound) {
			return fmt.Errorf("update claim %s: %w", c.ID, store.ErrNotFound)
		}
	}
	return wrap("update claim "+c.ID, err)
}

func (s *Store) ListClaims(ctx context.Context) ([]store.Claim, error) {
	out, err := queryLedger[store.Claim](ctx, s, "ListClaims", "CLAIM#", "CLAIM$")
	store.SortClaims(out)
	return out, wrap("list claims", err)
}

// queryLedger decodes every ledger item whose sort key is in [lo, hi].
func queryLedger[T any](ctx context.Context, s *Store, method, lo, hi string) ([]T, error) {
	var out []T
	err := s.query(ctx, method, "", ledgerPK, lo, hi, false, func(it map[string]types.AttributeValue) error {
		var r T
		if err := unmarshal(it, &r); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

func (s *Store) PutBillCredit(ctx context.Context, b store.BillCredit, prev int64) (int64, error) {
	b.Version = prev + 1
	item, err := ledgerItem(b, ledgerCreditSK(b.Key))
	if err != nil {
		return 0, err
	}
	if err := s.putVersioned(ctx, "PutBillCredit", item, prev); err != nil {
		return 0, wrap("put bill credit "+b.Key, err)
	}
	return b.Version, nil
}

func (s *Store) GetBillCredit(ctx context.Context, key string) (store.BillCredit, error) {
	var b store.BillCredit
	err := s.get(ctx, "GetBillCredit", ledgerPK, ledgerCreditSK(key), true, &b)
	return b, wrap("get bill credit "+key, err)
}

func (s *Store) ListBillCredits(ctx context.Context) ([]store.BillCredit, error) {
	out, err := queryLedger[store.BillCredit](ctx, s, "ListBillCredits", "CREDIT#", "CREDIT$")
	store.SortBillCredits(out)
	return out, wrap("list bill credits", err)
}

var _ store.LedgerStore = (*Store)(nil)
