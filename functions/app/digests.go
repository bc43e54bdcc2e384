package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gpusla/gpusla/functions/batchform"
	"github.com/gpusla/gpusla/functions/daydigest"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/report"
)

// A month's books read some 860 stored batches a node and turn each back
// into events to judge them; a day's digest (functions/daydigest) holds a
// node's day of batches judged once, so the books of every month, scorecard
// or rebuild whose receive window covers the day read one small record
// instead of its batches, and build the same report: a judged observation
// is recorded exactly as the observation it was judged from
// (report.Builder.AddJudged), and the batches are handed over in the same
// sequence order whichever way each was read.
//
// Days are receive days: a digest holds every batch record received in
// one UTC day. Ingest stamps a record's receipt with the instant its
// request began and stores it before answering, so once a day has ended
// and no request that began in it can still be running (DigestSealDelay)
// no record can join it: a batch delivered late, even by months, lands in
// the day it arrives in, which is not sealed yet. Records are never
// rewritten; the only change a sealed day can see is a record expiring,
// and a digest expires with the earliest of its records (the store no
// longer hands it over, and the day is read from its records).
//
// The books seal as they read: a day they read from its records that can
// no longer change is written as a digest, once (store.Digests.PutDigest is
// conditional: of two builders racing, one writes and both go on). That
// costs no read of its own, which matters on DynamoDB, where batches are
// keyed by sequence and a day alone cannot be read without the node's
// whole history (infra/store/dynamo, EachBatch).

// DigestSealDelay is how long after a UTC day ends its digest may be
// written: far past the longest an ingest request may run (the ingest
// function's timeout, template.yaml, and serve's request deadline).
const DigestSealDelay = time.Hour

// nodeSink takes a node's records for its books: events, and observations
// judged (from a digest, or from the records read in their place).
type nodeSink struct {
	event  func(*events.Event) error
	judged func(*report.Judged) error
}

// judgedBatch is a batch record judged: bad holds, per observation, the
// error the export's writer would refuse its event with (nil: none).
type judgedBatch struct {
	daydigest.Batch
	bad []error
}

// readJudged is ExportNode for the books, with the batches read judged:
// sealed days from their digests, the others from their records.
func (m *month) readJudged(ctx context.Context, n store.Node, s nodeSink) error {
	if err := exportThin(n, s.event); err != nil {
		return err
	}
	bs, err := m.judgedBatches(ctx, n)
	if err != nil {
		return err
	}
	from, to := m.from.UnixNano(), m.to.UnixNano()
	for i := range bs {
		b := &bs[i]
		for k := range b.Obs {
			j := &b.Obs[k]
			if j.At < from || j.At >= to {
				continue
			}
			if b.bad != nil && b.bad[k] != nil {
				return b.bad[k]
			}
			if err := s.judged(j); err != nil {
				return err
			}
		}
		if b.Dropped != nil && !b.ReceivedAt.Before(m.from) && b.ReceivedAt.Before(m.to) {
			e := dropEvent(n, b.Seq, b.ReceivedAt, b.Dropped)
			if err := s.event(&e); err != nil {
				return err
			}
		}
	}
	var stats ExportStats
	return exportTail(ctx, m.bk.Store, n, m.from, m.to, s.event, &stats)
}

