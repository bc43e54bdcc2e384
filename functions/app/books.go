package app

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// The month's books built from the store's own records, node by node: the
// same events the export writes (ExportNode, the shared ones), handed to
// the report's builders as values instead of a JSON log written and read
// back, each node in a builder of its own (report.BuildPart) on as many
// cores as there are, and the parts put together (report.Assemble). One
// node's builder holds one node's records: memory follows the largest
// node and the number of workers, not the fleet. The report is the one
// the export's log gives (TestStoreBooksAreTheLogsReport), byte for byte.

// BooksStore is what the month's books read.
type BooksStore interface {
	store.Store
	store.History
	store.TicketStore
}

// Books builds months from a store.
type Books struct {
	Store BooksStore
	// Status is what the providers' status pages said (nil: not kept).
	Status store.ProviderStatusStore
	Terms  []*terms.Terms
	// Workers is how many nodes are built at once (0: one per processor).
	Workers int
	// Skip are nodes left out with their tickets (their contract is
	// unknown), as the monthly job's export leaves them out.
	Skip map[string]string
	// KeepReadings keeps every node's usage readings in its row
	// (report.Node.Usage.All), which only a provider's bill is held to
	// (sla/billing); without a bill a row keeps its summary alone, and the
	// month holds a few kilobytes a node instead of half a megabyte. The
	// report's JSON and documents are the same either way.
	KeepReadings bool
	// Digests, when set, are the nodes' day digests the books read for
	// the days sealed, and Now, when set too, is the clock by which they
	// seal the days they read from their records (digests.go).
	Digests store.Digests
	Now     func() time.Time
	// alsoRead, when set, is handed every event of a node's records as
	// they are read for its part (not again for the fleet's second
	// pass): the scorecard's own reading rides on the month's.
	alsoRead func(node string, e *events.Event) error
}

// month is one month being built: the shared events and the builder that
// assembles the parts.
type month struct {
	bk     Books
	opts   report.Options
	from   time.Time
	to     time.Time
	nodes  []store.Node
	toAll  []*events.Event            // every node's builder reads them
	byNode map[string][]*events.Event // a node's tickets and notices
	shared *report.Builder
	in     report.Input // the shared events, counted once
	mu     sync.Mutex   // guards shared's fleet figures
}

// Month builds the report of year-month as of asOf.
func (bk Books) Month(ctx context.Context, year int, mon time.Month, asOf time.Time) (*report.Report, error) {
	m, err := bk.open(ctx, year, mon, asOf)
	if err != nil {
		return nil, err
	}
	parts, err := m.parts(ctx)
	if err != nil {
		return nil, err
	}
	return m.assemble(parts)
}

// open begins year-month: its window, its assembling builder, and the
// events it shares read and routed.
func (bk Books) open(ctx context.Context, year int, mon time.Month, asOf time.Time) (*month, error) {
	m := &month{bk: bk, opts: report.Options{Year: year, Month: mon, AsOf: asOf}, byNode: map[string][]*events.Event{}}
	m.from, m.to = report.Window(year, mon)
	var err error
	if m.shared, err = report.NewBuilder(bk.Terms, m.opts); err != nil {
		return nil, err
	}
	return m, m.sharedEvents(ctx)
}

// assemble puts the month's parts together.
func (m *month) assemble(parts []report.Part) (*report.Report, error) {
	m.in.Lines = m.in.Events // one event a line, as the export writes them
	return m.shared.Assemble(parts, m.in)
}

