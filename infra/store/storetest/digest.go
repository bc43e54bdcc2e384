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

// testDigestVoids holds both stores to what keeps a day's digest from
// ever holding less than the day's records: a batch stored after its
// receive day is over voids the day's digest (in the same write on the
// embedded store, right after the batch on DynamoDB), a sealer that saw
// the day before that void cannot write over it, and one that saw the
// void seals the day again. The day's records are read alone
// (DayBatches), in sequence order, whatever their numbers.
func testDigestVoids(t *testing.T, s store.Store) {
	ds, ok := s.(store.Digests)
	if !ok {
		t.Fatalf("%T does not implement store.Digests", s)
	}
	db, ok := s.(store.DayBatches)
	if !ok {
		t.Fatalf("%T does not implement store.DayBatches", s)
	}
	clock, ok := s.(interface{ SetClock(func() time.Time) })
	if !ok {
		t.Fatalf("%T has no SetClock", s)
	}
	now := t0
	clock.SetClock(func() time.Time { return now })
	t.Cleanup(func() { clock.SetClock(time.Now) })
	day := store.DayOf(t0)
	keep := t0.Add(400 * 24 * time.Hour)
	put := func(node string, seq uint64, recv time.Time, expires time.Time) error {
		return s.PutBatch(ctx(), store.BatchRecord{Node: node, Seq: seq, ID: fmt.Sprintf("%s-%d", node, seq), Hash: "h", ReceivedAt: recv,
			Why: []string{"checks"}, Body: fmt.Appendf(nil, `{"seq":%d}`, seq), ExpiresAt: expires})
	}
	// The store's first batch, three days before: days from the next on
	// are read by their receipts on every store.
	now = day.AddDate(0, 0, -3).Add(time.Hour)
	must(t, put("n1", 100, now, keep), "PutBatch three days before")
	now = t0
	must(t, put("n1", 5, t0, keep), "PutBatch 5")
	must(t, put("n1", 7, t0.Add(time.Hour), keep), "PutBatch 7")
	must(t, put("n1", 1, t0.Add(2*time.Hour), keep), "PutBatch 1 (an old number received late)")
	must(t, put("n1", 4, t0.Add(3*time.Hour), t0.Add(4*time.Hour)), "PutBatch 4 (expires within the day)")
	must(t, put("n10", 6, t0, keep), "PutBatch n10")
	now = t0.Add(24 * time.Hour)
	must(t, put("n1", 3, now, keep), "PutBatch 3 the next day")

	ofDay := func(d time.Time) []uint64 {
		t.Helper()
		var seqs []uint64
		must(t, db.EachBatchReceived(ctx(), "n1", d, d.Add(24*time.Hour), func(b *store.BatchRecord) error {
			if !store.DayOf(b.ReceivedAt).Equal(d) || b.Node != "n1" || string(b.Body) != fmt.Sprintf(`{"seq":%d}`, b.Seq) {
				t.Fatalf("EachBatchReceived %s handed %+v", d.Format(time.DateOnly), b)
			}
			seqs = append(seqs, b.Seq)
			return nil
		}), "EachBatchReceived")
		return seqs
	}
	if got := ofDay(day); !slices.Equal(got, []uint64{1, 5, 7}) {
		t.Fatalf("EachBatchReceived of the day = %v, want [1 5 7] (4 expired)", got)
	}
	if got := ofDay(day.AddDate(0, 0, 1)); !slices.Equal(got, []uint64{3}) {
		t.Fatalf("EachBatchReceived of the next day = %v, want [3]", got)
	}
	stop := errors.New("stop")
	mustIs(t, db.EachBatchReceived(ctx(), "n1", day, day.Add(24*time.Hour), func(*store.BatchRecord) error { return stop }), stop, "EachBatchReceived with fn failing")
	// A period of whole and partial days: [day 10:30, next day 10:00].
	var span []uint64
	must(t, db.EachBatchReceived(ctx(), "n1", t0.Add(30*time.Minute), t0.Add(24*time.Hour+time.Nanosecond), func(b *store.BatchRecord) error {
		span = append(span, b.Seq)
		return nil
	}), "EachBatchReceived over two days")
	if !slices.Equal(span, []uint64{1, 3, 7}) {
		t.Fatalf("EachBatchReceived [10:30, next day 10:00] = %v, want [1 3 7] in sequence order", span)
	}

	days := func() []store.DayDigest {
		t.Helper()
		var out []store.DayDigest
		must(t, ds.EachDigest(ctx(), "n1", day, day.Add(24*time.Hour), func(d *store.DayDigest) error {
			out = append(out, *d)
			return nil
		}), "EachDigest")
		return out
	}
	// Nothing stored late so far: the day has no record, and is sealed.
	if got := days(); len(got) != 0 {
		t.Fatalf("the day before sealing holds %+v", got)
	}
	now = day.Add(25 * time.Hour)
	must(t, ds.PutDigest(ctx(), store.DayDigest{Node: "n1", Day: day, Body: []byte("1 5 7"), ExpiresAt: keep}), "PutDigest")

	// A batch received in the day but stored after it ended voids it.
	now = day.Add(26 * time.Hour)
	must(t, put("n1", 8, day.Add(24*time.Hour-time.Second), keep), "PutBatch 8, stored late")
	got := days()
	if len(got) != 1 || !got[0].Voided || got[0].Body != nil || got[0].Void == "" {
		t.Fatalf("the day after a late batch holds %+v, want it voided", got)
	}
	m1 := got[0].Void
	if seqs := ofDay(day); !slices.Equal(seqs, []uint64{1, 5, 7, 8}) {
		t.Fatalf("EachBatchReceived after the late batch = %v", seqs)
	}
	// A sealer that read the day before the void writes nothing.
	err := ds.PutDigest(ctx(), store.DayDigest{Node: "n1", Day: day, Body: []byte("stale"), ExpiresAt: keep})
	mustIs(t, err, store.ErrExists, "PutDigest of a voided day by a sealer that did not see the void")
	// Voided again while a sealer that saw the first void reads the day.
	now = now.Add(time.Minute)
	must(t, put("n1", 9, day.Add(20*time.Hour), keep), "PutBatch 9, stored late")
	got = days()
	if len(got) != 1 || !got[0].Voided || got[0].Void == m1 {
		t.Fatalf("the day voided twice holds %+v (first mark %q)", got, m1)
	}
	m2 := got[0].Void
	err = ds.PutDigest(ctx(), store.DayDigest{Node: "n1", Day: day, Body: []byte("1 5 7 8"), ExpiresAt: keep, Void: m1})
	mustIs(t, err, store.ErrExists, "PutDigest by a sealer that saw the first void only")
	if err := ds.PutDigest(ctx(), store.DayDigest{Node: "n1", Day: day, Body: []byte("x"), Voided: true, Void: m2}); err == nil {
		t.Fatal("PutDigest of a voided day by a caller: no error")
	}
	// The sealer that saw the last void seals the day again, once.
	must(t, ds.PutDigest(ctx(), store.DayDigest{Node: "n1", Day: day, Body: []byte("1 5 7 8 9"), ExpiresAt: keep, Void: m2}), "PutDigest over the void")
	mustIs(t, ds.PutDigest(ctx(), store.DayDigest{Node: "n1", Day: day, Body: []byte("again"), ExpiresAt: keep, Void: m2}), store.ErrExists, "PutDigest twice over one void")
	got = days()
	if len(got) != 1 || got[0].Voided || string(got[0].Body) != "1 5 7 8 9" || got[0].Void != m2 {
		t.Fatalf("the day sealed again holds %+v", got)
	}
	// A batch given again is not stored again and voids nothing.
	mustIs(t, put("n1", 9, now, keep), store.ErrExists, "PutBatch 9 again")
	if got = days(); len(got) != 1 || got[0].Voided {
		t.Fatalf("the day after a batch given again holds %+v", got)
	}
	// Another node's day is its own.
	var other []store.DayDigest
	must(t, ds.EachDigest(ctx(), "n10", day, day.Add(24*time.Hour), func(d *store.DayDigest) error { other = append(other, *d); return nil }), "EachDigest n10")
	if len(other) != 0 {
		t.Fatalf("n10's day holds %+v", other)
	}
}
