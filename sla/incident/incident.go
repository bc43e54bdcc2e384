// Package incident turns a node's observations into incidents: intervals in
// which the node was unreachable, had lost a GPU, was degraded, and so on.
//
// # Live evaluation (the backend's API)
//
// The backend keeps one State per node (a plain struct; store it as JSON with
// StateVersion) and calls, in the order batches are received:
//
//	trs := st.Observe(th, obs)                       // for every observation of a stored batch
//	trs := st.Tick(now, lastReceived, interval, th)  // from the watchdog, e.g. every minute
//
// Both return the Transitions to act on (alert Slack, store the incident):
//
//   - Open: an incident of Kind began at At (backdated: an unreachable node
//     since its next heartbeat was due, a failing check since its first
//     failure in the run that crossed the failure threshold). It is returned
//     only once confirmed: after the grace period, or after FailureThreshold
//     failures in a row.
//   - Close: the incident ended at At (the first heartbeat received after a
//     gap; the first pass of the run that crossed the success threshold).
//   - Reclassify: late data (batches from the probe's spool) changed whose
//     fault a gap in heartbeats was; Cause and Counted are the new verdict.
//   - Record: an unreachable gap found after the fact, from Since to At:
//     silent for longer than the books allow but never past the grace, so
//     never alerted on (Overdue). It goes on the books, as the report
//     counts it, without an alert.
//
// Everything is pure and deterministic: no clock is read, the caller passes
// `now`. The same hysteresis (Hysteresis) and gap classification
// (ClassifyGap) are used by the monthly report, which recomputes every
// interval exactly from the whole event log; the live verdicts are what the
// renter is alerted with, the report is what is claimed with.
//
// On the path from an observation to a report row, this is the step
// observations → incidents.
package incident

import (
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/msg"
)

// Kind of incident.
type Kind string

// Incident kinds. Unreachable comes from missing heartbeats; the others from
// failing checks of the category of the same name.
const (
	Unreachable          Kind = "unreachable"
	GPULost              Kind = "gpu_lost"
	GPUDegraded          Kind = "gpu_degraded"
	NetworkDegraded      Kind = "network_degraded"
	PerformanceBelowSpec Kind = "performance_below_spec"
	InventoryMismatch    Kind = "inventory_mismatch"
)

// Kinds lists every kind, in the order reports show them.
var Kinds = []Kind{Unreachable, GPULost, GPUDegraded, NetworkDegraded, PerformanceBelowSpec, InventoryMismatch}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// KindOfCategory maps a check category to the incident kind it opens, if any.
// Connectivity and host checks open no incident of their own.
func KindOfCategory(category string) (Kind, bool) {
	switch category {
	case events.CategoryGPULost:
		return GPULost, true
	case events.CategoryGPUDegraded:
		return GPUDegraded, true
	case events.CategoryNetwork:
		return NetworkDegraded, true
	case events.CategoryPerformance:
		return PerformanceBelowSpec, true
	case events.CategoryInventory:
		return InventoryMismatch, true
	}
	return "", false
}

// PromptSlack is what a heartbeat may lag behind its interval and still
// have been heard in time by the books: the probe's timer jitter (5 s),
// the request's transit and one quick retry. The probe's default batching
// (two 30 s heartbeats a 60 s push) sends a batch's first heartbeat one
// interval after it was made, so a heartbeat heard within interval +
// PromptSlack of its own time came through on the push it was made for.
const PromptSlack = 15 * time.Second

// PromptTol is how far apart (probe time) two heartbeats heard in time may
// be with no gap between them, for the books and the live state alike: the
// interval plus PromptSlack, or plus the grace where that is shorter. It is
// not the alerting tolerance (interval + grace).
func PromptTol(interval time.Duration, th Thresholds) time.Duration {
	return interval + min(th.Grace, PromptSlack)
}

// SilenceAllowance is what a batch normally waits on the node: a batch's
// first heartbeat waits push − interval (two 30 s heartbeats a 60 s push:
// 30 s), plus PromptSlack; never more than the grace. With one heartbeat a
// push it is PromptSlack. It is both how late a heartbeat may reach the
// backend and still be heard in time, and how long the backend may hear
// nothing at all from a node inside a gap before the books call it an
// outage (Overdue). A heartbeat the probe spooled during a network cut and
// delivered after it is the node's own observation, but it was made cut
// off, so it does not end the outage; judging that by the alerting grace
// let the spool's drain end every cut up to the grace early
// (docs/contract.md, "Resolution").
func SilenceAllowance(interval, push time.Duration, th Thresholds) time.Duration {
	return min(th.Grace, max(push-interval, 0)+PromptSlack)
}

// Thresholds are the contract's detection settings (terms "detection").
type Thresholds struct {
	// Grace after a heartbeat was due before a node is called unreachable.
	Grace time.Duration
	// FailureThreshold failing results of one check in a row open a check
	// incident (measured figures: throughput, latency, loss, temperature).
	FailureThreshold int
	// SuccessThreshold passing results of one check in a row close it.
	SuccessThreshold int
	// Definitive are the check names (patterns, '*' matches any run of
	// characters, dots included) whose single failure is proof on its own:
	// it opens the incident at once, whatever FailureThreshold says. Nil
	// means none; terms default to DefaultDefinitive.
	Definitive []string
}

