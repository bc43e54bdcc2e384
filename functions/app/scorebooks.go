package app

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
)

// The provider scorecard built from the store's own records: each month's
// report by Books.Month (node by node, every core), and what the scorecard
// reads itself — registrations and check results, over all its months —
// taken from each node's records as the months' books read them (one read
// of the store for both), into a part per node filed in node order. Memory follows the largest node, the month
// reports' rows and what the scorecard keeps of each node (its stress
// figures, network readings and XIDs), never the months' log. It is the
// scorecard the months' exported log gives, byte for byte
// (TestStoreScorecardIsTheLogs), with the same skipped nodes left out.

// Scorecard builds the provider scorecard of o.From..o.To as of o.AsOf,
// with each month's report (From to To).
func (bk Books) Scorecard(ctx context.Context, o scorecard.Options) (*scorecard.Scorecard, []*report.Report, error) {
	return bk.scorecardWith(ctx, o, nil)
}

// scorecardWith is Scorecard with last, when set, as the report of o.To
// (the month a fan-out just assembled) instead of one built again.
func (bk Books) scorecardWith(ctx context.Context, o scorecard.Options, last *report.Report) (*scorecard.Scorecard, []*report.Report, error) {
	b, reps, err := bk.scorecard(ctx, o, last)
	if err != nil {
		return nil, nil, err
	}
	sc, err := b.BuildFrom(reps)
	return sc, reps, err
}

// Trial builds the trial page (o.Trial) of o.From..o.To from the store,
// with each month's report.
func (bk Books) Trial(ctx context.Context, o scorecard.Options) (*scorecard.Trial, []*report.Report, error) {
	b, reps, err := bk.scorecard(ctx, o, nil)
	if err != nil {
		return nil, nil, err
	}
	tr, err := b.BuildTrialFrom(reps)
	return tr, reps, err
}

// scorecard makes the scorecard's builder and reads the months into it
// (with last, when set, as o.To's report).
func (bk Books) scorecard(ctx context.Context, o scorecard.Options, last *report.Report) (*scorecard.Builder, []*report.Report, error) {
	b, err := scorecard.NewBuilder(bk.Terms, o)
	if err != nil {
		return nil, nil, err
	}
	if len(o.Bill) > 0 {
		bk.KeepReadings = true // the bill is reconciled with each month's readings
	}
	exported, read, err := bk.exported(ctx)
	if err != nil {
		return nil, nil, err
	}
	parts := make(map[string]*scorecard.NodePart, len(read))
	for _, n := range read {
		parts[n.ID] = b.NodePart(n.ID)
	}
	var months []time.Time
	end := time.Date(o.To.Year, o.To.Month, 1, 0, 0, 0, 0, time.UTC)
	for m := time.Date(o.From.Year, o.From.Month, 1, 0, 0, 0, 0, time.UTC); !m.After(end); m = m.AddDate(0, 1, 0) {
		months = append(months, m)
	}
	built := months
	if last != nil {
		built = months[:len(months)-1]
	}
	reps, err := bk.months(ctx, built, o.AsOf, func(k int) func(string, *events.Event) error { return spanSlice(months, k).feed(parts) })
	if err != nil {
		return nil, nil, err
	}
	if last != nil {
		k := len(months) - 1
		reps = append(reps, last)
		if err := bk.readSlice(ctx, read, parts, months[k], spanSlice(months, k)); err != nil {
			return nil, nil, err
		}
	}
	for _, n := range read {
		b.AddPart(parts[n.ID])
	}
	// The log the scorecard would read: the first month's window to the last's.
	from, _ := report.Window(o.From.Year, o.From.Month)
	_, to := report.Window(o.To.Year, o.To.Month)
	return b, reps, bk.scorecardShared(ctx, b, exported, from, to)
}

