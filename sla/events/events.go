// Package events is the SLA engine's input: a log of JSON lines, one event a
// line, that the backend exports and `gpusla report` reads. It holds the Go
// types of every event, a streaming Reader (constant memory, errors name the
// line) and a Writer. docs/events.md is the reference for the format.
//
// Every line is one JSON object with a "type" and an "id". Events may come in
// any order and more than once; consumers ignore a repeated id. Times are
// RFC 3339 with a zone (the backend writes UTC).
//
// Observation events mirror the JSON field names of the probe's wire
// Observation and Check (at, kind, checks[].name, .category, .verdict, …) so
// the backend converts one into the other field by field; this package does
// not import the wire package, because the SLA domain imports nothing of the
// project's.
//
// On the path from an observation to a report row, this is where the path
// begins: the event log, the engine's only input.
package events

import (
	"fmt"
	"time"
	"unicode"

	"github.com/gpusla/gpusla/sla/msg"
)

// Event types.
const (
	TypeNodeRegistered    = "node_registered"
	TypeNodeReleased      = "node_released"
	TypeObservation       = "observation"
	TypeMaintenance       = "maintenance"
	TypeTicketOpened      = "ticket_opened"
	TypeProviderResponded = "ticket_provider_responded"
	TypeCustomerReplied   = "ticket_customer_replied"
	TypeTicketResolved    = "ticket_resolved"
	TypeHardwareReplaced  = "hardware_replaced"
	TypeBackendOutage     = "backend_outage"
	TypeBatchDropped      = "batch_dropped"
	TypeChainBreak        = "chain_break"
	TypeChainRestart      = "chain_restart"
	TypeHeartbeatRun      = "heartbeat_run"
	// TypeProviderIncident is an incident the provider listed on its own
	// status page, as the backend last fetched it; TypeStatusPagePolled
	// says over which span the backend read the page. Neither changes what
	// is counted: the report lists which measured outages the provider
	// acknowledged.
	TypeProviderIncident = "provider_incident"
	TypeStatusPagePolled = "status_page_polled"
	// TypeNodeEnrolled is a probe registering itself with a renter's
	// enrolment token (or re-enrolling with one made for its node): who
	// let it in (the token's maker, in recorded_by), when, and which token.
	// It changes nothing that is counted: the order is node_registered's.
	TypeNodeEnrolled = "node_enrolled"
)

// Observation kinds (same strings as the probe's wire format).
const (
	KindHeartbeat = "heartbeat"
	KindCheck     = "check"
)

// Check verdicts (same strings as the probe's wire format).
const (
	Pass    = "pass"
	Warn    = "warn"
	Fail    = "fail"
	Skipped = "skipped"
)

// Check categories (same strings as the probe's wire format). The first four
// are incident kinds of their own; connectivity decides whose fault a gap in
// heartbeats was; host is informational; inventory is hardware truth (the
// card is not what was sold).
const (
	CategoryGPULost      = "gpu_lost"
	CategoryGPUDegraded  = "gpu_degraded"
	CategoryNetwork      = "network_degraded"
	CategoryPerformance  = "performance_below_spec"
	CategoryConnectivity = "connectivity"
	CategoryHost         = "host"
	CategoryInventory    = "inventory"
)

