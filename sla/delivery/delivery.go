// Package delivery is the one rule of when a rented node was delivered and
// how its delivery is judged against the contract (terms delivery), shared
// by the monthly report (sla/report) and the live service's delivery watch
// (functions/app), so that an alert and the report never disagree.
//
// On the path from an observation to a report row, this is the step beside
// incidents for delivery: a node's first heartbeat or passing acceptance →
// its delivery row.
package delivery

import (
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// NoTarget is the status of a delivery the contract sets no target for.
const NoTarget = "no_target"

// Accepted says whether one observation's checks are a passing acceptance
// result: the GPU checks of `gpuprobe check` ran and found the machine to be
// what was ordered. That is, the checks include the card identity check
// (`gpu.model`: the card's name against its device id and the spec
// database), none of those was skipped, and no check of the observation
// fails — so a wrong card (`gpu.order.model` or `gpu.order.memory` fails),
// a missing GPU (`gpu.count`) or any other failure is not an acceptance.
// The probe's health job sends such an observation every few minutes; a
// network or stress result alone holds no `gpu.model` and is never one. A
// skipped model check (the card could not be identified) is not a pass: an
// unverified card is not a delivered one. A warning does not fail it (an
// unknown device id the spec database cannot cross-check); only `fail`
// does, as everywhere else (docs/events.md).
func Accepted(checks []events.Check) bool {
	model := false
	for i := range checks {
		c := &checks[i]
		if c.Verdict == events.Fail {
			return false
		}
		if c.Name == ModelCheck || strings.HasPrefix(c.Name, ModelCheck+".") {
			if c.Verdict == events.Skipped {
				return false
			}
			model = true
		}
	}
	return model
}

// ModelCheck is the check whose pass says the card is the ordered one.
const ModelCheck = "gpu.model"

// Instant is when the node was delivered under the contract's rule: its
// first heartbeat (any observation: the probe ran), or, with
// counts_until: acceptance_passed, its first passing acceptance result
// (Accepted). Zero while not delivered.
func Instant(d terms.Delivery, firstHeartbeat, firstAccepted time.Time) time.Time {
	if d.CountsUntil == terms.UntilAcceptancePassed {
		return firstAccepted
	}
	return firstHeartbeat
}

// What names the event that ends a delivery under d, for messages.
func What(d terms.Delivery) string {
	if d.CountsUntil == terms.UntilAcceptancePassed {
		return "first passing acceptance check"
	}
	return "first heartbeat"
}

// Verdict is a delivery judged at an instant.
type Verdict struct {
	// Due is the order plus the contract's target; zero with no target.
	Due time.Time
	// Took is order to delivery, or to the instant judged at while not
	// delivered (never negative).
	Took time.Duration
	// Late is how far Took is past the target (zero unless breached).
	Late time.Duration
	// Status is met, breached, pending or no_target. A delivery is
	// breached once more than the target has passed since the order
	// (delivered after Due, or not delivered by an instant after it);
	// delivered exactly at Due it is met.
	Status string
}

// Judge judges a delivery ordered at ordered and delivered at delivered
// (zero: not yet) as of at.
func Judge(d terms.Delivery, ordered, delivered, at time.Time) Verdict {
	var v Verdict
	end := delivered
	if end.IsZero() {
		end = at
	}
	if v.Took = end.Sub(ordered); v.Took < 0 {
		v.Took = 0
	}
	switch {
	case d.Within == 0:
		v.Status = NoTarget
		return v
	case v.Took > d.Within:
		v.Status, v.Late = ticket.Breached, v.Took-d.Within
	case delivered.IsZero():
		v.Status = ticket.Pending
	default:
		v.Status = ticket.Met
	}
	v.Due = ordered.Add(d.Within)
	return v
}
