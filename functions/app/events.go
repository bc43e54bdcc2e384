package app

import (
	"fmt"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

// ObservationEvents converts a batch into the SLA engine's observation
// events (docs/events.md), field for field, stamped with the receive time.
// Ingest feeds them to the live evaluation; export writes them. An
// observation dated outside the window around its receive time
// (events.ObservationTimeOK) is left out — ingest records why — so a wrong
// clock never reaches the books; Index keeps each event's place in the batch.
func ObservationEvents(b *wire.Batch, hash string, receivedAt time.Time) []events.Event {
	out := make([]events.Event, 0, len(b.Observations))
	for i, o := range b.Observations {
		e := events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s/%s/%d", b.Node, b.ID, i),
			Node: b.Node, Batch: b.ID, Seq: b.Seq, Hash: hash, Index: i, At: o.At.UTC(), ClockSkewMS: b.ClockSkewMS,
			ReceivedAt: receivedAt.UTC(), Kind: o.Kind}
		if len(o.Checks) > 0 {
			e.Checks = make([]events.Check, len(o.Checks))
			for j, c := range o.Checks {
				e.Checks[j] = events.Check{Name: c.Name, Category: c.Category, Verdict: c.Verdict, Value: c.Value,
					Criterion: c.Criterion, Number: c.Number, Unit: c.Unit, GPU: c.GPU, UUID: c.UUID, Detail: c.Detail}
			}
		}
		if events.ObservationTimeOK(e.TrueAt(), e.ReceivedAt) != nil {
			continue
		}
		out = append(out, e)
	}
	return out
}

// outOfBounds lists, per observation index, why an observation's time is
// outside the window (events.ObservationTimeOK).
func outOfBounds(b *wire.Batch, receivedAt time.Time) map[int]error {
	var bad map[int]error
	skew := time.Duration(b.ClockSkewMS) * time.Millisecond
	for i, o := range b.Observations {
		if err := events.ObservationTimeOK(o.At.Add(-skew), receivedAt); err != nil {
			if bad == nil {
				bad = map[int]error{}
			}
			bad[i] = err
		}
	}
	return bad
}
