package notify

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/msg"
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
	// A node's delivery (IncidentKind DeliveryKind): the contract's
	// delivery target passed with the node not delivered, and later the
	// delivery with its lateness (Since: the order, Until: the delivery).
	AlertDeliveryOverdue AlertKind = "delivery_overdue"
	AlertDelivered       AlertKind = "delivered"
	// AlertLimits: a node passed a bound on its checks, incidents or
	// alerts (a batch refused, or its alerts held until Until, the end of
	// the hour); at most one an hour a node, whatever it sends.
	AlertLimits AlertKind = "limits"
)

// AboutAnIncident says whether a is about an incident of the node's
// uptime, whose verdict under the contract it states: not a delivery, not
// a node's bounds.
func AboutAnIncident(a Alert) bool { return !IsDelivery(a) && a.Kind != AlertLimits }

// DeliveryKind is the IncidentKind of delivery alerts: not an incident of
// the node's uptime, so they never say whether it counts as an outage.
const DeliveryKind = "delivery"

// IsDelivery says whether an alert is about a node's delivery.
func IsDelivery(a Alert) bool { return a.IncidentKind == DeliveryKind }

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
	// Counted says whether the incident counts against the provider under
	// the node's contract (the verdict the report gives: account.Counts);
	// Reason says why not, when not; Cause is whose fault it was.
	Counted bool   `json:"counted"`
	Reason  string `json:"reason,omitempty"`
	Cause   string `json:"cause,omitempty"`
	// PrevCause (reclassified): the cause the earlier messages gave, which
	// this correction replaces.
	PrevCause string `json:"prev_cause,omitempty"`
	Detail    string `json:"detail,omitempty"`
	// Thread is the notifier's reference of the incident's first message;
	// empty for that first message. Later alerts reply in its thread.
	Thread string `json:"thread,omitempty"`
	// ReplacementURL is the signed, expiring link that asks for the
	// machine's replacement (functions/actionlink): set at delivery, on
	// alerts that OffersReplacement, for channels that cannot call back
	// into gpusla (the robots show it as a button, the webhook as this
	// field). Never stored: each delivery signs its own.
	ReplacementURL string `json:"replacement_url,omitempty"`
	// NotYet (with Counted false): the incident does not count so far
	// only because it is shorter than the contract's minimum outage;
	// Reason says from when it will.
	NotYet bool `json:"not_yet,omitempty"`
	// Lang is the contract's report.lang ("en", "zh") and Zone its time
	// zone (IANA): every channel writes the alert in that language and
	// its times on that clock. Empty: English, UTC. Reason is in Lang.
	Lang string `json:"lang,omitempty"`
	Zone string `json:"zone,omitempty"`
}

// Notifier delivers alerts (Slack, or the console locally). Notify returns
// the thread reference of the message it posted (for a first message, the
// reference later alerts should pass back in Alert.Thread). An error means
// the alert was not delivered; the application retries it later, so an
// implementation must not retry forever itself.
type Notifier interface {
	Notify(ctx context.Context, a Alert) (thread string, err error)
	// NotifyTicket delivers a ticket message the same way.
	NotifyTicket(ctx context.Context, m TicketMessage) (thread string, err error)
}

// FailedCheck is a failing check with what it measured.
type FailedCheck struct {
	Name      string    `json:"name"`
	Category  string    `json:"category"`
	Verdict   string    `json:"verdict"`
	Value     string    `json:"value,omitempty"`
	Criterion string    `json:"criterion,omitempty"`
	GPU       *int      `json:"gpu,omitempty"`
	Detail    string    `json:"detail,omitempty"`
	Since     time.Time `json:"since"`
	// ValueText, CriterionText and DetailText are the probe's coded forms
	// of Value, Criterion and Detail (probe/wire), for the reader's
	// language; nil where the probe sent English only.
	ValueText     *msg.Coded `json:"value_text,omitempty"`
	CriterionText *msg.Coded `json:"criterion_text,omitempty"`
	DetailText    *msg.Coded `json:"detail_text,omitempty"`
}

// TicketKind says what a ticket message tells; the values are the ticket
// notice kinds (store.NoticeOpened and the rest).
type TicketKind string