// DefaultDefinitive are the checks whose failure is a fact, not a
// measurement that noise could explain: a wrong value from a burn, a copy
// or a memory test, an uncorrectable ECC error, a remapped-row failure, a
// hardware XID, a lost GPU or a missing one.
var DefaultDefinitive = []string{
	"gpu.burn.*.errors", "gpu.bw.*.data", "gpu.memtest",
	"gpu.ecc.volatile", "gpu.remapped_rows",
	"gpu.xid.*", "gpu.*.xid",
	"gpu.present", "gpu.count", "gpu.health",
}

// IsDefinitive reports whether a failure of the named check opens an
// incident at the first result.
func (th Thresholds) IsDefinitive(name string) bool {
	for _, p := range th.Definitive {
		if MatchName(p, name) {
			return true
		}
	}
	return false
}

// MatchName matches a check name against a pattern in which '*' stands for
// any run of characters (dots included) and everything else for itself.
func MatchName(pattern, name string) bool {
	i := strings.IndexByte(pattern, '*')
	if i < 0 {
		return pattern == name
	}
	if !strings.HasPrefix(name, pattern[:i]) {
		return false
	}
	name, pattern = name[i:], pattern[i+1:]
	if pattern == "" {
		return true
	}
	for j := 0; j <= len(name); j++ {
		if MatchName(pattern, name[j:]) {
			return true
		}
	}
	return false
}

func (th Thresholds) fail() int {
	if th.FailureThreshold < 1 {
		return 1
	}
	return th.FailureThreshold
}

func (th Thresholds) pass() int {
	if th.SuccessThreshold < 1 {
		return 1
	}
	return th.SuccessThreshold
}

// Op is what a transition does.
type Op string

// Transition operations.
const (
	Open       Op = "open"
	Close      Op = "close"
	Reclassify Op = "reclassify"
	Record     Op = "record"
)

// Causes of an unreachable interval (whose fault the gap was).
const (
	// CauseNoData: no batch ever covered the gap: the node was down,
	// rebooting, powered off, or cut off and its spool lost. Counted.
	CauseNoData = "no_data"
	// CauseNetwork: the node ran but its own checks could not reach the
	// outside (gateway, internet). Counted, as a network outage.
	CauseNetwork = "network"
	// CauseNoConnectivityEvidence: the node ran but sent no connectivity
	// check in the gap, so nothing shows the outside was reachable. Counted.
	CauseNoConnectivityEvidence = "no_connectivity_evidence"
	// CauseBackendOnly: the node ran and reached its other targets, only
	// not the backend: not the provider's fault. Not counted.
	CauseBackendOnly = "backend_unreachable_only"
	// CauseBackendOutage: the backend itself was down. Not counted.
	CauseBackendOutage = "backend_outage"
	// CauseCheck: a check incident (the kind says which).
	CauseCheck = "check_failed"
)

// CauseCounted says whether an unreachable interval with this cause is the
// provider's fault.
func CauseCounted(cause string) bool {
	switch cause {
	case CauseBackendOnly, CauseBackendOutage:
		return false
	}
	return true
}

// Transition is one change the caller acts on.
type Transition struct {
	Op   Op   `json:"op"`
	Kind Kind `json:"kind"`
	// Check names the check (CheckKey) of a check incident; empty for
	// unreachable. Incidents are per check: one kind can have several open.
	Check string `json:"check,omitempty"`
	// Since identifies the incident: when it began (backdated).
	Since time.Time `json:"since"`
	// At is when the transition takes effect: Since for Open, the end for
	// Close, the time of the evidence for Reclassify.
	At       time.Time `json:"at"`
	Cause    string    `json:"cause"`
	Counted  bool      `json:"counted"`
	Evidence string    `json:"evidence,omitempty"`
	// Why is Evidence as a sentence to translate (sla/msg): the chat
	// alerts render it in the contract's language, its times on the
	// contract's clock and its durations in words; Evidence is its English,
	// the form the records keep. Zero on a transition rebuilt from a
	// record (then Evidence is all there is).
	Why msg.Text `json:"-"`
	// Split is an unreachable incident's evidence (GapEvidence) as of this
	// transition: the books cut it by cause with it. Nil for checks.
	Split *GapEvidence `json:"split,omitempty"`
}

// Key is the State.Checks key of a check incident's transition (see
// Verdict.Key).
func (t Transition) Key() string { return t.Check }

// checkOpened (the format Step writes as a literal, for the catalog test)
// joins a check incident's opening evidence: the first failing
// check's own line (data, as the probe sent it) and how the engine
// confirmed it.
const checkOpened = "%s; %s"

// because is t with its evidence why: Why the sentence, Evidence its
// English.
func (t Transition) because(why msg.Text) Transition {
	t.Why, t.Evidence = why, why.String()
	return t
}

// Confirmed is how the engine confirmed a check incident's opening: Why
// without the failing check's line, which an alert lists with its values
// (Failed). Any other transition's Why as it is.
func (t Transition) Confirmed() msg.Text {
	if t.Why.Format == checkOpened && len(t.Why.Args) == 2 {
		if c, ok := t.Why.Args[1].(msg.Text); ok {
			return c
		}
	}
	return t.Why
}