// Event is one line of the log. It is a flat union: Type says which fields
// are meaningful (see docs/events.md); the others stay empty and are not
// written. A flat struct keeps decoding of the millions of observation lines
// in one month cheap.
type Event struct {
	Type string `json:"type"`
	ID   string `json:"id"`

	// Node the event is about (all but backend_outage; maintenance may name a
	// contract instead).
	Node string `json:"node,omitempty"`
	// Contract id: the terms a node is rented under (node_registered), or
	// every node of that contract (maintenance).
	Contract string `json:"contract,omitempty"`

	// node_registered
	OrderedAt          time.Time `json:"ordered_at,omitzero"`
	Hardware           *Hardware `json:"hardware,omitempty"`
	PricePerGPUHour    *float64  `json:"price_per_gpu_hour,omitempty"` // overrides the terms' price
	HeartbeatIntervalS int       `json:"heartbeat_interval_s,omitempty"`
	// PushIntervalS is how often the probe pushes a batch (node_registered);
	// absent, one heartbeat a push.
	PushIntervalS int `json:"push_interval_s,omitempty"`
	// InstanceID and Region are the provider's own names for the node and
	// where it runs (node_registered), which a claim quotes: AWS asks for
	// "the instance IDs" and "the AWS regions" of each incident.
	InstanceID string `json:"instance_id,omitempty"`
	Region     string `json:"region,omitempty"`
	// Demo marks the built-in demo node of `gpusla serve`
	// (node_registered): once released before a month ends, its made-up
	// contract is no part of that month's books (docs/events.md).
	Demo bool `json:"demo,omitempty"`

	// Token is the enrolment token a node_enrolled event used (its id).
	Token string `json:"token,omitempty"`

	// observation (probe time in At, backend receive time in ReceivedAt)
	Batch       string    `json:"batch,omitempty"`
	Seq         uint64    `json:"seq,omitempty"`
	Hash        string    `json:"hash,omitempty"`
	Index       int       `json:"index,omitempty"`
	ReceivedAt  time.Time `json:"received_at,omitzero"`
	ClockSkewMS int64     `json:"clock_skew_ms,omitempty"`
	Kind        string    `json:"kind,omitempty"`
	Checks      []Check   `json:"checks,omitempty"`

	// heartbeat_run: At and ReceivedAt are the first heartbeat's probe and
	// receive times, LastAt and LastReceivedAt the last one's; Count
	// heartbeats sent every HeartbeatIntervalS; no two consecutive ones
	// further apart than MaxGapMS (probe time), each received within
	// MaxDelayMS of its probe time. FromSeq and ToSeq optionally name its
	// first and last batch, Hash the last batch's hash.
	LastAt         time.Time `json:"last_at,omitzero"`
	LastReceivedAt time.Time `json:"last_received_at,omitzero"`
	Count          int64     `json:"count,omitempty"`
	MaxGapMS       int64     `json:"max_gap_ms,omitempty"`
	MaxDelayMS     int64     `json:"max_delay_ms,omitempty"`

	// At is when the event happened: probe time of an observation, the time
	// of a ticket event, a node's release, a drop notice or chain break.
	At time.Time `json:"at,omitzero"`

	// maintenance, backend_outage
	Start       time.Time `json:"start,omitzero"`
	End         time.Time `json:"end,omitzero"`
	AnnouncedAt time.Time `json:"announced_at,omitzero"`

	// The books' administrative facts (maintenance, node_released and
	// every ticket event) say when the backend recorded them and who did
	// (the API key, "cli:" and the OS user, a Slack user): a time claimed
	// before its recording is a retroactive claim the report names
	// (docs/reports.md, "Retroactive records"). Absent in logs exported
	// before they were kept; such a fact is taken as it claims. Override
	// (maintenance, node_released) is an administrator's documented reason
	// for letting a retroactive record change what counts.
	RecordedAt time.Time `json:"recorded_at,omitzero"`
	RecordedBy string    `json:"recorded_by,omitempty"`
	Override   string    `json:"override,omitempty"`

	// ticket events
	Ticket      string `json:"ticket,omitempty"`
	Priority    string `json:"priority,omitempty"`
	Category    string `json:"category,omitempty"` // ticket_opened: "hardware" makes the replacement target apply
	ProviderRef string `json:"provider_ref,omitempty"`
	Summary     string `json:"summary,omitempty"` // also maintenance, backend_outage
	// AwaitingCustomer on ticket_provider_responded: the provider asked the
	// customer something; the resolution clock pauses until the customer
	// replies, when the terms allow pausing.
	AwaitingCustomer bool `json:"awaiting_customer,omitempty"`

	// batch_dropped (the probe's spool discarded batches) and chain_break
	// (a batch whose prev hash does not match the stored one).
	FromSeq      uint64 `json:"from_seq,omitempty"`
	ToSeq        uint64 `json:"to_seq,omitempty"`
	Batches      int    `json:"batches,omitempty"`
	Reason       string `json:"reason,omitempty"`
	ExpectedPrev string `json:"expected_prev,omitempty"`
	GotPrev      string `json:"got_prev,omitempty"`

	// provider_incident (Contract; ProviderRef is the page's incident id,
	// Summary its title, Start when the provider says it began, End when
	// it says it was resolved, At its last update on the page, ReceivedAt
	// when the backend first fetched it) and status_page_polled (Contract,
	// Source, Start and End: the first and last successful fetch, Count
	// fetches of which Failures failed, Reason the last failure).
	Source     string   `json:"source,omitempty"` // the page's URL
	Format     string   `json:"format,omitempty"` // statuspage, rss, atom
	Status     string   `json:"status,omitempty"`
	Impact     string   `json:"impact,omitempty"`
	Resolved   bool     `json:"resolved,omitempty"`
	Link       string   `json:"link,omitempty"`
	Components []string `json:"components,omitempty"`
	Failures   int64    `json:"failures,omitempty"`
}

