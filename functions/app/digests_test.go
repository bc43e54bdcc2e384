package app_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/batchform"
	"github.com/gpusla/gpusla/functions/fleetsim"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// digestSpy is a store whose digests and batch records are counted as the
// books read and write them; damage, when set, damages the body of the
// digest of that day as it is handed over.
type digestSpy struct {
	booksStore
	ds                      store.Digests
	records, digests, wrote atomic.Int64
	refused                 atomic.Int64
	damage                  time.Time
	// older hands every digest over as a build of the judge before this
	// one wrote it.
	older bool
}

func spyOn(t *testing.T, st booksStore) *digestSpy {
	ds, ok := st.(store.Digests)
	if !ok {
		t.Fatalf("%T keeps no digests", st)
	}
	return &digestSpy{booksStore: st, ds: ds}
}

func (s *digestSpy) EachBatch(ctx context.Context, node string, from, to time.Time, fn func(*store.BatchRecord) error) error {
	return s.booksStore.EachBatch(ctx, node, from, to, func(b *store.BatchRecord) error { s.records.Add(1); return fn(b) })
}

func (s *digestSpy) PutDigest(ctx context.Context, d store.DayDigest) error {
	err := s.ds.PutDigest(ctx, d)
	switch {
	case err == nil:
		s.wrote.Add(1)
	case errors.Is(err, store.ErrExists):
		s.refused.Add(1)
	}
	return err
}

func (s *digestSpy) EachDigest(ctx context.Context, node string, from, to time.Time, fn func(*store.DayDigest) error) error {
	return s.ds.EachDigest(ctx, node, from, to, func(d *store.DayDigest) error {
		s.digests.Add(1)
		if s.older {
			d.Body = bytes.Clone(d.Body)
			d.Body[4] = report.JudgeVersion - 1
		}
		if d.Day.Equal(s.damage) && len(d.Body) > 40 {
			d.Body = bytes.Clone(d.Body)
			d.Body[len(d.Body)-3] ^= 0xff
			d.Body = d.Body[:len(d.Body)-2]
		}
		return fn(d)
	})
}

// digestBooks are st's books reading and sealing day digests by now.
func digestBooks(spy *digestSpy, tm []*terms.Terms, skip map[string]string, now time.Time) app.Books {
	return app.Books{Store: spy, Status: spy, Terms: tm, Workers: 2, Skip: skip, Digests: spy, Now: func() time.Time { return now }}
}

func monthJSON(t *testing.T, bk app.Books, asOf time.Time) []byte {
	t.Helper()
	r, err := bk.Month(t.Context(), 2026, 3, asOf)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.JSON(&out, r); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func sameReport(t *testing.T, how string, want, got []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("the books %s differ from the log's report:\n--- log\n%.3000s\n--- books\n%.3000s", how, want, got)
	}
}

// The books from day digests are the books from the batch records and the
// exported log's report, byte for byte, on both stores: the first build
// reads the records and seals the days that can no longer change, the
// next reads those days' digests (and far fewer records), each at two
// as-of instants; the month fanned out over them is the same too.
func TestDigestBooksAreTheLogsReport(t *testing.T) {
	onBothStores(t, func(t *testing.T, st booksStore, nodes int) {
		tm := booksFleet(t, st, nodes)
		skip := map[string]string{"xx-1": "nowhere"}
		spy := spyOn(t, st)
		now := time.Date(2026, 4, 2, 1, 0, 0, 0, time.UTC) // up to 31 March sealed (Shanghai's March ends 31 March 16:00 UTC)
		for _, asOf := range []time.Time{time.Date(2026, 4, 1, 6, 0, 0, 0, time.UTC), time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC)} {
			want := logReport(t, st, tm, skip, asOf)
			sameReport(t, "from the records", want, monthJSON(t, app.Books{Store: st, Status: st, Terms: tm, Workers: 2, Skip: skip}, asOf))
			before := spy.records.Load()
			sameReport(t, "sealing", want, monthJSON(t, digestBooks(spy, tm, skip, now), asOf))
			sealing := spy.records.Load() - before
			before = spy.records.Load()
			sameReport(t, "from digests", want, monthJSON(t, digestBooks(spy, tm, skip, now), asOf))
			if read := spy.records.Load() - before; spy.wrote.Load() == 0 || read*10 > sealing {
				t.Fatalf("digests written %d; records read sealing %d, then %d", spy.wrote.Load(), sealing, read)
			}
		}
		if nodes := int64(nodes - 2); spy.wrote.Load() < nodes*31 {
			t.Fatalf("%d digests written for %d nodes' March", spy.wrote.Load(), nodes)
		}
		fanned := digestBooks(spy, tm, skip, now)
		asOf := time.Date(2026, 4, 1, 6, 0, 0, 0, time.UTC)
		whole, err := fanned.Month(t.Context(), 2026, 3, asOf)
		if err != nil {
			t.Fatal(err)
		}
		want := renderAll(t, whole)
		q := &itemList{}
		f := &app.FanOut{Books: fanned, Blobs: blobDir(t), Queue: q, Wait: time.Hour}
		if err := f.Start(t.Context(), "fanout/2026-03/all", 2026, 3, asOf, now); err != nil {
			t.Fatal(err)
		}
		for _, it := range q.items {
			if err := f.Work(t.Context(), it); err != nil {
				t.Fatalf("work %s: %v", it.Node, err)
			}
		}
		r, err := f.Assemble(t.Context(), "fanout/2026-03/all", now)
		if err != nil {
			t.Fatal(err)
		}
		if got := renderAll(t, r); !bytes.Equal(got, want) || r.Fleet == nil || len(r.Fleet.Findings) == 0 {
			t.Fatalf("the month fanned out over digests differs from the books (or finds nothing):\n--- books\n%.3000s\n--- fanned out\n%.3000s", want, got)
		}
	})
}

