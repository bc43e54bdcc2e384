package serve

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/wire"
)

// The backend's run (its liveness record, whose gaps are the backend's own
// downtime and charge no node) is the time nodes could reach it: from when
// serve answers to when its listener closes. These tests hold serve's
// lifecycle to that on a clock of their own.

var runT0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// runBackend is serve's backend on the embedded store, its service on
// clock, with node gz-01 registered (its probe returned) and the API, the
// ticket desk and the report job as Run wires them.
func runBackend(t *testing.T, clock *apptest.Clock) (*backend, *bolt.Store, *apptest.Probe) {
	t.Helper()
	data := t.TempDir()
	st, err := bolt.Open(filepath.Join(data, "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.DiscardHandler)
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Log: log, Clock: clock, BackendID: "serve"})
	if err != nil {
		t.Fatal(err)
	}
	p := apptest.AddNode(t, svc, "gz-01")
	desk, err := svc.Tickets(app.TermsBook{})
	if err != nil {
		t.Fatal(err)
	}
	b := &backend{store: st, svc: svc, log: log, api: httpapi.New(svc, log), desk: desk}
	b.job, err = setupReports(wiring.Env{StatusToken: "tok-0123456789abcdef"}, data, st, desk, b.api, wiring.Alerts{}, log)
	if err != nil {
		t.Fatal(err)
	}
	return b, st, p
}

// serving runs serveUntilDone on ln (no watchdog tick in the test's time)
// and returns its result channel.
func (b *backend) serving(ctx context.Context, ln net.Listener) <-chan error {
	done := make(chan error, 1)
	go func() {
		done <- b.serveUntilDone(ctx, Config{Watchdog: "@every 1h"}, ln, "http://"+ln.Addr().String())
	}()
	return done
}

// onlyRun is the one backend run recorded.
func onlyRun(t *testing.T, st *bolt.Store) store.BackendRun {
	t.Helper()
	runs, err := st.ListBackendRuns(t.Context(), runT0.Add(-time.Hour), runT0.Add(time.Hour))
	if err != nil || len(runs) != 1 {
		t.Fatalf("backend runs %+v, %v; want one", runs, err)
	}
	return runs[0]
}

// A batch that reached the port while serve was still setting up (the
// store opened, the port open, the ticket desk and the reports still being
// wired: seconds on a loaded machine) is received when serve answers, and
// the backend's run starts there too, not when the port opened: every
// receipt falls inside a run, and the setup is downtime, which charges no
// node that was silent in it.
func TestRunStartsWhenServeAnswers(t *testing.T) {
	clock := apptest.NewClock(runT0)
	b, st, p := runBackend(t, clock)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, body := p.Batch(runT0, wire.Observation{At: runT0, Kind: wire.KindHeartbeat})
	req, _ := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+httpapi.PathBatches, bytes.NewReader(body))
	wire.SetHeaders(req.Header, p.Node, p.Secret, runT0, body)
	answer := make(chan int, 1)
	go func() {
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			answer <- 0
			return
		}
		r.Body.Close()
		answer <- r.StatusCode
	}()
	clock.Advance(5 * time.Second) // the setup after the port opened
	answering := clock.Now()
	ctx, cancel := context.WithCancel(t.Context())
	done := b.serving(ctx, ln)
	if code := <-answer; code != http.StatusOK {
		t.Fatalf("the batch that waited on the port: HTTP %d, want 200", code)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	run := onlyRun(t, st)
	if !run.Start.Equal(answering) {
		t.Errorf("run starts %s, want %s, when serve began to answer (the port opened 5 s before)", run.Start, answering)
	}
	ns, err := st.GetState(t.Context(), "gz-01")
	if err != nil {
		t.Fatal(err)
	}
	if ns.LastReceivedAt.Before(run.Start) {
		t.Errorf("the batch was received at %s, before the run's start %s", ns.LastReceivedAt, run.Start)
	}
}

// A request in flight when serve is told to stop is answered, and the
// shutdown waits for it; on a loaded store that drain takes seconds, in
// which the listener is closed and no node can reach the backend. The run
// ends when the listener closed, not when the drain was over: a node whose
// heartbeat fell due in the drain was silent only because nobody listened.
func TestRunStopsWhenTheListenerCloses(t *testing.T) {
	clock := apptest.NewClock(runT0)
	b, st, _ := runBackend(t, clock)
	entered, release := make(chan struct{}), make(chan struct{})
	b.api.Mux().HandleFunc("GET /test/in-flight", func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, cancel := context.WithCancel(t.Context())
	done := b.serving(ctx, ln)
	answered := make(chan error, 1)
	go func() {
		r, err := http.Get("http://" + addr + "/test/in-flight")
		if err == nil {
			r.Body.Close()
		}
		answered <- err
	}()
	<-entered
	closing := clock.Now()
	cancel()
	waitfor.True(t, "serve's listener closed", func() bool {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return true
		}
		c.Close()
		return false
	})
	clock.Advance(10 * time.Second) // the drain of the request in flight
	close(release)
	if err := <-answered; err != nil {
		t.Fatalf("the request in flight at the stop: %v, want it answered", err)
	}
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	run := onlyRun(t, st)
	if !run.Stopped || !run.LastTick.Equal(closing) {
		t.Errorf("run %+v: want stopped at %s, when the listener closed (the drain ended 10 s later)", run, closing)
	}
	outs := app.BackendOutages([]store.BackendRun{run, {ID: "serve@next", Start: closing.Add(time.Minute), LastTick: closing.Add(time.Minute)}},
		runT0.Add(-time.Hour), runT0.Add(time.Hour))
	if len(outs) != 1 || !outs[0].Start.Equal(closing) {
		t.Errorf("backend outages %+v: want one from the listener's close %s", outs, closing)
	}
}
