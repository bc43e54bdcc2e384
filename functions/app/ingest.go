package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/batchform"
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
		ue := unauthorized(err)
		// The timestamp's faults say what was sent and by how much it
		// misses: the backend's clock is in every answer's Date anyway,
		// and a probe's operator reads this to set the clock right.
		switch {
		case errors.Is(err, wire.ErrBadTimestamp):
			ue.Msg = fmt.Sprintf("%s: %s %q is not Unix seconds in decimal", ue.Msg, wire.HeaderTimestamp, req.Timestamp)
		case errors.Is(err, wire.ErrStale):
			ue.Msg = fmt.Sprintf("%s: %s %s is %s from the backend's clock (%s); at most %s either way", ue.Msg, wire.HeaderTimestamp,
				req.Timestamp, now.Sub(signedAt).Round(time.Second), now.UTC().Format(time.RFC3339), wire.TimestampWindow)
		}
		return wire.Ack{}, ue
	}
	// 2. Decode and check the schema: every key spelled once and as the
	// protocol spells it first (wire.CheckKeys), so what is stored says
	// one thing to every reader; then the fields and their bounds.
	b, err := wire.DecodeNew(req.Body)
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
	// Seq 1 again while the chain is still at 1 is not a restart: it is
	// seq 1 reused (place keeps it as evidence, never over the first).
	return b.Seq == 1 && st.LastSeq > 1 // wire.Validate: seq 1 has no prev
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
	fleet    *baseline.Bars
}

func (in *ingest) ack(status string) wire.Ack {
	return wire.Ack{ID: in.b.ID, Status: status, ServerTime: in.now}
}

func (in *ingest) run(ctx context.Context) (wire.Ack, error) {
	if hasStress(in.b) {
		// The fleet's thresholds, read before the state: the batch's
		// stress figures are judged against its siblings (fleet.go).
		bars, err := in.s.FleetBars(ctx)
		if err != nil {
			return wire.Ack{}, fmt.Errorf("ingest: %w", err)
		}
		in.fleet = bars
	}
	var (
		ack wire.Ack
		fx  effects
	)
	state := versioned[*draft]{
		read: func(ctx context.Context, _ int) (*draft, error) { return in.readState(ctx) },
		write: func(ctx context.Context, d *draft) (*draft, error) {
			var err error
			ack, fx, err = in.commit(ctx, d)
			return d, err
		},
	}
	_, err := update(ctx, "ingest batch "+in.b.ID, state, func(d **draft) error {
		var answered bool
		var err error
		fx = effects{}
		if ack, answered, err = in.decide(ctx, *d); answered && err == nil {
			return errUnchanged
		}
		return err
	})
	if err != nil {
		in.refused(ctx, err)
		return wire.Ack{}, err
	}
	in.s.apply(ctx, in.node, fx)
	if !fx.delivered.IsZero() {
		in.s.alertDelivered(ctx, in.node, fx.delivered)
	}
	return ack, nil
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
	// limited: the alerts are a batch's, held past alertsLeft, the alerts
	// left of the node's hour (limits.go); held counts those held.
	limited          bool
	alertsLeft, held int
}

// draft is one attempt's working copy of the node's state and what it has
// decided about the batch so far. Nothing of it is stored until commit, so
// an attempt that loses a version conflict leaves no trace but idempotent
// records (evidence, the batch body).
type draft struct {
	st   store.NodeState
	prev int64 // the state's version as read: the state write is conditional on it
	key  uint64
	// fresh: signed no earlier than the newest request accepted so far
	// (see place).
	fresh      bool
	outOfOrder bool
	late       bool
	bounds     map[int]error // observations whose time is outside the window, by index
	skew       time.Duration
	// What the batch carries, and what the state said before judging it.
	hasChecks, notPass, checksMatter, firstChecks, wasDelivered bool

	evidence []store.Evidence
	why      []string // why the body is kept (BatchRecord.Why); none: it is not
	fx       effects
}

// note adds evidence about the batch, under its key in the current chain.
func (in *ingest) note(d *draft, kind, detail string) {
	d.evidence = append(d.evidence, store.Evidence{Node: in.node.ID, At: in.now, Kind: kind, Seq: d.st.SeqBase + in.b.Seq, BatchID: in.b.ID, Detail: detail})
}

