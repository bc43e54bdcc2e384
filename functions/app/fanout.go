package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
)

// The month's books fanned out: a fleet too large for one process (or one
// Lambda's 15 minutes) is built as work items, one a node-month, by
// workers that need not share a process. Start reads what the month shares
// once and writes it beside the plan (the nodes to build, the instant the
// month is judged at); a worker (Work) builds its node's part from the
// store and the shared events, and writes it with the node's stress
// figures; Assemble reads every part, computes the fleet from the figures,
// rebuilds the few nodes the fleet finds fault with, and puts the month
// together. A node whose part failed its last attempt, or never came back
// in time, is named in the report's left_out, never silently missing. The
// month is the one Books.Month builds, byte for byte
// (TestFanOutIsTheStoresBooks).

// FanOutBlobs is where a fanned-out month keeps its plan and parts (S3 or
// the data folder).
type FanOutBlobs interface {
	ReportBlobs
}

// WorkItem is one node-month to build, as the queue carries it.
type WorkItem struct {
	// Plan is the month's folder in the blobs (FanOutPrefix).
	Plan string `json:"plan"`
	Node string `json:"node"`
}

// WorkQueue takes the month's work items, each a JSON body (SQS).
type WorkQueue interface {
	Send(ctx context.Context, bodies []string) error
}

// ParseWorkItem reads a work item's body as Start sent it.
func ParseWorkItem(body string) (WorkItem, error) {
	var it WorkItem
	if err := json.Unmarshal([]byte(body), &it); err != nil {
		return it, fmt.Errorf("work item: %w", err)
	}
	if it.Plan == "" || it.Node == "" {
		return it, fmt.Errorf("work item %.200q: want a plan and a node", body)
	}
	return it, nil
}

// FanOut builds months through a queue of node-months.
type FanOut struct {
	Books Books
	Blobs FanOutBlobs
	Queue WorkQueue
	// Wait is how long after Start a node without a part or a failure is
	// waited for before the month is assembled without it (named as left
	// out): the queue's retries of a worker that timed out or ran out of
	// memory, which can write nothing, must be over by then.
	Wait time.Duration

	// last is the plan read last: a worker (one parts function, warm
	// between invocations) reads its month's plan once, not once a
	// node-month — the plan names every node, so reading it per item
	// would cost the fleet's size each time.
	mu   sync.Mutex
	last struct {
		prefix string
		plan   Plan
		in     map[string]bool
	}
}

// Plan is a fanned-out month's plan.json.
type Plan struct {
	Year    int        `json:"year"`
	Month   time.Month `json:"month"`
	AsOf    time.Time  `json:"as_of"`
	Started time.Time  `json:"started"`
	Nodes   []string   `json:"nodes"`
	// Skip are the nodes left out with their tickets (Books.Skip), for
	// every worker to leave out alike.
	Skip map[string]string `json:"skip,omitempty"`
}

// ErrPending says some parts are neither in nor given up on yet.
var ErrPending = errors.New("the month's parts are not all in")

// Start plans year-month as of asOf in the folder prefix: the shared
// events and the plan are written, then one work item a node is sent.
func (f *FanOut) Start(ctx context.Context, prefix string, year int, mon time.Month, asOf, now time.Time) error {
	m := &month{bk: f.Books, opts: report.Options{Year: year, Month: mon, AsOf: asOf}, byNode: map[string][]*events.Event{}}
	m.from, m.to = report.Window(year, mon)
	var err error
	if m.shared, err = report.NewBuilder(f.Books.Terms, m.opts); err != nil {
		return err
	}
	evs, err := m.readShared(ctx)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := events.NewWriter(&buf)
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			return fmt.Errorf("fan-out: shared events: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("fan-out: shared events: %w", err)
	}
	if err := f.Blobs.Put(ctx, prefix+"/shared.jsonl", buf.Bytes()); err != nil {
		return fmt.Errorf("fan-out: %w", err)
	}
	plan := Plan{Year: year, Month: mon, AsOf: asOf.UTC(), Started: now.UTC(), Skip: f.Books.Skip}
	items := make([]string, len(m.nodes))
	for i, n := range m.nodes {
		plan.Nodes = append(plan.Nodes, n.ID)
		b, err := json.Marshal(WorkItem{Plan: prefix, Node: n.ID})
		if err != nil {
			return err
		}
		items[i] = string(b)
	}
	raw, err := json.Marshal(plan)
	if err != nil {
		return err
	}
	if err := f.Blobs.Put(ctx, prefix+"/plan.json", raw); err != nil {
		return fmt.Errorf("fan-out: %w", err)
	}
	if err := f.Queue.Send(ctx, items); err != nil {
		return fmt.Errorf("fan-out: send %d work items: %w", len(items), err)
	}
	return nil
}