// judgedBatches are the node's batch records received in the month's
// receive window, in sequence order: each sealed day's from its digest,
// the rest read and judged (and the days among them that can no longer
// change sealed).
func (m *month) judgedBatches(ctx context.Context, n store.Node) ([]judgedBatch, error) {
	rfrom, rto := m.from.Add(-events.MaxObservationLead), m.to.Add(events.MaxObservationAge)
	var out []judgedBatch
	sealed := map[time.Time]bool{}
	voids := map[time.Time]string{}
	var forms batchform.Decoder
	var keys incident.Keys
	err := m.bk.Digests.EachDigest(ctx, n.ID, store.DayOf(rfrom), rto, func(sd *store.DayDigest) error {
		if sd.Voided {
			// A batch came after the day was sealed: read it from its
			// records, and seal it again with the void seen before them.
			voids[sd.Day] = sd.Void
			return nil
		}
		d, err := daydigest.Decode(sd.Body, &forms)
		if errors.Is(err, daydigest.ErrVersion) {
			return nil // judged by another build: judged again from the records
		}
		if err == nil && (d.Node != n.ID || !d.Day.Equal(sd.Day)) {
			err = fmt.Errorf("holds node %s, day %s", d.Node, d.Day.Format(time.DateOnly))
		}
		if err != nil {
			return fmt.Errorf("digest of node %s, day %s: %w", n.ID, sd.Day.Format(time.DateOnly), err)
		}
		sealed[sd.Day] = true
		for i := range d.Batches {
			// A day the window begins or ends inside: its batches in it.
			if at := d.Batches[i].ReceivedAt; !at.Before(rfrom) && at.Before(rto) {
				out = append(out, judgedBatch{Batch: d.Batches[i]})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	days := map[time.Time]*dayRead{}
	for _, r := range unsealed(rfrom, rto, sealed) {
		if err := judgeRecords(&n, m.bk.receivedIn(ctx, n.ID, r[0], r[1]), &forms, &keys, days, &out); err != nil {
			return nil, err
		}
	}
	if err := m.seal(ctx, n, rfrom, rto, sealed, voids, days); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b judgedBatch) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return 0
	})
	return out, nil
}

// receivedIn walks the node's records received in [from, to): through the
// store's receive-day index where it keeps one for the period (the days
// not sealed are a few, often empty: a walk of the node's whole history
// for them cost what the digests spared), else EachBatch.
func (bk Books) receivedIn(ctx context.Context, node string, from, to time.Time) func(func(*store.BatchRecord) error) error {
	return func(fn func(*store.BatchRecord) error) error {
		if db, ok := bk.Store.(store.DayBatches); ok {
			// fn is not called before the store knows the period is indexed.
			err := db.EachBatchReceived(ctx, node, from, to, fn)
			if !errors.Is(err, store.ErrNoReceipts) {
				return err
			}
		}
		return bk.Store.EachBatch(ctx, node, from, to, fn)
	}
}

// dayRead is what the books read of one receive day from its records:
// enough to seal it.
type dayRead struct {
	batches []daydigest.Batch
	expires time.Time // the earliest expiry of its records (zero: none)
	bad     bool      // an observation the export would refuse: never sealed
}

// unsealed is [from, to) less the sealed days, as ranges.
func unsealed(from, to time.Time, sealed map[time.Time]bool) [][2]time.Time {
	var out [][2]time.Time
	start := from
	for d := store.DayOf(from); d.Before(to); d = d.Add(24 * time.Hour) {
		if !sealed[d] {
			continue
		}
		if start.Before(d) {
			out = append(out, [2]time.Time{start, d})
		}
		if end := d.Add(24 * time.Hour); end.After(start) {
			start = end
		}
	}
	if start.Before(to) {
		out = append(out, [2]time.Time{start, to})
	}
	return out
}

// judgeRecords reads node n's batch records walk hands over, judges their
// observations as the export's events, and files each by its receive day.
func judgeRecords(n *store.Node, walk func(func(*store.BatchRecord) error) error, forms *batchform.Decoder, keys *incident.Keys, days map[time.Time]*dayRead, out *[]judgedBatch) error {
	return walk(func(rec *store.BatchRecord) error {
		b, err := readStored(forms, rec)
		if err != nil {
			return fmt.Errorf("stored batch %d: %w", rec.Seq, err)
		}
		evs := ObservationEvents(n, b, rec.Hash, rec.ReceivedAt)
		jb := judgedBatch{Batch: daydigest.Batch{Seq: rec.Seq, ReceivedAt: rec.ReceivedAt.UTC(), Dropped: b.Dropped}}
		if len(evs) > 0 {
			jb.Obs = make([]report.Judged, len(evs))
		}
		for i := range evs {
			e := &evs[i]
			if err := e.Validate(); err != nil {
				if jb.bad == nil {
					jb.bad = make([]error, len(evs))
				}
				jb.bad[i] = fmt.Errorf("event %q (%s): %w", e.ID, e.Type, err)
			}
			report.Judge(e, keys, &jb.Obs[i])
			jb.Obs[i].Compact()
		}
		day := store.DayOf(rec.ReceivedAt)
		dr := days[day]
		if dr == nil {
			dr = &dayRead{}
			days[day] = dr
		}
		dr.batches = append(dr.batches, jb.Batch)
		dr.bad = dr.bad || jb.bad != nil
		if !rec.ExpiresAt.IsZero() && (dr.expires.IsZero() || rec.ExpiresAt.Before(dr.expires)) {
			dr.expires = rec.ExpiresAt
		}
		if out != nil {
			*out = append(*out, jb)
		}
		return nil
	})
}

// seal writes the digest of every whole day of [from, to) read from its
// records that can no longer change (DigestSealDelay after its end, by
// the books' clock); a day another builder sealed meanwhile, or one voided
// again since its void mark in voids was read, is left as it is.
func (m *month) seal(ctx context.Context, n store.Node, from, to time.Time, sealed map[time.Time]bool, voids map[time.Time]string, days map[time.Time]*dayRead) error {
	if m.bk.Now == nil {
		return nil
	}
	now := m.bk.Now()
	for d := store.DayOf(from); !d.Add(24 * time.Hour).After(to); d = d.Add(24 * time.Hour) {
		if d.Before(from) || sealed[d] || !dayOver(d, now) {
			continue
		}
		if _, err := putDay(ctx, m.bk.Digests, n.ID, d, voids[d], days[d]); err != nil {
			return err
		}
	}
	return nil
}

// dayOver tells whether day can no longer change at now.
func dayOver(day, now time.Time) bool {
	return !day.Add(24 * time.Hour).Add(DigestSealDelay).After(now)
}

// putDay writes the digest of node's day as read (nil: no records) over
// the void mark seen before reading it; sealed is false for a day it
// leaves unsealed (an observation the export would refuse) or another
// writer sealed first.
func putDay(ctx context.Context, ds store.Digests, node string, d time.Time, void string, dr *dayRead) (sealed bool, err error) {
	if dr == nil {
		dr = &dayRead{}
	}
	if dr.bad {
		return false, nil
	}
	expires := dr.expires
	if expires.IsZero() && len(dr.batches) == 0 {
		// A day without records expires as its records would have.
		expires = d.Add(24*time.Hour + DefaultRetention)
	}
	body := daydigest.Append(nil, &daydigest.Digest{Node: node, Day: d, Batches: dr.batches})
	err = ds.PutDigest(ctx, store.DayDigest{Node: node, Day: d, Body: body, ExpiresAt: expires, Void: void})
	if errors.Is(err, store.ErrExists) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("seal node %s, day %s: %w", node, d.Format(time.DateOnly), err)
	}
	return true, nil
}

// WithDigests is bk reading the day digests st keeps, if it keeps any,
// and sealing the days it reads from their records by now (nil: sealing
// none, for a reader that must not write).
func (bk Books) WithDigests(st any, now func() time.Time) Books {
	if ds, ok := st.(store.Digests); ok {
		bk.Digests, bk.Now = ds, now
	}
	return bk
}
