package app

import (
	"context"
	"time"
)

// AlertKind says what an alert tells.
type AlertKind string

// Alert kinds.
const (
	AlertDegraded     AlertKind = "degraded"     // a check-based incident opened (GPU, network, performance)
	AlertUnreachable  AlertKind = "unreachable"  // no heartbeat past the grace period
	AlertRecovered    AlertKind = "recovered"    // an incident closed
	AlertReclassified AlertKind = "reclassified" // late data changed whose fault an incident was
	AlertUpdate       AlertKind = "update"       // an open incident changed (more checks failing)
)

// Alert is one message about one incident, complete enough to be read on
// its own: which node, which provider, what failed with the measured values,
// since when, and (for a recovery) for how long.
type Alert struct {
	Kind         AlertKind     `json:"kind"`
	Node         string        `json:"node"`
	Provider     string        `json:"provider"`
	IncidentID   string        `json:"incident_id"`
	IncidentKind string        `json:"incident_kind"`
	Since        time.Time     `json:"since"`
	Until        time.Time     `json:"until,omitempty"`    // recovered: when it ended
	Duration     time.Duration `json:"duration,omitempty"` // recovered: Until-Since
	Failed       []FailedCheck `json:"failed,omitempty"`
	// Counted says whether the incident counts against the provider; Cause
	// is why (reclassified alerts).
	Counted bool   `json:"counted"`
	Cause   string `json:"cause,omitempty"`
	Detail  string `json:"detail,omitempty"`
	// Thread is the notifier's reference of the incident's first message;
	// empty for that first message. Later alerts reply in its thread.
	Thread string `json:"thread,omitempty"`
}

// Notifier delivers alerts (Slack, or the console locally). Notify returns
// the thread reference of the message it posted (for a first message, the
// reference later alerts should pass back in Alert.Thread). An error means
// the alert was not delivered; the application retries it later, so an
// implementation must not retry forever itself.
type Notifier interface {
	Notify(ctx context.Context, a Alert) (thread string, err error)
}

// Clock is the time source; domain code never reads time.Now directly.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock, in UTC.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// SecretBox seals node secrets at rest (see NewAESGCMBox) so a copy of the
// store alone does not let anyone sign batches.
type SecretBox interface {
	Seal(plain []byte, node string) ([]byte, error)
	Open(sealed []byte, node string) ([]byte, error)
}
