package app

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gpusla/gpusla/functions/batchform"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

// ExportSelect says what to export: events in [From, To) of the given
// nodes (all when empty). Backend outages are exported either way.
type ExportSelect struct {
	From, To time.Time
	Nodes    []string
	// Thin are nodes written by their registration and release alone,
	// without their observations and runs: a fanned-out month's evidence
	// bundle needs the observations of the nodes with a counted outage
	// only, and reading the others' would cost the month again.
	Thin map[string]bool
	// NoBatches leaves out what the stored batches give (their
	// observations and drops): LastBatchKnown reads what it needs of them
	// instead, so the store's last known instant costs no replay of every
	// batch it holds.
	NoBatches bool
	// Known is the latest instant the records exported beside this log
	// (its tickets and status pages, eventexport) are known at: a backend
	// that recorded its stop was down until the later of it and Export's
	// own records (StoppedSince), so that the log's report is judged as the
	// store's books are.
	Known time.Time
}

// ExportStats counts what Export wrote, and what it had to leave out.
type ExportStats struct {
	Events       int
	Nodes        int
	SkippedNodes []string // registered without a GPU count, which the event format requires
	Batches      int      // stored batch bodies replayed
	Runs         int      // heartbeat runs written as heartbeat_run events
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
// heartbeat run, to keep ingest at one write — so each run (closed ones and
// the current one) is one heartbeat_run event: exactly what the backend
// recorded, and what the report reads as the heartbeats it stands for.
func Export(ctx context.Context, st store.Store, sel ExportSelect, emit func(*events.Event) error) (ExportStats, error) {
	var stats ExportStats
	from, to := sel.From, sel.To
	want := map[string]bool{}
	for _, n := range sel.Nodes {
		want[n] = true
	}
	// The last instant the exported records are known at: a backend that
	// recorded its stop before it was down until then (StoppedSince).
	known := sel.Known
	emit = knownBy(&known, emit)
	out := func(e *events.Event) error {
		stats.Events++
		return emit(e)
	}
	nodes, err := st.ListNodes(ctx)
	if err != nil {
		return stats, fmt.Errorf("export: %w", err)
	}
	h := history(st)
	var exported []store.Node
	for _, n := range nodes {
		if len(want) > 0 && !want[n.ID] {
			continue
		}
		if n.GPUCount < 1 {
			stats.SkippedNodes = append(stats.SkippedNodes, n.ID)
			continue
		}
		stats.Nodes++
		switch {
		case sel.Thin[n.ID]:
			err = exportThin(n, out)
		case sel.NoBatches:
			if err = exportThin(n, out); err == nil {
				err = exportTail(ctx, h, n, from, to, out, &stats)
			}
		default:
			err = ExportNode(ctx, h, n, from, to, emit, &stats)
		}
		if err != nil {
			return stats, fmt.Errorf("export node %s: %w", n.ID, err)
		}
		if err := exportEnrolments(ctx, st, n, to, out); err != nil {
			return stats, fmt.Errorf("export node %s: %w", n.ID, err)
		}
		exported = append(exported, n)
	}
	if err := exportMaintenance(ctx, st, exported, from, to, out); err != nil {
		return stats, err
	}
	return stats, exportBackend(ctx, st, from, to, known, out)
}

// knownBy wraps emit to keep in *known the latest instant an emitted event
// is known at (events.Event.KnownAt).
func knownBy(known *time.Time, emit func(*events.Event) error) func(*events.Event) error {
	return func(e *events.Event) error {
		if k := e.KnownAt(); k.After(*known) {
			*known = k
		}
		return emit(e)
	}
}

// exportMaintenance writes the notices overlapping [from, to) that cover
// an exported node (its own, or its contract's) as maintenance events.
// BackendOutage is a stretch in which the backend itself was down: no
// liveness record covers it.
type BackendOutage struct {
	Start, End time.Time
	Summary    string
}

// StoppedSince is the backend's outage from its recorded stop to until:
// when the run that ended last recorded its own stop (serve shut down) and
// until is after it, no backend was there from the stop on. A store read
// with serve stopped can hold records from after the stop — a node added,
// a notice recorded, by the offline commands that open the store only
// while serve does not — and a report judged at such a record would
// otherwise count every node's silence since the stop, which no backend
// heard. Runs that never recorded a stop (a crash, the Lambdas) end only
// where a later run begins (BackendOutages).
func StoppedSince(runs []store.BackendRun, until time.Time) (BackendOutage, bool) {
	var last *store.BackendRun
	for i := range runs {
		if last == nil || runs[i].LastTick.After(last.LastTick) {
			last = &runs[i]
		}
	}
	if last == nil || !last.Stopped || !until.After(last.LastTick) {
		return BackendOutage{}, false
	}
	return BackendOutage{Start: last.LastTick, End: until,
		Summary: fmt.Sprintf("no backend ran from %s on (%s stopped there); records made since, with the backend stopped, are known up to %s",
			last.LastTick.UTC().Format(time.RFC3339), last.ID, until.UTC().Format(time.RFC3339))}, true
}

// BackendOutages are the gaps between the backend's runs (sorted by start)
// that end after from and begin before to: the export's backend_outage
// events, and what the live verdicts take as the backend's own downtime.
func BackendOutages(runs []store.BackendRun, from, to time.Time) []BackendOutage {
	var out []BackendOutage
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
		out = append(out, BackendOutage{Start: end, End: next,
			Summary: fmt.Sprintf("no backend liveness record from %s to %s (%s stopped or crashed)", end.UTC().Format(time.RFC3339), next.UTC().Format(time.RFC3339), runs[i-1].ID)})
	}
	return out
}