// Hardware is what was ordered for a node.
type Hardware struct {
	GPUModel     string `json:"gpu_model"`
	GPUCount     int    `json:"gpu_count"`
	GPUMemoryMiB int    `json:"gpu_memory_mib,omitempty"`
	Description  string `json:"description,omitempty"`
}

// Check is one judged reading, field for field the probe's wire Check.
type Check struct {
	Name      string   `json:"name"`
	Category  string   `json:"category"`
	Verdict   string   `json:"verdict"`
	Value     string   `json:"value,omitempty"`
	Criterion string   `json:"criterion,omitempty"`
	Number    *float64 `json:"number,omitempty"`
	Unit      string   `json:"unit,omitempty"`
	GPU       *int     `json:"gpu,omitempty"`
	// UUID is the GPU's NVML UUID where the probe knew it: the index can
	// change between boots, the UUID cannot.
	UUID   string `json:"uuid,omitempty"`
	Detail string `json:"detail,omitempty"`
	// ValueText, CriterionText and DetailText are the probe's coded forms
	// of Value, Criterion and Detail (docs/protocol.md), kept so every
	// page renders them in its reader's language; nil where the probe
	// sent English only.
	ValueText     *msg.Coded `json:"value_text,omitempty"`
	CriterionText *msg.Coded `json:"criterion_text,omitempty"`
	DetailText    *msg.Coded `json:"detail_text,omitempty"`
}

// CorrectedAt is the observation's probe time corrected by the clock skew
// the probe reports (skew = probe clock minus backend clock): the probe's
// word for when it observed, which ObservationTimeOK judges.
func (e *Event) CorrectedAt() time.Time {
	if e.ClockSkewMS == 0 {
		return e.At
	}
	return e.At.Add(-time.Duration(e.ClockSkewMS) * time.Millisecond)
}

// TrueAt is the instant the books date the observation at: CorrectedAt, but
// never after the backend received it (ReceivedAt). Nothing is observed
// after its receipt, so a later instant is a probe clock or a skew that is
// wrong by at least that much, and the receipt is the latest the backend
// itself can vouch for (docs/contract.md, "Evidence precedence"): one
// heartbeat dated 200 s ahead is a heartbeat at its receipt, never one that
// leaves a gap behind it. A spooled observation, dated before its receipt,
// is as it was.
func (e *Event) TrueAt() time.Time {
	return NotAfter(e.CorrectedAt(), e.ReceivedAt)
}

// TrueLastAt is a heartbeat run's last probe time corrected for skew, never
// after its receipt (LastReceivedAt), as TrueAt.
func (e *Event) TrueLastAt() time.Time {
	return NotAfter(e.LastAt.Add(-time.Duration(e.ClockSkewMS)*time.Millisecond), e.LastReceivedAt)
}

// NotAfter is at, or receivedAt when at is later (a zero receivedAt: not
// known, at as it is): an instant a node reports, bounded by the backend's
// receipt of it.
func NotAfter(at, receivedAt time.Time) time.Time {
	if !receivedAt.IsZero() && at.After(receivedAt) {
		return receivedAt
	}
	return at
}

// ClampNoted is the least lead over its receipt for which a clamped
// instant is recorded as evidence (ingest's time_bounds): the backend reads
// a node's signing time to the second (X-Gpusla-Timestamp), and the drift of
// a probe's clock between two skew measurements, a push apart, is
// milliseconds; a lead of a second or more is a clock or a skew that is
// wrong.
const ClampNoted = time.Second

// PushInterval of a node_registered event, defaulting to its heartbeat
// interval (one heartbeat a push).
func (e *Event) PushInterval() time.Duration {
	if e.PushIntervalS <= 0 {
		return e.HeartbeatInterval()
	}
	return time.Duration(e.PushIntervalS) * time.Second
}

