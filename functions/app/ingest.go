package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/delivery"
	"github.com/gpusla/gpusla/sla/incident"
)

// IngestRequest is one POST of a batch, as the HTTP layer received it.
type IngestRequest struct {
	Node      string // the X-Gpusla-Node header
	Timestamp string // the X-Gpusla-Timestamp header
	Signature string // the X-Gpusla-Signature header
	Body      []byte // at most wire.MaxBodyBytes (the HTTP layer enforces it)
}

// unauthorized is a rejected signature, timestamp or replay: an Error of
// kind EUnauthorized whose message says only which check failed.
func unauthorized(reason error) *Error {
	return &Error{Kind: EUnauthorized, Msg: "unauthorized: " + reason.Error(), Err: reason}
}

// More reasons a request is refused with 401, next to wire's.
var (
	// ErrUnknownNode is the one answer to an unknown node and to a known
	// node whose signature does not match (wire.ErrBadSignature), so that
	// the answer never says which node ids exist.
	ErrUnknownNode = errors.New("unknown node or signature does not match")
	ErrReplay      = errors.New("replayed request (this exact signed request was already received)")
)

// Ingest authenticates, decodes, deduplicates, chain-checks, stores and
// evaluates one batch, then alerts on what changed. Nothing is stored for a
// request it rejects. A duplicate (a retry of a batch already accepted) is
// answered like a success with status "duplicate" and changes nothing.
func (s *Service) Ingest(ctx context.Context, req IngestRequest) (wire.Ack, error) {
	now := s.Now()
	// 1. Authenticate before looking at the body at all.
	if req.Node == "" || req.Timestamp == "" || req.Signature == "" {
		return wire.Ack{}, unauthorized(wire.ErrNoSignature)
	}
	// An unknown node goes through the same checks as a known one, with a
	// secret nobody has: the same timestamp check, the same HMAC over the
	// same body, the same answer. Nothing in the status, the message or the
	// work done tells a guesser whether the node id exists.
	known := wire.ValidNodeID(req.Node)
	var node store.Node
	secret := s.decoySecret
	if known {
		var err error
		node, secret, err = s.nodeAndSecret(ctx, req.Node)
		if errors.Is(err, store.ErrNotFound) {
			known, secret = false, s.decoySecret
		} else if err != nil {
			return wire.Ack{}, fmt.Errorf("ingest: %w", err)
		}
	}
	signedAt, err := wire.Verify(secret, now, req.Timestamp, req.Signature, req.Body)
	if errors.Is(err, wire.ErrBadSignature) || (err == nil && !known) {
		return wire.Ack{}, unauthorized(ErrUnknownNode)
	}
	if err != nil {
		return wire.Ack{}, unauthorized(err)
	}
	// 2. Decode and check the schema.
	b, err := wire.Decode(req.Body)
	if err != nil {
		var fe *wire.FieldError
		if errors.As(err, &fe) {
			field := fe.Field
			if field == "" {
				field = "body" // a wrong type at the top level: the body is not a batch object
			}
			return wire.Ack{}, Errorf(EInvalid, field, "%s", fe.Msg)
		}
		return wire.Ack{}, Errorf(EInvalid, "body", "%s", err.Error())
	}
	if b.Node != node.ID {
		return wire.Ack{}, Errorf(EInvalid, "node", "%q does not match the signing node %q", b.Node, node.ID)
	}
	in := &ingest{s: s, node: node, b: b, body: req.Body, hash: wire.BodyHash(req.Body), now: now,
		sig: sigPrefix(req.Signature), signedAt: signedAt}
	return in.run(ctx)
}

// restartChain reports whether b starts a new hash chain: the probe lost
// its state (reinstalled, spool and state wiped, disk replaced) and began
// again at seq 1. A probe that sends chain ids names a new chain; an old
// one sends seq 1 with no prev after the node's chain had gone past it. The
// batch is already authenticated with the node's secret, so the restart is
// the node's own; it is evidence, never an outage.
func restartChain(st *store.NodeState, b *wire.Batch) bool {
	if st.LastSeq == 0 {
		return false // nothing before it: the first chain
	}
	if b.Chain != "" {
		return b.Chain != st.Chain && !slices.Contains(st.PastChains, b.Chain)
	}
	return b.Seq == 1 // wire.Validate: seq 1 has no prev
}

