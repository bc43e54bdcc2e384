package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
)

// Store is everything the application keeps. It is declared here, by its
// user, and implemented by infra/store/bolt (one file, for `gpusla serve`) and
// infra/store/dynamo (DynamoDB, for the Lambdas); infra/store/storetest is the one
// contract suite both must pass.
//
// The design uses CONDITIONAL SINGLE-ITEM WRITES only — no transactions, no
// multi-item atomicity — because DynamoDB transactions cost double and
// dynalite (the test double for DynamoDB) has none. Correctness under
// concurrent or retried Lambdas comes from three rules:
//
//  1. The NodeState item is the source of truth for a node. Every state
//     transition is PutState with the version that was read; a concurrent
//     writer gets ErrConflict and must re-read and re-evaluate.
//  2. Records derived from a transition (incidents, heartbeat runs, alerts)
//     have deterministic keys (an incident id is kind + start time) and are
//     created with put-if-absent, so writing them twice is harmless and a
//     record lost to a crash is recreated by the next evaluation.
//  3. A batch is deduplicated by (node, seq): NodeState remembers the recent
//     sequence numbers; batches worth keeping are put-if-absent on (node, seq).
//
// Error contract: a missing record is ErrNotFound, a put-if-absent that
// found a record is ErrExists, a versioned write that lost is ErrConflict.
// Callers test with errors.Is; implementations may wrap them with context.
//
// Times are stored with at least millisecond precision and returned in UTC.
//
// Room is left for tickets, API keys and reports: they will be further
// methods here, each with the same error contract, added with their tests in
// infra/store/storetest.
type Store interface {
	// CreateNode registers a node; ErrExists if the id is taken.
	CreateNode(ctx context.Context, n Node) error
	// GetNode returns a node; ErrNotFound if it is not registered.
	GetNode(ctx context.Context, id string) (Node, error)
	// ListNodes returns every node, ordered by id.
	ListNodes(ctx context.Context) ([]Node, error)
	// ReleaseNode records that the node was given back at rel.At (its
	// ReleasedAt), when and by whom that was recorded, with one conditional
	// write, and returns the node as stored. Releasing again at the same
	// instant is a no-op that keeps the first record; at another instant it
	// is ErrConflict (the node keeps its first release). ErrNotFound if the
	// node is not registered.
	ReleaseNode(ctx context.Context, id string, rel Release) (Node, error)

	// PutMaintenance stores a maintenance notice if its id is absent;
	// ErrExists if not.
	PutMaintenance(ctx context.Context, m Maintenance) error
	// ListMaintenance returns the notices (of every contract and node) whose
	// window overlaps [from, to), ordered by start, then id.
	ListMaintenance(ctx context.Context, from, to time.Time) ([]Maintenance, error)

	// GetState returns a node's state; ErrNotFound before its first write.
	GetState(ctx context.Context, node string) (NodeState, error)
	// PutState writes s if the stored version equals prev (0: no state yet),
	// storing it with s.Version = prev+1; otherwise ErrConflict. It returns the
	// stored version.
	PutState(ctx context.Context, s NodeState, prev int64) (int64, error)

	// PutBatch stores a batch body if (node, seq) is absent; ErrExists if not.
	PutBatch(ctx context.Context, b BatchRecord) error
	// GetBatch returns the batch (node, seq); ErrNotFound if absent or expired.
	GetBatch(ctx context.Context, node string, seq uint64) (BatchRecord, error)
	// ListBatches returns a node's unexpired batches with fromSeq <= seq <= toSeq,
	// ordered by seq.
	ListBatches(ctx context.Context, node string, fromSeq, toSeq uint64) ([]BatchRecord, error)

	// CreateIncident stores a new incident (Version 1); ErrExists if its id is taken.
	CreateIncident(ctx context.Context, inc Incident) error
	// GetIncident returns one incident; ErrNotFound if absent.
	GetIncident(ctx context.Context, node, id string) (Incident, error)
	// UpdateIncident writes inc if the stored version equals prev, storing
	// inc.Version = prev+1; ErrConflict otherwise, ErrNotFound if absent.
	UpdateIncident(ctx context.Context, inc Incident, prev int64) error
	// ListIncidents returns a node's incidents that overlap [from, to) (open
	// ones extend to infinity), ordered by start. node "" means every node.
	ListIncidents(ctx context.Context, node string, from, to time.Time) ([]Incident, error)

	// PutRun stores a closed heartbeat run if (node, start) is absent;
	// ErrExists otherwise (a retry wrote it already).
	PutRun(ctx context.Context, r HeartbeatRun) error
	// ListRuns returns a node's closed runs overlapping [from, to), ordered by start.
	ListRuns(ctx context.Context, node string, from, to time.Time) ([]HeartbeatRun, error)

	// CreateAlert claims the right to send one alert (Version 1); ErrExists
	// if someone already claimed it — that is how duplicates are prevented.
	CreateAlert(ctx context.Context, a AlertRecord) error
	// GetAlert returns an alert record of a channel ("" with one notifier);
	// ErrNotFound if absent.
	GetAlert(ctx context.Context, node, incidentID string, kind notify.AlertKind, channel string) (AlertRecord, error)
	// UpdateAlert writes a if the stored version equals prev (a.Version = prev+1).
	UpdateAlert(ctx context.Context, a AlertRecord, prev int64) error
	// ListPendingAlerts returns the alert records (of every node) not yet
	// sent, so the watchdog can retry them.
	ListPendingAlerts(ctx context.Context) ([]AlertRecord, error)

	// PutEvidence stores a piece of evidence if its key is absent (ErrExists).
	PutEvidence(ctx context.Context, e Evidence) error
	// ListEvidence returns a node's evidence with from <= At < to, ordered by At.
	ListEvidence(ctx context.Context, node string, from, to time.Time) ([]Evidence, error)

	// PutBackendRun writes the backend's own liveness record if the stored
	// version equals prev (0: new); ErrConflict otherwise.
	PutBackendRun(ctx context.Context, r BackendRun, prev int64) (int64, error)
	// ListBackendRuns returns the backend runs overlapping [from, to), by start.
	ListBackendRuns(ctx context.Context, from, to time.Time) ([]BackendRun, error)

	// Ops returns how many store operations of each kind this store made,
	// so the cost of a month can be computed from a simulated one.
	Ops() OpCounts

	Close() error
}

