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
// from each node's records on the same workers, one node at a time per
// worker, filed in node order. Memory follows the largest node, the month
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
	var reps []*report.Report
	end := time.Date(o.To.Year, o.To.Month, 1, 0, 0, 0, 0, time.UTC)
	for m := time.Date(o.From.Year, o.From.Month, 1, 0, 0, 0, 0, time.UTC); !m.After(end); m = m.AddDate(0, 1, 0) {
		if last != nil && m.Equal(end) {
			reps = append(reps, last)
			break
		}
		r, err := bk.Month(ctx, m.Year(), m.Month(), o.AsOf)
		if err != nil {
			return nil, nil, fmt.Errorf("scorecard, month %s: %w", m.Format("2006-01"), err)
		}
		reps = append(reps, r)
	}
	// The log the scorecard would read: the first month's window to the last's.
	from, _ := report.Window(o.From.Year, o.From.Month)
	_, to := report.Window(o.To.Year, o.To.Month)
	nodes, err := bk.scorecardNodes(ctx, b, from, to)
	if err != nil {
		return nil, nil, err
	}
	return b, reps, bk.scorecardShared(ctx, b, nodes, from, to)
}

// scorecardNodes reads every exported node's records of [from, to) into
// its part of b, Workers at a time, and files the parts in node order; it
// returns every node the export writes, skipped ones too.
func (bk Books) scorecardNodes(ctx context.Context, b *scorecard.Builder, from, to time.Time) ([]store.Node, error) {
	all, err := bk.Store.ListNodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("scorecard: %w", err)
	}
	var exported, read []store.Node
	for _, n := range all {
		if n.GPUCount < 1 {
			continue // the export leaves them out: the log cannot hold them
		}
		exported = append(exported, n)
		if _, skip := bk.Skip[n.ID]; !skip {
			read = append(read, n)
		}
	}
	parts := make([]*scorecard.NodePart, len(read))
	errs := make([]error, len(read))
	var g errgroup.Group
	g.SetLimit(bk.workers())
	for i, n := range read {
		g.Go(func() error {
			p := b.NodePart(n.ID)
			var stats ExportStats
			if err := ExportNode(ctx, bk.Store, n, from, to, p.Add, &stats); err != nil {
				errs[i] = fmt.Errorf("scorecard of node %s: %w", n.ID, err)
				return nil
			}
			parts[i] = p
			return nil
		})
	}
	_ = g.Wait() // the first node's error (in node order) is the one returned
	for i, p := range parts {
		if errs[i] != nil {
			return nil, errs[i]
		}
		b.AddPart(p)
	}
	return exported, nil
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
	if err := exportBackend(ctx, bk.Store, from, to, kept); err != nil {
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