// isMeasurement tells the figures whose bodies are kept even when they
// pass. The probe's stress job — burn throughput, copy bandwidth, power at
// the cap (category performance) and iperf3: the report, the scorecard and
// the fleet baselines judge a card by them, and they come once a day, so
// keeping them costs one body per node a day (docs/cost.md). And the usage
// readings (usage.*: disks, interface byte counters, boot), which the
// provider's bill lines are held to (docs/bills.md): a traffic figure needs
// the counters on both sides of the month's ends and of every reboot, so
// each one is kept; they come once an hour.
func isMeasurement(c wire.Check) bool {
	return c.Category == wire.CategoryPerformance || strings.HasPrefix(c.Name, "net.iperf3.") || strings.HasPrefix(c.Name, "usage.")
}

// hasStress says whether a batch carries a stress figure the fleet is
// compared on (baseline.FigureOf).
func hasStress(b *wire.Batch) bool {
	for _, o := range b.Observations {
		for _, c := range o.Checks {
			if c.Category == wire.CategoryPerformance && c.Number != nil {
				return true
			}
		}
	}
	return false
}

func chainName(c string) string {
	if c == "" {
		return "without id"
	}
	return c
}

// sigPrefix is the replay key of a verified signature: a hash of its
// canonical spelling, so the same MAC sent again with its hex upper-cased
// (which verifies just as well) is recognised as the replay it is.
func sigPrefix(sig string) string {
	if c, ok := wire.CanonicalSignature(sig); ok {
		sig = c
	}
	sum := sha256.Sum256([]byte(sig))
	return hex.EncodeToString(sum[:8])
}

// ingest is one batch on its way in; run may evaluate it several times if
// concurrent writers to the same node make its state write conflict.
type ingest struct {
	s        *Service
	node     store.Node
	b        *wire.Batch
	body     []byte
	hash     string
	now      time.Time
	sig      string
	signedAt time.Time
	stored   bool // this request stored the batch body
	fleet    map[fleetKey]baseline.Dist
}

func (in *ingest) ack(status string) wire.Ack {
	return wire.Ack{ID: in.b.ID, Status: status, ServerTime: in.now}
}

func (in *ingest) run(ctx context.Context) (wire.Ack, error) {
	if hasStress(in.b) {
		// The fleet's thresholds, read before the state: the batch's
		// stress figures are judged against its siblings (fleet.go).
		dists, err := in.s.FleetDists(ctx)
		if err != nil {
			return wire.Ack{}, fmt.Errorf("ingest: %w", err)
		}
		in.fleet = dists
	}
	for attempt := 0; attempt < maxRetries; attempt++ {
		ack, effects, err := in.attempt(ctx)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return wire.Ack{}, err
		}
		in.s.apply(ctx, in.node, effects)
		if !effects.delivered.IsZero() {
			in.s.alertDelivered(ctx, in.node, effects.delivered)
		}
		return ack, nil
	}
	return wire.Ack{}, errTooContended("ingest batch " + in.b.ID)
}

// effects are what a committed state change implies: records to derive and
// alerts to send. They are computed before the state write and applied after it.
type effects struct {
	transitions []incident.Transition
	failed      map[string][]notify.FailedCheck // failing checks of this batch by check (Verdict.Key), for the records and alerts
	runClosed   *store.HeartbeatRun
	// delivered is set when this batch delivered the node (by its
	// contract's rule: the first heartbeat or the first passing acceptance
	// check), for the late-delivery alert.
	delivered time.Time
	// stamp is the claim time of the transitions' alerts and release ends
	// its reservation (alertStamps); apply calls it.
	stamp   time.Time
	release func()
}

