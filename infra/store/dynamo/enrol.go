package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gpusla/gpusla/infra/store"
)

// Enrolment items (store.EnrolmentStore), in the same table:
//
//	record           pk      sk                       read by
//	enrolment token  ENROL   TOKEN#<id>               GetItem; Query(ENROL, TOKEN#…)
//	enrolment        ENROL   NODE#<node>#<at>         Query(ENROL, NODE#…)
//
// A token's uses change by UpdateItem alone — "uses = uses + 1" on the
// condition that uses < max_uses and the token is not revoked — so fifty
// probes enrolling at once take at most max_uses uses with one write each
// and no retries; a revocation sets revoked_at the same way, so neither
// can overwrite the other's field.
const enrolPK = "ENROL"

func tokenSK(id string) string { return "TOKEN#" + id }

func (s *Store) CreateEnrolToken(ctx context.Context, t store.EnrolToken) error {
	item, err := marshal(t, enrolPK, tokenSK(t.ID), nil)
	if err != nil {
		return err
	}
	return wrap("create enrolment token "+t.ID, s.putNew(ctx, "CreateEnrolToken", item))
}

func (s *Store) GetEnrolToken(ctx context.Context, id string) (store.EnrolToken, error) {
	var t store.EnrolToken
	err := s.get(ctx, "GetEnrolToken", enrolPK, tokenSK(id), true, &t)
	return t, wrap("get enrolment token "+id, err)
}

func (s *Store) ListEnrolTokens(ctx context.Context) ([]store.EnrolToken, error) {
	var out []store.EnrolToken
	err := s.query(ctx, "ListEnrolTokens", "", enrolPK, "TOKEN#", "TOKEN$", true, func(it map[string]types.AttributeValue) error {
		var t store.EnrolToken
		if err := unmarshal(it, &t); err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	return out, wrap("list enrolment tokens", err)
}

// update applies one UpdateItem to a token on a condition and returns the
// token as stored after it; a failed condition is errCond.
func (s *Store) update(ctx context.Context, method string, k map[string]types.AttributeValue, expr, cond string,
	values map[string]types.AttributeValue, names map[string]string) (map[string]types.AttributeValue, error) {
	in := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       k,
		UpdateExpression:          aws.String(expr),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeValues: values,
		ExpressionAttributeNames:  names,
		ReturnValues:              types.ReturnValueAllNew,
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	}
	out, err := s.db.UpdateItem(ctx, in)
	s.ops.Add(method, store.OpWrite, 1)
	if err != nil {
		if isCondFailure(err) {
			s.ops.Add(method, store.OpCondFailure, 1)
			s.countUnits(method, store.OpWrite, nil, writeUnits(1024))
			return nil, errCond
		}
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	s.countUnits(method, store.OpWrite, out.ConsumedCapacity, writeUnits(itemSize(out.Attributes)))
	return out.Attributes, nil
}

// changeToken runs one conditional update of a token; a failed condition
// is ErrNotFound when the token is absent, else ErrConflict.
func (s *Store) changeToken(ctx context.Context, method, id, expr, cond string, values map[string]types.AttributeValue) (store.EnrolToken, error) {
	var t store.EnrolToken
	names := map[string]string{"#pk": PartitionKey}
	it, err := s.update(ctx, method, key(enrolPK, tokenSK(id)), expr, "attribute_exists(#pk) AND "+cond, values, names)
	if err == errCond {
		if _, gerr := s.GetEnrolToken(ctx, id); gerr != nil {
			return t, gerr
		}
		return t, wrap(method+" "+id, store.ErrConflict)
	}
	if err != nil {
		return t, err
	}
	return t, unmarshal(it, &t)
}

func (s *Store) UseEnrolToken(ctx context.Context, id string) (store.EnrolToken, error) {
	return s.changeToken(ctx, "UseEnrolToken", id, "SET uses = uses + :one",
		"attribute_not_exists(revoked_at) AND uses < max_uses", map[string]types.AttributeValue{":one": num(1)})
}

func (s *Store) ReturnEnrolTokenUse(ctx context.Context, id string) (store.EnrolToken, error) {
	return s.changeToken(ctx, "ReturnEnrolTokenUse", id, "SET uses = uses - :one",
		"uses > :zero", map[string]types.AttributeValue{":one": num(1), ":zero": num(0)})
}

func (s *Store) RevokeEnrolToken(ctx context.Context, id string, at time.Time, by string) (store.EnrolToken, error) {
	t, err := s.changeToken(ctx, "RevokeEnrolToken", id, "SET revoked_at = :at, revoked_by = :by",
		"attribute_not_exists(revoked_at)", map[string]types.AttributeValue{":at": str(at.UTC().Format(time.RFC3339Nano)), ":by": str(by)})
	if err != nil && !errors.Is(err, store.ErrConflict) {
		return t, err
	}
	if err != nil {
		// Revoked before: keep the first record.
		return s.GetEnrolToken(ctx, id)
	}
	return t, nil
}

func (s *Store) PutEnrolment(ctx context.Context, e store.Enrolment) error {
	item, err := marshal(e, enrolPK, "NODE#"+e.Node+"#"+tkey(e.At), nil)
	if err != nil {
		return err
	}
	return wrap("put enrolment "+e.Node, s.putNew(ctx, "PutEnrolment", item))
}

func (s *Store) ListEnrolments(ctx context.Context, node string) ([]store.Enrolment, error) {
	lo, hi := "NODE#", "NODE$"
	if node != "" {
		lo, hi = "NODE#"+node+"#", "NODE#"+node+"$"
	}
	var out []store.Enrolment
	err := s.query(ctx, "ListEnrolments", "", enrolPK, lo, hi, true, func(it map[string]types.AttributeValue) error {
		var e store.Enrolment
		if err := unmarshal(it, &e); err != nil {
			return err
		}
		out = append(out, e)
		return nil
	})
	store.SortEnrolments(out)
	return out, wrap("list enrolments", err)
}

// ReenrolNode rewrites the node item on the condition that it exists and
// still holds the secret the caller read.
func (s *Store) ReenrolNode(ctx context.Context, n store.Node, prevSealed []byte) error {
	item, err := marshal(n, nodesPK, "NODE#"+n.ID, nil)
	if err != nil {
		return err
	}
	err = s.put(ctx, "ReenrolNode", item, "attribute_exists(#pk) AND sealed_secret = :prev",
		map[string]types.AttributeValue{":prev": &types.AttributeValueMemberB{Value: prevSealed}})
	if err == errCond {
		if _, gerr := s.GetNode(ctx, n.ID); gerr != nil {
			return gerr
		}
		return wrap("re-enrol node "+n.ID, store.ErrConflict)
	}
	return wrap("re-enrol node "+n.ID, err)
}

var _ store.EnrolmentStore = (*Store)(nil)
