package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gpusla/gpusla/functions/batchform"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
)

// The daily sealer: the books seal the days they read, but a month's first
// build reads all of its days from their records and so pays what the
// JSON round trip paid. Sealing each day once it can no longer change
// spreads that work over the month, a day at a time, and the monthly job
// finds its days sealed: it reads some thirty small digests a node.
//
// A day is read alone where the store can (store.DayBatches: on DynamoDB
// through the receipts ingest writes beside each batch, not a Query of the
// node's whole history), and sealed with the void mark seen before its
// records were read, so a batch stored into the day afterwards leaves it
// unsealed (store.Digests): a digest never holds less than its day.

// SealStats is what one run of the daily sealer did.
type SealStats struct {
	// Nodes is how many nodes' days it looked at.
	Nodes int
	// Sealed days were written; Already were sealed before (by the books
	// or an earlier run); Left days stay read from their records: an
	// observation the export would refuse, a day the store cannot read
	// alone (records from before it indexed them), or another writer
	// first.
	Sealed, Already, Left int
	// Batches is how many batch records the sealed days hold.
	Batches int
}

// SealDay seals day (a UTC day's first instant) for every node that may
// have records in it, bk.Workers nodes at once. The day must be over by
// DigestSealDelay at now.
func (bk Books) SealDay(ctx context.Context, day, now time.Time) (SealStats, error) {
	var st SealStats
	if bk.Digests == nil {
		return st, errors.New("seal: the store keeps no day digests")
	}
	if !store.DayOf(day).Equal(day) {
		return st, fmt.Errorf("seal: %s is not a UTC day's first instant", day)
	}
	if !dayOver(day, now) {
		return st, fmt.Errorf("seal: day %s can still change until %s", day.Format(time.DateOnly), day.Add(24*time.Hour+DigestSealDelay).Format(time.RFC3339))
	}
	nodes, err := bk.Store.ListNodes(ctx)
	if err != nil {
		return st, fmt.Errorf("seal: %w", err)
	}
	var todo []store.Node
	for _, n := range nodes {
		// A node registered after the day has no record of it; one
		// released is read by the books of its last month until that
		// month's receive window closes (a day left unsealed is read from
		// its records: never wrong, only slower).
		if n.GPUCount < 1 || !n.CreatedAt.Before(day.Add(24*time.Hour)) ||
			(!n.ReleasedAt.IsZero() && n.ReleasedAt.Add(32*24*time.Hour+events.MaxObservationAge).Before(day)) {
			continue
		}
		todo = append(todo, n)
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(bk.workers())
	for _, n := range todo {
		g.Go(func() error {
			r, err := bk.sealNodeDay(gctx, n, day)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			st.Nodes++
			st.Batches += r.batches
			switch {
			case r.already:
				st.Already++
			case r.sealed:
				st.Sealed++
			default:
				st.Left++
			}
			return nil
		})
	}
	return st, g.Wait()
}

type daySealed struct {
	already, sealed bool
	batches         int
}

// sealNodeDay seals one node's day unless it is sealed.
func (bk Books) sealNodeDay(ctx context.Context, n store.Node, day time.Time) (daySealed, error) {
	node := n.ID
	var r daySealed
	var void string
	err := bk.Digests.EachDigest(ctx, node, day, day.Add(24*time.Hour), func(d *store.DayDigest) error {
		if d.Voided {
			void = d.Void
		} else {
			r.already = true
		}
		return nil
	})
	if err != nil || r.already {
		return r, err
	}
	// A store that indexes records by receive day reads the day alone; one
	// that cannot for this day leaves it to the books (on DynamoDB a walk
	// of the node's whole history, which the books pay anyway).
	walk := func(fn func(*store.BatchRecord) error) error {
		return bk.Store.EachBatch(ctx, node, day, day.Add(24*time.Hour), fn)
	}
	if db, ok := bk.Store.(store.DayBatches); ok {
		walk = func(fn func(*store.BatchRecord) error) error {
			return db.EachBatchReceived(ctx, node, day, day.Add(24*time.Hour), fn)
		}
	}
	days := map[time.Time]*dayRead{}
	var forms batchform.Decoder
	var keys incident.Keys
	err = judgeRecords(&n, walk, &forms, &keys, days, nil)
	if errors.Is(err, store.ErrNoReceipts) {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("seal node %s, day %s: %w", node, day.Format(time.DateOnly), err)
	}
	if dr := days[day]; dr != nil {
		r.batches = len(dr.batches)
	}
	r.sealed, err = putDay(ctx, bk.Digests, node, day, void, days[day])
	return r, err
}

// SealBack is how many of the latest days that are over a run of the
// daily sealer seals: a run missed, or a restart over midnight, leaves
// none behind, and a day already sealed costs one read a node.
const SealBack = 3

// SealRecent seals the SealBack latest days that are over at now, the
// earliest first; what each did is summed.
func (bk Books) SealRecent(ctx context.Context, now time.Time) (SealStats, error) {
	var all SealStats
	last := store.DayOf(now.Add(-DigestSealDelay)).Add(-24 * time.Hour)
	for i := SealBack - 1; i >= 0; i-- {
		st, err := bk.SealDay(ctx, last.AddDate(0, 0, -i), now)
		all.Nodes = max(all.Nodes, st.Nodes)
		all.Sealed += st.Sealed
		all.Already += st.Already
		all.Left += st.Left
		all.Batches += st.Batches
		if err != nil {
			return all, err
		}
	}
	return all, nil
}

// Seal is the report job's daily sealer (SealRecent) over its store; it
// does nothing on a store that keeps no day digests.
func (j *ReportJob) Seal(ctx context.Context, now time.Time) (SealStats, error) {
	bk, ok := j.books(nil)
	if !ok || bk.Digests == nil {
		return SealStats{}, nil
	}
	return bk.SealRecent(ctx, now)
}
