// Package wire is the one format the probe and the backend share: the batch
// of observations a probe pushes, how it is signed, and the acknowledgement
// the backend answers with. Both sides import this package and nothing else
// of each other, so a change here is a protocol change (bump Version).
//
// The protocol of the observation pipeline (read, judge, observe, spool,
// push): the observations of step 3, the batches step 4 spools, and what
// step 5 sends and the backend acknowledges.
package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Version is the schema version carried in every batch.
const Version = 1

// HTTP headers that carry the signature. The body is never trusted until
// these have been checked.
const (
	HeaderNode      = "X-Gpusla-Node"
	HeaderTimestamp = "X-Gpusla-Timestamp" // Unix seconds, decimal
	HeaderSignature = "X-Gpusla-Signature" // "v1=" + lowercase hex HMAC-SHA256
)

// Limits the backend enforces and the probe respects.
const (
	// MaxBodyBytes caps one batch on the wire; the probe splits larger ones.
	MaxBodyBytes = 1 << 20
	// TimestampWindow is how far a signature timestamp may be from the
	// backend's clock, either way, before the batch is rejected as stale.
	TimestampWindow = 5 * time.Minute
	// MaxObservations caps the observations in one batch.
	MaxObservations = 5000
	// MaxChecks caps the checks in one observation.
	MaxChecks = 512
	// MaxBatchChecks caps the distinct checks (name and GPU) in one
	// batch. `gpuprobe check` on one H200 reports 86 checks, about 65 of
	// them per GPU: a 16-GPU node's run is about 1,100; each distinct
	// check is a key of the node's state and may open an incident, so a
	// batch of thousands of invented names would flood the books and the
	// chat (docs/security.md, "Bounds").
	MaxBatchChecks = 2048
	// MaxClockSkewMS bounds a batch's clock_skew_ms either way: a century.
	// A probe whose clock was never set (a dead RTC reads 1970 or 2000) is
	// inside it and its skew corrects its times; past it the figure is no
	// clock, and near 292 years it would wrap around in a time.Duration.
	MaxClockSkewMS = 100 * 365 * 24 * 3600 * 1000
	// MaxSeq bounds a batch's seq (and a drop report's): a probe pushing
	// once a second counts to it in 34,000 years. The backend keys a
	// node's batches by seq after the seqs of its earlier chains, so a seq
	// near 2^64 would wrap that key round onto batches already taken; and
	// a seq past 2^53 is not read exactly by every JSON reader of the
	// evidence.
	MaxSeq = 1 << 40
	// MaxGPUIndex bounds a check's GPU index: a device index of one
	// machine (a negative one would read as "no GPU" in some counts).
	MaxGPUIndex = 1023
	// MaxProbeBytes bounds the probe's version text and MaxDropReasonBytes
	// a drop report's reason (the spool's are under 300 bytes): both are
	// kept with the batch, the reason as evidence.
	MaxProbeBytes      = 128
	MaxDropReasonBytes = 1024
)

// Bounds on one check's text, in bytes. The probe's own names are under 32
// bytes, its values and criteria under 100, its details a few hundred (an
// XID scan quotes at most five kernel log lines); the bounds leave room
// several times over, and keep what one check puts in the node's state, an
// incident and an alert to a few kilobytes. The probe clips its text to
// them (ClipCheck); the backend refuses a batch past them, naming the field.
const (
	MaxNameBytes      = 128
	MaxValueBytes     = 256 // value and criterion each
	MaxUnitBytes      = 32
	MaxDetailBytes    = 2048
	clipMark          = "…"
	errDistinctChecks = "distinct checks (name and GPU)"
)

// Observation kinds.
const (
	KindHeartbeat = "heartbeat"
	KindCheck     = "check"
)

// Verdicts of a check.
const (
	Pass    = "pass"
	Warn    = "warn"
	Fail    = "fail"
	Skipped = "skipped"
)