// lateBatch stores, on node, a batch received at recv holding a failing
// XID check observed at obs (a probe's spool delivered late).
func lateBatch(t *testing.T, st store.Store, node string, seq uint64, obs, recv time.Time) {
	t.Helper()
	g := 2
	b := wire.Batch{V: wire.Version, ID: fmt.Sprintf("%s-late-%d", node, seq), Node: node, Probe: "fleetsim", Seq: seq, CreatedAt: recv.Add(-time.Minute),
		Observations: []wire.Observation{{At: obs, Kind: wire.KindCheck, Checks: []wire.Check{
			{Name: "gpu.xid", Category: wire.CategoryGPULost, Verdict: wire.Fail, GPU: &g, Value: "79", Detail: "GPU has fallen off the bus"}}}}}
	if seq > 1 {
		b.Prev = strings.Repeat("ab", 32)
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	body, err := wire.Encode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutBatch(t.Context(), store.BatchRecord{Node: node, Seq: seq, ID: b.ID, Hash: wire.BodyHash(body), ReceivedAt: recv, Why: []string{"late"},
		Body: body, Form: batchform.Append(nil, &b)}); err != nil {
		t.Fatal(err)
	}
}

// A receipt 40 days late, of an observation on a day whose digest (and
// the later days') was sealed, lands in its own receive day, unsealed: the
// books change exactly as the log's report does; and once its day is
// sealed too, the books from digests are still the log's.
func TestDigestBooksTakeALateReceipt(t *testing.T) {
	st := openBolt(t)
	tm := booksFleet(t, st, 7)
	spy := spyOn(t, st)
	asOf := time.Date(2026, 4, 25, 0, 0, 0, 0, time.UTC)
	sealed := time.Date(2026, 4, 18, 0, 0, 0, 0, time.UTC)
	before := monthJSON(t, digestBooks(spy, tm, nil, sealed), asOf)
	sameReport(t, "sealing", logReport(t, st, tm, nil, asOf), before)
	obs := time.Date(2026, 3, 8, 10, 0, 0, 0, time.UTC)            // received 17 April 10:00, sealed days up to 16 April
	lateBatch(t, st, "gz-00002", 1, obs, obs.Add(40*24*time.Hour)) // the lowest seq: first in sequence order, last in receipt
	want := logReport(t, st, tm, nil, asOf)
	if bytes.Equal(want, before) {
		t.Fatal("the late receipt changed nothing in the log's report: the test tests nothing")
	}
	wrote := spy.wrote.Load()
	sameReport(t, "after a late receipt", want, monthJSON(t, digestBooks(spy, tm, nil, sealed.Add(30*time.Minute)), asOf))
	if spy.wrote.Load() != wrote {
		t.Fatalf("%d days sealed before the late receipt's day could be", spy.wrote.Load()-wrote)
	}
	later := time.Date(2026, 4, 24, 0, 0, 0, 0, time.UTC)
	sameReport(t, "sealing the late receipt's day", want, monthJSON(t, digestBooks(spy, tm, nil, later), asOf))
	sameReport(t, "from its day's digest", want, monthJSON(t, digestBooks(spy, tm, nil, later), asOf))
	if spy.wrote.Load() == wrote {
		t.Fatal("the late receipt's day was never sealed")
	}
}

// A record that expires unseals its day: the store no longer hands over a
// digest past the earliest expiry of its records, so the day is read from
// the records left, as the export reads them; and two builders sealing at
// once write each day once.
func TestDigestExpiresWithItsRecords(t *testing.T) {
	st := openBolt(t)
	sh, _ := time.LoadLocation("Asia/Shanghai")
	march := time.Date(2026, 3, 1, 0, 0, 0, 0, sh)
	if _, err := fleetsim.Write(t.Context(), st, fleetsim.Config{Nodes: 3, Prefix: "gz-", Contract: "cn-example", Loc: sh, From: march, Months: 1,
		Retention: 400 * 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	tm, err := terms.ReadFile(filepath.Join("..", "..", "testdata", "terms", "cn-example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spy := spyOn(t, st)
	asOf := time.Date(2026, 4, 5, 0, 0, 0, 0, time.UTC)
	now := asOf
	var wg sync.WaitGroup
	reports := make([][]byte, 2)
	for i := range reports {
		wg.Go(func() { reports[i] = monthJSON(t, digestBooks(spy, tm, nil, now), asOf) })
	}
	wg.Wait()
	want := logReport(t, st, tm, nil, asOf)
	sameReport(t, "sealed by two builders at once", want, reports[0])
	sameReport(t, "sealed by two builders at once", want, reports[1])
	days := spy.wrote.Load()
	if days < 3*31 {
		t.Fatalf("%d days sealed", days)
	}
	// Two builders race for each day: whatever the interleaving, each day
	// is written once (the other told it exists, or finding it sealed).
	var list []time.Time
	if err := spy.ds.EachDigest(t.Context(), "gz-00001", time.Time{}, asOf, func(d *store.DayDigest) error { list = append(list, d.Day); return nil }); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(list); i++ {
		if !list[i].After(list[i-1]) {
			t.Fatalf("day %s twice", list[i])
		}
	}
	// The store's clock past the expiry of gz-00001's batches received
	// before 3 March 05:00 UTC: 3 March's digest is no longer handed over.
	cut := time.Date(2026, 3, 3, 5, 0, 0, 0, time.UTC).Add(400 * 24 * time.Hour)
	st.SetClock(func() time.Time { return cut })
	var got []time.Time
	if err := spy.ds.EachDigest(t.Context(), "gz-00001", time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC),
		func(d *store.DayDigest) error { got = append(got, d.Day); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].Equal(time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("digests handed over past 3 March's first expiry: %v, want 4 March's alone", got)
	}
	expired := logReport(t, st, tm, nil, asOf)
	if bytes.Equal(expired, want) {
		t.Fatal("the expired records changed nothing in the log's report: the test tests nothing")
	}
	sameReport(t, "with a day's records expiring", expired, monthJSON(t, digestBooks(spy, tm, nil, now), asOf))
}

// A digest that cannot be read is an error naming its node and day, never
// a reason to read something else.
func TestDamagedDigestIsAnError(t *testing.T) {
	st := openBolt(t)
	tm := booksFleet(t, st, 7)
	spy := spyOn(t, st)
	asOf := time.Date(2026, 4, 5, 0, 0, 0, 0, time.UTC)
	monthJSON(t, digestBooks(spy, tm, nil, asOf), asOf)
	spy.damage = time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC)
	_, err := digestBooks(spy, tm, nil, asOf).Month(t.Context(), 2026, 3, asOf)
	if err == nil || !strings.Contains(err.Error(), "digest of node gz-00000, day 2026-03-12") {
		t.Fatalf("a damaged digest: err = %v", err)
	}
}

// A digest written by a build of another judge (or format) is not read:
// its day is read from its records, and the books are still the log's.
func TestDigestOfAnotherVersionIsReadFromTheRecords(t *testing.T) {
	st := openBolt(t)
	tm := booksFleet(t, st, 7)
	spy := spyOn(t, st)
	asOf := time.Date(2026, 4, 5, 0, 0, 0, 0, time.UTC)
	want := logReport(t, st, tm, nil, asOf)
	sameReport(t, "sealing", want, monthJSON(t, digestBooks(spy, tm, nil, asOf), asOf))
	before := spy.records.Load()
	sameReport(t, "from digests", want, monthJSON(t, digestBooks(spy, tm, nil, asOf), asOf))
	fromDigests := spy.records.Load() - before
	spy.older = true
	before = spy.records.Load()
	sameReport(t, "with every digest of another judge", want, monthJSON(t, digestBooks(spy, tm, nil, asOf), asOf))
	if raw := spy.records.Load() - before; raw < 10*max(fromDigests, 1) {
		t.Fatalf("digests of another judge were read: %d records read, %d from digests", raw, fromDigests)
	}
}