// LoadPlan reads the plan in prefix.
func (f *FanOut) LoadPlan(ctx context.Context, prefix string) (Plan, error) {
	p, _, err := f.loadPlan(ctx, prefix)
	return p, err
}

// loadPlan is LoadPlan with the set of the plan's nodes, read once per
// plan (a plan is written once, under a prefix of its own; its slices and
// maps are only read).
func (f *FanOut) loadPlan(ctx context.Context, prefix string) (Plan, map[string]bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.last.prefix == prefix && f.last.in != nil {
		return f.last.plan, f.last.in, nil
	}
	p, err := f.readPlan(ctx, prefix)
	if err != nil {
		return p, nil, err
	}
	in := make(map[string]bool, len(p.Nodes))
	for _, n := range p.Nodes {
		in[n] = true
	}
	f.last.prefix, f.last.plan, f.last.in = prefix, p, in
	return p, in, nil
}

func (f *FanOut) readPlan(ctx context.Context, prefix string) (Plan, error) {
	var p Plan
	raw, err := f.Blobs.Get(ctx, prefix+"/plan.json")
	if err != nil {
		return p, fmt.Errorf("fan-out plan %s: %w", prefix, err)
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, fmt.Errorf("fan-out plan %s: %w", prefix, err)
	}
	return p, nil
}

// planned is the month of a plan with the shared events routed, as its
// workers and its assembler read it.
func (f *FanOut) planned(ctx context.Context, prefix string) (*month, Plan, []events.Event, error) {
	p, _, err := f.loadPlan(ctx, prefix)
	if err != nil {
		return nil, p, nil, err
	}
	m := &month{bk: f.Books, opts: report.Options{Year: p.Year, Month: p.Month, AsOf: p.AsOf}, byNode: map[string][]*events.Event{}}
	m.bk.Skip = p.Skip
	m.from, m.to = report.Window(p.Year, p.Month)
	if m.shared, err = report.NewBuilder(f.Books.Terms, m.opts); err != nil {
		return nil, p, nil, err
	}
	raw, err := f.Blobs.Get(ctx, prefix+"/shared.jsonl")
	if err != nil {
		return nil, p, nil, fmt.Errorf("fan-out %s: %w", prefix, err)
	}
	var evs []events.Event
	if _, err := events.ReadLog(prefix+"/shared.jsonl", bytes.NewReader(raw), func(e *events.Event) error {
		evs = append(evs, *e)
		return nil
	}); err != nil {
		return nil, p, nil, err
	}
	return m, p, evs, nil
}

// partFile and failedFile are where a node's part, or why it has none, is
// kept.
func partFile(prefix, node string) string   { return prefix + "/parts/" + node + ".part" }
func failedFile(prefix, node string) string { return prefix + "/parts/" + node + ".failed" }

// storedPart is a node's part as a worker writes it (encodeStoredPart).
type storedPart struct {
	Node    string
	Part    []byte // EncodePart
	Input   report.Input
	Figures figures
}

// figures are a node's stress figures as the fleet's comparison reads
// them (report.Builder.AddFleet: the figure, its unit, the GPU, the value
// and the instant it was true at), a few kilobytes a node-month where the
// observations they came in are megabytes.
type figures struct {
	Names []string // figure name
	Units []string // and unit, by index
	// Readings are [true-at ns, name index, GPU (-1: none), value].
	Readings [][4]float64
}

// fleetFigures keeps of a node's observations what the fleet's comparison
// reads: the checks that are figures (baseline.FigureOf) of observations
// received by asOf.
func fleetFigures(obs []events.Event, asOf time.Time) figures {
	var f figures
	index := map[[2]string]int{}
	for i := range obs {
		e := &obs[i]
		if e.ReceivedAt.After(asOf) {
			continue
		}
		at := float64(e.TrueAt().UnixNano())
		for j := range e.Checks {
			c := &e.Checks[j]
			if _, ok := baseline.FigureOf(c); !ok {
				continue
			}
			k := [2]string{c.Name, c.Unit}
			ix, ok := index[k]
			if !ok {
				ix = len(f.Names)
				index[k] = ix
				f.Names, f.Units = append(f.Names, c.Name), append(f.Units, c.Unit)
			}
			gpu := -1.0
			if c.GPU != nil {
				gpu = float64(*c.GPU)
			}
			f.Readings = append(f.Readings, [4]float64{at, float64(ix), gpu, *c.Number})
		}
	}
	return f
}

