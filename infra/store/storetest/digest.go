package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// testDigests holds both stores to store.Digests: a node's day digests
// written once (of two writers racing, one write stays), walked in day
// order for the days beginning in the period, an expired one no longer
// handed over, a day not a UTC midnight refused.
func testDigests(t *testing.T, s store.Store) {
	ds, ok := s.(store.Digests)
	if !ok {
		t.Fatalf("%T does not implement store.Digests", s)
	}
	day0 := store.DayOf(t0)
	keep := t0.Add(400 * 24 * time.Hour)
	for i := range 40 {
		d := store.DayDigest{Node: "n1", Day: day0.AddDate(0, 0, i), Body: fmt.Appendf(nil, "day %d", i), ExpiresAt: keep}
		switch i {
		case 5:
			d.ExpiresAt = time.Now().Add(-time.Minute) // expired, not yet swept
		case 6:
			d.ExpiresAt = time.Time{} // nothing in it expires
		case 7:
			d.Body = []byte{} // a day with no batches
		}
		must(t, ds.PutDigest(ctx(), d), "PutDigest")
	}
	// Another node whose id extends n1's.
	must(t, ds.PutDigest(ctx(), store.DayDigest{Node: "n10", Day: day0.AddDate(0, 0, 3), Body: []byte("other"), ExpiresAt: keep}), "PutDigest n10")

	walk := func(from, to time.Time) (days []int, got []store.DayDigest) {
		t.Helper()
		must(t, ds.EachDigest(ctx(), "n1", from, to, func(d *store.DayDigest) error {
			days = append(days, int(d.Day.Sub(day0)/(24*time.Hour)))
			got = append(got, *d)
			return nil
		}), "EachDigest")
		return days, got
	}
	// Days beginning in [day 2 + 1 h, day 9): 3 to 8, not 5 (expired).
	days, got := walk(day0.AddDate(0, 0, 2).Add(time.Hour), day0.AddDate(0, 0, 9))
	if want := []int{3, 4, 6, 7, 8}; !slices.Equal(days, want) {
		t.Fatalf("EachDigest [day 2 + 1h, day 9) = days %v, want %v", days, want)
	}
	for _, d := range got {
		i := int(d.Day.Sub(day0) / (24 * time.Hour))
		want := fmt.Appendf(nil, "day %d", i)
		if i == 7 {
			want = []byte{}
		}
		if d.Node != "n1" || !bytes.Equal(d.Body, want) || d.Day.Location() != time.UTC {
			t.Fatalf("day %d read back as %+v", i, d)
		}
		if i == 6 && !d.ExpiresAt.IsZero() || i != 6 && !d.ExpiresAt.Equal(keep) {
			t.Fatalf("day %d expires %s", i, d.ExpiresAt)
		}
	}
	if days, _ := walk(day0, day0.AddDate(0, 0, 100)); len(days) != 39 || days[0] != 0 || days[38] != 39 {
		t.Fatalf("EachDigest of 100 days = %v", days)
	}
	testDigestsOnce(t, ds, day0, keep)
	// The walk stops at fn's error, returned as it is.
	stop := errors.New("stop")
	n := 0
	err := ds.EachDigest(ctx(), "n1", day0, day0.AddDate(0, 0, 40), func(*store.DayDigest) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("EachDigest with fn failing: %v after %d", err, n)
	}
	if err := ds.PutDigest(ctx(), store.DayDigest{Node: "n1", Day: day0.Add(time.Hour), Body: []byte("x")}); err == nil {
		t.Fatal("PutDigest of a day not at UTC midnight: no error")
	}
}

// testDigestsOnce: a day's digest is written once; of two writers racing
// for a day, one writes and the other is told ErrExists, and the day
// holds the first write.
func testDigestsOnce(t *testing.T, ds store.Digests, day0, keep time.Time) {
	err := ds.PutDigest(ctx(), store.DayDigest{Node: "n1", Day: day0.AddDate(0, 0, 3), Body: []byte("again"), ExpiresAt: keep})
	mustIs(t, err, store.ErrExists, "PutDigest of a sealed day")
	day := day0.AddDate(0, 0, 50)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() {
			errs[i] = ds.PutDigest(ctx(), store.DayDigest{Node: "n1", Day: day, Body: fmt.Appendf(nil, "sealer %d", i), ExpiresAt: keep})
		})
	}
	wg.Wait()
	won := slices.IndexFunc(errs, func(e error) bool { return e == nil })
	if won < 0 || !errors.Is(errs[1-won], store.ErrExists) {
		t.Fatalf("two sealers: %v", errs)
	}
	var bodies []string
	must(t, ds.EachDigest(ctx(), "n1", day, day.Add(time.Hour), func(d *store.DayDigest) error {
		bodies = append(bodies, string(d.Body))
		return nil
	}), "EachDigest")
	if want := fmt.Sprintf("sealer %d", won); len(bodies) != 1 || bodies[0] != want {
		t.Fatalf("the raced day holds %q, want the winner's %q", bodies, want)
	}
	var three []string
	must(t, ds.EachDigest(ctx(), "n1", day0.AddDate(0, 0, 3), day0.AddDate(0, 0, 4), func(d *store.DayDigest) error {
		three = append(three, string(d.Body))
		return nil
	}), "EachDigest")
	if len(three) != 1 || three[0] != "day 3" {
		t.Fatalf("day 3 after a second write holds %q, want the first", three)
	}
}