func (bk Books) workers() int {
	if bk.Workers > 0 {
		return bk.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// add validates e as the export's writer does and adds it to b.
func add(b *report.Builder, e *events.Event) error {
	if err := e.Validate(); err != nil {
		return fmt.Errorf("event %q (%s): %w", e.ID, e.Type, err)
	}
	return b.Add(e)
}

// sharedEvents reads what the month shares, in the export's order
// (maintenance, the backend's outages, tickets, the status pages), routes
// each, and counts them once in the assembling builder, which then reads
// every registration.
func (m *month) sharedEvents(ctx context.Context) error {
	evs, err := m.readShared(ctx)
	if err != nil {
		return err
	}
	return m.route(evs)
}

// readShared reads what the month shares, in the export's order, and the
// nodes to build (m.nodes).
func (m *month) readShared(ctx context.Context) ([]events.Event, error) {
	nodes, err := m.bk.Store.ListNodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("books: %w", err)
	}
	var exported []store.Node
	for _, n := range nodes {
		if n.GPUCount < 1 {
			continue // the export leaves them out: the log cannot hold them
		}
		exported = append(exported, n)
		if _, skip := m.bk.Skip[n.ID]; !skip {
			m.nodes = append(m.nodes, n)
		}
	}
	var evs []events.Event
	collect := func(e *events.Event) error { evs = append(evs, *e); return nil }
	if err := exportMaintenance(ctx, m.bk.Store, exported, m.from, m.to, collect); err != nil {
		return nil, err
	}
	if err := exportBackend(ctx, m.bk.Store, m.from, m.to, m.opts.AsOf, collect); err != nil {
		return nil, err
	}
	if _, err := ExportTickets(ctx, m.bk.Store, collect); err != nil {
		return nil, err
	}
	if m.bk.Status != nil {
		if _, err := ExportProviderStatus(ctx, m.bk.Status, m.from, m.to, collect); err != nil {
			return nil, err
		}
	}
	return evs, nil
}

// route hands the shared events to the assembling builder and files them
// for the nodes' builders; a skipped node's events and its tickets' are
// left out, as the job's export leaves them.
func (m *month) route(evs []events.Event) error {
	var r report.Router
	dropped := map[string]bool{}
	for i := range evs {
		e := &evs[i]
		if _, skip := m.bk.Skip[e.Node]; (skip && e.Node != "") || (e.Ticket != "" && dropped[e.Ticket]) {
			if e.Ticket != "" {
				dropped[e.Ticket] = true
			}
			continue
		}
		node, all, shared := r.Route(e)
		switch {
		case all:
			m.toAll = append(m.toAll, e)
		case node != "":
			m.byNode[node] = append(m.byNode[node], e)
		}
		if shared {
			if err := add(m.shared, e); err != nil {
				return err
			}
		}
	}
	m.in = sumInput(m.in, m.shared.Input())
	for _, n := range m.nodes {
		reg := RegistrationEvent(n)
		if err := m.shared.Add(&reg); err != nil {
			return err
		}
	}
	return nil
}

// sumInput adds b's counts to a's, but for the lines.
func sumInput(a, b report.Input) report.Input {
	a.Events += b.Events
	a.Duplicates += b.Duplicates
	a.AfterAsOf += b.AfterAsOf
	return a
}

// exportBackend writes the backend's own outages of [from, to), and,
// where the backend's last run recorded its stop before until, its outage
// from that stop to until (StoppedSince).
func exportBackend(ctx context.Context, st store.Store, from, to, until time.Time, out func(*events.Event) error) error {
	runs, err := st.ListBackendRuns(ctx, from.Add(-24*time.Hour), to)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	outs := BackendOutages(runs, from, to)
	if o, ok := StoppedSince(runs, until); ok && o.End.After(from) && o.Start.Before(to) {
		outs = append(outs, o)
	}
	for _, o := range outs {
		e := events.Event{Type: events.TypeBackendOutage, ID: "backend-outage@" + o.Start.UTC().Format("20060102T150405.000Z"),
			Start: o.Start.UTC(), End: o.End.UTC(), Summary: o.Summary}
		if err := out(&e); err != nil {
			return err
		}
	}
	return nil
}

// parts builds every node's part, Workers at a time, in node order. The
// fleet every node is judged against is made of every node's stress
// figures, known only once all are read; but a node the fleet finds no
// fault with is built the same with or without it (the fleet adds only its
// findings' outages to a node's books). So each node is built once without
// it, handing its figures to the assembling builder, and only the nodes
// with a finding are built again, against the fleet.
func (m *month) parts(ctx context.Context) ([]report.Part, error) {
	parts := make([]report.Part, len(m.nodes))
	counts := make([]report.Input, len(m.nodes))
	if err := m.each(m.nodes, func(i int, n store.Node) (err error) {
		parts[i], counts[i], err = m.part(ctx, n, &report.FleetShare{}, m.figures)
		return err
	}); err != nil {
		return nil, err
	}
	return m.againstFleet(ctx, parts, counts)
}

// figures files a node's observations' stress figures in the assembling
// builder (from any worker).
func (m *month) figures(obs []events.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range obs {
		m.shared.AddFleet(&obs[i])
	}
}

// againstFleet counts the first pass's events and builds again, against
// the fleet the figures make, the nodes it finds fault with.
func (m *month) againstFleet(ctx context.Context, parts []report.Part, counts []report.Input) ([]report.Part, error) {
	for _, c := range counts {
		m.in = sumInput(m.in, c)
	}
	share := &report.FleetShare{Result: m.shared.Fleet()}
	if share.Result == nil {
		return parts, nil
	}
	found := map[string]bool{}
	for _, f := range share.Result.Findings {
		found[f.Node] = true
	}
	err := m.each(m.nodes, func(i int, n store.Node) (err error) {
		if found[n.ID] {
			parts[i], _, err = m.part(ctx, n, share, nil)
		}
		return err
	})
	return parts, err
}

// each runs fn on every node, Workers at a time; the first error (in
// node order) is returned.
func (m *month) each(nodes []store.Node, fn func(i int, n store.Node) error) error {
	errs := make([]error, len(nodes))
	var g errgroup.Group
	g.SetLimit(m.bk.workers())
	for i, n := range nodes {
		g.Go(func() error {
			if err := fn(i, n); err != nil {
				errs[i] = fmt.Errorf("books of node %s: %w", n.ID, err)
			}
			return nil
		})
	}
	_ = g.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// part builds one node against share: the shared events its builder reads,
// then its own (its notices, and its part of the export), which it counts;
// figures, if set, is handed the node's observations with checks, from
// which the assembling builder files the stress figures.
func (m *month) part(ctx context.Context, n store.Node, share *report.FleetShare, figures func([]events.Event)) (report.Part, report.Input, error) {
	read := func(s nodeSink) error {
		if m.bk.Digests == nil || m.bk.alsoRead != nil {
			var stats ExportStats
			return ExportNode(ctx, m.bk.Store, n, m.from, m.to, s.event, &stats)
		}
		return m.readJudged(ctx, n, s)
	}
	return m.partFrom(n, share, figures, read)
}

// partFrom is part with the node's records of the month read by read (its
// part of the export, in the export's order).
func (m *month) partFrom(n store.Node, share *report.FleetShare, figures func([]events.Event), read func(nodeSink) error) (report.Part, report.Input, error) {
	o := m.opts
	o.FleetShare = share
	b, err := report.NewBuilder(m.bk.Terms, o)
	if err != nil {
		return report.Part{}, report.Input{}, err
	}
	var own []*events.Event
	for _, e := range m.toAll {
		if err := b.Add(e); err != nil {
			return report.Part{}, report.Input{}, err
		}
	}
	for _, e := range m.byNode[n.ID] {
		if e.Type == events.TypeMaintenance {
			own = append(own, e) // the node's own notice, counted as its own
			continue
		}
		if err := b.Add(e); err != nil {
			return report.Part{}, report.Input{}, err
		}
	}
	before := b.Input()
	for _, e := range own {
		if err := b.Add(e); err != nil {
			return report.Part{}, report.Input{}, err
		}
	}
	var obs []events.Event
	if err := read(nodeSink{event: func(e *events.Event) error {
		if figures != nil && hasFigure(e.Checks) {
			obs = append(obs, *e)
		}
		if figures != nil && m.bk.alsoRead != nil {
			if err := m.bk.alsoRead(n.ID, e); err != nil {
				return err
			}
		}
		return add(b, e)
	}, judged: func(j *report.Judged) error {
		if figures != nil && len(j.Figures) > 0 {
			obs = append(obs, figureEvent(j))
		}
		b.AddJudged(j)
		return nil
	}}); err != nil {
		return report.Part{}, report.Input{}, err
	}
	if figures != nil && !b.DemoOverNode(n.ID) {
		figures(obs) // serve's demo, over, is no part of the renter's fleet
	}
	after := b.Input()
	p, err := b.BuildPart(n.ID)
	if p.Node != nil && p.Node.Usage != nil && !m.bk.KeepReadings {
		u := *p.Node.Usage
		u.All = nil
		p.Node.Usage = &u
	}
	return p, report.Input{Events: after.Events - before.Events, Duplicates: after.Duplicates - before.Duplicates,
		AfterAsOf: after.AfterAsOf - before.AfterAsOf}, err
}

// hasFigure says whether cs hold a stress figure the fleet's comparison
// reads (baseline.FigureOf): the only observations kept for it.
func hasFigure(cs []events.Check) bool {
	for i := range cs {
		if _, ok := baseline.FigureOf(&cs[i]); ok {
			return true
		}
	}
	return false
}

// figureEvent is a judged observation's stress figures as the event it was
// judged from holds them, for the fleet's comparison (hasFigure's events).
func figureEvent(j *report.Judged) events.Event {
	e := events.Event{Type: events.TypeObservation, Node: j.Node, At: j.Time, ReceivedAt: time.Unix(0, j.Recv).UTC(),
		Checks: make([]events.Check, len(j.Figures))}
	for k, i := range j.Figures {
		e.Checks[k] = j.Checks[i]
	}
	return e
}
