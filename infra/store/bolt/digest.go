package bolt

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/binrec"
)

// Day digests: one record a node and day, keyed by the node and the day's
// Unix seconds, so a node's days are walked in day order.

var bDigests = []byte("digests")

// digestMagic starts a stored digest record.
const digestMagic = "gsd\x01"

func digestKey(node string, day time.Time) []byte {
	k := append([]byte(node), 0)
	return binary.BigEndian.AppendUint64(k, uint64(day.Unix()))
}

func (s *Store) PutDigest(_ context.Context, d store.DayDigest) error {
	day := store.DayOf(d.Day)
	if !day.Equal(d.Day) {
		return fmt.Errorf("put digest %s/%s: %s is not a UTC day's first instant", d.Node, day.Format(time.DateOnly), d.Day)
	}
	raw := append([]byte(digestMagic), binrec.AppendString(nil, d.Node)...)
	raw = binrec.AppendTime(raw, day)
	raw = binrec.AppendTime(raw, d.ExpiresAt)
	raw = binrec.AppendBytes(raw, d.Body)
	return wrap(fmt.Sprintf("put digest %s/%s", d.Node, day.Format(time.DateOnly)), s.putRawIfAbsent("PutDigest", bDigests, digestKey(d.Node, day), raw))
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
	if len(v) < len(digestMagic) || string(v[:len(digestMagic)]) != digestMagic {
		return nil, errors.New("no digest record (bad magic)")
	}
	r := binrec.NewReader("digest record", v[len(digestMagic):])
	d := &store.DayDigest{Node: r.String("node"), Day: r.Time("day"), ExpiresAt: r.Time("expires_at"), Body: r.Bytes("body")}
	return d, r.End()
}

var _ store.Digests = (*Store)(nil)