// add hands the figures to the assembling builder, each as the
// observation AddFleet files it from.
func (f figures) add(node string, b *report.Builder) {
	for _, r := range f.Readings {
		ix := int(r[1])
		if ix < 0 || ix >= len(f.Names) || ix >= len(f.Units) {
			continue
		}
		at := time.Unix(0, int64(r[0])).UTC()
		v := r[3]
		c := events.Check{Name: f.Names[ix], Unit: f.Units[ix], Category: events.CategoryPerformance, Verdict: events.Pass, Number: &v}
		if r[2] >= 0 {
			g := int(r[2])
			c.GPU = &g
		}
		e := events.Event{Type: events.TypeObservation, Node: node, At: at, ReceivedAt: at, Checks: []events.Check{c}}
		b.AddFleet(&e)
	}
}

// Work builds one node's part of the month planned in item.Plan and
// writes it. An error leaves nothing written: the queue retries the item.
func (f *FanOut) Work(ctx context.Context, item WorkItem) error {
	m, p, evs, err := f.planned(ctx, item.Plan)
	if err != nil {
		return err
	}
	if err := m.route(evs); err != nil {
		return err
	}
	if _, in, _ := f.loadPlan(ctx, item.Plan); !in[item.Node] {
		return fmt.Errorf("fan-out %s: node %q is not in the plan", item.Plan, item.Node)
	}
	n, err := f.Books.Store.GetNode(ctx, item.Node)
	if err != nil {
		return fmt.Errorf("fan-out %s: node %s: %w", item.Plan, item.Node, err)
	}
	var figs figures
	part, in, err := m.part(ctx, n, &report.FleetShare{}, func(obs []events.Event) { figs = fleetFigures(obs, p.AsOf) })
	if err != nil {
		return fmt.Errorf("books of node %s: %w", n.ID, err)
	}
	enc, err := EncodePart(part)
	if err != nil {
		return fmt.Errorf("books of node %s: %w", n.ID, err)
	}
	return f.Blobs.Put(ctx, partFile(item.Plan, item.Node), encodeStoredPart(&storedPart{Node: n.ID, Part: enc, Input: in, Figures: figs}))
}

// Failed records that item's last attempt failed with cause: the month is
// then assembled without the node, which it names.
func (f *FanOut) Failed(ctx context.Context, item WorkItem, attempts int, cause error) error {
	why := fmt.Sprintf("%d attempts: %v", attempts, cause)
	return f.Blobs.Put(ctx, failedFile(item.Plan, item.Node), []byte(why))
}

// Assemble puts the month planned in prefix together once every node's
// part is in or given up on (ErrPending before, until Wait has passed
// since Start). Each part is taken in as it is read — its figures to the
// fleet's comparison, its row kept — so what is held is the month's rows,
// never the parts' figures together.
func (f *FanOut) Assemble(ctx context.Context, prefix string, now time.Time) (*report.Report, error) {
	m, p, evs, err := f.planned(ctx, prefix)
	if err != nil {
		return nil, err
	}
	parts := make([]*report.Part, len(p.Nodes))
	var mu sync.Mutex
	missing, err := f.readParts(ctx, prefix, p, now, func(i int, sp *storedPart) error {
		pt, err := DecodePart(sp.Part)
		if err != nil {
			return fmt.Errorf("fan-out %s: part of node %s: %w", prefix, sp.Node, err)
		}
		mu.Lock()
		defer mu.Unlock()
		sp.Figures.add(sp.Node, m.shared)
		m.in = sumInput(m.in, sp.Input)
		parts[i] = &pt
		return nil
	})
	if err != nil {
		return nil, err
	}
	all, err := m.assembling(ctx, p, missing, evs)
	if err != nil {
		return nil, err
	}
	share := &report.FleetShare{Result: m.shared.Fleet()}
	if err := m.rebuildFound(ctx, share, p, parts); err != nil {
		return nil, err
	}
	out := make([]report.Part, 0, len(parts))
	for _, pt := range parts {
		if pt != nil {
			out = append(out, *pt)
		}
	}
	m.in.Lines = m.in.Events
	r, err := m.shared.Assemble(out, m.in)
	if err != nil {
		return nil, err
	}
	leaveOut(r, all, missing)
	return r, nil
}

