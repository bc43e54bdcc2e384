package app

import (
	"fmt"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

// ObservationEvents converts a batch into the SLA engine's observation
// events (docs/events.md), field for field, stamped with the receive time.
// Ingest feeds them to the live evaluation; export writes them.
func ObservationEvents(b *wire.Batch, hash string, receivedAt time.Time) []events.Event {
	out := make([]events.Event, len(b.Observations))
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
		out[i] = e
	}
	return out
}