// Errors of the store contract.
var (
	ErrNotFound = errors.New("not found")
	ErrExists   = errors.New("already exists")
	ErrConflict = errors.New("version conflict")
)

// Node is a registered rented node: what was ordered and how it
// authenticates. The secret is sealed by a SecretBox and never logged.
type Node struct {
	ID       string `json:"id"`
	Provider string `json:"provider"`
	// Contract names the provider contract terms file the node is bought under.
	Contract  string    `json:"contract"`
	OrderedAt time.Time `json:"ordered_at"`
	// Expected hardware, as ordered.
	GPUModel     string `json:"gpu_model,omitempty"`
	GPUCount     int    `json:"gpu_count,omitempty"`
	GPUMemoryMiB int    `json:"gpu_memory_mib,omitempty"`
	// GPUDriver is the NVIDIA driver the order names (a version or a
	// leading part of one), empty when it names none.
	GPUDriver    string  `json:"gpu_driver,omitempty"`
	PricePerHour float64 `json:"price_per_hour,omitempty"`
	Currency     string  `json:"currency,omitempty"`
	// InstanceID and Region are the provider's own names for the node and
	// where it runs, quoted by a claim; empty when not given.
	InstanceID string `json:"instance_id,omitempty"`
	Region     string `json:"region,omitempty"`
	// Schedule the probe was configured with; liveness is judged against it.
	HeartbeatInterval time.Duration `json:"heartbeat_interval"`
	PushInterval      time.Duration `json:"push_interval"`
	// Grace is how long past a due push the watchdog waits before it
	// confirms the node unreachable and alerts.
	Grace time.Duration `json:"grace"`
	// SealedSecret is the node's HMAC secret sealed by the SecretBox.
	SealedSecret []byte    `json:"sealed_secret"`
	CreatedAt    time.Time `json:"created_at"`
	// Demo marks the built-in demo node of `gpusla serve`.
	Demo bool `json:"demo,omitempty"`
	// RegisteredBy is who registered the node: "cli:USER" for `gpusla node
	// add`, "enrol:TOKEN (by CREATOR)" for a probe that enrolled itself
	// with a renter's token. EnrolToken is that token's id, and
	// EnrolKeyHash the hash of the key the probe enrolled with, so a probe
	// whose answer was lost can ask again and get the same node back.
	RegisteredBy string `json:"registered_by,omitempty"`
	EnrolToken   string `json:"enrol_token,omitempty"`
	EnrolKeyHash string `json:"enrol_key_hash,omitempty"`
	// EnrolledAt is when the node last enrolled (its first enrolment is
	// its registration; a re-enrolment moves it): the instant its
	// enrolment record is kept under.
	EnrolledAt time.Time `json:"enrolled_at,omitzero"`
	// ReleasedAt is when the node was given back (`gpusla node release`):
	// its service period and billing end there. Zero while it is rented.
	ReleasedAt time.Time `json:"released_at,omitzero"`
	// ReleaseRecordedAt and ReleaseRecordedBy are when and by whom the
	// release was recorded (the API key, "cli:" and the OS user);
	// ReleaseOverride the documented reason a release dated before counted
	// outage was accepted. The export carries them (docs/events.md).
	ReleaseRecordedAt time.Time `json:"release_recorded_at,omitzero"`
	ReleaseRecordedBy string    `json:"release_recorded_by,omitempty"`
	ReleaseOverride   string    `json:"release_override,omitempty"`
}

