package trialrun

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/push"
	"github.com/gpusla/gpusla/probe/spool"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/probe/wire/acceptance"
)

// Pusher delivers the trial's results as the daemon does: each
// observation written to the node's spool (its hash chain, which `gpuprobe
// run` continues) and sent signed by the sender, which retries until the
// backend acknowledges it.
type Pusher struct {
	sp      *spool.Spool
	snd     *push.Sender
	backend string
	dir     string
	log     *slog.Logger
	cancel  context.CancelFunc
	done    chan struct{}

	mu       sync.Mutex
	appended int
	errs     []string
}

// OpenPusher opens cfg's spool and starts its sender. The spool is the
// daemon's: while `gpuprobe run` holds it the trial cannot (and should not
// run: its scheduled stress would compete with the soak).
func OpenPusher(cfg *config.Config, version string, log *slog.Logger) (*Pusher, error) {
	sp, err := spool.Open(spool.Options{Dir: cfg.Spool.Dir, MaxBytes: int64(cfg.Spool.MaxBytes), Node: cfg.Node, Probe: version, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("%w: stop `gpuprobe run` for the trial (systemctl stop gpuprobe), or run it without --config", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Pusher{sp: sp, backend: cfg.Backend.URL, dir: cfg.Spool.Dir, log: log, cancel: cancel, done: make(chan struct{}),
		snd: &push.Sender{URL: cfg.Backend.URL, Node: cfg.Node, Secret: cfg.Secret, Queue: sp,
			Client: push.Client(cfg.Backend.Timeout, cfg.Backend.RootCAs, nil), MinBackoff: cfg.Backend.MinBackoff,
			MaxBackoff: cfg.Backend.MaxBackoff, Log: log}}
	go func() {
		defer close(p.done)
		if err := p.snd.Run(ctx); err != nil {
			log.Error("trial: pushing stopped on a spool error; the results stay in the spool", "err", err)
		}
	}()
	return p, nil
}

// Observe spools one observation, in as many batches as the protocol's
// limit on checks per observation needs. A spool error is logged and kept
// for the summary: the local report and record are written regardless.
func (p *Pusher) Observe(o wire.Observation) {
	parts := []wire.Observation{o}
	if len(o.Checks) > wire.MaxChecks {
		parts = nil
		for i := 0; i < len(o.Checks); i += wire.MaxChecks {
			parts = append(parts, wire.Observation{At: o.At, Kind: o.Kind, Checks: o.Checks[i:min(i+wire.MaxChecks, len(o.Checks))]})
		}
	}
	for _, part := range parts {
		seqs, err := p.sp.Append([]wire.Observation{part})
		p.mu.Lock()
		if err != nil {
			p.errs = append(p.errs, err.Error())
			p.log.Error("trial: could not spool results", "err", err)
		}
		p.appended += len(seqs)
		p.mu.Unlock()
	}
}

// Summary is what was spooled and, so far, acknowledged: delivery is in
// order, so the trial's batches are the last of what the spool still holds.
func (p *Pusher) Summary() *acceptance.Pushed {
	p.mu.Lock()
	defer p.mu.Unlock()
	left, _ := p.sp.Stats()
	return &acceptance.Pushed{Backend: p.backend, Spool: p.dir, Batches: p.appended, Acked: p.appended - min(p.appended, left)}
}

// Wait lets the sender drain the spool for at most d, then stops it and
// closes the spool: what is left goes with the next push (`gpuprobe run`).
// It returns what was delivered by then, the record's own batch included.
func (p *Pusher) Wait(d time.Duration) *acceptance.Pushed {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if left, _ := p.sp.Stats(); left == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	final := p.Summary()
	p.Close()
	return final
}

func (p *Pusher) Close() {
	p.cancel()
	<-p.done
	p.sp.Close()
}
