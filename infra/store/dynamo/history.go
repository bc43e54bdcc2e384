package dynamo

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gpusla/gpusla/infra/store"
)

// store.History: one node's records for a period, a page of a Query at a
// time (DynamoDB returns at most 1 MB a page).

// fnError carries the walk's caller's own error through the query, which
// stops at it; the walk returns it unwrapped.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

// called wraps fn's error, if any, as the caller's.
func called(err error) error {
	if err != nil {
		return fnError{err}
	}
	return nil
}

// each runs a query and hands each item to visit; the caller's error is
// returned as it is, the store's wrapped with what.
func (s *Store) each(ctx context.Context, method, what, pk, lo, hi string, visit func(map[string]types.AttributeValue) error) error {
	err := s.query(ctx, method, "", pk, lo, hi, false, visit)
	if fe, ok := errors.AsType[fnError](err); ok {
		return fe.err
	}
	return wrap(what, err)
}

// EachBatch reads every batch of the node (bodies are keyed by sequence,
// not by time) and hands over those received in the period; the others
// cost their read units but are not inflated.
func (s *Store) EachBatch(ctx context.Context, node string, from, to time.Time, fn func(*store.BatchRecord) error) error {
	return s.each(ctx, "EachBatch", "walk batches of "+node, nodePK(node), seqSK(0), seqSK(1<<64-1), func(it map[string]types.AttributeValue) error {
		if at, ok := itemTime(it, "received_at"); ok && (at.Before(from) || !at.Before(to)) {
			return nil
		}
		b, err := decodeBatch(it)
		if err != nil {
			return err
		}
		if b.ReceivedAt.Before(from) || !b.ReceivedAt.Before(to) || s.expired(b) {
			return nil
		}
		return called(fn(&b))
	})
}

// itemTime reads a time attribute without decoding the item.
func itemTime(it map[string]types.AttributeValue, name string) (time.Time, bool) {
	v, ok := it[name].(*types.AttributeValueMemberS)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, v.Value)
	return t, err == nil
}

func (s *Store) EachRun(ctx context.Context, node string, from, to time.Time, fn func(*store.HeartbeatRun) error) error {
	return s.each(ctx, "EachRun", "walk runs of "+node, nodePK(node), "RUN#", "RUN#"+tkey(to), func(it map[string]types.AttributeValue) error {
		var r store.HeartbeatRun
		if err := unmarshal(it, &r); err != nil {
			return err
		}
		// The embedded store's overlap rule (ListRuns).
		if r.From.Before(to) && (r.To.After(from) || r.To.Equal(from) && r.From.Equal(from)) {
			return called(fn(&r))
		}
		return nil
	})
}

func (s *Store) EachEvidence(ctx context.Context, node string, from, to time.Time, fn func(*store.Evidence) error) error {
	return s.each(ctx, "EachEvidence", "walk evidence of "+node, nodePK(node), "EV#"+tkey(from), "EV#"+tkey(to), func(it map[string]types.AttributeValue) error {
		var e store.Evidence
		if err := unmarshal(it, &e); err != nil {
			return err
		}
		if !e.At.Before(from) && e.At.Before(to) {
			return called(fn(&e))
		}
		return nil
	})
}

var _ store.History = (*Store)(nil)