// decide takes the batch in against the node's state as read now. The
// refusals come first, in this order: a replayed signature, a retry of a
// batch already taken, a seq already used or a chain left behind (each
// answered at once: answered). Then the batch's place in the chain and its
// times are noted and the SLA engine judges it, all in the draft; commit's
// one conditional state write then stores it.
func (in *ingest) decide(ctx context.Context, d *draft) (ack wire.Ack, answered bool, err error) {
	if ack, answered, err := in.repeat(ctx, d); answered {
		return ack, true, err
	}
	if ack, answered, err := in.place(ctx, d); answered {
		return ack, true, err
	}
	in.noteOrder(d)
	in.inspect(d)
	checks := len(d.st.Eval.Checks)
	in.judge(d)
	if err := in.limit(d, checks); err != nil {
		return wire.Ack{}, true, err
	}
	in.advance(d)
	return wire.Ack{}, false, nil
}

// readState reads the node's state, or starts one for its first batch.
func (in *ingest) readState(ctx context.Context) (*draft, error) {
	st, err := in.s.store.GetState(ctx, in.node.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return &draft{st: store.NodeState{Node: in.node.ID, AcceptanceKnown: true, AcceptanceHeld: true}}, nil
	case err != nil:
		return nil, err
	}
	if err := in.s.holdAcceptance(ctx, in.node, &st, in.now); err != nil {
		return nil, err
	}
	return &draft{st: st, prev: st.Version}, nil
}

// repeat answers a request seen before: the identical signed request again
// is a replay, refused (a probe retry re-signs); a recent batch, of this
// chain or the one before, sent again is a retry, answered as a duplicate.
func (in *ingest) repeat(ctx context.Context, d *draft) (ack wire.Ack, answered bool, err error) {
	for _, sg := range d.st.Signatures {
		if sg.Sig == in.sig {
			return wire.Ack{}, true, unauthorized(ErrReplay)
		}
	}
	for _, r := range d.st.Recent {
		if r.ID == in.b.ID {
			if r.Hash != "" && !strings.HasPrefix(in.hash, r.Hash) {
				ack, err := in.otherContent(ctx, r.Seq, r.Hash)
				return ack, true, err
			}
			return in.ack(wire.AckDuplicate), true, nil
		}
	}
	return wire.Ack{}, false, nil
}

// otherContent keeps as evidence a batch sent again under the id of one
// already taken with other bytes, and answers it as a duplicate: what was
// taken first is never replaced, and the node's second word is on record.
func (in *ingest) otherContent(ctx context.Context, key uint64, taken string) (wire.Ack, error) {
	return in.setAside(ctx, store.EvidenceSeqReuse, key, fmt.Sprintf("batch %s sent again with other content (hash %s, the batch taken has %s); the first one is kept",
		in.b.ID, short(in.hash), short(taken)))
}

// place finds the batch's key: in the node's current chain, or in a new one
// it starts. A batch whose key is already taken, or of a chain the probe
// has left behind, is answered as a duplicate with evidence kept.
func (in *ingest) place(ctx context.Context, d *draft) (ack wire.Ack, answered bool, err error) {
	b, st := in.b, &d.st
	// Fresh: signed no earlier than the newest request accepted so far (both
	// probe clock). Only a fresh request is a sign of life or can restart a
	// chain: an old signed request replayed inside the timestamp window,
	// after the signature cache forgot it, is neither. This — not the
	// sequence order — is what liveness rests on.
	d.fresh = !in.signedAt.Before(st.LastSignedAt)
	if d.fresh && restartChain(st, b) {
		if st.SeqBase > math.MaxUint64-2*wire.MaxSeq {
			// The new chain's keys would wrap round onto the first
			// chain's: some 16 million restarts, none a probe's.
			return wire.Ack{}, true, Errorf(EInvalid, "chain", "chain %s would start after key %d: the node's batch keys are used up by its earlier chains' seqs",
				chainName(b.Chain), st.SeqBase+st.LastSeq)
		}
		in.restart(d)
	}
	if st.LastSeq == 0 {
		st.Chain = b.Chain // the node's first chain, or the one just started
	}
	d.key = st.SeqBase + b.Seq // the batch's key in the store (see NodeState.SeqBase)
	for _, r := range st.Recent {
		if r.Seq == d.key {
			// Another batch with a seq already used: keep the evidence, do
			// not let it overwrite what was accepted.
			ack, err := in.setAside(ctx, store.EvidenceSeqReuse, d.key, fmt.Sprintf("seq %d already used by batch %s", b.Seq, r.ID))
			return ack, true, err
		}
	}
	if b.Chain != st.Chain && slices.Contains(st.PastChains, b.Chain) {
		// A stray batch of a chain the probe has left behind: evidence
		// only, never a sign that the chain started again.
		ack, err := in.setAside(ctx, store.EvidenceOutOfOrder, d.key, fmt.Sprintf("seq %d of the earlier chain %s arrived after the chain restarted", b.Seq, chainName(b.Chain)))
		return ack, true, err
	}
	return wire.Ack{}, false, nil
}