// assembling readies the assembling builder: the nodes with a part are
// the month's, those without are left out with their tickets (as a node
// of an unknown contract is), and the shared events are routed. It
// returns every node the store has.
func (m *month) assembling(ctx context.Context, p Plan, missing map[string]string, evs []events.Event) ([]store.Node, error) {
	if len(missing) > 0 {
		skip := map[string]string{}
		for id, c := range m.bk.Skip {
			skip[id] = c
		}
		for id := range missing {
			skip[id] = "part failed"
		}
		m.bk.Skip = skip
	}
	all, err := m.bk.Store.ListNodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("fan-out: %w", err)
	}
	planned := map[string]bool{}
	for _, id := range p.Nodes {
		planned[id] = true
	}
	for _, n := range all {
		if _, gone := missing[n.ID]; planned[n.ID] && !gone {
			m.nodes = append(m.nodes, n)
		}
	}
	return all, m.route(evs)
}

// rebuildFound builds again, against the fleet, the nodes the fleet finds
// fault with (a node it finds none with is built the same without it).
func (m *month) rebuildFound(ctx context.Context, share *report.FleetShare, p Plan, parts []*report.Part) error {
	if share.Result == nil || len(share.Result.Findings) == 0 {
		return nil
	}
	found := map[string]bool{}
	for _, fd := range share.Result.Findings {
		found[fd.Node] = true
	}
	at := map[string]int{}
	for i, id := range p.Nodes {
		at[id] = i
	}
	var mu sync.Mutex
	return m.each(m.nodes, func(_ int, n store.Node) error {
		if !found[n.ID] {
			return nil
		}
		pt, _, err := m.part(ctx, n, share, nil)
		mu.Lock()
		parts[at[n.ID]] = &pt
		mu.Unlock()
		return err
	})
}

// leaveOut names in r the nodes whose part never came, with why.
func leaveOut(r *report.Report, all []store.Node, missing map[string]string) {
	if len(missing) == 0 {
		return
	}
	contract := map[string]string{}
	for _, n := range all {
		contract[n.ID] = n.Contract
	}
	for id, why := range missing {
		r.LeftOut = append(r.LeftOut, report.PartFailed(id, contract[id], why))
	}
	slices.SortFunc(r.LeftOut, func(a, b report.Skipped) int { return strings.Compare(a.Node, b.Node) })
}

// readParts reads every planned node's part, handing each to take (i:
// the node's place in the plan) as it comes, many at a time (reads wait on
// the network, not the CPU). It returns each node without one, with why:
// its last attempt failed, or Wait has passed since Start without a word
// from it. Before that, a node neither in nor failed makes it ErrPending.
func (f *FanOut) readParts(ctx context.Context, prefix string, p Plan, now time.Time, take func(i int, sp *storedPart) error) (map[string]string, error) {
	got := make([]bool, len(p.Nodes))
	whys := make([]string, len(p.Nodes))
	var g errgroup.Group
	g.SetLimit(max(f.Books.workers(), 16))
	for i, id := range p.Nodes {
		g.Go(func() error {
			raw, err := f.Blobs.Get(ctx, partFile(prefix, id))
			if err == nil {
				sp, err := decodeStoredPart(raw)
				if err == nil && sp.Node != id {
					err = fmt.Errorf("it is node %q's", sp.Node)
				}
				if err != nil {
					return fmt.Errorf("fan-out %s: part of node %s unreadable: %v", prefix, id, err)
				}
				got[i] = true
				return take(i, &sp)
			}
			if !IsNotFound(err) {
				return fmt.Errorf("fan-out %s: part of node %s: %w", prefix, id, err)
			}
			why, err := f.Blobs.Get(ctx, failedFile(prefix, id))
			switch {
			case err == nil:
				whys[i] = string(why)
			case !IsNotFound(err):
				return fmt.Errorf("fan-out %s: node %s: %w", prefix, id, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	missing := map[string]string{}
	late := now.Sub(p.Started) >= f.Wait
	for i, id := range p.Nodes {
		switch {
		case got[i]:
		case whys[i] != "":
			missing[id] = "its part failed after " + whys[i]
		case late:
			missing[id] = fmt.Sprintf("no part came back within %s of the month's start", f.Wait)
		default:
			return nil, fmt.Errorf("%w: node %s", ErrPending, id)
		}
	}
	return missing, nil
}
