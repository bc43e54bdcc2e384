package bolt

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/gpusla/gpusla/infra/store"
)

// A stored digest record that cannot be read — cut, of another record's
// form, or holding another day than its key — fails the walk naming its
// node and day; it is never skipped.
func TestDamagedDigestRecordIsAnError(t *testing.T) {
	day := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	for name, damage := range map[string]func(v []byte) []byte{
		"cut":         func(v []byte) []byte { return v[:len(v)-3] },
		"bad magic":   func(v []byte) []byte { return append([]byte("xxxx"), v[4:]...) },
		"another day": func(v []byte) []byte { return nil },
	} {
		t.Run(name, func(t *testing.T) {
			s, err := Open(filepath.Join(t.TempDir(), "gpusla.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.PutDigest(t.Context(), store.DayDigest{Node: "n1", Day: day, Body: []byte("body of the day")}); err != nil {
				t.Fatal(err)
			}
			if err := s.PutDigest(t.Context(), store.DayDigest{Node: "n1", Day: day.AddDate(0, 0, 1), Body: []byte("next")}); err != nil {
				t.Fatal(err)
			}
			if err := s.db.Update(func(tx *bbolt.Tx) error {
				b := tx.Bucket(bDigests)
				v := damage(b.Get(digestKey("n1", day)))
				if v == nil { // the next day's record under this day's key
					v = b.Get(digestKey("n1", day.AddDate(0, 0, 1)))
				}
				return b.Put(digestKey("n1", day), v)
			}); err != nil {
				t.Fatal(err)
			}
			err = s.EachDigest(t.Context(), "n1", day, day.AddDate(0, 0, 2), func(*store.DayDigest) error { return nil })
			if err == nil || !strings.Contains(err.Error(), "digest of n1, day 2026-03-04: damaged") {
				t.Fatalf("a damaged digest record: err = %v", err)
			}
		})
	}
}

// A store written before the receive-day index existed: once opened it
// indexes the records stored from then on, and reads a day before that
// from the node's records, so nothing stored earlier is missed.
func TestReceiveDayIndexOfAnOlderStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gpusla.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	put := func(s *Store, seq uint64, at time.Time) {
		t.Helper()
		if err := s.PutBatch(t.Context(), store.BatchRecord{Node: "n1", Seq: seq, ID: "b", ReceivedAt: at, Body: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	put(s, 1, old)
	put(s, 2, old.Add(time.Hour))
	// What a store of the build before holds: no index.
	if err := s.db.Update(func(tx *bbolt.Tx) error { return tx.DeleteBucket(bReceived) }); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	put(s, 3, now)
	seqs := func(day time.Time) (out []uint64) {
		t.Helper()
		if err := s.EachBatchReceived(t.Context(), "n1", day, day.Add(24*time.Hour), func(b *store.BatchRecord) error { out = append(out, b.Seq); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := seqs(store.DayOf(old)); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("the day before the index: %v, want [1 2]", got)
	}
	if got := seqs(store.DayOf(now)); len(got) != 1 || got[0] != 3 {
		t.Fatalf("the day the index began: %v, want [3]", got)
	}
	// A day after the index began is read from the index alone: a record
	// under it that the index does not name is not there.
	next := store.DayOf(now).Add(24 * time.Hour)
	if err := s.db.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket(bBatches).Put(seqKey("n1", 9), encodeBatch(&store.BatchRecord{Node: "n1", Seq: 9, ID: "x", ReceivedAt: next, Body: []byte("{}")}))
	}); err != nil {
		t.Fatal(err)
	}
	put(s, 4, next.Add(time.Hour))
	if got := seqs(next); len(got) != 1 || got[0] != 4 {
		t.Fatalf("a day after the index began: %v, want [4]", got)
	}
}
