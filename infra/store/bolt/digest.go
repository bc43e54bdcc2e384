package bolt

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/binrec"
)

// Day digests: one record a node and day, keyed by the node and the day's
// Unix seconds, so a node's days are walked in day order.

var bDigests = []byte("digests")

// digestMagic starts a stored digest record; digestMagic1 one written
// before days could be voided (read as never voided).
const (
	digestMagic  = "gsd\x02"
	digestMagic1 = "gsd\x01"
)

func digestKey(node string, day time.Time) []byte {
	k := append([]byte(node), 0)
	return binary.BigEndian.AppendUint64(k, uint64(day.Unix()))
}

func (s *Store) PutDigest(_ context.Context, d store.DayDigest) error {
	day := store.DayOf(d.Day)
	what := fmt.Sprintf("put digest %s/%s", d.Node, day.Format(time.DateOnly))
	if !day.Equal(d.Day) {
		return fmt.Errorf("%s: %s is not a UTC day's first instant", what, d.Day)
	}
	if d.Voided {
		return fmt.Errorf("%s: a voided day is the store's to write", what)
	}
	d.Day = day
	raw := encodeDigest(&d)
	s.Add("PutDigest", store.OpWrite, 1)
	err := s.commit.do(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bDigests)
		k := digestKey(d.Node, day)
		if old := b.Get(k); old != nil || d.Void != "" {
			if old == nil {
				return store.ErrExists // voided once, swept since: read from its records
			}
			od, err := decodeDigest(old)
			if err != nil {
				return fmt.Errorf("the day's record: %w", err)
			}
			if !od.Voided || od.Void != d.Void {
				return store.ErrExists
			}
		}
		return b.Put(k, raw)
	})
	if errors.Is(err, store.ErrExists) {
		s.Add("PutDigest", store.OpCondFailure, 1)
	}
	return wrap(what, err)
}

// voidDigest voids the digest of the day b was received in if b lands
// in a day already over (store.LateForDay), in tx, the transaction that
// stores b: whoever read the day before has no digest to show for it.
func (s *Store) voidDigest(tx *bbolt.Tx, b *store.BatchRecord, now time.Time) error {
	if !store.LateForDay(b.ReceivedAt, now) {
		return nil
	}
	day := store.DayOf(b.ReceivedAt)
	raw := encodeDigest(&store.DayDigest{Node: b.Node, Day: day, ExpiresAt: b.ExpiresAt, Voided: true, Void: store.VoidMark(now, b.Seq)})
	return tx.Bucket(bDigests).Put(digestKey(b.Node, day), raw)
}

func encodeDigest(d *store.DayDigest) []byte {
	raw := append([]byte(digestMagic), binrec.AppendString(nil, d.Node)...)
	raw = binrec.AppendTime(raw, d.Day)
	raw = binrec.AppendTime(raw, d.ExpiresAt)
	var voided uint64
	if d.Voided {
		voided = 1
	}
	raw = binrec.AppendUint(raw, voided)
	raw = binrec.AppendString(raw, d.Void)
	return binrec.AppendBytes(raw, d.Body)
}

func (s *Store) EachDigest(ctx context.Context, node string, from, to time.Time, fn func(*store.DayDigest) error) error {
	now := s.now()
	prefix := append([]byte(node), 0)
	return walk(ctx, s, "EachDigest", "walk digests of "+node, bDigests, prefix, func(k, v []byte) (*store.DayDigest, bool, error) {
		if len(k) != len(prefix)+8 {
			return nil, false, fmt.Errorf("digest of %s: key of %d bytes", node, len(k))
		}
		day := time.Unix(int64(binary.BigEndian.Uint64(k[len(prefix):])), 0).UTC()
		if day.Before(from) || !day.Before(to) {
			return nil, !day.Before(to), nil
		}
		d, err := decodeDigest(v)
		if err != nil || d.Node != node || !d.Day.Equal(day) {
			if err == nil {
				err = fmt.Errorf("record of %s/%s", d.Node, d.Day.Format(time.DateOnly))
			}
			return nil, false, fmt.Errorf("digest of %s, day %s: damaged: %w", node, day.Format(time.DateOnly), err)
		}
		if !d.ExpiresAt.IsZero() && !now.Before(d.ExpiresAt) {
			return nil, false, nil
		}
		return d, false, nil
	}, fn)
}

