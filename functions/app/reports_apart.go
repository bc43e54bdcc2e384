package app

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// A month built apart (ReportJob.Parts): the first run due sends the
// month's node-months to the queue; each later run assembles it once every
// part is in or PartsWait has passed, and stores it as a month built here
// is stored. Its evidence bundle is written from a log of every node's
// registration and release, the month's shared records, and the
// observations of the nodes with a counted outage only: the bundle keeps
// nothing else (TestFanOutBundleIsTheLogsBundle).

// PlanPointer is the blob naming the folder of the latest plan of a month
// built apart. One plan builds every contract's nodes (the fleet's
// comparison spans contracts), so the contracts whose month is over when
// it is made share it; a contract whose month ends later in its own time
// zone (still open at the plan's instant) makes a newer one.
func PlanPointer(year int, month time.Month) string {
	return fmt.Sprintf("fanout/%04d-%02d.plan", year, month)
}

// fanOut is the job's FanOut over every loaded contract.
func (j *ReportJob) fanOut(skip map[string]string) (*FanOut, error) {
	bk, ok := j.books(skip)
	if !ok {
		return nil, fmt.Errorf("a month built apart reads the store's history: %T has none", j.Desk.svc.store)
	}
	return &FanOut{Books: bk, Blobs: j.Blobs, Queue: j.Parts, Wait: j.PartsWait}, nil
}

// terms are the loaded contracts, in name order.
func (j *ReportJob) terms() []*terms.Terms {
	book := j.Desk.Terms()
	all := make([]*terms.Terms, 0, len(book))
	for _, c := range book.Contracts() {
		all = append(all, book[c])
	}
	return all
}

// generateApart starts the month, or assembles and stores it; ErrPending
// while its parts are out.
func (j *ReportJob) generateApart(ctx context.Context, year int, month time.Month, contract string, now time.Time, skip map[string]string) (scorecardDone, error) {
	var done scorecardDone
	f, err := j.fanOut(skip)
	if err != nil {
		return done, err
	}
	prefix, err := j.plan(ctx, f, year, month, contract, now)
	if err != nil {
		return done, err
	}
	full, err := f.Assemble(ctx, prefix, now)
	if err != nil {
		return done, err
	}
	for _, s := range full.LeftOut {
		j.logger().Error("report: node left out of a month built apart", "month", ReportPrefix(full.Month, contract), "node", s.Node, "reason", s.Reason)
	}
	// The scorecard's trailing months are read from the store here, as of
	// the month's own instant (its plan's), the report's month being the
	// one just assembled.
	asOf, err := time.Parse(time.RFC3339, full.AsOf)
	if err != nil {
		return done, fmt.Errorf("assembled month's as_of %q: %w", full.AsOf, err)
	}
	// The nodes whose parts failed are left out of the scorecard too: their
	// records could not be read, and the report beside it names them.
	bk := f.Books
	if len(full.LeftOut) > 0 {
		bk.Skip = maps.Clone(skip)
		if bk.Skip == nil {
			bk.Skip = map[string]string{}
		}
		for _, s := range full.LeftOut {
			bk.Skip[s.Node] = s.Reason
		}
	}
	full, sc, done, err := j.buildFromStore(ctx, bk, year, month, asOf, full)
	if err != nil {
		return done, err
	}
	return j.storeBuilt(ctx, full, contract, sc, asOf, skip, done)
}

// plan is the folder of the month's plan that contract's month can be
// assembled from; ErrPending when it had to be made (its node-months were
// just sent).
func (j *ReportJob) plan(ctx context.Context, f *FanOut, year int, month time.Month, contract string, now time.Time) (string, error) {
	ptr := PlanPointer(year, month)
	raw, err := j.Blobs.Get(ctx, ptr)
	if err != nil && !IsNotFound(err) {
		return "", err
	}
	if err == nil {
		prefix := strings.TrimSpace(string(raw))
		p, err := f.LoadPlan(ctx, prefix)
		if err != nil {
			return "", err
		}
		loc := time.UTC
		if tm, ok := j.Desk.Contract(contract); ok && tm != nil && tm.Calendar.Loc != nil {
			loc = tm.Calendar.Loc
		}
		if !p.AsOf.Before(time.Date(year, month+1, 1, 0, 0, 0, 0, loc)) {
			return prefix, nil
		}
	}
	prefix := fmt.Sprintf("fanout/%04d-%02d/%s", year, month, now.UTC().Format("20060102T150405Z"))
	if err := f.Start(ctx, prefix, year, month, now, now); err != nil {
		return "", err
	}
	if err := j.Blobs.Put(ctx, ptr, []byte(prefix)); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%w: sent to the parts queue (%s)", ErrPending, prefix)
}

// bundleLog writes the log the evidence bundle of r is made from: the
// month's export with every node thin (BundleThin) but those r counts an
// outage of.
func (j *ReportJob) bundleLog(ctx context.Context, f *os.File, r *report.Report, skip map[string]string) error {
	m, err := time.Parse("2006-01", r.Month)
	if err != nil {
		return fmt.Errorf("report month %q: %w", r.Month, err)
	}
	nodes, err := j.Desk.svc.store.ListNodes(ctx)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	from, to := monthWindow(m.Year(), m.Month())
	w := events.NewWriter(f)
	if err := j.Desk.selectExport(ExportSelect{From: from, To: to, Thin: BundleThin(r, nodes)}, skip)(ctx, w); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// BundleThin are the nodes whose observations the evidence bundle of r
// does not read: every node but those with a counted outage in r.
func BundleThin(r *report.Report, nodes []store.Node) map[string]bool {
	thin := map[string]bool{}
	for _, n := range nodes {
		thin[n.ID] = true
	}
	for _, n := range r.Nodes {
		for _, o := range n.Outages {
			if o.Counted {
				delete(thin, n.Node)
			}
		}
	}
	return thin
}