// restart begins the batch's new chain after the node's current one: the
// old chain is remembered and its keys kept, the new one's come after them.
func (in *ingest) restart(d *draft) {
	b, st := in.b, &d.st
	d.why = append(d.why, "chain_restart")
	in.note(d, store.EvidenceChainRestart, fmt.Sprintf("chain restarted at seq %d after seq %d (chain %s, was %s); batches of the new chain are stored from key %d",
		b.Seq, st.LastSeq, chainName(b.Chain), chainName(st.Chain), st.SeqBase+st.LastSeq+1))
	st.PastChains = appendCapped(st.PastChains, st.Chain, store.RecentChains)
	prevBase := st.SeqBase
	st.SeqBase += st.LastSeq
	st.LastSeq, st.LastHash, st.LastBatchID, st.Chain = 0, "", "", b.Chain
	d.evidence[0].Seq = st.SeqBase + b.Seq
	d.evidence[0].ChainSeq, d.evidence[0].PrevSeq = b.Seq, st.SeqBase-prevBase
}

// setAside keeps evidence of a batch that is not taken in, and answers it
// as a duplicate.
func (in *ingest) setAside(ctx context.Context, kind string, key uint64, detail string) (wire.Ack, error) {
	err := in.s.store.PutEvidence(ctx, store.Evidence{Node: in.node.ID, At: in.now, Kind: kind, Seq: key, BatchID: in.b.ID, Detail: detail})
	if err != nil && !errors.Is(err, store.ErrExists) {
		return wire.Ack{}, err
	}
	return in.ack(wire.AckDuplicate), nil
}

// noteOrder notes where the batch falls against the chain's last one (out
// of order, a broken link, a gap) and the batches its spool dropped.
func (in *ingest) noteOrder(d *draft) {
	b, st := in.b, &d.st
	d.outOfOrder = st.LastSeq > 0 && b.Seq <= st.LastSeq
	switch {
	case d.outOfOrder:
		d.why = append(d.why, "out_of_order")
		in.note(d, store.EvidenceOutOfOrder, fmt.Sprintf("seq %d arrived after seq %d", b.Seq, st.LastSeq))
	case st.LastSeq > 0 && b.Seq == st.LastSeq+1 && b.Prev != st.LastHash:
		d.why = append(d.why, "chain_break")
		in.note(d, store.EvidenceChainBreak, fmt.Sprintf("prev %s does not match the hash %s of seq %d", short(b.Prev), short(st.LastHash), st.LastSeq))
		d.evidence[len(d.evidence)-1].ExpectedPrev, d.evidence[len(d.evidence)-1].GotPrev = st.LastHash, b.Prev
	case b.Seq > st.LastSeq+1 && (st.LastSeq > 0 || b.Seq > 1):
		if b.Dropped == nil || b.Dropped.ToSeq+1 < b.Seq || b.Dropped.FromSeq > st.LastSeq+1 {
			d.why = append(d.why, "seq_gap")
			in.note(d, store.EvidenceSeqGap, fmt.Sprintf("seq %d follows seq %d; %d batches never arrived", b.Seq, st.LastSeq, b.Seq-st.LastSeq-1))
		}
	}
	if dr := b.Dropped; dr != nil {
		d.why = append(d.why, "drop")
		in.note(d, store.EvidenceDrop, fmt.Sprintf("spool dropped %d batches, seq %d to %d: %s", dr.Batches, dr.FromSeq, dr.ToSeq, dr.Reason))
	}
}

