package report

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/delivery"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
	"github.com/gpusla/gpusla/sla/usage"
)

// lookback is how far before the month check results are kept, so that an
// incident already open when the month began is seen with its true start.
const lookback = 8 * 24 * time.Hour

// Window is the stretch of the backend's export a month's report reads
// (UTC): from the lookback before the earliest zone's month start (UTC+14)
// to two days after the latest zone's month end (UTC−12), with late data.
// Every export made for a report — the scheduled job's, `gpusla export
// --month`, the scorecard's — uses it, so a report built from any of them
// is the report of the whole log.
func Window(year int, month time.Month) (from, to time.Time) {
	start := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC)
	return start.Add(-14*time.Hour - lookback).Truncate(24 * time.Hour), start.AddDate(0, 1, 2)
}

// Options choose the month and the instant the report is as of.
type Options struct {
	Year  int
	Month time.Month
	// AsOf: events received or happening after it are left out, and open
	// incidents and pending tickets are judged at it.
	AsOf time.Time
	// Fleet, when set, is a collector of the fleet's stress figures that
	// the caller fills with at least the month's window (the scorecard
	// shares one across its months); the report then keeps none of its
	// own. The caller must Seal it before Build, and Build only reads it.
	Fleet *baseline.Collector
	// FleetShare, when set, is the fleet's comparison already made from
	// the whole fleet (Builder.Fleet of the builder that assembles the
	// month): a node's builder judges its node against it and keeps no
	// stress figures (part.go).
	FleetShare *FleetShare
}

// FleetShare is the month's fleet comparison; a nil Result: no node sent
// stress figures.
type FleetShare struct {
	Result *baseline.Result
}

// Builder accumulates the event log and builds the report.
type Builder struct {
	opts      Options
	contracts map[string]*terms.Terms
	nodes     map[string]*nodeAcc
	seen      map[string]struct{}
	tickets   map[string]*ticketAcc
	contractM map[string][]maintNotice
	backend   []interval.Interval
	backendS  []string
	winStart  int64
	fleet     *baseline.Collector
	ownFleet  bool // fleet is the report's own, filled by Add
	fleetRes  *baseline.Result
	input     Input
	judged    Judged        // observe's judged observation, reused
	keys      incident.Keys // observe's check keys, made once each
	// provider holds each contract's status page incidents (provider.go).
	provider map[string]*providerAcc
	// retro collects the retroactive records (retro.go).
	retro retroAcc
	// skipped: nodes registered under a contract no terms define, node →
	// contract. They cannot be judged, and one of them must not cost every
	// other node its report: they are left out, with their tickets, and
	// named (Skipped).
	skipped map[string]string
}

// Skipped is a node left out of the report and why.
type Skipped struct {
	Node     string `json:"node"`
	Contract string `json:"contract"`
	Reason   string `json:"reason"`
	// Text is Reason for translation.
	Text msg.Text `json:"-"`
}

// PartFailed is a node left out of a month built apart because its part
// could not be built (why: its last attempt's error, or that none came
// back in time): its row and its share of the totals are missing, and the
// report says so rather than being silently smaller.
func PartFailed(node, contract, why string) Skipped {
	t := msg.New("its part of the month could not be built (%s); it is not in the totals", why)
	return Skipped{Node: node, Contract: contract, Reason: t.String(), Text: t}
}

