package lambdafn

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store/dynamo"
)

// SealerWorkers is how many nodes the sealer seals at once: a node-day is
// a few small reads and one write, so the function waits on DynamoDB far
// more than it computes.
const SealerWorkers = 32

// Sealer is the daily sealer (template.yaml: SealerFunction, run by
// EventBridge Scheduler once a day): it seals the latest days that can no
// longer change (app.Books.SealRecent), each node's day read through its
// receipts, so the month's books find the month's days sealed.
type Sealer struct {
	bk  app.Books
	log *slog.Logger
	now func() time.Time
}

// NewSealer is the sealer on st.
func NewSealer(st *dynamo.Store, log *slog.Logger, now func() time.Time) *Sealer {
	return &Sealer{bk: app.Books{Store: st, Workers: SealerWorkers}.WithDigests(st, nil), log: log, now: now}
}

// Handle checks that the event is a schedule tick and seals.
func (s *Sealer) Handle(ctx context.Context, raw json.RawMessage) (any, error) {
	scheduled, err := parseTick(raw)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	st, err := s.bk.SealRecent(ctx, s.now())
	attrs := []any{"scheduled", scheduled, "nodes", st.Nodes, "sealed", st.Sealed, "already", st.Already, "left", st.Left,
		"batches", st.Batches, "took", time.Since(t0).Round(time.Millisecond)}
	if err != nil {
		// The next day's run seals what this one left (app.SealBack days).
		s.log.Error("seal", append(attrs, "err", err)...)
		return st, err
	}
	s.log.Info("seal", attrs...)
	return st, nil
}