// Categories say what a failing check means for the contract. They match the
// incident kinds of the SLA engine, plus two that open no incident by
// themselves: connectivity (external reachability, used to decide whose fault
// a gap in heartbeats was) and host (informational).
const (
	CategoryGPULost      = "gpu_lost"
	CategoryGPUDegraded  = "gpu_degraded"
	CategoryNetwork      = "network_degraded"
	CategoryPerformance  = "performance_below_spec"
	CategoryConnectivity = "connectivity"
	CategoryHost         = "host"
	CategoryInventory    = "inventory"
)

// Batch is what the probe POSTs. Its JSON encoding, exactly as sent, is the
// signed body and the input of the hash chain.
type Batch struct {
	V     int    `json:"v"`
	ID    string `json:"id"`    // unique, chosen by the probe; dedupe key
	Node  string `json:"node"`  // node id, must equal the HeaderNode header
	Probe string `json:"probe"` // probe version
	Seq   uint64 `json:"seq"`   // 1, 2, 3, … per node, never reused
	Prev  string `json:"prev"`  // BodyHash of batch Seq-1 ("" for Seq 1)
	// Chain names the hash chain: the probe picks a new random id whenever
	// it starts a fresh spool state (first install, or its state lost:
	// reinstalled, disk wiped), and that chain starts again at Seq 1. The
	// backend recognises the restart by the new id (docs/backend.md).
	// Empty from probes older than the field.
	Chain        string        `json:"chain,omitempty"`
	CreatedAt    time.Time     `json:"created_at"`
	ClockSkewMS  int64         `json:"clock_skew_ms,omitempty"` // probe clock minus backend clock, last measured
	Dropped      *Drop         `json:"dropped,omitempty"`
	Observations []Observation `json:"observations"`
}

// Drop reports batches the spool discarded because it was full, so the
// backend can record the loss as evidence instead of seeing a silent gap.
type Drop struct {
	Batches int    `json:"batches"`
	FromSeq uint64 `json:"from_seq"`
	ToSeq   uint64 `json:"to_seq"`
	Reason  string `json:"reason"`
}

// Observation is one thing the probe saw at one instant (probe clock, UTC).
type Observation struct {
	At     time.Time `json:"at"`
	Kind   string    `json:"kind"`
	Checks []Check   `json:"checks,omitempty"`
}

// Check is one judged reading.
type Check struct {
	Name      string   `json:"name"`                // stable id, e.g. "gpu.count", "net.gateway.ping"
	Category  string   `json:"category"`            // one of the Category constants
	Verdict   string   `json:"verdict"`             // pass, warn, fail, skipped
	Value     string   `json:"value,omitempty"`     // measured value as shown to people
	Criterion string   `json:"criterion,omitempty"` // what pass means
	Number    *float64 `json:"number,omitempty"`    // the measured value as a number, where it is one
	Unit      string   `json:"unit,omitempty"`
	GPU       *int     `json:"gpu,omitempty"` // GPU index, when the check is about one GPU
	// UUID is the GPU's NVML UUID where the check knows it: the index can
	// change between boots, the UUID cannot.
	UUID   string `json:"uuid,omitempty"`
	Detail string `json:"detail,omitempty"`
	// ValueText, CriterionText and DetailText are Value, Criterion and
	// Detail as one of the probe's sentences (Sentences) with its
	// arguments, so the backend can write them in the contract's language;
	// their English is the field's, byte for byte. Absent where the text is
	// data (an error the system gave, a kernel log line) or was clipped,
	// and from probes older than the fields: the English is then shown as
	// the probe's own words.
	ValueText     *Text `json:"value_text,omitempty"`
	CriterionText *Text `json:"criterion_text,omitempty"`
	DetailText    *Text `json:"detail_text,omitempty"`
}

// Ack is the backend's answer to a POST it accepted (200).
type Ack struct {
	ID         string    `json:"id"`
	Status     string    `json:"status"` // "stored" or "duplicate"
	ServerTime time.Time `json:"server_time"`
}