func decodeDigest(v []byte) (*store.DayDigest, error) {
	if len(v) < len(digestMagic) {
		return nil, errors.New("no digest record (bad magic)")
	}
	magic := string(v[:len(digestMagic)])
	if magic != digestMagic && magic != digestMagic1 {
		return nil, errors.New("no digest record (bad magic)")
	}
	r := binrec.NewReader("digest record", v[len(digestMagic):])
	d := &store.DayDigest{Node: r.String("node"), Day: r.Time("day"), ExpiresAt: r.Time("expires_at")}
	if magic == digestMagic {
		switch r.Uint("voided") {
		case 0:
		case 1:
			d.Voided = true
		default:
			r.Fail("voided", errors.New("not 0 or 1"))
		}
		d.Void = r.String("void")
	}
	d.Body = r.Bytes("body")
	if d.Voided {
		d.Body = nil
	}
	return d, r.End()
}

// The receive-day index: a key for each batch record, node, day and
// sequence, so a day of a node's records is a walk of its keys and a read
// of each record, not a walk of the node's whole history. A store opened
// before the index existed records when it began (receivedSinceKey, a
// key no node's can be: node ids are never empty); the days before are
// read by EachBatch.
var (
	bReceived        = []byte("received")
	receivedSinceKey = []byte{0, 's', 'i', 'n', 'c', 'e'}
)

func receivedKey(node string, at time.Time, seq uint64) []byte {
	k := digestKey(node, store.DayOf(at))
	return binary.BigEndian.AppendUint64(k, seq)
}

// EachBatchReceived walks the period's index keys and reads each record.
func (s *Store) EachBatchReceived(ctx context.Context, node string, from, to time.Time, fn func(*store.BatchRecord) error) error {
	what := fmt.Sprintf("walk batches of %s received %s to %s", node, from.Format(time.RFC3339), to.Format(time.RFC3339))
	now := s.now()
	var recs []store.BatchRecord
	indexed := true
	s.Add("EachBatchReceived", store.OpQuery, 1)
	err := s.db.View(func(tx *bbolt.Tx) error {
		idx := tx.Bucket(bReceived)
		if idx == nil {
			indexed = false // a snapshot of a store from before the index
			return nil
		}
		if since := idx.Get(receivedSinceKey); since != nil {
			r := binrec.NewReader("index start", since)
			t := r.Time("since")
			if err := r.End(); err != nil {
				return err
			}
			if indexed = !store.DayOf(from).Before(store.DayOf(t).Add(24 * time.Hour)); !indexed {
				return nil
			}
		}
		prefix := append([]byte(node), 0)
		end := digestKey(node, store.DayOf(to.Add(-1)).Add(24*time.Hour))
		batches := tx.Bucket(bBatches)
		c := idx.Cursor()
		for k, _ := c.Seek(digestKey(node, store.DayOf(from))); k != nil && bytes.HasPrefix(k, prefix) && bytes.Compare(k, end) < 0; k, _ = c.Next() {
			if len(k) != len(prefix)+16 {
				return fmt.Errorf("index key of %d bytes", len(k))
			}
			v := batches.Get(seqKey(node, binary.BigEndian.Uint64(k[len(prefix)+8:])))
			if v == nil {
				continue
			}
			var b store.BatchRecord
			if err := decodeBatch(v, &b); err != nil {
				return err
			}
			// Under one number, a record received another day (its index
			// key is that day's), or outside the period's first or last day.
			day := binary.BigEndian.Uint64(k[len(prefix):])
			if uint64(store.DayOf(b.ReceivedAt).Unix()) != day || b.ReceivedAt.Before(from) || !b.ReceivedAt.Before(to) ||
				(!b.ExpiresAt.IsZero() && !now.Before(b.ExpiresAt)) {
				continue
			}
			recs = append(recs, b)
		}
		return nil
	})
	if err != nil {
		return wrap(what, err)
	}
	if !indexed {
		return s.EachBatch(ctx, node, from, to, fn)
	}
	slices.SortFunc(recs, func(a, b store.BatchRecord) int { return cmp.Compare(a.Seq, b.Seq) })
	for i := range recs {
		if err := fn(&recs[i]); err != nil {
			return err
		}
	}
	return nil
}

var _ store.DayBatches = (*Store)(nil)

var _ store.Digests = (*Store)(nil)
