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