func (in *ingest) attempt(ctx context.Context) (wire.Ack, effects, error) {
	var fx effects
	st, err := in.s.store.GetState(ctx, in.node.ID)
	var prev int64
	switch {
	case errors.Is(err, store.ErrNotFound):
		st = store.NodeState{Node: in.node.ID, AcceptanceKnown: true}
	case err != nil:
		return wire.Ack{}, fx, err
	default:
		prev = st.Version
	}
	b := in.b
	// Replay: the identical signed request again (a probe retry re-signs).
	for _, sg := range st.Signatures {
		if sg.Sig == in.sig {
			return wire.Ack{}, fx, unauthorized(ErrReplay)
		}
	}
	// A retry of a recent batch, of this chain or the one before.
	for _, r := range st.Recent {
		if r.ID == b.ID {
			return in.ack(wire.AckDuplicate), fx, nil
		}
	}
	var evidence []store.Evidence
	ev := func(kind, detail string) {
		evidence = append(evidence, store.Evidence{Node: in.node.ID, At: in.now, Kind: kind, Seq: st.SeqBase + b.Seq, BatchID: b.ID, Detail: detail})
	}
	var why []string
	// Fresh: signed no earlier than the newest request accepted so far (both
	// probe clock). Only a fresh request is a sign of life or can restart a
	// chain: an old signed request replayed inside the timestamp window,
	// after the signature cache forgot it, is neither. This — not the
	// sequence order — is what liveness rests on.
	fresh := !in.signedAt.Before(st.LastSignedAt)
	if fresh && restartChain(&st, b) {
		why = append(why, "chain_restart")
		ev(store.EvidenceChainRestart, fmt.Sprintf("chain restarted at seq %d after seq %d (chain %s, was %s); batches of the new chain are stored from key %d",
			b.Seq, st.LastSeq, chainName(b.Chain), chainName(st.Chain), st.SeqBase+st.LastSeq+1))
		st.PastChains = appendCapped(st.PastChains, st.Chain, store.RecentChains)
		prevBase := st.SeqBase
		st.SeqBase += st.LastSeq
		st.LastSeq, st.LastHash, st.LastBatchID, st.Chain = 0, "", "", b.Chain
		evidence[0].Seq = st.SeqBase + b.Seq
		evidence[0].ChainSeq, evidence[0].PrevSeq = b.Seq, st.SeqBase-prevBase
	}
	if st.LastSeq == 0 {
		st.Chain = b.Chain // the node's first chain, or the one just started
	}
	key := st.SeqBase + b.Seq // the batch's key in the store (see NodeState.SeqBase)
	// Dedupe against the recent batches.
	for _, r := range st.Recent {
		if r.Seq != key {
			continue
		}
		// Another batch with a seq already used: keep the evidence, do not
		// let it overwrite what was accepted.
		err := in.s.store.PutEvidence(ctx, store.Evidence{Node: in.node.ID, At: in.now, Kind: store.EvidenceSeqReuse, Seq: key, BatchID: b.ID,
			Detail: fmt.Sprintf("seq %d already used by batch %s", b.Seq, r.ID)})
		if err != nil && !errors.Is(err, store.ErrExists) {
			return wire.Ack{}, fx, err
		}
		return in.ack(wire.AckDuplicate), fx, nil
	}
	if b.Chain != st.Chain && slices.Contains(st.PastChains, b.Chain) {
		// A stray batch of a chain the probe has left behind: evidence
		// only, never a sign that the chain started again.
		err := in.s.store.PutEvidence(ctx, store.Evidence{Node: in.node.ID, At: in.now, Kind: store.EvidenceOutOfOrder, Seq: key, BatchID: b.ID,
			Detail: fmt.Sprintf("seq %d of the earlier chain %s arrived after the chain restarted", b.Seq, chainName(b.Chain))})
		if err != nil && !errors.Is(err, store.ErrExists) {
			return wire.Ack{}, fx, err
		}
		return in.ack(wire.AckDuplicate), fx, nil
	}

	outOfOrder := st.LastSeq > 0 && b.Seq <= st.LastSeq
	switch {
	case outOfOrder:
		why = append(why, "out_of_order")
		ev(store.EvidenceOutOfOrder, fmt.Sprintf("seq %d arrived after seq %d", b.Seq, st.LastSeq))
	case st.LastSeq > 0 && b.Seq == st.LastSeq+1 && b.Prev != st.LastHash:
		why = append(why, "chain_break")
		ev(store.EvidenceChainBreak, fmt.Sprintf("prev %s does not match the hash %s of seq %d", short(b.Prev), short(st.LastHash), st.LastSeq))
		evidence[len(evidence)-1].ExpectedPrev, evidence[len(evidence)-1].GotPrev = st.LastHash, b.Prev
	case b.Seq > st.LastSeq+1 && (st.LastSeq > 0 || b.Seq > 1):
		if b.Dropped == nil || b.Dropped.ToSeq+1 < b.Seq || b.Dropped.FromSeq > st.LastSeq+1 {
			why = append(why, "seq_gap")
			ev(store.EvidenceSeqGap, fmt.Sprintf("seq %d follows seq %d; %d batches never arrived", b.Seq, st.LastSeq, b.Seq-st.LastSeq-1))
		}
	}
	if d := b.Dropped; d != nil {
		why = append(why, "drop")
		ev(store.EvidenceDrop, fmt.Sprintf("spool dropped %d batches, seq %d to %d: %s", d.Batches, d.FromSeq, d.ToSeq, d.Reason))
	}
	skew := time.Duration(b.ClockSkewMS) * time.Millisecond
	bounds := outOfBounds(b, in.now)
	if len(bounds) > 0 {
		var parts []string
		for i := range b.Observations {
			if err, bad := bounds[i]; bad {
				parts = append(parts, fmt.Sprintf("observations[%d].at: %v", i, err))
			}
		}
		// One evidence per batch (its key is time, seq and kind); the body
		// keeps every observation as it came.
		ev(store.EvidenceTimeBounds, fmt.Sprintf("%d observations set aside, their time outside the window: %s", len(parts), strings.Join(parts, "; ")))
		why = append(why, "time_bounds")
	}
	late := false
	hasChecks, notPass, measured := false, false, false
	for i, o := range b.Observations {
		if _, bad := bounds[i]; bad {
			continue
		}
		for _, c := range o.Checks {
			hasChecks = true
			if c.Verdict != wire.Pass {
				notPass = true
			}
			measured = measured || isMeasurement(c)
		}
		at := o.At.Add(-skew)
		// Late: older than a push can be, or inside a gap the backend saw as
		// unreachable — the evidence that decides whose fault the gap was.
		if in.now.Sub(at) > in.node.PushInterval+in.node.Grace || inGap(&st.Eval, at) {
			late = true
		}
	}
	if notPass {
		why = append(why, "checks") // a check warned, failed or was skipped: what the state rests on
	}
	if measured {
		why = append(why, "measurements") // the stress job's figures: the report's, the scorecard's and the fleet baselines' evidence
	}
	if late {
		why = append(why, "late")
	}
	// Check results that all pass while nothing is pending (no incident
	// open, no failure or recovery being counted, no unreachable gap whose
	// cause they could decide) change nothing: the heartbeat run and the
	// SLA state already record them, and replaying the stored batches
	// without them gives the same incidents. Keeping them was most of a
	// node's AWS bill (docs/cost.md).
	checksMatter := hasChecks && unsettled(&st.Eval)
	// The node's first check results are its delivery evidence (what
	// hardware it was handed over with). Its first heartbeats need no body:
	// the heartbeat run records them.
	firstChecks := len(st.Eval.Checks) == 0

	// Evaluate through the SLA engine, observation by observation, whatever
	// the batch's place in the sequence: liveness never depends on sequence
	// order. A fresh batch older in sequence than the last accepted one was
	// still signed just now with the node's secret, so the probe is alive,
	// and its observations are evidence like any late data.
	th := in.s.Thresholds(in.node)
	st.Eval.Interval = in.node.HeartbeatInterval
	fx.failed = map[string][]notify.FailedCheck{}
	evs := ObservationEvents(b, in.hash, in.now)
	if in.node.Released(in.now) {
		// Given back: what was open ends at the release, and the engine
		// ignores observations from the release on (incident.State.Release).
		fx.transitions = append(fx.transitions, st.Eval.Release(in.node.ReleasedAt)...)
	}
	if !fresh {
		why = append(why, "stale_signature")
		evs = nil
	}
	wasDelivered := !in.s.deliveredAt(in.node, &st).IsZero()
	for _, e := range evs {
		if len(e.Checks) > 0 && delivery.Accepted(e.Checks) {
			if at := e.TrueAt().UTC(); st.AcceptedAt.IsZero() || at.Before(st.AcceptedAt) {
				if st.AcceptedAt.IsZero() {
					// The first passing acceptance check is delivery evidence
					// (counts_until: acceptance_passed): kept and exported even
					// when nothing else in the batch would be.
					why = append(why, "acceptance")
				}
				st.AcceptedAt = at
			}
		}
		fx.transitions = append(fx.transitions, st.Eval.Observe(th, &e)...)
		for j, c := range b.Observations[e.Index].Checks {
			if k, ok := incident.KindOfCategory(c.Category); ok && c.Verdict == wire.Fail {
				key := incident.Verdict{Kind: k, Check: incident.CheckKey(&e.Checks[j])}.Key()
				fx.failed[key] = append(fx.failed[key], failedCheck(c, e.TrueAt()))
			}
		}
	}

	// Slower than its siblings: the report's rule on each stress figure.
	fx.transitions = append(fx.transitions, judgeFleet(&st, in.node, in.fleet, evs)...)

	if firstChecks && len(st.Eval.Checks) > 0 {
		why = append(why, "first_checks")
	}
	if len(fx.transitions) > 0 {
		why = append(why, "incident") // it opened, closed or reclassified an incident
	}
	if hasChecks && !notPass && len(fx.transitions) == 0 && (checksMatter || unsettled(&st.Eval)) {
		why = append(why, "pending") // passes counted towards a recovery, or during a gap
	}

	// Liveness and the heartbeat run (on-time data only: late data is kept
	// in full as a batch body and would otherwise stretch the run backwards).
	if !outOfOrder {
		st.LastSeq, st.LastHash, st.LastBatchID = b.Seq, in.hash, b.ID
	}
	st.Recent = appendCapped(st.Recent, store.SeqID{Seq: key, ID: b.ID}, store.RecentBatches)
	st.Signatures = appendCapped(freshSignatures(st.Signatures, in.now), store.SigSeen{Sig: in.sig, At: in.signedAt}, store.RecentSignatures)
	if fresh {
		st.LastReceivedAt, st.LastSignedAt = in.now, in.signedAt
	}
	st.ClockSkewMS = b.ClockSkewMS
	if !late && !outOfOrder {
		fx.runClosed = extendRun(&st, in.node, b, bounds, key, skew, in.now)
	}
	for i, o := range b.Observations {
		if _, bad := bounds[i]; bad {
			continue
		}
		at := o.At.Add(-skew).UTC()
		if st.FirstHeartbeatAt.IsZero() || at.Before(st.FirstHeartbeatAt) {
			st.FirstHeartbeatAt = at
		}
		if at.After(st.LastHeartbeatAt) {
			st.LastHeartbeatAt = at
		}
	}
	st.UpdatedAt = in.now
	if d := in.s.deliveredAt(in.node, &st); !wasDelivered && !d.IsZero() && in.s.watchesDelivery(in.node, &st) {
		fx.delivered = d
	}

	// Derived records first (idempotent), then the state write that commits.
	if len(why) > 0 && !in.stored {
		err := in.s.store.PutBatch(ctx, store.BatchRecord{Node: in.node.ID, Seq: key, ID: b.ID, Hash: in.hash, ReceivedAt: in.now,
			Why: why, Body: in.body, ExpiresAt: in.now.Add(in.s.retention)})
		if errors.Is(err, store.ErrExists) {
			// Stored already: by a concurrent copy of this very batch (or one
			// that crashed before its state write) — then carry on, the
			// versioned state write decides who commits — or by another batch
			// with the same seq, which must not be overwritten.
			got, gerr := in.s.store.GetBatch(ctx, in.node.ID, key)
			if gerr != nil {
				return wire.Ack{}, effects{}, gerr
			}
			if got.ID != b.ID {
				perr := in.s.store.PutEvidence(ctx, store.Evidence{Node: in.node.ID, At: in.now, Kind: store.EvidenceSeqReuse, Seq: key, BatchID: b.ID,
					Detail: fmt.Sprintf("seq %d already used by batch %s", b.Seq, got.ID)})
				if perr != nil && !errors.Is(perr, store.ErrExists) {
					return wire.Ack{}, effects{}, perr
				}
				return in.ack(wire.AckDuplicate), effects{}, nil
			}
		} else if err != nil {
			return wire.Ack{}, effects{}, err
		}
		in.stored = true
	}
	for _, e := range evidence {
		if err := in.s.store.PutEvidence(ctx, e); err != nil && !errors.Is(err, store.ErrExists) {
			return wire.Ack{}, effects{}, err
		}
	}
	fx.stamp, fx.release = in.s.alertStamps(in.node.ID, len(fx.transitions))
	if _, err := in.s.store.PutState(ctx, st, prev); err != nil {
		fx.release()
		return wire.Ack{}, effects{}, err
	}
	if fx.runClosed != nil {
		if err := in.s.store.PutRun(ctx, *fx.runClosed); err != nil && !errors.Is(err, store.ErrExists) {
			// The state no longer holds it: log loudly; export still has the
			// batches around it. This is a store outage, not a logic error.
			in.s.log.Error("store closed heartbeat run", "node", in.node.ID, "from", fx.runClosed.From, "err", err)
		}
	}
	in.logStored(ctx, st, why)
	return in.ack(wire.AckStored), fx, nil
}

