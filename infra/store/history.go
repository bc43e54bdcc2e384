package store

import (
	"context"
	"time"
)

// History is the read side the month's books are built from: what one node
// left in the store over a period, handed over record by record, so that a
// job over the whole fleet holds one node's records at a time, never the
// fleet's (the monthly report and the scorecard, built node by node). It is
// a role of its own beside Store, implemented by both stores and held to
// one contract in infra/store/storetest (history.go there).
//
// Each walk calls fn with a record of its own (fn may keep it) and stops at
// the first error fn returns, which it returns as it is (errors.Is works);
// a store's own error is wrapped with the node and what was read.
type History interface {
	// GetState returns the node's live state, whose Run is its current
	// heartbeat run; ErrNotFound before its first write.
	GetState(ctx context.Context, node string) (NodeState, error)
	// EachBatch walks the node's unexpired batch bodies received in
	// [from, to), in sequence order.
	EachBatch(ctx context.Context, node string, from, to time.Time, fn func(*BatchRecord) error) error
	// EachRun walks the node's closed heartbeat runs overlapping [from, to)
	// (a zero-length run at from counts), in start order: ListRuns, one at
	// a time.
	EachRun(ctx context.Context, node string, from, to time.Time, fn func(*HeartbeatRun) error) error
	// EachEvidence walks the node's evidence with from <= At < to, in At
	// order: ListEvidence, one at a time.
	EachEvidence(ctx context.Context, node string, from, to time.Time, fn func(*Evidence) error) error
}