// Skipped names the nodes left out of the report because no terms define
// their contract, sorted by node.
func (b *Builder) Skipped() []Skipped {
	known := make([]string, 0, len(b.contracts))
	for c := range b.contracts {
		known = append(known, c)
	}
	sort.Strings(known)
	out := make([]Skipped, 0, len(b.skipped))
	for n, c := range b.skipped {
		t := msg.New("contract %q is defined by no terms given (known: %s)", c, strings.Join(known, ", "))
		out = append(out, Skipped{Node: n, Contract: c, Reason: t.String(), Text: t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out
}

type maintNotice struct {
	m  account.Maintenance
	id string // the event's id, which the retroactive section names
}

type ticketAcc struct {
	t      ticket.Ticket
	opened bool
	// recs are its records (the opening and every event), for the
	// retroactive section; afterAsOf: its opening was recorded after
	// as_of, so the ticket and everything recorded on it is left out.
	recs      []adminRec
	afterAsOf bool
}

// checkRec is one observation's verdict on one incident kind (or on
// connectivity, kind ""), kept compact: evidence is an index into a per-node
// table of distinct strings.
type checkRec struct {
	at   int64
	ev   int32
	key  int32 // the check (incident.CheckKey), an index into the same string table
	name int32 // the check's name (what detection.definitive matches)
	kind uint8 // index into incident.Kinds; a month of records per node stays small
	fail bool
	lost bool // a connectivity result holding the probe's link watch losing the backend (incident.LinkLost)
	// reached: one holding the link watch reaching the backend again
	// (incident.LinkReached)
	reached bool
}

func kindIndex(k incident.Kind) uint8 {
	for i, x := range incident.Kinds {
		if x == k {
			return uint8(i)
		}
	}
	return 0
}

type nodeAcc struct {
	id       string
	reg      *events.Event
	tm       *terms.Terms
	interval time.Duration
	push     time.Duration // how often the probe pushes (events.Event.PushInterval)
	// prompt is how late (ns) an observation may be received and still be
	// heard in time (incident.SilenceAllowance).
	prompt   int64
	released time.Time
	// release is the node_released record (retro.go).
	release *adminRec
	firstAt int64 // earliest probe time seen (the first heartbeat)
	// accepted finds the earliest probe time of a passing acceptance
	// result (delivery.Accepted: the probe's verdicts pass and the GPUs are
	// the registration's): the delivery under counts_until:
	// acceptance_passed.
	accepted delivery.First
	// probe covers every instant the node was seen running (probe time,
	// skew-corrected); heard only those the backend heard promptly, i.e.
	// received before they would have been missed. Gaps in heard are what
	// the backend saw as unreachable; probe says what late data revealed.
	probe incident.Coverage
	heard incident.Coverage
	// recv covers every receipt of the node's observations, at the
	// tolerance incident.ReceiptBreak: its spans are the runs of receipts
	// the live state tracks (State.RecvFrom). suspects are the heartbeats
	// heard in time that arrived later than a batch's normal wait plus
	// incident.TransitSlack: when each shows the node connected
	// (incident.HeardAt) depends on the receipt run it arrived in, known
	// once the log is read (settle). wait is that normal wait.
	recv     incident.Coverage
	beats    incident.Coverage // the instants of heard heartbeats (kind heartbeat) in heard: when the next was due
	suspects []suspect
	settled  bool
	wait     int64
	// late covers the receive times of observations not heard promptly
	// (a spool draining): signs of life that keep a gap from being overdue
	// (incident.Overdue), as they do live.
	late       incident.Coverage
	pending    [][3]int64 // (probe, receive, 1 if a heartbeat) before the registration came
	pendRuns   []runRec   // heartbeat runs before the registration came
	checks     []checkRec
	conns      []checkRec
	connsSplit []incident.Conn // conns as incident.SplitGap takes them (connList)
	evText     []string
	evIndex    map[string]int32
	// evSaid holds, for evidence a check's verdict gave, the sentence to
	// translate (incident.CheckEvidenceText) by its index in evText.
	evSaid     map[int32]msg.Text
	drops      []events.Event
	maint      []maintNotice
	registered bool
	// usage are the probe's usage readings (sla/usage) from the lookback
	// to two days after the month; usageBad the ones it could not read.
	usage    []usage.Reading
	usageBad []Evidence
}

// NewBuilder starts a report over the given contracts.
func NewBuilder(contracts []*terms.Terms, opts Options) (*Builder, error) {
	b := &Builder{opts: opts, contracts: map[string]*terms.Terms{}, nodes: map[string]*nodeAcc{},
		seen: map[string]struct{}{}, tickets: map[string]*ticketAcc{}, contractM: map[string][]maintNotice{}, skipped: map[string]string{}}
	for _, t := range contracts {
		if prev, dup := b.contracts[t.Contract]; dup {
			return nil, fmt.Errorf("contract %q is defined in %s:%d and %s:%d", t.Contract, prev.File, prev.Line, t.File, t.Line)
		}
		b.contracts[t.Contract] = t
	}
	if opts.Month < 1 || opts.Month > 12 || opts.Year < 2000 || opts.Year > 9999 {
		return nil, fmt.Errorf("month %04d-%02d out of range", opts.Year, opts.Month)
	}
	if opts.AsOf.IsZero() {
		return nil, fmt.Errorf("as-of instant missing")
	}
	if err := notBegun(contracts, opts); err != nil {
		return nil, err
	}
	// The earliest any zone's month can begin, minus the lookback.
	b.winStart = time.Date(opts.Year, opts.Month, 1, 0, 0, 0, 0, time.UTC).Add(-14*time.Hour - lookback).UnixNano()
	b.fleet = opts.Fleet
	if b.fleet == nil && opts.FleetShare != nil {
		b.fleet = &baseline.Collector{} // stays empty: the fleet is given
	}
	if b.fleet == nil {
		b.fleet, b.ownFleet = &baseline.Collector{}, true
	}
	return b, nil
}

func (b *Builder) node(id string) *nodeAcc {
	n := b.nodes[id]
	if n == nil {
		n = &nodeAcc{id: id, firstAt: 1<<63 - 1, evIndex: map[string]int32{}}
		b.nodes[id] = n
	}
	return n
}

func (n *nodeAcc) evidence(s string) int32 {
	if i, ok := n.evIndex[s]; ok {
		return i
	}
	i := int32(len(n.evText))
	n.evText = append(n.evText, s)
	n.evIndex[s] = i
	return i
}

// evidenceSaid interns evidence s with its sentence t (zero: none).
func (n *nodeAcc) evidenceSaid(s string, t msg.Text) int32 {
	i := n.evidence(s)
	if !t.IsZero() {
		if _, ok := n.evSaid[i]; !ok {
			if n.evSaid == nil {
				n.evSaid = map[int32]msg.Text{}
			}
			n.evSaid[i] = t
		}
	}
	return i
}

// said is interned evidence s as a sentence: the check's own where it
// was interned with one, else s as data.
func (n *nodeAcc) said(s string) msg.Text {
	if i, ok := n.evIndex[s]; ok {
		if t, ok := n.evSaid[i]; ok {
			return t
		}
	}
	return msg.Plain(s)
}

// Add takes one event. It returns an error for an event that contradicts
// earlier ones (a node registered twice under different contracts, an
// unknown contract); such an error means the log cannot be reported.
func (b *Builder) Add(e *events.Event) error {
	b.input.Events++
	asOf := b.opts.AsOf
	if e.Type == events.TypeObservation {
		// Observations are idempotent (see coverage), so their ids need not
		// be remembered; everything else is deduplicated by id.
		if e.ReceivedAt.After(asOf) {
			b.input.AfterAsOf++
			return nil
		}
		b.observe(e)
		return nil
	}
	if _, dup := b.seen[e.ID]; dup {
		b.input.Duplicates++
		return nil
	}
	b.seen[e.ID] = struct{}{}
	switch e.Type {
	case events.TypeNodeRegistered:
		tm, ok := b.contracts[e.Contract]
		if !ok {
			if n := b.nodes[e.Node]; n != nil && n.registered {
				return reregistered(e, n.reg.Contract)
			}
			if _, was := b.skipped[e.Node]; !was {
				b.skipped[e.Node] = e.Contract
			}
			return nil
		}
		if was, skip := b.skipped[e.Node]; skip {
			return reregistered(e, was)
		}
		n := b.node(e.Node)
		if n.registered {
			if n.reg.Contract != e.Contract {
				return reregistered(e, n.reg.Contract)
			}
			return nil
		}
		reg := *e
		n.reg, n.tm, n.registered = &reg, tm, true
		n.accepted.SetOrder(delivery.OrderOf(reg.Hardware))
		n.interval, n.push = e.HeartbeatInterval(), e.PushInterval()
		// Whether the node ran is judged with the alerting tolerance; whether
		// it was heard in time (connected) with the books' tighter one.
		tol := (n.interval + tm.Detection.Grace).Nanoseconds()
		n.probe.Tol, n.late.Tol = tol, tol
		n.heard.Tol = incident.PromptTol(n.interval, tm.Detection).Nanoseconds()
		n.prompt = incident.SilenceAllowance(n.interval, n.push, tm.Detection).Nanoseconds()
		n.recv.Tol = incident.ReceiptBreak(n.interval, n.push, tm.Detection).Nanoseconds()
		n.beats.Tol = n.heard.Tol
		n.wait = (max(n.push-n.interval, 0) + incident.TransitSlack).Nanoseconds()
		for _, p := range n.pending {
			n.see(p[0], p[1], p[2] == 1)
		}
		for _, r := range n.pendRuns {
			n.seeRun(r)
		}
		n.pending, n.pendRuns = nil, nil
	case events.TypeNodeReleased, events.TypeMaintenance:
		b.adminEvent(e)
	case events.TypeHeartbeatRun:
		if e.ReceivedAt.After(asOf) {
			b.input.AfterAsOf++
			return nil
		}
		b.observeRun(e)
	case events.TypeBackendOutage:
		b.backend = append(b.backend, interval.Interval{Start: e.Start, End: e.End})
		b.backendS = append(b.backendS, e.Summary)
	case events.TypeBatchDropped, events.TypeChainBreak, events.TypeChainRestart:
		if e.At.After(asOf) {
			b.input.AfterAsOf++
			return nil
		}
		n := b.node(e.Node)
		if len(n.drops) < 1000 {
			n.drops = append(n.drops, *e)
		}
	case events.TypeTicketOpened, events.TypeProviderResponded, events.TypeCustomerReplied, events.TypeTicketResolved, events.TypeHardwareReplaced:
		if e.At.After(asOf) || e.RecordedAt.After(asOf) {
			b.input.AfterAsOf++
			if e.Type == events.TypeTicketOpened {
				b.ticket(e.Ticket).afterAsOf = true
			}
			return nil
		}
		b.ticketEvent(e)
	case events.TypeProviderIncident, events.TypeStatusPagePolled:
		b.providerEvent(e)
	}
	return nil
}

// adminEvent takes a release or a maintenance notice. One not yet made,
// or not yet recorded, at as_of is left out: a report as of an instant
// uses only what the backend knew by then.
func (b *Builder) adminEvent(e *events.Event) {
	asOf := b.opts.AsOf
	if e.RecordedAt.After(asOf) || (e.Type == events.TypeNodeReleased && e.At.After(asOf)) ||
		(e.Type == events.TypeMaintenance && e.AnnouncedAt.After(asOf)) {
		b.input.AfterAsOf++
		return
	}
	if e.Type == events.TypeNodeReleased {
		n := b.node(e.Node)
		n.released, n.release = e.At, recOf(e)
		return
	}
	m := maintNotice{m: account.Maintenance{Span: interval.Interval{Start: e.Start, End: e.End}, AnnouncedAt: e.AnnouncedAt, Summary: e.Summary,
		RecordedAt: e.RecordedAt, RecordedBy: e.RecordedBy, Override: e.Override}, id: e.ID}
	if e.Node != "" {
		n := b.node(e.Node)
		n.maint = append(n.maint, m)
	} else {
		b.contractM[e.Contract] = append(b.contractM[e.Contract], m)
	}
}

// reregistered is the error of a node registered again under another
// contract, in the event files' one form (path:N: field: problem, the
// field being contract).
func reregistered(e *events.Event, was string) error {
	return &events.FieldError{Field: "contract", Msg: fmt.Sprintf("node %s registered again under contract %q (was %q; event %s)", e.Node, e.Contract, was, e.ID)}
}

// ticket is the ticket id's accumulator, made on its first event.
func (b *Builder) ticket(id string) *ticketAcc {
	ta := b.tickets[id]
	if ta == nil {
		ta = &ticketAcc{t: ticket.Ticket{ID: id}}
		b.tickets[id] = ta
	}
	return ta
}

func (b *Builder) ticketEvent(e *events.Event) {
	ta := b.ticket(e.Ticket)
	ta.recs = append(ta.recs, *recOf(e))
	t := &ta.t
	switch e.Type {
	case events.TypeTicketOpened:
		ta.opened = true
		t.Node, t.Priority, t.Category, t.ProviderRef, t.Summary, t.Opened = e.Node, e.Priority, e.Category, e.ProviderRef, e.Summary, e.At
	case events.TypeProviderResponded:
		t.Record(ticket.ProviderResponded, e.At, e.AwaitingCustomer)
	case events.TypeCustomerReplied:
		t.Record(ticket.CustomerReplied, e.At, false)
	case events.TypeTicketResolved:
		t.Record(ticket.TicketResolved, e.At, false)
	case events.TypeHardwareReplaced:
		t.Record(ticket.HardwareReplaced, e.At, false)
	}
}

// see records an observation made at probe time at and received at recv.
func (n *nodeAcc) see(at, recv int64, beat bool) {
	n.probe.Add(at)
	n.recv.Add(recv)
	n.hear(at, recv, at, recv, beat)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// suspect is a heard observation, or a heard run from first to last, whose
// first came late enough that when it shows the node connected depends on
// its receipt run (incident.HeardAt).
type suspect struct {
	first, recvFirst, last, recvLast int64
	beat                             bool
}

// hear records the observation at at (received at recv), or the heard run
// from at to last, as heard in time or late; beat: heartbeats.
func (n *nodeAcc) hear(at, recv, last, recvLast int64, beat bool) {
	switch {
	case recv-at > n.prompt:
		n.late.Add(recv)
	case recv-at > n.wait || recvLast-last > n.wait:
		n.suspects = append(n.suspects, suspect{at, recv, last, recvLast, beat})
	default:
		n.heardSpan(at, last, beat)
	}
}

func (n *nodeAcc) heardSpan(first, last int64, beat bool) {
	n.heard.AddSpan(first, last)
	if beat {
		n.beats.AddSpan(first, last)
	}
}

// settle adds the suspects to the heard coverage at the instants they show
// the node connected, now that every receipt is known. Once per report.
func (n *nodeAcc) settle() {
	if n.settled {
		return
	}
	n.settled = true
	for _, s := range n.suspects {
		hf := incident.HeardAt(nanos(s.first), nanos(s.recvFirst), nanos(n.runFrom(s.recvFirst)), n.interval, n.push).UnixNano()
		hl := incident.HeardAt(nanos(s.last), nanos(s.recvLast), nanos(n.runFrom(s.recvLast)), n.interval, n.push).UnixNano()
		n.heardSpan(hf, max(hf, hl), s.beat)
	}
	n.suspects = nil
}

// runFrom is the first receipt of the receipt run holding the receipt r.
func (n *nodeAcc) runFrom(r int64) int64 {
	sp := n.recv.Spans
	i := sort.Search(len(sp), func(i int) bool { return sp[i].Last >= r })
	if i < len(sp) && sp[i].First <= r {
		return sp[i].First
	}
	return r
}

// runRec is a heartbeat run (docs/events.md, heartbeat_run), in Unix
// nanoseconds: probe times skew-corrected, the gap and delay bounds it
// claims for every heartbeat in it.
type runRec struct {
	first, last, recvFirst, recvLast, maxGap, maxDelay int64
}

// seeRun records a heartbeat run as its heartbeats would have been
// recorded one by one. Every heartbeat in it is within maxGap of the next
// and was received within maxDelay of its probe time, so when both bounds
// are within the coverage tolerance each heartbeat extends the same span
// and each was heard promptly: the run's span is exactly what they add.
// A run whose bounds exceed the tolerance says nothing certain about its
// inside (a heartbeat there might have come late, or after a gap the
// engine calls unreachable), so only its two ends count, each as the
// heartbeat it is.
func (n *nodeAcc) seeRun(r runRec) {
	if r.maxGap <= n.probe.Tol {
		n.probe.AddSpan(r.first, r.last)
	} else {
		n.probe.Add(r.first)
		n.probe.Add(r.last)
	}
	// The backend's run store extends a run with heartbeats up to the
	// alerting tolerance apart and late (functions/app, extendRun), so a
	// run resolves its inside only to that tolerance: one within it is
	// heard whole, as it was recorded; its ends are judged like any
	// heartbeat, at the books' tolerance (docs/contract.md, "Resolution").
	tol := n.probe.Tol
	if r.maxGap <= tol && r.maxDelay <= tol && r.recvFirst-r.first <= tol && r.recvLast-r.last <= tol {
		// Heard whole: its receipts were one run too (ReceiptBreak).
		n.recv.AddSpan(r.recvFirst, r.recvLast)
		if r.recvFirst-r.first > n.prompt || r.recvLast-r.last > n.prompt {
			n.heardSpan(r.first, r.last, true) // a run recorded before the books' tolerance: as it was
			return
		}
		n.hear(r.first, r.recvFirst, r.last, r.recvLast, true)
		return
	}
	// Late ends are receipts (signs of life) at their receive times; the
	// inside's receipts are not known, so none are assumed.
	for _, h := range [][2]int64{{r.first, r.recvFirst}, {r.last, r.recvLast}} {
		n.recv.Add(h[1])
		n.hear(h[0], h[1], h[0], h[1], true)
	}
}

func (b *Builder) observeRun(e *events.Event) {
	n := b.node(e.Node)
	r := runRec{first: e.TrueAt().UnixNano(), last: e.TrueLastAt().UnixNano(), recvFirst: e.ReceivedAt.UnixNano(),
		recvLast: e.LastReceivedAt.UnixNano(), maxGap: e.MaxGapMS * int64(time.Millisecond), maxDelay: e.MaxDelayMS * int64(time.Millisecond)}
	if asOf := b.opts.AsOf.UnixNano(); r.recvLast > asOf {
		// Part of the run arrived after as_of. A heartbeat with probe time up
		// to as_of − max_delay had certainly arrived by then; later ones may
		// not have, so the run is cut there (or to its first heartbeat).
		r.last = min(r.last, asOf-r.maxDelay)
		if r.last <= r.first {
			r.last, r.recvLast = r.first, r.recvFirst
		} else {
			r.recvLast = asOf
		}
	}
	if r.first < n.firstAt {
		n.firstAt = r.first
	}
	if n.registered {
		n.seeRun(r)
	} else {
		n.pendRuns = append(n.pendRuns, r)
	}
}

func (b *Builder) observe(e *events.Event) {
	Judge(e, &b.keys, &b.judged)
	b.record(&b.judged)
}

// collectUsage keeps a judged observation's usage reading. Those after
// the month are needed only as far as the readings that straddle its end.
// A reading it cannot read is listed on the node as evidence rather than
// failing the report: the rest of the month does not depend on it.
func (b *Builder) collectUsage(n *nodeAcc, j *Judged) {
	if !j.HasUsage {
		return
	}
	at := j.Time
	if at.After(time.Date(b.opts.Year, b.opts.Month+1, 1, 0, 0, 0, 0, time.UTC).Add(14*time.Hour + 48*time.Hour)) {
		return
	}
	if j.UsageBad {
		n.usageBad = append(n.usageBad, Evidence{Kind: EvidenceUsageUnreadable, At: at.UTC().Format(time.RFC3339),
			Detail: j.UsageErr, Text: msg.New("a usage reading could not be read and is left out: %s", j.UsageErr)})
		return
	}
	if j.UsageOK {
		n.usage = append(n.usage, j.Usage)
	}
}

// Build computes the report. It fails, producing nothing, if the log has an
// observation or ticket for a node that was never registered. It is the
// month's node parts (BuildPart) put together (Assemble): a report built
// node by node, each node's builder fed its own events and the month's
// shared ones, is this one (part.go).
func (b *Builder) Build() (*Report, error) {
	ids, err := b.validate()
	if err != nil {
		return nil, err
	}
	b.fleetRes = b.computeFleet()
	parts := make([]Part, 0, len(ids))
	for _, id := range ids {
		parts = append(parts, b.part(id))
	}
	return b.assemble(parts, b.input), nil
}

func secs(d time.Duration) int64 { return int64(d / time.Second) }

// ts renders an instant in the contract's zone.
func ts(t time.Time, tm *terms.Terms) string {
	if t.IsZero() {
		return ""
	}
	return t.In(tm.Calendar.Loc).Format(time.RFC3339)
}

// sources is the contract's cited pages as the report lists them.
func sources(tm *terms.Terms) []Source {
	out := make([]Source, 0, len(tm.Sources))
	for _, s := range tm.Sources {
		out = append(out, Source{Terms: s.Terms, URL: s.URL, Read: s.Read.String(), Quote: s.Quote, Secondary: s.Secondary})
	}
	return out
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// provisional says whether the month is not over in loc as of the report's
// as-of instant.
func (b *Builder) provisional(loc *time.Location) bool {
	_, end := calendar.MonthBounds(b.opts.Year, b.opts.Month, loc)
	return b.opts.AsOf.Before(end)
}

// notBegun refuses a month that has not begun as of opts.AsOf in the zone
// of a contract given (UTC without any): there is nothing to report of
// it, and a report dated before its month would read as one of it.
func notBegun(contracts []*terms.Terms, opts Options) error {
	zones := []*time.Location{time.UTC}
	names := []string{"UTC"}
	if len(contracts) > 0 {
		zones, names = nil, nil
		for _, t := range contracts {
			zones = append(zones, t.Calendar.Loc)
			names = append(names, "contract "+t.Contract+"'s zone, "+t.Calendar.Loc.String())
		}
	}
	for i, loc := range zones {
		start, _ := calendar.MonthBounds(opts.Year, opts.Month, loc)
		if opts.AsOf.Before(start) {
			return fmt.Errorf("month %04d-%02d has not begun as of %s in %s (it begins %s): a report of a future month is refused",
				opts.Year, opts.Month, opts.AsOf.UTC().Format(time.RFC3339), names[i], start.UTC().Format(time.RFC3339))
		}
	}
	return nil
}