// Release is a node's release as recorded: when it was given back, when
// and by whom that was recorded, and any override.
type Release struct {
	At, RecordedAt time.Time
	By, Override   string
}

// WithRelease is n given back as rel says (times in UTC).
func (n Node) WithRelease(rel Release) Node {
	n.ReleasedAt, n.ReleaseRecordedAt = rel.At.UTC(), rel.RecordedAt.UTC()
	n.ReleaseRecordedBy, n.ReleaseOverride = rel.By, rel.Override
	return n
}

// Released reports whether the node was given back at or before t.
func (n Node) Released(t time.Time) bool { return !n.ReleasedAt.IsZero() && !t.Before(n.ReleasedAt) }

// Maintenance is a maintenance notice the provider announced: for every
// node of a contract (Contract set) or for one node (Node set). The monthly
// report and the live verdicts take the window out of the books when it was
// announced early enough (the contract's maintenance.notice).
type Maintenance struct {
	// ID is deterministic (MaintenanceID): the same notice recorded twice
	// is one record.
	ID          string    `json:"id"`
	Contract    string    `json:"contract,omitempty"`
	Node        string    `json:"node,omitempty"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	AnnouncedAt time.Time `json:"announced_at"`
	Summary     string    `json:"summary,omitempty"`
	// CreatedAt is when the backend recorded the notice (the export's
	// recorded_at) and RecordedBy who did (the API key, "cli:" and the OS
	// user). Override is the administrator's documented reason for letting
	// a notice recorded after its start, or after an outage under way
	// began, take out its whole window (account.Maintenance.Effect).
	CreatedAt  time.Time `json:"created_at"`
	RecordedBy string    `json:"recorded_by,omitempty"`
	Override   string    `json:"override,omitempty"`
}

// MaintenanceID is the id of a notice: its scope (contract:ID or node:ID)
// and its start (UTC, millisecond precision).
func MaintenanceID(contract, node string, start time.Time) string {
	scope := "contract:" + contract
	if node != "" {
		scope = "node:" + node
	}
	return scope + "@" + start.UTC().Format("20060102T150405.000Z")
}

// Applies reports whether the notice covers node n.
func (m Maintenance) Applies(n Node) bool {
	return (m.Node != "" && m.Node == n.ID) || (m.Node == "" && m.Contract == n.Contract)
}

// Account is the notice as the books see it (sla/account).
func (m Maintenance) Account() account.Maintenance {
	return account.Maintenance{Span: interval.Interval{Start: m.Start, End: m.End}, AnnouncedAt: m.AnnouncedAt, Summary: m.Summary,
		RecordedAt: m.CreatedAt, RecordedBy: m.RecordedBy, Override: m.Override}
}

// String never shows the secret, so a Node can be logged safely.
func (n Node) String() string {
	return fmt.Sprintf("node %s (provider %s, contract %s)", n.ID, n.Provider, n.Contract)
}

// NodeState is a node's live state: everything needed to ingest a
// heartbeat-only batch with ONE conditional write and to run the watchdog
// with one read. It is the source of truth for open incidents.
type NodeState struct {
	Node    string `json:"node"`
	Version int64  `json:"version"`

	// Hash chain and dedupe.
	LastSeq     uint64 `json:"last_seq"`
	LastHash    string `json:"last_hash"`
	LastBatchID string `json:"last_batch_id"`
	// Chain is the current chain's id (wire.Batch.Chain; "" from old
	// probes). SeqBase is the number of batch keys the node's earlier
	// chains used: a batch of the current chain is stored under
	// SeqBase + its seq, so a restarted chain never collides with, nor
	// overwrites, the evidence of the one before.
	Chain   string `json:"chain,omitempty"`
	SeqBase uint64 `json:"seq_base,omitempty"`
	// PastChains are the ids of the last RecentChains chains left behind,
	// so a stray batch of one is not taken for another restart.
	PastChains []string `json:"past_chains,omitempty"`
	// Recent holds the last RecentBatches accepted batches, newest last, so
	// a retry of a recent batch is recognised without another read.
	Recent []SeqID `json:"recent,omitempty"`
	// Signatures holds recent request signatures (truncated), so a replay of
	// an identical signed request inside the timestamp window is refused.
	Signatures []SigSeen `json:"signatures,omitempty"`

	// Liveness, by the backend's receive time.
	LastReceivedAt time.Time `json:"last_received_at"`
	// LastSignedAt is the signed timestamp (probe clock) of the newest
	// request accepted as a sign of life: an older one is not fresh.
	LastSignedAt time.Time `json:"last_signed_at,omitzero"`
	// LastHeartbeatAt is the probe time (skew-corrected) of the newest heartbeat.
	LastHeartbeatAt time.Time `json:"last_heartbeat_at"`
	// FirstHeartbeatAt is when the node was first heard of (delivery time).
	FirstHeartbeatAt time.Time `json:"first_heartbeat_at"`
	// AcceptedAt is the probe time (skew-corrected) of the node's first
	// passing acceptance result (sla/delivery.Accepted): its delivery under
	// the terms' delivery.counts_until: acceptance_passed.
	AcceptedAt time.Time `json:"accepted_at,omitzero"`
	// AcceptanceKnown: the state has recorded AcceptedAt since its first
	// batch. A state made before acceptance was recorded lacks it, and its
	// acceptance is unknown live (not "not yet").
	AcceptanceKnown bool `json:"acceptance_known,omitempty"`
	// AcceptanceHeld: AcceptedAt was judged with the GPUs held to the
	// registration (sla/delivery.Accepted with the order). A state that
	// recorded an acceptance before that rule may hold one of cards never
	// ordered: it is not trusted live until it is judged again from the
	// node's kept batches, as the report judges them.
	AcceptanceHeld bool  `json:"acceptance_held,omitempty"`
	ClockSkewMS    int64 `json:"clock_skew_ms"`
	// Run is the current continuous run of heartbeats: the evidence that the
	// node was up, kept here so that a heartbeat only extends it.
	Run HeartbeatRun `json:"run"`

	// Eval is the SLA engine's live evaluation state (sla/incident): open
	// unreachable gap, recent gaps open to reclassification by late data, and
	// the hysteresis of every check incident kind. It is the source of truth
	// for which incidents are open; the Incident records are derived from it.
	Eval incident.State `json:"eval"`
	// Fleet is the streak below the fleet of each stress figure now slow
	// (baseline.CheckKey → streak; functions/app/fleet.go): the live side
	// of "slower than its siblings". A figure with no slow run has no entry.
	Fleet map[string]*baseline.Streak `json:"fleet,omitempty"`
	// Limits counts the incidents the node's batches opened and the
	// alerts they raised in the current clock hour, for the bounds on
	// both (functions/app/limits.go).
	Limits NodeLimits `json:"limits,omitzero"`

	UpdatedAt time.Time `json:"updated_at"`
}

// NodeLimits is what a node's batches opened and alerted in one clock hour
// (receive time).
type NodeLimits struct {
	Hour   time.Time `json:"hour,omitzero"`
	Opened int       `json:"opened,omitempty"`
	Alerts int       `json:"alerts,omitempty"`
}

// Clone returns a deep copy of st, sharing no slice or map with it, so a
// store may keep one copy and hand out others.
func (st NodeState) Clone() NodeState {
	c := st
	c.Recent = slices.Clone(st.Recent)
	c.PastChains = slices.Clone(st.PastChains)
	c.Signatures = slices.Clone(st.Signatures)
	c.Eval = st.Eval.Clone()
	if st.Fleet != nil {
		c.Fleet = make(map[string]*baseline.Streak, len(st.Fleet))
		for k, sk := range st.Fleet {
			x := *sk
			x.Values = slices.Clone(sk.Values)
			c.Fleet[k] = &x
		}
	}
	return c
}

// RecentBatches is how many accepted batches NodeState remembers. Small,
// because the state item is written on every push and DynamoDB bills it per
// started KB; the probe sends in order and retries only its oldest unacked
// batch, so a retry is always among the last few.
const RecentBatches = 4

// RecentChains is how many left-behind chain ids a node state remembers.
const RecentChains = 8

// RecentSignatures caps the request signatures NodeState remembers; those
// older than the timestamp window are dropped first (Verify refuses them
// anyway), so at the default schedule about five are kept.
const RecentSignatures = 8

// SeqID is one accepted batch. Hash is the first 16 hex digits of its
// body's SHA-256, so a batch sent again under the same id with other bytes
// is told from a retry (empty in states written before it was kept).
type SeqID struct {
	Seq  uint64 `json:"seq"`
	ID   string `json:"id"`
	Hash string `json:"hash,omitempty"`
}

// SigSeen is a request signature seen (a 16-hex-digit prefix of its SHA-256,
// enough to tell replays apart), with its signed time.
type SigSeen struct {
	Sig string    `json:"sig"`
	At  time.Time `json:"at"`
}

// HeartbeatRun is a continuous run of heartbeats (no gap longer than the
// node's push interval plus grace): the node was seen alive From..To (probe
// time, skew-corrected). Closed runs are stored as their own records.
type HeartbeatRun struct {
	Node  string    `json:"node"`
	From  time.Time `json:"from"`
	To    time.Time `json:"to"`
	Count int64     `json:"count"`
	// ReceivedFrom/To are the backend receive times of the first and last batch.
	ReceivedFrom time.Time `json:"received_from"`
	ReceivedTo   time.Time `json:"received_to"`
	// MaxGap is the longest probe-time step between consecutive heartbeats
	// of the run, MaxDelay the longest a heartbeat took from its probe time
	// to the backend: with them the export tells the SLA engine exactly
	// whether every heartbeat was in time by the contract's tolerance, which
	// the run's bounds (interval + grace, push + grace) cannot. Zero in runs
	// stored before they were recorded; the export then claims the bounds.
	MaxGap   time.Duration `json:"max_gap,omitempty"`
	MaxDelay time.Duration `json:"max_delay,omitempty"`
	// FirstSeq/LastSeq are the sequence numbers of its first and last batch.
	FirstSeq uint64 `json:"first_seq,omitempty"`
	LastSeq  uint64 `json:"last_seq,omitempty"`
}

// BatchRecord is a stored batch body. Only batches that carry more than
// heartbeats are stored (checks, late data, a drop, a chain break);
// heartbeat-only batches live on as the HeartbeatRun in NodeState.
type BatchRecord struct {
	Node       string    `json:"node"`
	Seq        uint64    `json:"seq"`
	ID         string    `json:"id"`
	Hash       string    `json:"hash"`
	ReceivedAt time.Time `json:"received_at"`
	// Why lists the reasons it was kept: "measurements" (the stress job's
	// figures), "first_checks" (the node's first
	// check results: delivery evidence), "acceptance" (the node's first
	// passing acceptance check: its delivery under counts_until:
	// acceptance_passed), "checks" (a check not passing), "incident" (it opened, closed or
	// reclassified one), "pending" (passes while an incident is open or a
	// failure is being counted), "late", "drop", "chain_break", "seq_gap",
	// "out_of_order". In-time batches whose checks all pass while nothing
	// is pending are not kept (see ingest).
	Why []string `json:"why"`
	// Body is the batch exactly as received (the signed bytes).
	Body []byte `json:"body"`
	// Form is the batch as ingest decoded and validated it, in a compact
	// binary form (functions/batchform) the month's books read instead
	// of decoding Body again; nil on records written before it existed,
	// which are read from Body. The store keeps it as opaque bytes.
	Form []byte `json:"form,omitempty"`
	// ExpiresAt is the TTL: after it the store may drop the record (DynamoDB
	// TTL attribute; the embedded store sweeps).
	ExpiresAt time.Time `json:"expires_at"`
}

// Incident is an interval during which something was wrong with a node.
// Its id is deterministic (IncidentID) so concurrent evaluations agree.
type Incident struct {
	Node string `json:"node"`
	ID   string `json:"id"`
	Kind string `json:"kind"` // an sla/incident Kind
	// Check is the check (name and GPU) of a check incident; empty for
	// unreachable.
	Check   string    `json:"check,omitempty"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end,omitempty"` // zero while open
	Version int64     `json:"version"`
	// ConfirmedAt is when the backend confirmed it (for unreachable: grace passed).
	ConfirmedAt time.Time `json:"confirmed_at"`
	// Counted says whether its kind and cause count against the provider
	// under the node's contract (account.Counts); Cause (an sla/incident
	// Cause) says whose fault it was, Reason why it does not count when it
	// does not. How many of its seconds count depends on the incidents
	// around it: account.Judge says, over the window asked for.
	Counted bool   `json:"counted"`
	Cause   string `json:"cause,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Failed are the checks that opened or kept it open, with measured values.
	Failed []notify.FailedCheck `json:"failed,omitempty"`
	// Evidence is the SLA engine's account of why it opened, closed or was
	// reclassified.
	Evidence string `json:"evidence,omitempty"`
	// EvidenceText is Evidence as the engine's sentence (msg.Keep), which
	// the pages translate; nil on records written before it was kept,
	// whose Evidence is then all there is (EvidenceSentence).
	EvidenceText *msg.Kept `json:"evidence_text,omitempty"`
	// ReclassifiedAt is set when late data changed the cause.
	ReclassifiedAt time.Time `json:"reclassified_at,omitempty"`
	UpdatedAt      time.Time `json:"updated_at"`
	// Split is an unreachable incident's evidence from the node's own
	// batches (incident.GapEvidence): the books cut it into parts by cause
	// with it, as the report does (Outages). Nil for check incidents and
	// records from before it was kept.
	Split *incident.GapEvidence `json:"split,omitempty"`
}

// EvidenceSentence is the incident's evidence as a sentence to translate:
// the engine's sentence where the record kept it, else the English as
// stored, marked as the record's (msg.FromRecord).
func (i Incident) EvidenceSentence() msg.Text { return msg.FromRecord(i.Evidence, i.EvidenceText) }

// Open reports whether the incident has not ended.
func (i Incident) Open() bool { return i.End.IsZero() }

// Outage is the incident as the books see it, an open one lasting until
// end.
func (i Incident) Outage(end time.Time) account.Outage {
	o := account.Outage{Kind: incident.Kind(i.Kind), Check: i.Check, Cause: i.Cause,
		Span: interval.Interval{Start: i.Start, End: i.End}}
	if i.Split != nil {
		// Start is the incident's identity (when the heartbeat was due);
		// the probe's link watch may date the loss earlier, as the report does.
		o.Span.Start = i.Split.Start(i.Start)
	}
	if i.Open() {
		o.Span.End = end
	}
	if i.Evidence != "" {
		o.Evidence = []msg.Text{i.EvidenceSentence()}
	}
	return o
}

// Part is one part of an incident as the books judge it: an unreachable
// incident split by cause (Outages), or the whole of any other.
type Part struct {
	account.Outage
	Open bool // the incident's last part while it is open
}

// Outages is the incident as the books see it, cut by cause where its
// evidence says whose fault each part was (incident.SplitGap, the report's
// rule; backend is the backend's own downtime): one part, the whole
// incident, for a check incident or a record without evidence; none for a
// gap recorded after the fact (incident.Record) that was not Overdue. An
// open one lasts until end.
func (i Incident) Outages(end time.Time, backend interval.Set) []Part {
	whole := i.Outage(end)
	if i.Split == nil || i.Kind != string(incident.Unreachable) {
		return []Part{{Outage: whole, Open: i.Open()}}
	}
	if !i.Split.Counts(whole.Span, backend) {
		// Recorded after the fact and not silent for longer than the books
		// allow once the backend's own downtime is taken out: no outage,
		// as the report finds none.
		return nil
	}
	segs := i.Split.Split(whole.Span, backend)
	if len(segs) == 0 {
		return []Part{{Outage: whole, Open: i.Open()}}
	}
	out := make([]Part, len(segs))
	for k, sg := range segs {
		o := whole
		o.Span, o.Cause = sg.Span, sg.Cause
		out[k] = Part{Outage: o, Open: i.Open() && k == len(segs)-1}
	}
	return out
}

// Duration is End-Start, or now-Start while open.
func (i Incident) Duration(now time.Time) time.Duration {
	if i.Open() {
		return now.Sub(i.Start)
	}
	return i.End.Sub(i.Start)
}

// IncidentID is the deterministic id of an incident: kind and start (UTC,
// millisecond precision) — sortable by kind then start.
func IncidentID(kind string, start time.Time) string {
	return kind + "@" + start.UTC().Format("20060102T150405.000Z")
}

// CheckIncidentID is the id of a check incident: incidents are per check
// (name and GPU), so two checks of one kind failing at one instant are two
// incidents: kind@start~check. An empty check gives IncidentID.
func CheckIncidentID(kind string, start time.Time, check string) string {
	if check == "" {
		return IncidentID(kind, start)
	}
	return IncidentID(kind, start) + "~" + check
}

// ParseIncidentID splits an IncidentID or a CheckIncidentID (the check is
// IncidentCheck's).
func ParseIncidentID(id string) (kind string, start time.Time, err error) {
	k, ts, ok := strings.Cut(id, "@")
	if !ok {
		return "", time.Time{}, fmt.Errorf("incident id %q: no '@'", id)
	}
	ts, _, _ = strings.Cut(ts, "~")
	t, err := time.Parse("20060102T150405.000Z", ts)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("incident id %q: %w", id, err)
	}
	return k, t, nil
}

// IncidentCheck is the check part of a CheckIncidentID ("" for others).
func IncidentCheck(id string) string {
	_, c, _ := strings.Cut(id, "~")
	return c
}

// AlertRecord claims and remembers one alert about one incident on one
// channel. Its key is (node, incident id, kind, channel): the first
// CreateAlert wins and sends. Each channel has its own record, so a channel
// that fails is retried alone and never makes the others send twice.
type AlertRecord struct {
	Node       string           `json:"node"`
	IncidentID string           `json:"incident_id"`
	Kind       notify.AlertKind `json:"kind"`
	// Channel is the configured channel's name; "" when the backend has one
	// notifier (the key is then what it was before channels existed).
	Channel   string    `json:"channel,omitempty"`
	Version   int64     `json:"version"`
	CreatedAt time.Time `json:"created_at"`
	// SentAt is zero until the notifier accepted it; the watchdog retries
	// unsent alerts.
	SentAt   time.Time `json:"sent_at,omitempty"`
	Attempts int       `json:"attempts"`
	LastErr  string    `json:"last_err,omitempty"`
	// LastAttemptAt is when a sender last claimed it (CreateAlert or a
	// versioned UpdateAlert), so a retry does not race a send in flight.
	LastAttemptAt time.Time `json:"last_attempt_at,omitzero"`
	// Thread is the notifier's reference of the message (Slack ts), so
	// later alerts about the incident go into its thread.
	Thread string `json:"thread,omitempty"`
	// Alert is the message itself, kept so a retry sends the same thing.
	Alert notify.Alert `json:"alert"`
}

// Evidence kinds.
const (
	EvidenceChainBreak = "chain_break"  // prev hash does not match the stored last hash
	EvidenceSeqGap     = "seq_gap"      // sequence numbers skipped with no drop report
	EvidenceDrop       = "drop"         // the probe's spool dropped batches
	EvidenceSeqReuse   = "seq_reuse"    // a seq arrived again with another batch id
	EvidenceOutOfOrder = "out_of_order" // an older seq arrived after a newer one
	// EvidenceChainRestart: the probe lost its state and started a new hash
	// chain at seq 1 (a new chain id, or seq 1 with no prev from an old
	// probe). Never an outage: the new chain is as much a sign of life.
	EvidenceChainRestart = "chain_restart"
	// EvidenceTimeBounds: an observation dated outside the window around its
	// receive time (sla/events.ObservationTimeOK) was set aside, or one dated
	// a second or more after its receipt was dated at it (events.TrueAt).
	EvidenceTimeBounds = "time_bounds"
	// EvidenceLimits: a batch was refused for passing a bound on a node's
	// checks or incidents, or alerts were held for passing the bound on a
	// node's alerts in an hour (functions/app/limits.go).
	EvidenceLimits = "limits"
)

// Evidence is a fact about the integrity of a node's data stream.
type Evidence struct {
	Node    string    `json:"node"`
	At      time.Time `json:"at"` // receive time
	Kind    string    `json:"kind"`
	Seq     uint64    `json:"seq"`
	BatchID string    `json:"batch_id"`
	Detail  string    `json:"detail"`
	// Chain breaks: the full previous-hash the backend expected and got.
	ExpectedPrev string `json:"expected_prev,omitempty"`
	GotPrev      string `json:"got_prev,omitempty"`
	// Chain restarts: the new chain's seq and the old chain's last seq
	// (Seq is the batch's store key, SeqBase + seq).
	ChainSeq uint64 `json:"chain_seq,omitempty"`
	PrevSeq  uint64 `json:"prev_seq,omitempty"`
}

// Key is the evidence's unique key within its node.
func (e Evidence) Key() string {
	return fmt.Sprintf("%s#%020d#%s", e.At.UTC().Format("20060102T150405.000Z"), e.Seq, e.Kind)
}

// BackendRun records that the backend itself was up from Start to LastTick:
// written at `serve` start and stop and at every watchdog tick, so the
// backend's own downtime is known and charged to no node.
type BackendRun struct {
	ID       string    `json:"id"` // e.g. "serve-<start>" or "lambda"
	Start    time.Time `json:"start"`
	LastTick time.Time `json:"last_tick"`
	Stopped  bool      `json:"stopped"`
	Version  int64     `json:"version"`
}

// Op kinds counted by stores. A "read" and a "write" are one request to
// the underlying store; Units are its billing units where the store knows
// them (DynamoDB request units), else 1 per request.
const (
	OpRead        = "read"
	OpWrite       = "write"
	OpQuery       = "query"
	OpCondFailure = "conditional_failure"
)

// OpCounts maps "<Method>/<op>" (e.g. "PutState/write") to a count, and
// "<Method>/<op>/units" to the units consumed.
type OpCounts map[string]int64

// Total sums every count whose key ends with suffix (e.g. "/write").
func (c OpCounts) Total(suffix string) int64 {
	var n int64
	for k, v := range c {
		if strings.HasSuffix(k, suffix) {
			n += v
		}
	}
	return n
}

// String lists the counts in key order.
func (c OpCounts) String() string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%d ", k, c[k])
	}
	return strings.TrimSpace(b.String())
}

// OpCounter is a concurrency-safe counter stores embed to implement Ops.
type OpCounter struct {
	mu sync.Mutex
	m  OpCounts
}

// Add counts n operations of op by method.
func (c *OpCounter) Add(method, op string, n int64) {
	c.mu.Lock()
	if c.m == nil {
		c.m = OpCounts{}
	}
	c.m[method+"/"+op] += n
	c.mu.Unlock()
}

// Ops returns a copy of the counts.
func (c *OpCounter) Ops() OpCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(OpCounts, len(c.m))
	for k, v := range c.m {
		out[k] = v
	}
	return out
}

// StaleStateReader is a Store that can also read a node's state without
// strong consistency: in DynamoDB such a read costs half a strongly
// consistent one. The watchdog reads every node every minute and nearly
// always finds nothing to do, so it reads this way first and only re-reads
// strongly when the state says there is something to write (the versioned
// write is made from a strongly consistent read, as everywhere else).
// A stale read is at most a moment old. What it can miss is a write made
// just now: an older last-received time makes the node look more overdue,
// which leads to a strong re-read, not a write; an incident opened just now
// is seen by the next tick. Any transition or open incident it shows is
// re-read strongly before anything is written or repaired.
type StaleStateReader interface {
	GetStateStale(ctx context.Context, node string) (NodeState, error)
}