// months builds the reports of several months (in order) from the store,
// reading each node's records once for all of them: one worker reads a
// node's records of the months' log (a node's year, not the fleet's) and
// builds its part of every month from them, each month taking what its
// own export would hold (inWindow); alsoRead(k), when set, is month k's
// Books.alsoRead. The nodes the fleet finds fault with are read again for
// the months they are found in, as Month reads them.
func (bk Books) months(ctx context.Context, list []time.Time, asOf time.Time, alsoRead func(k int) func(string, *events.Event) error) ([]*report.Report, error) {
	if len(list) == 0 {
		return nil, nil
	}
	ms := make([]*month, len(list))
	parts := make([][]report.Part, len(list))
	counts := make([][]report.Input, len(list))
	for k, t := range list {
		mb := bk
		if alsoRead != nil {
			mb.alsoRead = alsoRead(k)
		}
		m, err := mb.open(ctx, t.Year(), t.Month(), asOf)
		if err != nil {
			return nil, fmt.Errorf("month %s: %w", t.Format("2006-01"), err)
		}
		ms[k], parts[k], counts[k] = m, make([]report.Part, len(m.nodes)), make([]report.Input, len(m.nodes))
	}
	first, last := ms[0], ms[len(ms)-1]
	if err := first.each(first.nodes, func(i int, n store.Node) error {
		var evs []events.Event
		var stats ExportStats
		if err := ExportNode(ctx, bk.Store, n, first.from, last.to, func(e *events.Event) error { evs = append(evs, *e); return nil }, &stats); err != nil {
			return err
		}
		for k, m := range ms {
			read := func(s nodeSink) error {
				for j := range evs {
					if inWindow(&evs[j], m.from, m.to) {
						if err := s.event(&evs[j]); err != nil {
							return err
						}
					}
				}
				return nil
			}
			var err error
			if parts[k][i], counts[k][i], err = m.partFrom(n, &report.FleetShare{}, m.figures, read); err != nil {
				return fmt.Errorf("month %s: %w", list[k].Format("2006-01"), err)
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	reps := make([]*report.Report, len(ms))
	for k, m := range ms {
		ps, err := m.againstFleet(ctx, parts[k], counts[k])
		if err != nil {
			return nil, err
		}
		if reps[k], err = m.assemble(ps); err != nil {
			return nil, err
		}
		parts[k] = nil
	}
	return reps, nil
}

// inWindow says whether ExportNode of [from, to) writes e, an event it
// wrote for a window holding that one: the registration and release
// always, a check result made in it, a drop, chain break or restart
// recorded in it, a heartbeat run overlapping it. (The node's current run,
// which the export writes by overlap alone, would differ only if it ended
// exactly at a window's first instant: a live run ends at its last
// heartbeat, now.)
func inWindow(e *events.Event, from, to time.Time) bool {
	in := func(t time.Time) bool { return !t.Before(from) && t.Before(to) }
	switch e.Type {
	case events.TypeNodeRegistered, events.TypeNodeReleased:
		return true
	case events.TypeObservation:
		return in(e.TrueAt())
	case events.TypeHeartbeatRun:
		// The stores' overlap rule (History.EachRun): a run ending exactly
		// at from counts only if it also began there.
		return e.At.Before(to) && (e.LastAt.After(from) || e.LastAt.Equal(from) && e.At.Equal(from))
	default:
		return in(e.At)
	}
}

// A node's records over the scorecard's months are read once, month by
// month, as each month's books read them: each month's window (with its
// lookback) overlaps the next, so each event is taken in one slice only —
// from its month's window's start to the next month's — the one whose
// month read it. The slices cover the months' log, the first month's
// window's start to the last's end, so the parts count what the log holds
// of each node, and read each check result once.
type slice struct {
	from, to time.Time
	first    bool // the registration and release are the first month's
}

// spanSlice is month k's slice of months.
func spanSlice(months []time.Time, k int) slice {
	from, _ := report.Window(months[k].Year(), months[k].Month())
	var to time.Time
	if k == len(months)-1 {
		_, to = report.Window(months[k].Year(), months[k].Month())
	} else {
		to, _ = report.Window(months[k+1].Year(), months[k+1].Month())
	}
	return slice{from: from, to: to, first: k == 0}
}

// holds says whether e, read from its month's window, is the slice's: a
// check result by when it was made, a heartbeat run by its start (a run
// begun before the months is the first month's), a drop, chain break or
// restart by its instant.
func (s slice) holds(e *events.Event) bool {
	var at time.Time
	switch e.Type {
	case events.TypeNodeRegistered, events.TypeNodeReleased:
		return s.first
	case events.TypeObservation:
		at = e.TrueAt()
	default:
		at = e.At
		if e.Type == events.TypeHeartbeatRun && s.first && at.Before(s.from) {
			return true
		}
	}
	return !at.Before(s.from) && at.Before(s.to)
}

// feed hands each event of the slice to its node's part.
func (s slice) feed(parts map[string]*scorecard.NodePart) func(node string, e *events.Event) error {
	return func(node string, e *events.Event) error {
		if p := parts[node]; p != nil && s.holds(e) {
			return p.Add(e)
		}
		return nil
	}
}

// exported are the nodes the export writes (a GPU count known), and of
// them those read (not skipped).
func (bk Books) exported(ctx context.Context) (exported, read []store.Node, err error) {
	all, err := bk.Store.ListNodes(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("scorecard: %w", err)
	}
	for _, n := range all {
		if n.GPUCount < 1 {
			continue // the export leaves them out: the log cannot hold them
		}
		exported = append(exported, n)
		if _, skip := bk.Skip[n.ID]; !skip {
			read = append(read, n)
		}
	}
	return exported, read, nil
}

// readSlice reads month m's window of every node in read into the parts,
// Workers at a time, keeping the slice's events: the month whose report
// was built elsewhere (a fan-out's).
func (bk Books) readSlice(ctx context.Context, read []store.Node, parts map[string]*scorecard.NodePart, m time.Time, sl slice) error {
	from, to := report.Window(m.Year(), m.Month())
	feed := sl.feed(parts)
	errs := make([]error, len(read))
	var g errgroup.Group
	g.SetLimit(bk.workers())
	for i, n := range read {
		g.Go(func() error {
			var stats ExportStats
			if err := ExportNode(ctx, bk.Store, n, from, to, func(e *events.Event) error { return feed(n.ID, e) }, &stats); err != nil {
				errs[i] = fmt.Errorf("scorecard of node %s: %w", n.ID, err)
			}
			return nil
		})
	}
	_ = g.Wait() // the first node's error (in node order) is the one returned
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// scorecardShared counts what the log shares between nodes, as the
// export writes it with the skipped nodes left out: the enrolments, the
// notices, the backend's outages, the tickets and the status pages.
func (bk Books) scorecardShared(ctx context.Context, b *scorecard.Builder, exported []store.Node, from, to time.Time) error {
	note := func(e *events.Event) error { b.Note(e); return nil }
	kept := SkipFilter(bk.Skip, note)
	for _, n := range exported {
		if err := exportEnrolments(ctx, bk.Store, n, to, kept); err != nil {
			return fmt.Errorf("scorecard of node %s: %w", n.ID, err)
		}
	}
	if err := exportMaintenance(ctx, bk.Store, exported, from, to, kept); err != nil {
		return err
	}
	if err := exportBackend(ctx, bk.Store, from, to, time.Time{}, kept); err != nil {
		return err
	}
	if _, err := ExportTickets(ctx, bk.Store, kept); err != nil {
		return err
	}
	if bk.Status != nil {
		if _, err := ExportProviderStatus(ctx, bk.Status, from, to, note); err != nil {
			return err
		}
	}
	return nil
}
