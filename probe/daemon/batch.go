package daemon

import (
	"log/slog"
	"sync"
	"time"

	"github.com/gpusla/gpusla/probe/spool"
	"github.com/gpusla/gpusla/probe/wire"
)

// batcher decides when staged observations are sealed into a batch (and
// so pushed): once perBatch heartbeats are staged — counting heartbeats
// rather than following a clock of its own keeps every batch at exactly
// that many even though each heartbeat fires with jitter — at once for an
// urgent observation, and at the latest one push interval after the first
// observation was staged (heartbeats stalled, or only checks staged).
type batcher struct {
	sp       *spool.Spool
	log      *slog.Logger
	every    time.Duration
	perBatch int

	mu         sync.Mutex
	heartbeats int
	timer      *time.Timer
	gen        uint64 // bumped on every seal, so a late timer does nothing
	stopped    bool
}

// added is called after obs were staged.
func (b *batcher) added(obs []wire.Observation, urgent bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return // stop seals everything staged
	}
	for _, o := range obs {
		if o.Kind == wire.KindHeartbeat {
			b.heartbeats++
		}
	}
	switch {
	case urgent:
		b.seal("urgent")
	case b.heartbeats >= b.perBatch:
		b.seal("heartbeats")
	case b.timer == nil:
		gen := b.gen
		b.timer = time.AfterFunc(b.every, func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			if gen == b.gen && !b.stopped {
				b.seal("push interval")
			}
		})
	}
}

// seal must be called with b.mu held.
func (b *batcher) seal(why string) {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.gen++
	b.heartbeats = 0
	seqs, err := b.sp.Seal()
	if err != nil {
		// What is staged stays in the pending file and is sealed by the
		// next seal or the next start.
		b.log.Error("cannot seal staged observations into a batch", "err", err)
		return
	}
	b.log.Debug("sealed staged observations", "why", why, "batches", seqs)
}

// stop seals what is staged; later calls to added do nothing.
func (b *batcher) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seal("stop")
	b.stopped = true
}