// inspect sets aside the observations dated outside the window and notes
// what the rest carry (checks that do not pass, measurements, late data),
// each a reason to keep the body.
func (in *ingest) inspect(d *draft) {
	b, st := in.b, &d.st
	d.skew = time.Duration(b.ClockSkewMS) * time.Millisecond
	d.bounds = outOfBounds(&in.node, b, in.now)
	var parts []string
	if len(d.bounds) > 0 {
		var aside []string
		for i := range b.Observations {
			if err, bad := d.bounds[i]; bad {
				aside = append(aside, fmt.Sprintf("observations[%d].at: %v", i, err))
			}
		}
		parts = append(parts, fmt.Sprintf("%d observations set aside, their time outside the window or before the node's registration: %s", len(aside), strings.Join(aside, "; ")))
	}
	if ahead := clamped(b, d.bounds, in.now); len(ahead) > 0 {
		parts = append(parts, fmt.Sprintf("%d observations dated after their receipt, dated at it: %s", len(ahead), strings.Join(ahead, "; ")))
	}
	if len(parts) > 0 {
		// One evidence per batch (its key is time, seq and kind); the body
		// keeps every observation as it came.
		in.note(d, store.EvidenceTimeBounds, strings.Join(parts, "; "))
		d.why = append(d.why, "time_bounds")
	}
	measured := false
	for i, o := range b.Observations {
		if _, bad := d.bounds[i]; bad {
			continue
		}
		for _, c := range o.Checks {
			d.hasChecks = true
			if c.Verdict != wire.Pass {
				d.notPass = true
			}
			measured = measured || isMeasurement(c)
		}
		at := trueAt(&o, d.skew, in.now)
		// Late: older than a push can be, not heard in time by the books
		// (incident.SilenceAllowance: the report must see it as the late
		// heartbeat it is, not inside a run), or inside a gap the backend
		// saw as unreachable — the evidence that decides whose fault the
		// gap was.
		prompt := min(in.node.PushInterval+in.node.Grace,
			incident.SilenceAllowance(in.node.HeartbeatInterval, in.node.PushInterval, incident.Thresholds{Grace: in.node.Grace}))
		if in.now.Sub(at) > prompt || inGap(&st.Eval, at) {
			d.late = true
		}
	}
	if d.notPass {
		d.why = append(d.why, "checks") // a check warned, failed or was skipped: what the state rests on
	}
	if measured {
		d.why = append(d.why, "measurements") // the stress job's figures: the report's, the scorecard's and the fleet baselines' evidence
	}
	if d.late {
		d.why = append(d.why, "late")
	}
	// Check results that all pass while nothing is pending (no incident
	// open, no failure or recovery being counted, no unreachable gap whose
	// cause they could decide) change nothing: the heartbeat run and the
	// SLA state already record them, and replaying the stored batches
	// without them gives the same incidents. Keeping them was most of a
	// node's AWS bill (docs/cost.md).
	d.checksMatter = d.hasChecks && unsettled(&st.Eval)
	// The node's first check results are its delivery evidence (what
	// hardware it was handed over with). Its first heartbeats need no body:
	// the heartbeat run records them.
	d.firstChecks = len(st.Eval.Checks) == 0
}

