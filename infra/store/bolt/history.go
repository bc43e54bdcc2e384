package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/binrec"
)

// store.History: one node's records for a period, a chunk at a time.

// historyChunk is how many records a walk reads in one read transaction
// before handing them to the caller outside it: bbolt can grow its file only
// when no read transaction is open, so a walk whose caller works on each
// record (decoding bodies, building a node's month) must not hold one while
// ingest writes.
const historyChunk = 256

// pick decides on one stored record: the record to hand over (nil: skip
// it), or stop (no later key can match).
type pick[T any] func(k, v []byte) (rec *T, stop bool, err error)

// walk hands fn every record pick keeps among the keys with prefix, in key
// order, a chunk per read transaction. fn's error is returned as it is; the
// store's own (a record it cannot read) says what was walked.
func walk[T any](ctx context.Context, s *Store, method, what string, bucket, prefix []byte, p pick[T], fn func(*T) error) error {
	start := prefix
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var (
			chunk []*T
			next  []byte
		)
		s.Add(method, store.OpQuery, 1)
		err := s.db.View(func(tx *bbolt.Tx) error {
			c := tx.Bucket(bucket).Cursor()
			for k, v := c.Seek(start); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
				if len(chunk) == historyChunk {
					next = bytes.Clone(k)
					return nil
				}
				rec, stop, err := p(k, v)
				if err != nil || stop {
					return err
				}
				if rec != nil {
					chunk = append(chunk, rec)
				}
			}
			return nil
		})
		if err != nil {
			return wrap(what, err)
		}
		for _, r := range chunk {
			if err := fn(r); err != nil {
				return err
			}
		}
		if next == nil {
			return nil
		}
		start = next
	}
}

func (s *Store) EachBatch(ctx context.Context, node string, from, to time.Time, fn func(*store.BatchRecord) error) error {
	now := s.now()
	return walk(ctx, s, "EachBatch", "walk batches of "+node, bBatches, append([]byte(node), 0), func(_, v []byte) (*store.BatchRecord, bool, error) {
		// Most of a node's bodies lie outside the period (the table keeps
		// them for months): their receive time is read without decoding
		// the body.
		if at, ok := peekReceived(v); ok && (at.Before(from) || !at.Before(to)) {
			return nil, false, nil
		}
		var b store.BatchRecord
		if err := decodeBatch(v, &b); err != nil {
			return nil, false, err
		}
		if b.ReceivedAt.Before(from) || !b.ReceivedAt.Before(to) || (!b.ExpiresAt.IsZero() && !now.Before(b.ExpiresAt)) {
			return nil, false, nil
		}
		return &b, false, nil
	}, fn)
}

// peekReceived reads a batch record's receive time alone.
func peekReceived(raw []byte) (time.Time, bool) {
	if bytes.HasPrefix(raw, []byte(binMagic)) {
		r := binrec.NewReader("batch record", raw[len(binMagic):])
		r.View("node")
		r.Uint("seq")
		r.View("id")
		r.View("hash")
		at := r.Time("received_at")
		return at, r.Err() == nil
	}
	return peekTime(raw, `"received_at":"`)
}

// peekTime reads the RFC 3339 time after tag, the first key of that name
// in a stored record whose earlier fields hold no nested object (a quote
// inside a JSON string is escaped, so tag matches only a key); ok is false
// when it is not there or not a time, and the caller decodes the record.
func peekTime(raw []byte, tag string) (time.Time, bool) {
	i := bytes.Index(raw, []byte(tag))
	if i < 0 {
		return time.Time{}, false
	}
	rest := raw[i+len(tag):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(rest[:j]))
	return t, err == nil
}

func (s *Store) EachRun(ctx context.Context, node string, from, to time.Time, fn func(*store.HeartbeatRun) error) error {
	return walk(ctx, s, "EachRun", "walk runs of "+node, bRuns, append([]byte(node), 0), func(_, v []byte) (*store.HeartbeatRun, bool, error) {
		var r store.HeartbeatRun
		if err := json.Unmarshal(v, &r); err != nil {
			return nil, false, err
		}
		if !r.From.Before(to) {
			return nil, true, nil
		}
		if r.To.After(from) || r.To.Equal(from) && r.From.Equal(from) {
			return &r, false, nil
		}
		return nil, false, nil
	}, fn)
}

func (s *Store) EachEvidence(ctx context.Context, node string, from, to time.Time, fn func(*store.Evidence) error) error {
	return walk(ctx, s, "EachEvidence", "walk evidence of "+node, bEvidence, append([]byte(node), 0), func(_, v []byte) (*store.Evidence, bool, error) {
		var e store.Evidence
		if err := json.Unmarshal(v, &e); err != nil {
			return nil, false, err
		}
		if !e.At.Before(to) {
			return nil, true, nil
		}
		if e.At.Before(from) {
			return nil, false, nil
		}
		return &e, false, nil
	}, fn)
}

var _ store.History = (*Store)(nil)
