package app

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gpusla/gpusla/functions/batchform"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

// ObservationEvents converts a batch of node n into the SLA engine's
// observation events (docs/events.md), field for field, stamped with the
// receive time. Ingest feeds them to the live evaluation; export writes
// them. An observation dated outside the window around its receive time
// (events.ObservationTimeOK) or before the node was registered
// (events.RegisteredTimeOK) is left out — ingest records why — so a wrong
// clock never reaches the books; Index keeps each event's place in the batch.
// An observation dated after its receipt is dated at it (events.TrueAt).
func ObservationEvents(n *store.Node, b *wire.Batch, hash string, receivedAt time.Time) []events.Event {
	out := make([]events.Event, 0, len(b.Observations))
	// One array holds the batch's checks, each event a slice of it capped
	// at its own: a month's books convert some 800 batches a node.
	total := 0
	for i := range b.Observations {
		total += len(b.Observations[i].Checks)
	}
	all := make([]events.Check, total)
	prefix := b.Node + "/" + b.ID + "/"
	for i := range b.Observations {
		o := &b.Observations[i]
		e := events.Event{Type: events.TypeObservation, ID: prefix + strconv.Itoa(i),
			Node: b.Node, Batch: b.ID, Seq: b.Seq, Hash: hash, Index: i, At: o.At.UTC(), ClockSkewMS: b.ClockSkewMS,
			ReceivedAt: receivedAt.UTC(), Kind: o.Kind}
		if len(o.Checks) > 0 {
			e.Checks, all = all[:len(o.Checks):len(o.Checks)], all[len(o.Checks):]
			for j := range o.Checks {
				e.Checks[j] = batchform.EventCheck(&o.Checks[j])
			}
		}
		if observationTimeOK(n, e.CorrectedAt(), e.ReceivedAt) != nil {
			continue
		}
		out = append(out, e)
	}
	return out
}

// observationTimeOK is ObservationEvents' rule: at (skew-corrected) inside
// the window around its receipt, and not before n was registered.
func observationTimeOK(n *store.Node, at, receivedAt time.Time) error {
	if err := events.ObservationTimeOK(at, receivedAt); err != nil {
		return err
	}
	return events.RegisteredTimeOK(at, n.CreatedAt)
}

// outOfBounds lists, per observation index, why an observation's time is
// outside the window or before n's registration (observationTimeOK).
func outOfBounds(n *store.Node, b *wire.Batch, receivedAt time.Time) map[int]error {
	var bad map[int]error
	skew := time.Duration(b.ClockSkewMS) * time.Millisecond
	for i, o := range b.Observations {
		if err := observationTimeOK(n, o.At.Add(-skew), receivedAt); err != nil {
			if bad == nil {
				bad = map[int]error{}
			}
			bad[i] = err
		}
	}
	return bad
}

// trueAt is when the books date observation o of a batch whose probe
// reports skew, received at receivedAt: its time corrected by the skew, and
// never after its receipt (events.TrueAt, which the export's events give
// the report).
func trueAt(o *wire.Observation, skew time.Duration, receivedAt time.Time) time.Time {
	return events.NotAfter(o.At.Add(-skew), receivedAt).UTC()
}

// clamped says, for the observations inside the window that a batch dates
// events.ClampNoted or more after their receipt, what they were dated and
// that they are dated at the receipt: the reason recorded with them.
func clamped(b *wire.Batch, bounds map[int]error, receivedAt time.Time) []string {
	var out []string
	skew := time.Duration(b.ClockSkewMS) * time.Millisecond
	for i := range b.Observations {
		if _, bad := bounds[i]; bad {
			continue
		}
		at := b.Observations[i].At.Add(-skew)
		if lead := at.Sub(receivedAt); lead >= events.ClampNoted {
			out = append(out, fmt.Sprintf("observations[%d].at: %s (clock_skew_ms %d) is %s after it was received (%s): dated at its receipt",
				i, at.UTC().Format(time.RFC3339Nano), b.ClockSkewMS, lead.Round(time.Millisecond), receivedAt.UTC().Format(time.RFC3339Nano)))
		}
	}
	return out
}