// HeartbeatInterval of a node_registered event, defaulting to one minute.
func (e *Event) HeartbeatInterval() time.Duration {
	if e.HeartbeatIntervalS <= 0 {
		return time.Minute
	}
	return time.Duration(e.HeartbeatIntervalS) * time.Second
}

// The window an observation's time (probe clock corrected by the skew the
// probe reports) must lie in, around the backend's receive time: nothing
// older than the backend keeps batch bodies can arrive as evidence, and a
// time further ahead of its receipt than a signature may be (the probe
// signs in backend time, wire.TimestampWindow) is a clock that was never
// set. Outside it the time is a wrong clock, not a fact: the backend sets
// the observation aside with evidence, and a log that holds one is refused,
// so one wrong clock can neither open an outage nor hide others. Inside it
// an instant after its receipt is dated at its receipt (TrueAt).
const (
	MaxObservationLead = 5 * time.Minute
	MaxObservationAge  = 100 * 24 * time.Hour
)

// ObservationTimeOK says whether an observation at (skew-corrected) received
// at receivedAt lies in the window, and if not, by how much it misses.
func ObservationTimeOK(at, receivedAt time.Time) error {
	// Compare instants, not a difference: year 0001 minus now overflows a
	// Duration.
	switch {
	case at.After(receivedAt.Add(MaxObservationLead)):
		return fmt.Errorf("%s is %s after it was received (%s): more than the %s allowed",
			at.UTC().Format(time.RFC3339), at.Sub(receivedAt).Round(time.Second), receivedAt.UTC().Format(time.RFC3339), MaxObservationLead)
	case at.Before(receivedAt.Add(-MaxObservationAge)):
		return fmt.Errorf("%s is more than %s before it was received (%s)",
			at.UTC().Format(time.RFC3339), MaxObservationAge, receivedAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// RegistrationSlack is how much earlier than its node's registration an
// observation may be dated and still be the node's evidence. Before the
// registration the node had no secret (the backend makes it then), and the
// probe enrols before it observes, so nothing it saw can be older; the
// slack is for clocks: the registration is read on the machine that
// registered the node (the renter's, for `gpusla node add` against
// DynamoDB), and a probe's first batches, sent before any answer told it
// its skew, carry its clock uncorrected. Five minutes is the agreement a
// signature already asks of the clocks (wire.TimestampWindow).
const RegistrationSlack = 5 * time.Minute

// RegisteredTimeOK says whether an observation at (skew-corrected) of a
// node registered at registered is dated no earlier than RegistrationSlack
// before it, and if not, by how much it misses. A zero registered is not
// known: any time passes. A node's report about a time before it existed
// for the backend would move a month's books (an outage, or a delivery
// before the node was registered) on the node's word alone.
func RegisteredTimeOK(at, registered time.Time) error {
	if registered.IsZero() || !at.Before(registered.Add(-RegistrationSlack)) {
		return nil
	}
	return fmt.Errorf("%s is %s before the node was registered (%s): more than the %s allowed",
		at.UTC().Format(time.RFC3339), registered.Sub(at).Round(time.Second), registered.UTC().Format(time.RFC3339), RegistrationSlack)
}

// Bounds of the administrative records. A maintenance window longer than
// MaxMaintenanceWindow is not maintenance but an exemption from the
// contract (year 0001 to 9999 would take every outage out of the books);
// RecordSlack is how much earlier than its recording a time may be and
// still count as said at the time (typing it in, a clock a little off);
// earlier, the record is a retroactive claim. MaxRecordedBy and MaxOverride
// bound the recorder's name and the override's text.
const (
	MaxMaintenanceWindow = 7 * 24 * time.Hour
	RecordSlack          = 5 * time.Minute
	MaxRecordedBy        = 256
	MaxOverride          = 2000
)

// Retroactive reports whether a fact that claims to have happened at
// claimed, recorded at recorded, was recorded later than RecordSlack after
// it: a retroactive claim. A fact whose recording time is unknown (zero,
// an old log) is not known to be one.
func Retroactive(claimed, recorded time.Time) bool {
	return !recorded.IsZero() && recorded.After(claimed.Add(RecordSlack))
}

// FieldError names the field of an event that is wrong.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Validate checks that the fields its type needs are present and sane.
func (e *Event) Validate() error {
	if e.ID == "" || len(e.ID) > 256 {
		return fieldErr("id", "must be 1 to 256 characters")
	}
	if e.Demo && e.Type != TypeNodeRegistered {
		return fieldErr("demo", "only a node_registered event marks the demo node")
	}
	switch e.Type {
	case TypeNodeRegistered:
		return e.validRegistered()
	case TypeNodeReleased:
		if err := e.needNodeAt(); err != nil {
			return err
		}
		return e.validRecord()
	case TypeChainBreak, TypeChainRestart:
		return e.needNodeAt()
	case TypeObservation:
		return e.validObservation()
	case TypeHeartbeatRun:
		return e.validHeartbeatRun()
	case TypeMaintenance:
		return e.validMaintenance()
	case TypeTicketOpened:
		return e.validTicketOpened()
	case TypeProviderResponded, TypeCustomerReplied, TypeTicketResolved, TypeHardwareReplaced:
		if err := e.needTicket(); err != nil {
			return err
		}
		return e.validRecord()
	case TypeBackendOutage:
		return e.needInterval()
	case TypeBatchDropped:
		return e.validBatchDropped()
	case TypeProviderIncident:
		return e.validProviderIncident()
	case TypeStatusPagePolled:
		return e.validStatusPagePolled()
	case TypeNodeEnrolled:
		return e.validEnrolled()
	case "":
		return fieldErr("type", "missing")
	}
	return fieldErr("type", "unknown event type %q", e.Type)
}

// fieldErr is the FieldError for field.
func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// needNode holds an event that names a node to a valid node id.
func (e *Event) needNode() error {
	if !validName(e.Node) {
		return fieldErr("node", "%q is not a node id (letters, digits, '.', '_', '-'; 1 to 64)", e.Node)
	}
	return nil
}

// needAt holds an event of an instant to having one.
func (e *Event) needAt() error {
	if e.At.IsZero() {
		return fieldErr("at", "missing")
	}
	return nil
}

// needNodeAt is needNode, then needAt: something that befell a node.
func (e *Event) needNodeAt() error {
	if err := e.needNode(); err != nil {
		return err
	}
	return e.needAt()
}

// needTicket holds a ticket's event to a ticket id and an instant.
func (e *Event) needTicket() error {
	if e.Ticket == "" || len(e.Ticket) > 256 {
		return fieldErr("ticket", "must be 1 to 256 characters")
	}
	return e.needAt()
}

// needInterval holds an event of a span to a start and a later end.
func (e *Event) needInterval() error {
	switch {
	case e.Start.IsZero():
		return fieldErr("start", "missing")
	case e.End.IsZero():
		return fieldErr("end", "missing")
	case !e.End.After(e.Start):
		return fieldErr("end", "%s is not after start %s", e.End.Format(time.RFC3339), e.Start.Format(time.RFC3339))
	}
	return nil
}

// validRegistered: a node registered under a contract, ordered at a time,
// with its hardware, and no negative price or heartbeat interval.
func (e *Event) validRegistered() error {
	if err := e.needNode(); err != nil {
		return err
	}
	switch {
	case e.Contract == "":
		return fieldErr("contract", "missing")
	case e.OrderedAt.IsZero():
		return fieldErr("ordered_at", "missing")
	case e.Hardware == nil:
		return fieldErr("hardware", "missing")
	case e.Hardware.GPUCount < 1:
		return fieldErr("hardware.gpu_count", "must be 1 or more, got %d", e.Hardware.GPUCount)
	case e.PricePerGPUHour != nil && *e.PricePerGPUHour < 0:
		return fieldErr("price_per_gpu_hour", "must not be negative")
	case e.HeartbeatIntervalS < 0:
		return fieldErr("heartbeat_interval_s", "must not be negative")
	case e.PushIntervalS < 0:
		return fieldErr("push_interval_s", "must not be negative")
	}
	if p := ProviderNameProblem(e.InstanceID); p != "" {
		return fieldErr("instance_id", "%s", p)
	}
	if p := ProviderNameProblem(e.Region); p != "" {
		return fieldErr("region", "%s", p)
	}
	return nil
}

// ProviderNameProblem says what is wrong with a provider's name for a node
// or its region as a registration carries it, "" when nothing: empty, or 1
// to 128 printable characters without spaces (i-0abc123def456, ins-8x2k,
// ap-shanghai-2).
func ProviderNameProblem(s string) string {
	if len(s) > 128 {
		return "longer than 128 characters"
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || !unicode.IsPrint(r) {
			return fmt.Sprintf("%q holds a space or a control character", s)
		}
	}
	return ""
}

// validObservation: a node's heartbeat or check results, taken at a time
// the backend can believe given when it received them, each check named,
// of a known category and verdict.
func (e *Event) validObservation() error {
	if err := e.needNodeAt(); err != nil {
		return err
	}
	if e.ReceivedAt.IsZero() {
		return fieldErr("received_at", "missing")
	}
	if err := ObservationTimeOK(e.CorrectedAt(), e.ReceivedAt); err != nil {
		return fieldErr("at", "%v", err)
	}
	if e.Kind != KindHeartbeat && e.Kind != KindCheck {
		return fieldErr("kind", "%q is neither %q nor %q", e.Kind, KindHeartbeat, KindCheck)
	}
	for i := range e.Checks {
		if field, msg := badCheck(&e.Checks[i]); field != "" {
			// The field's name is made only for an error: a stress run is
			// dozens of checks, a year of them millions.
			return &FieldError{Field: fmt.Sprintf("checks[%d].%s", i, field), Msg: msg}
		}
	}
	return nil
}

// badCheck is the field of c that is wrong and what is wrong with it; ""
// when c is sound.
func badCheck(c *Check) (field, msg string) {
	switch {
	case c.Name == "":
		return "name", "missing"
	case !ValidCategory(c.Category):
		return "category", fmt.Sprintf("unknown category %q", c.Category)
	}
	switch c.Verdict {
	case Pass, Warn, Fail, Skipped:
		return "", ""
	}
	return "verdict", fmt.Sprintf("unknown verdict %q", c.Verdict)
}

// validHeartbeatRun: a run of heartbeats is continuous evidence only if
// its ends, receipt times, count, interval, gaps and sequence numbers agree.
func (e *Event) validHeartbeatRun() error {
	if err := e.needNodeAt(); err != nil {
		return err
	}
	switch {
	case e.LastAt.IsZero():
		return fieldErr("last_at", "missing")
	case e.LastAt.Before(e.At):
		return fieldErr("last_at", "%s is before at %s", e.LastAt.Format(time.RFC3339Nano), e.At.Format(time.RFC3339Nano))
	case e.ReceivedAt.IsZero():
		return fieldErr("received_at", "missing")
	case e.LastReceivedAt.IsZero():
		return fieldErr("last_received_at", "missing")
	case e.LastReceivedAt.Before(e.ReceivedAt):
		return fieldErr("last_received_at", "%s is before received_at %s", e.LastReceivedAt.Format(time.RFC3339Nano), e.ReceivedAt.Format(time.RFC3339Nano))
	case e.Count < 1:
		return fieldErr("count", "must be 1 or more, got %d", e.Count)
	case e.Count == 1 && !e.LastAt.Equal(e.At):
		return fieldErr("last_at", "a run of one heartbeat ends where it starts")
	case e.HeartbeatIntervalS < 1:
		return fieldErr("heartbeat_interval_s", "must be 1 or more, got %d", e.HeartbeatIntervalS)
	case e.MaxGapMS < 0:
		return fieldErr("max_gap_ms", "must not be negative")
	case e.MaxDelayMS < 0:
		return fieldErr("max_delay_ms", "must not be negative")
	case e.ToSeq < e.FromSeq:
		return fieldErr("to_seq", "%d is before from_seq %d", e.ToSeq, e.FromSeq)
	case e.LastAt.Sub(e.At) > time.Duration(e.Count-1)*time.Duration(e.MaxGapMS)*time.Millisecond:
		// Fewer heartbeats than the span needs at the gap claimed: the
		// run is not the continuous evidence it says it is.
		return fieldErr("count", "%d heartbeats at most %d ms apart cannot span %s", e.Count, e.MaxGapMS, e.LastAt.Sub(e.At))
	}
	return nil
}

// validMaintenance: a notice for a node or a whole contract, over a span
// no longer than MaxMaintenanceWindow, with when it was announced.
func (e *Event) validMaintenance() error {
	if e.Node == "" && e.Contract == "" {
		return fieldErr("node", "a maintenance notice names a node or a contract")
	}
	if e.Node != "" {
		if err := e.needNode(); err != nil {
			return err
		}
	}
	if err := e.needInterval(); err != nil {
		return err
	}
	// Compare instants, not a difference: 0001 to 9999 overflows a Duration.
	if e.End.After(e.Start.Add(MaxMaintenanceWindow)) {
		return fieldErr("end", "%s is more than %s after start %s: a maintenance window is at most that long",
			e.End.Format(time.RFC3339), MaxMaintenanceWindow, e.Start.Format(time.RFC3339))
	}
	if e.AnnouncedAt.IsZero() {
		return fieldErr("announced_at", "missing")
	}
	return e.validRecord()
}

// validEnrolled: a node, when, and the token (an id of at most 64
// characters), recorded like any administrative record.
func (e *Event) validEnrolled() error {
	if err := e.needNodeAt(); err != nil {
		return err
	}
	switch {
	case e.Token == "":
		return fieldErr("token", "missing")
	case len(e.Token) > 64:
		return fieldErr("token", "longer than 64 characters")
	}
	return e.validRecord()
}

// validRecord bounds what an administrative record says of its recording.
func (e *Event) validRecord() error {
	switch {
	case len(e.RecordedBy) > MaxRecordedBy:
		return fieldErr("recorded_by", "longer than %d characters", MaxRecordedBy)
	case len(e.Override) > MaxOverride:
		return fieldErr("override", "longer than %d characters", MaxOverride)
	case e.Override != "" && e.Type != TypeMaintenance && e.Type != TypeNodeReleased:
		return fieldErr("override", "only a maintenance notice or a release carries one")
	}
	return nil
}

// validTicketOpened: a ticket about a node, with its priority.
func (e *Event) validTicketOpened() error {
	if err := e.needTicket(); err != nil {
		return err
	}
	if err := e.needNode(); err != nil {
		return err
	}
	if e.Priority == "" {
		return fieldErr("priority", "missing")
	}
	return e.validRecord()
}

// validBatchDropped: a node's batches dropped, a range of sequence numbers.
func (e *Event) validBatchDropped() error {
	if err := e.needNodeAt(); err != nil {
		return err
	}
	if e.ToSeq < e.FromSeq {
		return fieldErr("to_seq", "%d is before from_seq %d", e.ToSeq, e.FromSeq)
	}
	return nil
}

// validStatusPagePolled: a span over which a contract's status page was
// read, with at least one fetch of it that succeeded.
func (e *Event) validStatusPagePolled() error {
	switch {
	case e.Contract == "":
		return fieldErr("contract", "missing")
	case e.Source == "":
		return fieldErr("source", "missing")
	case e.Start.IsZero():
		return fieldErr("start", "missing")
	case e.End.Before(e.Start):
		return fieldErr("end", "%s is before start %s", e.End.Format(time.RFC3339), e.Start.Format(time.RFC3339))
	case e.Count < 1 || e.Failures < 0 || e.Failures >= e.Count:
		return fieldErr("count", "%d fetches with %d failures: a span of successful fetches needs at least one", e.Count, e.Failures)
	}
	return nil
}

// validProviderIncident: an incident of the provider's status page, with
// its id and title, and an end exactly when the page says it is resolved.
func (e *Event) validProviderIncident() error {
	switch {
	case e.Contract == "":
		return fieldErr("contract", "missing")
	case e.ProviderRef == "" || len(e.ProviderRef) > 256:
		return fieldErr("provider_ref", "must be 1 to 256 characters (the page's incident id)")
	case e.Summary == "":
		return fieldErr("summary", "missing (the incident's title)")
	case e.Start.IsZero():
		return fieldErr("start", "missing")
	case e.ReceivedAt.IsZero():
		return fieldErr("received_at", "missing (when the backend first fetched it)")
	case e.Resolved && e.End.IsZero():
		return fieldErr("end", "missing for a resolved incident")
	case !e.Resolved && !e.End.IsZero():
		return fieldErr("end", "given for an incident the page does not say is resolved")
	case !e.End.IsZero() && e.End.Before(e.Start):
		return fieldErr("end", "%s is before start %s", e.End.Format(time.RFC3339), e.Start.Format(time.RFC3339))
	}
	return nil
}

// ValidCategory reports whether c is a check category the engine knows.
func ValidCategory(c string) bool {
	switch c {
	case CategoryGPULost, CategoryGPUDegraded, CategoryNetwork, CategoryPerformance,
		CategoryConnectivity, CategoryHost, CategoryInventory:
		return true
	}
	return false
}

func validName(s string) bool {
	if len(s) == 0 || len(s) > 64 || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}