func exportMaintenance(ctx context.Context, st store.Store, nodes []store.Node, from, to time.Time, out func(*events.Event) error) error {
	ms, err := st.ListMaintenance(ctx, from, to)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	for _, m := range ms {
		if !slices.ContainsFunc(nodes, m.Applies) {
			continue
		}
		e := events.Event{Type: events.TypeMaintenance, ID: "maint-" + m.ID, Node: m.Node, Contract: m.Contract,
			Start: m.Start.UTC(), End: m.End.UTC(), AnnouncedAt: m.AnnouncedAt.UTC(), Summary: m.Summary,
			RecordedAt: m.CreatedAt.UTC(), RecordedBy: m.RecordedBy, Override: m.Override}
		if err := out(&e); err != nil {
			return err
		}
	}
	return nil
}

// history is st's read side: its own History, or, for a store that has
// none (a test's wrapper around one), the same walks made of its listing
// methods.
func history(st store.Store) store.History {
	if h, ok := st.(store.History); ok {
		return h
	}
	return listHistory{st}
}

// listHistory walks what the listing methods return.
type listHistory struct{ store.Store }

func (l listHistory) EachBatch(ctx context.Context, node string, from, to time.Time, fn func(*store.BatchRecord) error) error {
	bs, err := l.ListBatches(ctx, node, 0, math.MaxUint64)
	if err != nil {
		return err
	}
	for i := range bs {
		if !bs[i].ReceivedAt.Before(from) && bs[i].ReceivedAt.Before(to) {
			if err := fn(&bs[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l listHistory) EachRun(ctx context.Context, node string, from, to time.Time, fn func(*store.HeartbeatRun) error) error {
	rs, err := l.ListRuns(ctx, node, from, to)
	return eachOf(rs, err, fn)
}

func (l listHistory) EachEvidence(ctx context.Context, node string, from, to time.Time, fn func(*store.Evidence) error) error {
	evs, err := l.ListEvidence(ctx, node, from, to)
	return eachOf(evs, err, fn)
}

func eachOf[T any](list []T, err error, fn func(*T) error) error {
	if err != nil {
		return err
	}
	for i := range list {
		if err := fn(&list[i]); err != nil {
			return err
		}
	}
	return nil
}

// ExportNode writes one node's part of the event log of [from, to), as
// Export writes it: its registration and release, the observations of its
// stored batches made in the window with their drops, its chain breaks and
// restarts, and its heartbeat runs. It reads only the batches received
// when an observation made in the window can have been: from
// events.MaxObservationLead before it to events.MaxObservationAge after
// (ObservationEvents leaves out any other). Stats counts what it wrote.
func ExportNode(ctx context.Context, h store.History, n store.Node, from, to time.Time, emit func(*events.Event) error, stats *ExportStats) error {
	out := func(e *events.Event) error {
		stats.Events++
		return emit(e)
	}
	if err := exportThin(n, out); err != nil {
		return err
	}
	if err := exportBatches(ctx, h, n, from, to, out, stats); err != nil {
		return err
	}
	return exportTail(ctx, h, n, from, to, out, stats)
}

// exportTail writes what ExportNode writes after the batches: the node's
// chain breaks and restarts, and its heartbeat runs.
func exportTail(ctx context.Context, h store.History, n store.Node, from, to time.Time, out func(*events.Event) error, stats *ExportStats) error {
	if err := h.EachEvidence(ctx, n.ID, from, to, func(ev *store.Evidence) error { return exportEvidence(n, ev, out) }); err != nil {
		return err
	}
	return exportRuns(ctx, h, n, from, to, out, stats)
}

// LastBatchKnown is the latest receipt, at or after since, of a stored
// batch that gives the whole store's export an event (an observation whose
// time is within the window around its receipt, or a drop), zero for none:
// every event of a batch is known at its receipt (events.KnownAt), so this
// is the batches' share of the store's last known instant. Only batches
// received at or after since are read: one received before cannot raise
// it. Nodes the export leaves out (no GPU count) are left out here too.
func LastBatchKnown(ctx context.Context, st store.Store, since time.Time) (time.Time, error) {
	nodes, err := st.ListNodes(ctx)
	if err != nil {
		return time.Time{}, fmt.Errorf("last known: %w", err)
	}
	h := history(st)
	var last time.Time
	for _, n := range nodes {
		if n.GPUCount < 1 {
			continue
		}
		var forms batchform.Decoder
		err := h.EachBatch(ctx, n.ID, since, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), func(rec *store.BatchRecord) error {
			if !rec.ReceivedAt.After(last) {
				return nil
			}
			b, err := readStored(&forms, rec)
			if err != nil {
				return fmt.Errorf("stored batch %d: %w", rec.Seq, err)
			}
			if b.Dropped != nil || len(ObservationEvents(&n, b, rec.Hash, rec.ReceivedAt)) > 0 {
				last = rec.ReceivedAt.UTC()
			}
			return nil
		})
		if err != nil {
			return time.Time{}, fmt.Errorf("last known: node %s: %w", n.ID, err)
		}
	}
	return last, nil
}

// exportThin writes the node's registration and release.
func exportThin(n store.Node, out func(*events.Event) error) error {
	reg := RegistrationEvent(n)
	if err := out(&reg); err != nil || n.ReleasedAt.IsZero() {
		return err
	}
	rel := ReleaseEvent(n)
	return out(&rel)
}

// RegistrationEvent is the node's node_registered event: what was
// ordered, on which contract, and the probe's schedule.
func RegistrationEvent(n store.Node) events.Event {
	reg := events.Event{Type: events.TypeNodeRegistered, ID: "reg-" + n.ID, Node: n.ID, Contract: n.Contract, OrderedAt: n.OrderedAt.UTC(),
		Hardware:           &events.Hardware{GPUModel: n.GPUModel, GPUCount: n.GPUCount, GPUMemoryMiB: n.GPUMemoryMiB},
		HeartbeatIntervalS: int(math.Ceil(n.HeartbeatInterval.Seconds())), PushIntervalS: int(math.Ceil(n.PushInterval.Seconds())),
		InstanceID: n.InstanceID, Region: n.Region, Demo: n.Demo}
	if n.PricePerHour > 0 {
		p := n.PricePerHour / float64(n.GPUCount)
		reg.PricePerGPUHour = &p
	}
	return reg
}

// exportBatches writes the observations of the node's stored batches made
// in [from, to), in sequence order, and the drops received in it.
func exportBatches(ctx context.Context, h store.History, n store.Node, from, to time.Time, out func(*events.Event) error, stats *ExportStats) error {
	in := func(t time.Time) bool { return !t.Before(from) && t.Before(to) }
	var forms batchform.Decoder
	return h.EachBatch(ctx, n.ID, from.Add(-events.MaxObservationLead), to.Add(events.MaxObservationAge), func(rec *store.BatchRecord) error {
		b, err := readStored(&forms, rec)
		if err != nil {
			return fmt.Errorf("stored batch %d: %w", rec.Seq, err)
		}
		stats.Batches++
		evs := ObservationEvents(&n, b, rec.Hash, rec.ReceivedAt)
		for i := range evs {
			if in(evs[i].TrueAt()) {
				if err := out(&evs[i]); err != nil {
					return err
				}
			}
		}
		if d := b.Dropped; d != nil && in(rec.ReceivedAt) {
			e := dropEvent(n, rec.Seq, rec.ReceivedAt, d)
			return out(&e)
		}
		return nil
	})
}

// dropEvent is the batch_dropped event of the batch seq received at recv
// reporting d.
func dropEvent(n store.Node, seq uint64, recv time.Time, d *wire.Drop) events.Event {
	return events.Event{Type: events.TypeBatchDropped, ID: fmt.Sprintf("%s/drop/%d", n.ID, seq), Node: n.ID, At: recv.UTC(),
		FromSeq: d.FromSeq, ToSeq: d.ToSeq, Batches: d.Batches, Reason: d.Reason}
}

// ReadStored reads a stored batch: its form where ingest kept one
// (functions/batchform), validated as its body would be, else its body as
// ingest decoded it (wire.Decode). A damaged form is an error, never a
// reason to read something else.
func ReadStored(rec *store.BatchRecord) (*wire.Batch, error) {
	return readStored(nil, rec)
}

// readStored is ReadStored with forms read by d (one a node: its batches
// share their strings).
func readStored(d *batchform.Decoder, rec *store.BatchRecord) (*wire.Batch, error) {
	if rec.Form == nil {
		return wire.Decode(rec.Body)
	}
	b, err := d.Decode(rec.Form)
	if err != nil {
		return nil, err
	}
	if err := b.Validate(); err != nil {
		return nil, fmt.Errorf("batch form: %w", err)
	}
	return b, nil
}

// exportEvidence writes a chain break or restart; other evidence is not
// part of the log.
func exportEvidence(n store.Node, ev *store.Evidence, out func(*events.Event) error) error {
	switch ev.Kind {
	case store.EvidenceChainRestart:
		e := events.Event{Type: events.TypeChainRestart, ID: fmt.Sprintf("%s/chain_restart/%d", n.ID, ev.Seq), Node: n.ID, At: ev.At.UTC(),
			Seq: ev.ChainSeq, FromSeq: ev.PrevSeq, Reason: ev.Detail}
		return out(&e)
	case store.EvidenceChainBreak:
		e := events.Event{Type: events.TypeChainBreak, ID: fmt.Sprintf("%s/chain_break/%d", n.ID, ev.Seq), Node: n.ID, At: ev.At.UTC(),
			Seq: ev.Seq, ExpectedPrev: ev.ExpectedPrev, GotPrev: ev.GotPrev}
		return out(&e)
	}
	return nil
}

// exportRuns writes the heartbeat runs overlapping [from, to): the closed
// ones and the current one.
func exportRuns(ctx context.Context, h store.History, n store.Node, from, to time.Time, out func(*events.Event) error, stats *ExportStats) error {
	write := func(r *store.HeartbeatRun) error {
		if r.To.Before(from) || !r.From.Before(to) {
			return nil
		}
		stats.Runs++
		e := runEvent(n, *r)
		return out(&e)
	}
	if err := h.EachRun(ctx, n.ID, from, to, write); err != nil {
		return err
	}
	if s, err := h.GetState(ctx, n.ID); err == nil && s.Run.Count > 0 {
		return write(&s.Run)
	}
	return nil
}

// ReleaseEvent is a released node's node_released event, with its record
// (a release stored before records were kept has none: its time is then
// taken as it claims).
func ReleaseEvent(n store.Node) events.Event {
	return events.Event{Type: events.TypeNodeReleased, ID: "rel-" + n.ID, Node: n.ID, At: n.ReleasedAt.UTC(),
		RecordedAt: n.ReleaseRecordedAt.UTC(), RecordedBy: n.ReleaseRecordedBy, Override: n.ReleaseOverride}
}

// runEvent is a stored heartbeat run as a heartbeat_run event, exactly as
// the backend recorded it: its ends, count, batch range, and the longest
// step between its heartbeats and longest delay of one (rounded up to the
// millisecond), which let the report decide, as it would heartbeat by
// heartbeat, whether the run was continuous and heard in time. A run stored
// before those were recorded claims the bounds ingest enforces instead:
// extendRun starts a new run when a heartbeat comes HeartbeatInterval +
// Grace or more after the run's end, and only on-time batches (received
// within PushInterval + Grace of their probe time) extend a run at all —
// late ones are stored in full and exported as observations.
//
// A run overlapping the export's window is written whole (its inside is not
// recorded, so it cannot be cut without guessing); the report clips to its
// month itself. The id names both ends, so a re-export of a run that has
// grown since is a new event whose span covers the old one.
func runEvent(n store.Node, r store.HeartbeatRun) events.Event {
	msUp := func(d time.Duration) int64 { return int64((d + time.Millisecond - 1) / time.Millisecond) }
	gap, delay := r.MaxGap, r.MaxDelay
	if gap == 0 && delay == 0 {
		gap, delay = n.HeartbeatInterval+n.Grace, n.PushInterval+n.Grace
	}
	if r.Count < 2 {
		gap = 0
	}
	return events.Event{Type: events.TypeHeartbeatRun,
		ID:   fmt.Sprintf("%s/run@%s..%s", n.ID, r.From.UTC().Format("20060102T150405.000Z"), r.To.UTC().Format("20060102T150405.000Z")),
		Node: n.ID, At: r.From.UTC(), LastAt: r.To.UTC(), ReceivedAt: r.ReceivedFrom.UTC(), LastReceivedAt: r.ReceivedTo.UTC(),
		Count: r.Count, HeartbeatIntervalS: int(math.Ceil(n.HeartbeatInterval.Seconds())),
		MaxGapMS: msUp(gap), MaxDelayMS: msUp(delay), FromSeq: r.FirstSeq, ToSeq: r.LastSeq}
}