// logStored says what came in: at info for the first batch of a node (its
// delivery) and for the demo node, so `gpusla serve` shows heartbeats
// arriving; at debug otherwise, because a fleet pushes every minute.
func (in *ingest) logStored(ctx context.Context, st store.NodeState, why []string) {
	level := slog.LevelDebug
	msg := "batch stored"
	if in.b.Seq == 1 || st.Version == 0 {
		level, msg = slog.LevelInfo, "first batch from node"
	} else if in.node.Demo {
		level = slog.LevelInfo
	}
	if !in.s.log.Enabled(ctx, level) {
		return
	}
	hb, checks, failing := 0, 0, 0
	for _, o := range in.b.Observations {
		if o.Kind == wire.KindHeartbeat {
			hb++
		}
		for _, c := range o.Checks {
			checks++
			if c.Verdict == wire.Fail {
				failing++
			}
		}
	}
	in.s.log.Log(ctx, level, msg, "node", in.node.ID, "seq", in.b.Seq, "heartbeats", hb, "checks", checks, "failing", failing,
		"kept", why, "run_heartbeats", st.Run.Count)
}

// extendRun adds the batch's observations to the current heartbeat run, or
// closes it and starts a new one when they do not continue it. A run never
// spans a gap the SLA engine could call unreachable (heartbeat interval +
// grace), in probe time or in receive time, so that exporting a run as
// heartbeats every interval says exactly what the individual heartbeats said.
func extendRun(st *store.NodeState, n store.Node, b *wire.Batch, bounds map[int]error, key uint64, skew time.Duration, now time.Time) *store.HeartbeatRun {
	var closed *store.HeartbeatRun
	maxGap := n.HeartbeatInterval + n.Grace
	for i, o := range b.Observations {
		if _, bad := bounds[i]; bad {
			continue // a wrong clock: never part of the run
		}
		at := o.At.Add(-skew).UTC()
		r := &st.Run
		if r.Count > 0 && !at.After(r.To) {
			continue // not after the run's end: already covered
		}
		if r.Count == 0 || at.Sub(r.To) >= maxGap || now.Sub(r.ReceivedTo) >= maxGap {
			if r.Count > 0 {
				c := *r
				closed = &c
			}
			*r = store.HeartbeatRun{Node: n.ID, From: at, To: at, Count: 1, ReceivedFrom: now, ReceivedTo: now,
				MaxDelay: max(now.Sub(at), 0), FirstSeq: key, LastSeq: key}
			continue
		}
		r.MaxGap, r.MaxDelay = max(r.MaxGap, at.Sub(r.To)), max(r.MaxDelay, now.Sub(at))
		r.To, r.ReceivedTo, r.LastSeq = at, now, key
		r.Count++
	}
	return closed
}

