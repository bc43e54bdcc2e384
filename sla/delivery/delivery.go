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
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
	"github.com/gpusla/gpusla/sla/trial"
)

// NoTarget is the status of a delivery the contract sets no target for.
const NoTarget = "no_target"

// Order is the order of record a node's GPUs are held to: its
// registration (events.Hardware, the store's node) — the model, the
// number of GPUs and the memory per GPU (0: the order names none).
type Order struct {
	Model     string
	GPUs      int
	MemoryMiB int
}

// OrderOf is the order a registration's hardware records.
func OrderOf(h *events.Hardware) Order {
	if h == nil {
		return Order{}
	}
	return Order{Model: h.GPUModel, GPUs: h.GPUCount, MemoryMiB: h.GPUMemoryMiB}
}

// Accepted says whether one observation's checks are a passing acceptance
// result of a node ordered as o: the probe's own verdicts pass
// (VerdictsPass) and the GPUs it reported are those of the order
// (Mismatches finds nothing). The second half is the trial page's and the
// scorecard's rule (sla/trial.HeldToOrder): a probe given no order (a
// hand-written config with no expected:) judges the card only against
// itself, so a genuine H800 registered as an H100, four GPUs of eight or
// a 40 GB A100 for an 80 GB order would pass every check of its own.
// Only what the observation reports is held: a check without the GPU
// count's figure or the memory in MiB (an older probe's) is judged on
// the probe's verdicts for those, as before.
func Accepted(checks []events.Check, o Order) bool {
	return VerdictsPass(checks) && len(Mismatches(Inventory(checks), o)) == 0
}

// VerdictsPass says whether the probe's own verdicts make one
// observation's checks a passing acceptance result: the GPU checks of
// `gpuprobe check` ran and found the machine to be what the probe was
// told was ordered, if it was told. That is, the checks include the card
// identity check (`gpu.model`: the card's name against its device id and
// the spec database), none of those was skipped, and no check of the
// observation fails — so a wrong card (`gpu.order.model` or
// `gpu.order.memory` fails), a missing GPU (`gpu.count`) or any other
// failure is not an acceptance. The probe's health job sends such an
// observation every few minutes; a network or stress result alone holds
// no `gpu.model` and is never one. A skipped model check (the card could
// not be identified) is not a pass: an unverified card is not a delivered
// one. A warning does not fail it (an unknown device id the spec database
// cannot cross-check); only `fail` does, as everywhere else
// (docs/events.md).
func VerdictsPass(checks []events.Check) bool {
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

// InInventory says whether a check of this name is part of an acceptance
// result's inventory (Inventory).
func InInventory(name string) bool {
	return name == ModelCheck || name == "gpu.count" || name == "gpu.memory"
}

// Inventory is what of one observation's checks the order holds, as
// sla/trial reads it: each GPU's reported name (gpu.model), the number of
// usable GPUs (gpu.count) and each GPU's memory (gpu.memory).
func Inventory(checks []events.Check) []trial.Result {
	var out []trial.Result
	for i := range checks {
		c := &checks[i]
		if InInventory(c.Name) {
			out = append(out, trial.Result{Name: c.Name, Category: c.Category, Verdict: c.Verdict, Value: c.Value,
				Number: c.Number, Unit: c.Unit, GPU: c.GPU})
		}
	}
	return out
}

// Mismatches are the failures of an inventory against the order
// (sla/trial.HeldToOrder's): fewer usable GPUs than ordered, a GPU's
// memory more than 3 % below the order's, a card whose device-id-true
// name is not of the model ordered (through the spec database's mirror,
// sla/yardstick). What HeldToOrder only warns of — memory more than 3 %
// above the order, a model the spec database does not know, a card it
// could not identify or name, the cut-down form of a family the order
// named (an H100 PCIe for "H100") — is no mismatch here, as a warning of the
// probe's own is none: the probe's verdicts already refuse an
// unidentified card.
func Mismatches(inv []trial.Result, o Order) []trial.Result {
	var out []trial.Result
	for _, r := range trial.HeldToOrder(trial.Node{Model: o.Model, GPUs: o.GPUs, MemoryMiB: float64(o.MemoryMiB), Results: inv}) {
		if r.Verdict == trial.Fail {
			out = append(out, r)
		}
	}
	return out
}

// ModelCheck is the check whose pass says the card is the ordered one.
const ModelCheck = "gpu.model"

// Instant is when the node was delivered under the contract's rule: its
// first heartbeat (any observation: the probe ran), or, with
// counts_until: acceptance_passed, its first passing acceptance result
// (Accepted: the probe's verdicts pass and the GPUs are the order's). Zero
// while not delivered.
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

// First finds a node's first passing acceptance result among its
// observations read in any order, its order possibly read after some of
// them (a log read whole: the monthly report). Until the order is known it
// keeps, of the readings whose verdicts pass, the earliest of each
// distinct inventory: a node reports the same cards every few minutes, so
// that is a handful however long the log.
type First struct {
	known   bool
	order   Order
	at      time.Time
	pending []reading
}

type reading struct {
	at  time.Time
	inv []trial.Result
}

// Observe takes one observation's checks, observed at at.
func (f *First) Observe(at time.Time, checks []events.Check) {
	if !f.Wants(at) || !VerdictsPass(checks) {
		return
	}
	f.ObservePassing(at, Inventory(checks))
}

// Wants says whether an observation made at at can still change the
// first passing result: one not before the earliest found cannot.
func (f *First) Wants(at time.Time) bool { return f.at.IsZero() || at.Before(f.at) }

// ObservePassing takes the inventory (Inventory) of an observation made at
// at whose verdicts pass (VerdictsPass): Observe of its checks, for a
// reader that judged them before (a stored digest of them).
func (f *First) ObservePassing(at time.Time, inv []trial.Result) {
	if !f.Wants(at) {
		return
	}
	if f.known {
		if len(Mismatches(inv, f.order)) == 0 {
			f.at = at
		}
		return
	}
	for i := range f.pending {
		if slices.EqualFunc(f.pending[i].inv, inv, sameResult) {
			if at.Before(f.pending[i].at) {
				f.pending[i].at = at
			}
			return
		}
	}
	f.pending = append(f.pending, reading{at, inv})
}

// SetOrder gives the node's order (its registration); the readings kept
// until then are held to it.
func (f *First) SetOrder(o Order) {
	f.known, f.order = true, o
	for _, p := range f.pending {
		if (f.at.IsZero() || p.at.Before(f.at)) && len(Mismatches(p.inv, o)) == 0 {
			f.at = p.at
		}
	}
	f.pending = nil
}

// At is the first passing acceptance result's instant; zero while none
// (or while the order is not known).
func (f *First) At() time.Time { return f.at }

// sameResult: what HeldToOrder reads of two results is the same.
func sameResult(a, b trial.Result) bool {
	return a.Name == b.Name && a.Verdict == b.Verdict && a.Value == b.Value && a.Unit == b.Unit &&
		samePtr(a.GPU, b.GPU) && samePtr(a.Number, b.Number)
}

func samePtr[T comparable](a, b *T) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}