// Ack statuses.
const (
	AckStored    = "stored"
	AckDuplicate = "duplicate"
)

// Error is the JSON body of every non-200 answer.
type Error struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

// BodyHash is the hash-chain link of an encoded batch body.
func BodyHash(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// Encode renders a batch as the bytes to sign and send.
func Encode(b *Batch) ([]byte, error) {
	if err := b.ValidateNew(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("encode batch %s: %w", b.ID, err)
	}
	if len(body) > MaxBodyBytes {
		return nil, fmt.Errorf("encode batch %s: %d bytes is over the %d byte limit", b.ID, len(body), MaxBodyBytes)
	}
	return body, nil
}

// FieldError names the field of a batch that is wrong.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Validate checks the schema; it says which field is wrong.
func (b *Batch) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case b.V != Version:
		return bad("v", "unsupported version %d (want %d)", b.V, Version)
	case b.ID == "" || len(b.ID) > 128:
		return bad("id", "must be 1 to 128 characters")
	case !validNodeID(b.Node):
		return bad("node", "%q is not a node id (letters, digits, '.', '_', '-'; 1 to 64)", b.Node)
	case b.Seq == 0:
		return bad("seq", "must be 1 or more")

	case b.Seq == 1 && b.Prev != "":
		return bad("prev", "must be empty for the first batch")
	case b.Prev != "" && !isHex64(b.Prev):
		return bad("prev", "must be 64 hex characters")
	case !validChain(b.Chain):
		return bad("chain", "must be at most %d letters, digits, '-' or '_'", MaxChainLen)
	case b.CreatedAt.IsZero():
		return bad("created_at", "missing")
	case b.ClockSkewMS > MaxClockSkewMS || b.ClockSkewMS < -MaxClockSkewMS:
		return bad("clock_skew_ms", "%d is more than a century either way (%d ms): not a clock's skew", b.ClockSkewMS, int64(MaxClockSkewMS))
	case len(b.Observations) > MaxObservations:
		return bad("observations", "%d is over the limit of %d", len(b.Observations), MaxObservations)
	}
	total := 0
	for i, o := range b.Observations {
		// The field's name is made only for an error: a batch of a
		// hundred checks is validated each time a month's books read it.
		f := func() string { return "observations[" + strconv.Itoa(i) + "]" }
		if o.At.IsZero() {
			return bad(f()+".at", "missing")
		}
		if o.Kind != KindHeartbeat && o.Kind != KindCheck {
			return bad(f()+".kind", "%q is neither %q nor %q", o.Kind, KindHeartbeat, KindCheck)
		}
		if len(o.Checks) > MaxChecks {
			return bad(f()+".checks", "%d is over the limit of %d", len(o.Checks), MaxChecks)
		}
		total += len(o.Checks)
		for j := range o.Checks {
			c := &o.Checks[j]
			at := checkAt{i, j}
			if c.Name == "" {
				return bad(at.field()+".name", "missing")
			}
			if !validCategory(c.Category) {
				return bad(at.field()+".category", "unknown category %q", c.Category)
			}
			if !validVerdict(c.Verdict) {
				return bad(at.field()+".verdict", "unknown verdict %q", c.Verdict)
			}
			if !validUUID(c.UUID) {
				return bad(at.field()+".uuid", "%q is not a GPU UUID (up to 64 letters, digits and dashes)", c.UUID)
			}
			if err := checkLengths(at, c); err != nil {
				return err
			}
			if err := checkTexts(at, c); err != nil {
				return err
			}
		}
	}
	// No more distinct checks than checks: the count is needed only past
	// the bound.
	if total <= MaxBatchChecks {
		return nil
	}
	if n := distinctChecks(b.Observations); n > MaxBatchChecks {
		return bad("observations", "%d %s is over the limit of %d a batch", n, errDistinctChecks, MaxBatchChecks)
	}
	return nil
}

