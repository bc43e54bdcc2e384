package app

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/msg"
)

// The live fleet baselines (docs/scorecard.md, "Fleet baselines"): the
// fleet's distribution of each stress figure per GPU model, computed by
// sla/baseline from the nodes' own stress results in the store — the batch
// bodies ingest keeps for every measurement, what export turns into the
// report's observations — over the trailing FleetWindow, and refreshed at
// most every FleetRefresh, on the first batch carrying a stress figure
// after that. Each refresh reads only the batches stored since the last
// (by key), so a refresh costs one ListBatches per node and the bodies
// new since; an instance (a serve process, a warm ingest Lambda) starts by
// reading the window once.
const (
	// FleetWindow: a report's month is 28–31 days and the report reaches 8
	// days before it; the live fleet is the last 30 days.
	FleetWindow = 30 * 24 * time.Hour
	// FleetRefresh: stress jobs run about daily; an hour-old fleet is the
	// fleet of that day.
	FleetRefresh = time.Hour
)

// fleetCache holds the fleet's readings and the distributions last computed.
type fleetCache struct {
	mu    sync.Mutex
	at    time.Time // the last refresh; zero before the first
	col   baseline.Collector
	read  map[string]uint64 // node → the highest batch key read
	model map[string]string // node → GPU model
	// bars: what each node's GPU is judged against, from the other nodes
	// and the node's other GPUs (baseline.Bars); immutable once made.
	bars *baseline.Bars
}

// FleetBars returns the live fleet's bars per node, GPU model and figure,
// refreshing them from the store when older than FleetRefresh.
func (s *Service) FleetBars(ctx context.Context) (*baseline.Bars, error) {
	c := &s.fleet
	c.mu.Lock()
	defer c.mu.Unlock()
	now := s.Now()
	if !c.at.IsZero() && now.Sub(c.at) < FleetRefresh {
		return c.bars, nil
	}
	if err := c.refresh(ctx, s.store, now); err != nil {
		return nil, fmt.Errorf("fleet baselines: %w", err)
	}
	return c.bars, nil
}

func (c *fleetCache) refresh(ctx context.Context, st store.Store, now time.Time) error {
	if c.read == nil {
		c.read, c.model = map[string]uint64{}, map[string]string{}
	}
	nodes, err := st.ListNodes(ctx)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		if n.GPUModel == "" {
			continue // no model, no siblings
		}
		c.model[n.ID] = n.GPUModel
		from := uint64(0)
		if k, ok := c.read[n.ID]; ok {
			from = k + 1
		}
		recs, err := st.ListBatches(ctx, n.ID, from, math.MaxUint64)
		if err != nil {
			return fmt.Errorf("batches of %s: %w", n.ID, err)
		}
		for _, rec := range recs {
			c.read[n.ID] = max(c.read[n.ID], rec.Seq)
			if rec.ReceivedAt.Before(now.Add(-FleetWindow)) {
				continue
			}
			b, err := wire.Decode(rec.Body)
			if err != nil {
				return fmt.Errorf("stored batch %d of %s: %w", rec.Seq, n.ID, err)
			}
			for _, e := range ObservationEvents(&n, b, rec.Hash, rec.ReceivedAt) {
				if len(e.Checks) > 0 {
					c.col.Add(n.ID, e.TrueAt(), e.Checks)
				}
			}
		}
	}
	from := now.Add(-FleetWindow)
	c.col.Trim(from)
	res := c.col.Compute(func(id string) (string, bool) {
		m, ok := c.model[id]
		return m, ok
	}, from, now.Add(events.MaxObservationLead), baseline.Options{})
	c.bars = res.Bars
	c.at = now
	return nil
}

// fleetRun is one stress figure of one GPU in one observation.
type fleetRun struct {
	key, figure, unit string
	gpu               int
	v                 float64
}

// stressRuns are an observation's stress figures by series (baseline.FigureOf),
// one value per series: the lowest, as the report keeps one reading per
// instant (peer copies of one GPU fold into one figure).
func stressRuns(e *events.Event) []fleetRun {
	var out []fleetRun
	for i := range e.Checks {
		c := &e.Checks[i]
		fig, ok := baseline.FigureOf(c)
		if !ok || math.IsNaN(*c.Number) || math.IsInf(*c.Number, 0) {
			continue
		}
		gpu := -1
		if c.GPU != nil {
			gpu = *c.GPU
		}
		key := baseline.CheckKey(fig, gpu)
		if j := slices.IndexFunc(out, func(r fleetRun) bool { return r.key == key }); j >= 0 {
			out[j].v = min(out[j].v, *c.Number)
			continue
		}
		out = append(out, fleetRun{key: key, figure: fig, unit: c.Unit, gpu: gpu, v: *c.Number})
	}
	slices.SortFunc(out, func(a, b fleetRun) int {
		if a.key < b.key {
			return -1
		}
		if a.key > b.key {
			return 1
		}
		return 0
	})
	return out
}

// judgeFleet runs the report's rule (baseline.Streak) on each stress
// figure of the observations against the node's bar for its GPU (built
// from the other nodes of its model and the node's other GPUs, never the
// node itself): the third run in a row below it opens
// performance_below_spec, backdated to the first, and the first run back
// at or above it closes the incident — the instants the report gives for
// the same runs and thresholds. With too few other nodes and GPUs there is
// no bar: the probe's static verdict alone applies. A series with no slow
// run keeps no state (the state item is written every push).
func judgeFleet(st *store.NodeState, n store.Node, bars *baseline.Bars, evs []events.Event) []incident.Transition {
	opt := baseline.Options{}.WithDefaults()
	var out []incident.Transition
	for i := range evs {
		e := &evs[i]
		at := e.TrueAt()
		for _, r := range stressRuns(e) {
			bar, ok := bars.For(n.ID, n.GPUModel, r.figure, r.gpu)
			sk := st.Fleet[r.key]
			if !ok {
				continue
			}
			d := bar.Dist
			if sk == nil {
				sk = &baseline.Streak{}
			}
			since := sk.Start
			switch sk.Step(d.Threshold, opt.Runs, at, r.v) {
			case baseline.StreakOpened:
				f := baseline.Finding{Node: n.ID, Model: d.Model, Figure: d.Figure, Unit: d.Unit, GPU: r.gpu, Start: sk.Start,
					Confirmed: at, Runs: sk.Runs, Values: sk.Values, Against: bar.Against, Dist: d, Margin: opt.Margin}
				out = append(out, incident.Transition{Op: incident.Open, Kind: incident.PerformanceBelowSpec, Check: r.key,
					Since: sk.Start, At: sk.Start, Cause: incident.CauseCheck, Counted: true, Evidence: f.Evidence(), Why: f.Text()})
			case baseline.StreakClosed:
				why := msg.New("%s back at or above the fleet threshold %.4g %s", r.figure, d.Threshold, d.Unit)
				out = append(out, incident.Transition{Op: incident.Close, Kind: incident.PerformanceBelowSpec, Check: r.key,
					Since: since, At: at, Cause: incident.CauseCheck, Counted: true, Evidence: why.String(), Why: why})
			}
			if sk.Runs == 0 {
				delete(st.Fleet, r.key)
				continue
			}
			if st.Fleet == nil {
				st.Fleet = map[string]*baseline.Streak{}
			}
			st.Fleet[r.key] = sk
		}
	}
	return out
}