// unsettled reports whether check results can still change something: an
// incident is open (passes are being counted towards closing it), a run of
// failures is being counted towards opening one, or the node is unreachable (connectivity checks
// then decide the gap's cause). Only then must all-pass check batches be
// kept, so that replaying the stored batches reproduces the incidents.
func unsettled(ev *incident.State) bool {
	if ev.Unreachable != nil {
		return true
	}
	for _, h := range ev.Checks {
		if h != nil && (h.Open || h.FailRun > 0) { // PassRun keeps counting while closed
			return true
		}
	}
	return false
}

// inGap reports whether t falls in the open unreachable gap or a recent one.
func inGap(ev *incident.State, t time.Time) bool {
	if g := ev.Unreachable; g != nil && !t.Before(g.Since) {
		return true
	}
	for _, g := range ev.Recent {
		if !t.Before(g.Since) && t.Before(g.Until) {
			return true
		}
	}
	return false
}

func failedCheck(c wire.Check, at time.Time) notify.FailedCheck {
	return notify.FailedCheck{Name: c.Name, Category: c.Category, Verdict: c.Verdict, Value: c.Value, Criterion: c.Criterion,
		GPU: c.GPU, Detail: c.Detail, Since: at}
}

// freshSignatures drops signatures whose signed time is outside the
// timestamp window: a replay of those is refused by Verify already.
func freshSignatures(sigs []store.SigSeen, now time.Time) []store.SigSeen {
	out := sigs[:0:0]
	for _, s := range sigs {
		if d := now.Sub(s.At); d <= wire.TimestampWindow && d >= -wire.TimestampWindow {
			out = append(out, s)
		}
	}
	return out
}

func appendCapped[T any](s []T, v T, n int) []T {
	s = append(s, v)
	if len(s) > n {
		s = slices.Clone(s[len(s)-n:])
	}
	return s
}

func short(h string) string {
	if h == "" {
		return `""`
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