// ValidateNew is Validate and the bounds a batch is held to when it comes
// in (ingest) or is made (Encode), not when a stored one is read again: a
// batch id of the probe's characters, a seq up to MaxSeq, a version text
// and a drop report that can be one, GPU indexes of a machine. The bounds
// came after batches were stored, and a body taken before them must still
// read.
func (b *Batch) ValidateNew() error {
	if err := b.Validate(); err != nil {
		return err
	}
	bad := func(field, format string, args ...any) error {
		return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case !validBatchID(b.ID):
		return bad("id", "%q is not a batch id (letters, digits, '.', '_', ':', '-'; 1 to 128)", b.ID)
	case b.Seq > MaxSeq:
		return bad("seq", "%d is over the limit of %d", b.Seq, uint64(MaxSeq))
	case len(b.Probe) > MaxProbeBytes || strings.ContainsFunc(b.Probe, isControl):
		return bad("probe", "must be at most %d bytes of text without control characters", MaxProbeBytes)
	}
	if err := b.Dropped.validate(b.Seq); err != nil {
		return err
	}
	for i, o := range b.Observations {
		for j, c := range o.Checks {
			if c.GPU != nil && (*c.GPU < 0 || *c.GPU > MaxGPUIndex) {
				return bad(checkAt{i, j}.field()+".gpu", "%d is not a GPU index (0 to %d)", *c.GPU, MaxGPUIndex)
			}
		}
	}
	return nil
}

// DecodeNew parses a body that has come in (and passed Verify): its keys
// (CheckKeys), then its schema and bounds (ValidateNew). Decode reads a
// body stored before.
func DecodeNew(body []byte) (*Batch, error) {
	if err := CheckKeys(body); err != nil {
		return nil, err
	}
	b, err := Decode(body)
	if err != nil {
		return nil, err
	}
	if err := b.ValidateNew(); err != nil {
		return nil, err
	}
	return b, nil
}

// validate refuses a drop report that cannot be one of the batch's chain:
// batches before seq, counted from 1, with a reason of bounded text. Nil
// is no report.
func (d *Drop) validate(seq uint64) error {
	bad := func(field, format string, args ...any) error {
		return &FieldError{Field: "dropped." + field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case d == nil:
		return nil
	case d.Batches < 1:
		return bad("batches", "%d: a drop report counts 1 or more batches", d.Batches)
	case d.FromSeq < 1 || d.FromSeq > d.ToSeq:
		return bad("from_seq", "%d: the dropped seqs run from 1 or more to to_seq (%d)", d.FromSeq, d.ToSeq)
	case d.ToSeq >= seq:
		return bad("to_seq", "%d: the dropped batches come before this batch's seq %d", d.ToSeq, seq)
	case len(d.Reason) > MaxDropReasonBytes || strings.ContainsFunc(d.Reason, isControl):
		return bad("reason", "must be at most %d bytes of text without control characters", MaxDropReasonBytes)
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// validBatchID: 1 to 128 letters, digits, '.', '_', ':' or '-' (the
// probe's are node-seq-hex).
func validBatchID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == ':', r == '-':
		default:
			return false
		}
	}
	return true
}

// checkAt is where a check lies in a batch; its field name is made only
// for an error (a closure over the indexes would be made for every check).
type checkAt struct{ obs, check int }

func (p checkAt) field() string {
	return "observations[" + strconv.Itoa(p.obs) + "].checks[" + strconv.Itoa(p.check) + "]"
}

// checkLengths refuses a check whose text is past the bounds, naming the
// field, its length and the bound.
func checkLengths(at checkAt, c *Check) error {
	for _, f := range []struct {
		name string
		v    string
		max  int
	}{{"name", c.Name, MaxNameBytes}, {"value", c.Value, MaxValueBytes}, {"criterion", c.Criterion, MaxValueBytes},
		{"unit", c.Unit, MaxUnitBytes}, {"detail", c.Detail, MaxDetailBytes}} {
		if len(f.v) > f.max {
			return &FieldError{Field: at.field() + "." + f.name, Msg: fmt.Sprintf("%d bytes is over the limit of %d", len(f.v), f.max)}
		}
	}
	return nil
}