// Ticket message kinds.
const (
	TicketOpened   TicketKind = "opened"   // the renter opened a provider ticket
	TicketRecorded TicketKind = "recorded" // a response, reply, resolution or replacement was recorded
	TicketWarning  TicketKind = "warning"  // a target's deadline is near
	TicketBreached TicketKind = "breached" // a target's deadline passed unmet
)

// TicketMessage is one message about a provider ticket: its own type, so a
// ticket is never mistaken for an incident by a notifier or a reader of the
// outbox.
type TicketMessage struct {
	Kind     TicketKind `json:"kind"`
	Ticket   string     `json:"ticket"` // the ticket id
	Node     string     `json:"node"`
	Provider string     `json:"provider,omitempty"`
	Opened   time.Time  `json:"opened"`
	// Text is the notice itself (what happened, deadlines in the contract's zone).
	Text string `json:"text"`
	// Thread is the notifier's reference of the ticket's first message (or
	// of the incident alert it was opened from); empty for a first message.
	Thread string `json:"thread,omitempty"`
	// Lang and Zone are the contract's, as Alert's.
	Lang string `json:"lang,omitempty"`
	Zone string `json:"zone,omitempty"`
}

// Slack buttons on incident alerts (infra/slack puts them on the first
// message of an incident; functions/slackapi handles the clicks). The value
// of each is IncidentButtonValue.
const (
	ActionTicketOpen      = "gpusla_ticket_open"
	ActionTicketResponded = "gpusla_ticket_responded"
	ActionTicketResolved  = "gpusla_ticket_resolved"
	// ActionRequestReplacement asks the provider to replace the machine
	// (functions/replacement): on alerts of ReplacementKinds only.
	ActionRequestReplacement = "gpusla_request_replacement"
)

// ReplacementKinds are the incident kinds (sla/incident) a replacement of
// the physical machine is requested for: its GPUs are missing, broken or
// not what was ordered. Network and performance incidents have other
// remedies.
var ReplacementKinds = []string{"gpu_lost", "gpu_degraded", "inventory_mismatch"}

// WantsReplacement says whether an incident kind is one of ReplacementKinds.
func WantsReplacement(incidentKind string) bool {
	for _, k := range ReplacementKinds {
		if k == incidentKind {
			return true
		}
	}
	return false
}

// OffersReplacement says whether an alert carries "Request replacement":
// the first message of an incident of ReplacementKinds (a follow-up,
// recovery or reclassification never does). Slack's button and the
// robots' link follow this one rule.
func OffersReplacement(a Alert) bool {
	return a.Thread == "" && (a.Kind == AlertDegraded || a.Kind == AlertUnreachable) && WantsReplacement(a.IncidentKind)
}

// UrgentKinds are the incident kinds whose opening and recovery wake
// someone: the node is gone, or its GPUs are lost or failing (the
// hardware). Their alerts never wait behind routine notices on a channel
// (Urgent).
var UrgentKinds = []string{"unreachable", "gpu_lost", "gpu_degraded"}

// Urgent says whether an alert goes in the outbox's priority lane: the
// opening or the recovery of an incident of UrgentKinds. Updates,
// reclassifications, delivery notices and the other incident kinds are
// routine; so are ticket notices.
func Urgent(a Alert) bool {
	switch a.Kind {
	case AlertDegraded, AlertUnreachable, AlertRecovered:
		for _, k := range UrgentKinds {
			if k == a.IncidentKind {
				return true
			}
		}
	}
	return false
}

// ReplacementLabel is the label of the "Request replacement" button.
const ReplacementLabel = "Request replacement"

// IncidentButtonValue is the value of the ticket buttons on an incident
// alert: which node and incident they are about.
func IncidentButtonValue(node, incidentID string) string { return node + " " + incidentID }

// ParseIncidentButtonValue splits IncidentButtonValue.
func ParseIncidentButtonValue(v string) (node, incidentID string, err error) {
	node, incidentID, ok := strings.Cut(v, " ")
	if !ok || node == "" || incidentID == "" || strings.Contains(incidentID, " ") {
		return "", "", fmt.Errorf("button value %q: want \"<node> <incident id>\"", v)
	}
	return node, incidentID, nil
}
