// Package linkwatch is the node's own record of its link to the backend.
// The backend dates an outage by heartbeats: it begins when
// the next heartbeat was due after the last one heard, so a cut that
// starts just after a heartbeat reads up to a whole interval short, and a
// real 75 s cut can read 45 s and fall under a contract's 1-minute
// minimum. The node can tell more finely: every few seconds the daemon
// opens a TCP connection to the backend's host:port and closes it at once
// (no HTTP request, so it costs nothing on a Lambda backend), and says
// when that first failed after working and when it first worked again.
//
// It speaks only of transitions it saw: a watcher that has never reached
// the backend (a node behind a proxy, say, that cannot dial it directly)
// claims nothing, and a failure is reported only after a success.
package linkwatch

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
)

// CheckName is the name of the check every observation carries.
const CheckName = "net.backend.link"

// MaxDialTimeout caps one dial; a dial also gives up after half the
// watch's period, so dials never overlap.
const MaxDialTimeout = 2 * time.Second

// State is what the watcher knows of the link.
type State int

const (
	Unknown     State = iota // never reached: nothing is claimed
	Reachable                // the last dial worked
	Unreachable              // dials fail since one that worked; the fail was emitted
)

// Watcher dials Addr every Every and emits an observation on each
// transition between reachable and unreachable.
type Watcher struct {
	Addr  string        // host:port of the backend
	Every time.Duration // the period; Run does nothing when it is 0
	// Emit receives each observation; it is called from Run's goroutine.
	Emit func(wire.Observation)
	// Dial opens the connection; default a net.Dialer's DialContext.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	Now  func() time.Time // default time.Now
	Log  *slog.Logger     // default slog.Default()

	state     State
	lastReach time.Time // when the last dial that worked began
	downSince time.Time // when the first failed dial after it began
}

// Run checks at once and then every Every until ctx is done.
func (w *Watcher) Run(ctx context.Context) {
	if w.Every <= 0 {
		return
	}
	t := time.NewTicker(w.Every)
	defer t.Stop()
	for {
		w.Check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Timeout is one dial's limit: min(MaxDialTimeout, Every/2).
func (w *Watcher) Timeout() time.Duration {
	if w.Every <= 0 {
		return MaxDialTimeout
	}
	return min(MaxDialTimeout, w.Every/2)
}

// State is the watcher's current view of the link.
func (w *Watcher) State() State { return w.state }

// Check dials once and emits an observation if the link changed. A dial
// cut short by ctx (the daemon stopping) says nothing about the link.
func (w *Watcher) Check(ctx context.Context) {
	now, dial, log := w.Now, w.Dial, w.Log
	if now == nil {
		now = time.Now
	}
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	if log == nil {
		log = slog.Default()
	}
	began := now().UTC()
	dctx, cancel := context.WithTimeout(ctx, w.Timeout())
	conn, err := dial(dctx, "tcp", w.Addr)
	cancel()
	if err == nil {
		conn.Close()
	}
	if ctx.Err() != nil {
		return
	}
	if err == nil {
		w.reached(began, log)
		return
	}
	w.failed(began, err, log)
}

func (w *Watcher) reached(began time.Time, log *slog.Logger) {
	if w.state == Unreachable {
		log.Info("backend reachable again", "addr", w.Addr, "unreachable_since", w.downSince)
		w.emit(began, wire.Pass, fmt.Sprintf("tcp %s reached", w.Addr),
			"unreachable since "+w.downSince.Format(time.RFC3339))
	}
	w.state, w.lastReach = Reachable, began
}

func (w *Watcher) failed(began time.Time, err error, log *slog.Logger) {
	if w.state != Reachable {
		// Unknown: never reached, so nothing to claim. Unreachable: the
		// fail was already said.
		return
	}
	log.Warn("backend unreachable", "addr", w.Addr, "last_reached", w.lastReach, "err", err)
	w.state, w.downSince = Unreachable, began
	w.emit(began, wire.Fail, fmt.Sprintf("tcp %s unreachable", w.Addr),
		fmt.Sprintf("last reached at %s; %v", w.lastReach.Format(time.RFC3339), err))
}

// emit sends a check observation (not a heartbeat: it is evidence the
// backend stores, and must not count as a sign of life in its runs)
// dated when the dial began.
func (w *Watcher) emit(at time.Time, verdict, value, detail string) {
	if w.Emit == nil {
		return
	}
	w.Emit(wire.Observation{At: at, Kind: wire.KindCheck, Checks: []wire.Check{{
		Name: CheckName, Category: wire.CategoryConnectivity, Verdict: verdict, Value: value, Detail: detail}}})
}

// Addr is the host:port a backend URL's requests connect to: its port, or
// 443 for https and 80 for http.
func Addr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}
