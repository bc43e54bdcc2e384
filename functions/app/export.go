package app

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

// ExportSelect says what to export: events in [From, To) of the given
// nodes (all when empty). Backend outages are exported either way.
type ExportSelect struct {
	From, To time.Time
	Nodes    []string
}

// ExportStats counts what Export wrote, and what it had to leave out.
type ExportStats struct {
	Events       int
	Nodes        int
	SkippedNodes []string // registered without a GPU count, which the event format requires
	Batches      int      // stored batch bodies replayed
	Runs         int      // heartbeat runs expanded into heartbeats
}

// Export writes everything the store knows about [from, to) as events of
// docs/events.md, so `gpusla report` can recompute any month offline:
// node_registered for every node, observation events, batch_dropped and
// chain_break evidence, and backend_outage for gaps in the backend's own
// liveness.
//
// Observations come from two sources. Batches kept in full (checks, late
// data, drops, chain breaks) are replayed observation by observation.
// Heartbeat-only batches were not kept — each only extended the node's
// heartbeat run, to keep ingest at one write — so a run of Count heartbeats
// from From to To is exported as Count heartbeat observations evenly spaced
// over it, with receive times spread over the run's receive span. A run never
// spans a gap the engine could call unreachable (see extendRun), so the
// report sees the same liveness the individual heartbeats showed; their ids
// ("<node>/run@<from>/<i>") mark them as derived from a run.
func Export(ctx context.Context, st Store, sel ExportSelect, emit func(*events.Event) error) (ExportStats, error) {
	var stats ExportStats
	from, to := sel.From, sel.To
	want := map[string]bool{}
	for _, n := range sel.Nodes {
		want[n] = true
	}
	out := func(e *events.Event) error {
		stats.Events++
		return emit(e)
	}
	nodes, err := st.ListNodes(ctx)
	if err != nil {
		return stats, fmt.Errorf("export: %w", err)
	}
	for _, n := range nodes {
		if len(want) > 0 && !want[n.ID] {
			continue
		}
		if n.GPUCount < 1 {
			stats.SkippedNodes = append(stats.SkippedNodes, n.ID)
			continue
		}
		stats.Nodes++
		if err := exportNode(ctx, st, n, from, to, out, &stats); err != nil {
			return stats, fmt.Errorf("export node %s: %w", n.ID, err)
		}
	}
	runs, err := st.ListBackendRuns(ctx, from.Add(-24*time.Hour), to)
	if err != nil {
		return stats, fmt.Errorf("export: %w", err)
	}
	for i := 1; i < len(runs); i++ {
		// The latest end of any earlier run: runs of concurrent Lambdas overlap.
		end, stopped := runs[0].LastTick, runs[0].Stopped
		for _, r := range runs[:i] {
			if r.LastTick.After(end) {
				end, stopped = r.LastTick, r.Stopped
			}
		}
		next := runs[i].Start
		// A run that recorded its own stop (serve shut down) was down from
		// then on, however short the gap; otherwise only a gap longer than
		// MaxTickGap tells a crash from a slow tick.
		if (!stopped && next.Sub(end) <= MaxTickGap) || !next.After(end) || !next.After(from) || !end.Before(to) {
			continue
		}
		e := events.Event{Type: events.TypeBackendOutage, ID: "backend-outage@" + end.UTC().Format("20060102T150405.000Z"),
			Start: end.UTC(), End: next.UTC(),
			Summary: fmt.Sprintf("no backend liveness record from %s to %s (%s stopped or crashed)", end.UTC().Format(time.RFC3339), next.UTC().Format(time.RFC3339), runs[i-1].ID)}
		if err := out(&e); err != nil {
			return stats, err
		}
	}
	return stats, nil
}

func exportNode(ctx context.Context, st Store, n Node, from, to time.Time, out func(*events.Event) error, stats *ExportStats) error {
	reg := events.Event{Type: events.TypeNodeRegistered, ID: "reg-" + n.ID, Node: n.ID, Contract: n.Contract, OrderedAt: n.OrderedAt.UTC(),
		Hardware:           &events.Hardware{GPUModel: n.GPUModel, GPUCount: n.GPUCount, GPUMemoryMiB: n.GPUMemoryMiB},
		HeartbeatIntervalS: int(math.Ceil(n.HeartbeatInterval.Seconds()))}
	if n.PricePerHour > 0 {
		p := n.PricePerHour / float64(n.GPUCount)
		reg.PricePerGPUHour = &p
	}
	if err := out(&reg); err != nil {
		return err
	}
	in := func(t time.Time) bool { return !t.Before(from) && t.Before(to) }

	// Stored batches, in seq order.
	batches, err := st.ListBatches(ctx, n.ID, 0, math.MaxUint64)
	if err != nil {
		return err
	}
	for _, rec := range batches {
		b, err := wire.Decode(rec.Body)
		if err != nil {
			return fmt.Errorf("stored batch %d: %w", rec.Seq, err)
		}
		stats.Batches++
		for _, e := range ObservationEvents(b, rec.Hash, rec.ReceivedAt) {
			if in(e.TrueAt()) {
				if err := out(&e); err != nil {
					return err
				}
			}
		}
		if d := b.Dropped; d != nil && in(rec.ReceivedAt) {
			e := events.Event{Type: events.TypeBatchDropped, ID: fmt.Sprintf("%s/drop/%d", n.ID, rec.Seq), Node: n.ID, At: rec.ReceivedAt.UTC(),
				FromSeq: d.FromSeq, ToSeq: d.ToSeq, Batches: d.Batches, Reason: d.Reason}
			if err := out(&e); err != nil {
				return err
			}
		}
	}

	// Chain breaks.
	evs, err := st.ListEvidence(ctx, n.ID, from, to)
	if err != nil {
		return err
	}
	for _, ev := range evs {
		if ev.Kind != EvidenceChainBreak {
			continue
		}
		e := events.Event{Type: events.TypeChainBreak, ID: fmt.Sprintf("%s/chain_break/%d", n.ID, ev.Seq), Node: n.ID, At: ev.At.UTC(),
			Seq: ev.Seq, ExpectedPrev: ev.ExpectedPrev, GotPrev: ev.GotPrev}
		if err := out(&e); err != nil {
			return err
		}
	}

	// Heartbeat runs: the closed ones and the current one.
	runs, err := st.ListRuns(ctx, n.ID, from, to)
	if err != nil {
		return err
	}
	if s, err := st.GetState(ctx, n.ID); err == nil && s.Run.Count > 0 {
		runs = append(runs, s.Run)
	}
	for _, r := range runs {
		stats.Runs++
		if err := exportRun(n.ID, r, in, out); err != nil {
			return err
		}
	}
	return nil
}

func exportRun(node string, r HeartbeatRun, in func(time.Time) bool, out func(*events.Event) error) error {
	step := func(a, b time.Time, i int64) time.Time {
		if r.Count < 2 {
			return a
		}
		return a.Add(time.Duration(float64(b.Sub(a)) * float64(i) / float64(r.Count-1)))
	}
	prefix := node + "/run@" + r.From.UTC().Format("20060102T150405.000Z") + "/"
	for i := int64(0); i < r.Count; i++ {
		at := step(r.From, r.To, i).UTC()
		if !in(at) {
			continue
		}
		e := events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s%d", prefix, i), Node: node, At: at,
			ReceivedAt: step(r.ReceivedFrom, r.ReceivedTo, i).UTC(), Kind: events.KindHeartbeat}
		if err := out(&e); err != nil {
			return err
		}
	}
	return nil
}