// distinctChecks counts the distinct checks (name and GPU) of obs, as the
// backend keys them.
func distinctChecks(obs []Observation) int {
	type key struct {
		name string
		gpu  int
	}
	seen := map[key]struct{}{}
	for _, o := range obs {
		for _, c := range o.Checks {
			k := key{c.Name, -1}
			if c.GPU != nil {
				k.gpu = *c.GPU
			}
			seen[k] = struct{}{}
		}
	}
	return len(seen)
}

// TooManyChecks reports whether err is Validate's refusal of a batch
// holding more than MaxBatchChecks distinct checks: the spool then puts
// fewer observations in a batch.
func TooManyChecks(err error) bool {
	var fe *FieldError
	return errors.As(err, &fe) && fe.Field == "observations" && strings.Contains(fe.Msg, errDistinctChecks)
}

// ClipCheck cuts c's value, criterion, unit and detail to their bounds,
// on a character boundary, ending a cut text with "…". Names are never cut:
// they are the check's identity, and the probe's are short.
//
// It also gives each text its coded form where the text is one of the
// probe's sentences that take no argument (CodeCheck), and drops the coded
// form of a text it cut or whose English no longer reads as it: the
// English sent is then the only form.
func ClipCheck(c *Check) {
	CodeCheck(c)
	for _, f := range c.texts() {
		if cut := clip(*f.en, f.max); cut != *f.en {
			*f.en, *f.coded = cut, nil
		}
		if *f.coded != nil && (*f.coded).String() != *f.en {
			// The English was changed after it was coded: it is what
			// the check says, so it goes alone.
			*f.coded = nil
		}
	}
	c.Unit = clip(c.Unit, MaxUnitBytes)
}

func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len(clipMark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + clipMark
}

// Decode parses and validates a body that has already passed Verify.
func Decode(body []byte) (*Batch, error) {
	if err := CheckText(body); err != nil {
		return nil, err
	}
	var b Batch
	if err := json.Unmarshal(body, &b); err != nil {
		var (
			te *json.UnmarshalTypeError
			pe *time.ParseError
		)
		switch {
		case errors.As(err, &te):
			// encoding/json names the field without its indexes
			// (observations.checks.number): the value's place says which.
			field := te.Field
			if f := valuePath(body, te.Offset); f != "" {
				field = f
			}
			return nil, &FieldError{Field: field, Msg: fmt.Sprintf("wrong type: %s", te.Value)}
		case errors.As(err, &pe):
			// A time that does not parse: encoding/json does not say
			// whose; the first time field that does not parse is.
			if f := badTimePath(body); f != "" {
				return nil, &FieldError{Field: f, Msg: fmt.Sprintf("%q is not an RFC 3339 time: %s", pe.Value, err.Error())}
			}
		}
		return nil, &FieldError{Field: "body", Msg: err.Error()}
	}
	if err := b.Validate(); err != nil {
		return nil, err
	}
	return &b, nil
}

// validUUID accepts "" and NVML's "GPU-" + hex-and-dash form (MIG
// instances: "MIG-…").
func validUUID(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func validNodeID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
		default:
			return false
		}
	}
	return s != "." && s != ".."
}

// ValidNodeID reports whether s may name a node (it is used in paths and keys).
func ValidNodeID(s string) bool { return validNodeID(s) }

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

func validCategory(c string) bool {
	switch c {
	case CategoryGPULost, CategoryGPUDegraded, CategoryNetwork, CategoryPerformance,
		CategoryConnectivity, CategoryHost, CategoryInventory:
		return true
	}
	return false
}

func validVerdict(v string) bool {
	switch v {
	case Pass, Warn, Fail, Skipped:
		return true
	}
	return false
}

// MaxChainLen bounds a batch's chain id.
const MaxChainLen = 64

func validChain(s string) bool {
	if len(s) > MaxChainLen {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
