package app_test

import (
	"bytes"
	"io"
	"maps"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
)

// The daily sealer seals each day of March once it can no longer change,
// reading the day alone (on DynamoDB through its receipts), and the
// monthly job then reads digests, hardly a record, and builds the log's
// report byte for byte, on both stores. A batch stored into a sealed day
// afterwards voids it: the next build reads that day from its records and
// is the log's report with the batch (never the stale one), and the
// sealer's next run seals the day again, with the batch.
func TestDailySealedBooksAreTheLogsReport(t *testing.T) {
	onBothStores(t, func(t *testing.T, st booksStore, nodes int) {
		clock, ok := st.(interface{ SetClock(func() time.Time) })
		if !ok {
			t.Fatalf("%T has no clock to set", st)
		}
		// The fleet is written as ingest would have written it: each
		// batch before its day was over.
		write := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
		clock.SetClock(func() time.Time { return write })
		tm := booksFleet(t, st, nodes)
		now := time.Date(2026, 4, 2, 1, 0, 0, 0, time.UTC)
		clock.SetClock(func() time.Time { return now })
		t.Cleanup(func() { clock.SetClock(time.Now) })
		asOf := time.Date(2026, 4, 1, 6, 0, 0, 0, time.UTC)
		sealer := app.Books{Store: st, Terms: tm, Workers: 2}.WithDigests(st, nil)
		from, _ := report.Window(2026, 3)
		// Every day the month's receive window reads, up to the last that
		// is over an hour at now (1 April).
		first, last := store.DayOf(from.Add(-events.MaxObservationLead)), store.DayOf(now.Add(-app.DigestSealDelay))
		if _, err := sealer.SealDay(t.Context(), last, now); err == nil {
			t.Fatalf("sealed %s at %s, before it could no longer change", last.Format(time.DateOnly), now)
		}
		var sealed, left int
		for d := first; d.Before(last); d = d.Add(24 * time.Hour) {
			s, err := sealer.SealDay(t.Context(), d, now)
			if err != nil {
				t.Fatal(err)
			}
			sealed += s.Sealed
			left += s.Left
			if again, err := sealer.SealDay(t.Context(), d, now); err != nil || again.Sealed != 0 || again.Already != s.Sealed {
				t.Fatalf("%s sealed again: %+v, %v (first run %+v)", d.Format(time.DateOnly), again, err, s)
			}
		}
		if days := int(last.Sub(first) / (24 * time.Hour)); sealed < (nodes-1)*(days-1) {
			t.Fatalf("%d node-days sealed (%d left) of %d nodes' %d days", sealed, left, nodes, days)
		}
		spy := spyOn(t, st)
		want := logReport(t, st, tm, nil, asOf)
		sameReport(t, "from the daily sealer's digests", want, monthJSON(t, digestBooks(spy, tm, nil, now), asOf))
		if spy.wrote.Load() != 0 || spy.records.Load() > int64(nodes)*20 {
			t.Fatalf("the monthly build over sealed days read %d records and sealed %d days", spy.records.Load(), spy.wrote.Load())
		}

		// A request that began on 10 March and stored its batch after the
		// day was sealed (never within ingest's bounds, but the store
		// holds the line whatever the cause).
		recv := time.Date(2026, 3, 10, 23, 59, 0, 0, time.UTC)
		lateBatch(t, st, "gz-00002", 1, recv.Add(-time.Hour), recv)
		late := logReport(t, st, tm, nil, asOf)
		if bytes.Equal(late, want) {
			t.Fatal("the late batch changed nothing in the log's report: the test tests nothing")
		}
		before := spy.records.Load()
		sameReport(t, "after a batch stored into a sealed day", late, monthJSON(t, app.Books{Store: spy, Status: spy, Terms: tm, Workers: 2, Digests: spy}, asOf))
		if spy.records.Load() == before {
			t.Fatal("the voided day was not read from its records")
		}
		s, err := sealer.SealDay(t.Context(), store.DayOf(recv), now)
		if err != nil || s.Sealed != 1 || s.Already != s.Nodes-1 {
			t.Fatalf("sealing the voided day again: %+v, %v", s, err)
		}
		before = spy.records.Load()
		sameReport(t, "from the day sealed again", late, monthJSON(t, app.Books{Store: spy, Status: spy, Terms: tm, Workers: 2, Digests: spy}, asOf))
		if read := spy.records.Load() - before; read > int64(nodes)*20 {
			t.Fatalf("the build after the day was sealed again read %d records", read)
		}
	})
}

// The report job's sealer (serve runs it hourly) seals the SealBack latest
// days that are over, once: at 00:30 the day before is not over an hour
// yet, at 01:00 it is; a second run seals nothing.
func TestReportJobSealsTheLatestDays(t *testing.T) {
	st := openBolt(t)
	write := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	st.SetClock(func() time.Time { return write })
	tm := booksFleet(t, st, 8)
	st.SetClock(time.Now)
	svc, err := app.New(app.Config{Store: st, Notifier: &slack.Console{W: io.Discard}, Box: apptest.Box(t)})
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(app.TermsBook{"cn-example": tm[0]})
	if err != nil {
		t.Fatal(err)
	}
	job := &app.ReportJob{Desk: desk, Blobs: blobDir(t), Renderer: bundle.Renderer{}}
	sealedDays := func() map[time.Time]int {
		out := map[time.Time]int{}
		if err := st.EachDigest(t.Context(), "gz-00001", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), func(d *store.DayDigest) error {
			if !d.Voided {
				out[d.Day]++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	s, err := job.Seal(t.Context(), time.Date(2026, 3, 20, 0, 30, 0, 0, time.UTC))
	if err != nil || s.Sealed == 0 || s.Sealed+s.Already+s.Left != s.Nodes*app.SealBack {
		t.Fatalf("seal at 20 March 00:30: %+v, %v", s, err)
	}
	want := map[time.Time]int{}
	for d := 16; d <= 18; d++ {
		want[time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC)] = 1
	}
	if got := sealedDays(); !maps.Equal(got, want) {
		t.Fatalf("sealed at 00:30: %v, want 16–18 March", got)
	}
	s, err = job.Seal(t.Context(), time.Date(2026, 3, 20, 1, 0, 0, 0, time.UTC))
	if err != nil || s.Sealed == 0 || s.Sealed+s.Already+s.Left != s.Nodes*app.SealBack {
		t.Fatalf("seal at 20 March 01:00: %+v, %v", s, err)
	}
	want[time.Date(2026, 3, 19, 0, 0, 0, 0, time.UTC)] = 1
	if got := sealedDays(); !maps.Equal(got, want) {
		t.Fatalf("sealed at 01:00: %v, want 16–19 March", got)
	}
	if s, err := job.Seal(t.Context(), time.Date(2026, 3, 20, 2, 0, 0, 0, time.UTC)); err != nil || s.Sealed != 0 {
		t.Fatalf("a second run the same day: %+v, %v", s, err)
	}
}