// judge evaluates the batch through the SLA engine, observation by
// observation, whatever its place in the sequence: liveness never depends
// on sequence order. A fresh batch older in sequence than the last accepted
// one was still signed just now with the node's secret, so the probe is
// alive, and its observations are evidence like any late data.
func (in *ingest) judge(d *draft) {
	b, st, fx := in.b, &d.st, &d.fx
	th := in.s.Thresholds(in.node)
	st.Eval.Interval, st.Eval.Push = in.node.HeartbeatInterval, in.node.PushInterval
	fx.failed = map[string][]notify.FailedCheck{}
	evs := ObservationEvents(&in.node, b, in.hash, in.now)
	if in.node.Released(in.now) {
		// Given back: what was open ends at the release, and the engine
		// ignores observations from the release on (incident.State.Release).
		fx.transitions = append(fx.transitions, st.Eval.Release(in.node.ReleasedAt)...)
	}
	if !d.fresh {
		d.why = append(d.why, "stale_signature")
		evs = nil
	}
	d.wasDelivered = !in.s.deliveredAt(in.node, st).IsZero()
	// Acceptance holds the GPUs to the registration, not only to what the
	// probe was told (a hand-written config may tell it nothing).
	order := delivery.Order{Model: in.node.GPUModel, GPUs: in.node.GPUCount, MemoryMiB: in.node.GPUMemoryMiB}
	for _, e := range evs {
		if len(e.Checks) > 0 && delivery.Accepted(e.Checks, order) {
			if at := e.TrueAt().UTC(); st.AcceptedAt.IsZero() || at.Before(st.AcceptedAt) {
				if st.AcceptedAt.IsZero() {
					// The first passing acceptance check is delivery evidence
					// (counts_until: acceptance_passed): kept and exported even
					// when nothing else in the batch would be.
					d.why = append(d.why, "acceptance")
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
	fx.transitions = append(fx.transitions, judgeFleet(st, in.node, in.fleet, evs)...)

	if d.firstChecks && len(st.Eval.Checks) > 0 {
		d.why = append(d.why, "first_checks")
	}
	if len(fx.transitions) > 0 {
		d.why = append(d.why, "incident") // it opened, closed or reclassified an incident
	}
	if d.hasChecks && !d.notPass && len(fx.transitions) == 0 && (d.checksMatter || unsettled(&st.Eval)) {
		d.why = append(d.why, "pending") // passes counted towards a recovery, or during a gap
	}
}

// advance moves the state past the batch: the chain's head, the recent
// batches and signatures, liveness and the heartbeat run (on-time data
// only: late data is kept in full as a batch body and would otherwise
// stretch the run backwards), and whether the batch delivered the node.
func (in *ingest) advance(d *draft) {
	b, st := in.b, &d.st
	if !d.outOfOrder {
		st.LastSeq, st.LastHash, st.LastBatchID = b.Seq, in.hash, b.ID
	}
	st.Recent = appendCapped(st.Recent, store.SeqID{Seq: d.key, ID: b.ID, Hash: in.hash[:16]}, store.RecentBatches)
	st.Signatures = appendCapped(freshSignatures(st.Signatures, in.now), store.SigSeen{Sig: in.sig, At: in.signedAt}, store.RecentSignatures)
	if d.fresh {
		st.LastReceivedAt, st.LastSignedAt = in.now, in.signedAt
	}
	st.ClockSkewMS = b.ClockSkewMS
	if !d.late && !d.outOfOrder {
		d.fx.runClosed = extendRun(st, in.node, b, d.bounds, d.key, d.skew, in.now)
	}
	for i, o := range b.Observations {
		if _, bad := d.bounds[i]; bad {
			continue
		}
		at := trueAt(&o, d.skew, in.now)
		if st.FirstHeartbeatAt.IsZero() || at.Before(st.FirstHeartbeatAt) {
			st.FirstHeartbeatAt = at
		}
		if at.After(st.LastHeartbeatAt) {
			st.LastHeartbeatAt = at
		}
	}
	st.UpdatedAt = in.now
	if dl := in.s.deliveredAt(in.node, st); !d.wasDelivered && !dl.IsZero() && in.s.watchesDelivery(in.node, st) {
		d.fx.delivered = dl
	}
}

// commit writes the derived records first (idempotent: the body, the
// evidence), then the versioned state write that commits the attempt, then
// the heartbeat run the batch closed.
func (in *ingest) commit(ctx context.Context, d *draft) (wire.Ack, effects, error) {
	if ack, answered, err := in.storeBody(ctx, d); answered {
		return ack, effects{}, err
	}
	for _, e := range d.evidence {
		if err := in.s.store.PutEvidence(ctx, e); err != nil && !errors.Is(err, store.ErrExists) {
			return wire.Ack{}, effects{}, err
		}
	}
	fx := d.fx
	fx.stamp, fx.release = in.s.alertStamps(in.node.ID, len(fx.transitions))
	if _, err := in.s.store.PutState(ctx, d.st, d.prev); err != nil {
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
	in.logStored(ctx, d.st, d.why)
	return in.ack(wire.AckStored), fx, nil
}

// storeBody keeps the batch's body when there is a reason to (d.why), once
// per request whatever the attempts. A body already stored under its key
// by another batch wins: this one is answered as a duplicate.
func (in *ingest) storeBody(ctx context.Context, d *draft) (ack wire.Ack, answered bool, err error) {
	if len(d.why) == 0 || in.stored {
		return wire.Ack{}, false, nil
	}
	err = in.s.store.PutBatch(ctx, store.BatchRecord{Node: in.node.ID, Seq: d.key, ID: in.b.ID, Hash: in.hash, ReceivedAt: in.now,
		Why: d.why, Body: in.body, Form: batchform.Append(nil, in.b), ExpiresAt: in.now.Add(in.s.retention)})
	if errors.Is(err, store.ErrExists) {
		// Stored already: by a concurrent copy of this very batch (or one
		// that crashed before its state write) — then carry on, the
		// versioned state write decides who commits — or by another batch
		// with the same seq, which must not be overwritten.
		got, gerr := in.s.store.GetBatch(ctx, in.node.ID, d.key)
		if gerr != nil {
			return wire.Ack{}, true, gerr
		}
		switch {
		case got.ID != in.b.ID:
			ack, err := in.setAside(ctx, store.EvidenceSeqReuse, d.key, fmt.Sprintf("seq %d already used by batch %s", in.b.Seq, got.ID))
			return ack, true, err
		case got.Hash != in.hash:
			ack, err := in.otherContent(ctx, d.key, got.Hash)
			return ack, true, err
		case d.outOfOrder:
			// This very batch, taken before the chain went past it and
			// sent again after the recent ids forgot it: a retry, not
			// late data to judge a second time.
			return in.ack(wire.AckDuplicate), true, nil
		}
	} else if err != nil {
		return wire.Ack{}, true, err
	}
	in.stored = true
	return wire.Ack{}, false, nil
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
// spans a gap the books could count (heartbeats further apart than
// incident.PromptTol in probe time) or one the SLA engine could call
// unreachable in receive time (heartbeat interval + grace: a batch comes
// every push), so that exporting a run as heartbeats every interval says
// exactly what the individual heartbeats said.
func extendRun(st *store.NodeState, n store.Node, b *wire.Batch, bounds map[int]error, key uint64, skew time.Duration, now time.Time) *store.HeartbeatRun {
	var closed *store.HeartbeatRun
	maxGap := n.HeartbeatInterval + n.Grace
	maxStep := incident.PromptTol(n.HeartbeatInterval, incident.Thresholds{Grace: n.Grace})
	for i, o := range b.Observations {
		if _, bad := bounds[i]; bad {
			continue // a wrong clock: never part of the run
		}
		at := trueAt(&o, skew, now)
		r := &st.Run
		if r.Count > 0 && !at.After(r.To) {
			continue // not after the run's end: already covered
		}
		if r.Count == 0 || at.Sub(r.To) > maxStep || now.Sub(r.ReceivedTo) >= maxGap {
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
	// From where the gap began: where the probe's link watch dated it, if
	// earlier than the heartbeat was due.
	if g := ev.Unreachable; g != nil && !t.Before(g.Ev.Start(g.Since)) {
		return true
	}
	for _, g := range ev.Recent {
		if !t.Before(g.Ev.Start(g.Since)) && t.Before(g.Until) {
			return true
		}
	}
	return false
}

func failedCheck(c wire.Check, at time.Time) notify.FailedCheck {
	return notify.FailedCheck{Name: c.Name, Category: c.Category, Verdict: c.Verdict, Value: c.Value, Criterion: c.Criterion,
		GPU: c.GPU, Detail: c.Detail, Since: at, ValueText: c.ValueText, CriterionText: c.CriterionText, DetailText: c.DetailText}
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
