// Package serve runs the whole backend as one local process, `gpusla
// serve`: the HTTP API (ingest, nodes, incidents, tickets, Slack
// endpoints, the status page) on a loopback address, the embedded store
// (or a DynamoDB table), the minute tick and the monthly reports on a
// schedule, alerts to Slack or the console, and the demo node.
package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/robfig/cron/v3"

	"github.com/gpusla/gpusla/functions/actionlink"
	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/bundle"
	demonode "github.com/gpusla/gpusla/functions/demo"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/replacement"
	"github.com/gpusla/gpusla/functions/slackapi"
	"github.com/gpusla/gpusla/functions/statuspage"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

// Run serves until ctx is done, then shuts down cleanly and records the
// backend's stop. watchdogGiven says the schedule was set explicitly (else
// the demo speeds it up).
func Run(ctx context.Context, c Config, env wiring.Env, watchdogGiven bool, log *slog.Logger) error {
	// Settings first: a bad one stops serve before anything is opened.
	if _, err := env.ScorecardMonthsOrDefault(); err != nil {
		return err
	}
	// The address before the store: a serve that cannot listen (the port
	// taken, often by a serve already running) must leave no new store,
	// master key and demo in a folder it was started in by mistake.
	ln, err := listen(ctx, c.Listen)
	if err != nil {
		return err
	}
	b, err := openBackend(ctx, c, env, log)
	if err != nil {
		ln.Close()
		return err
	}
	defer b.close()

	base := "http://" + ln.Addr().String()
	if c.TLS() {
		base = "https://" + ln.Addr().String()
	}

	demo := demonode.Config{Mode: c.Demo, Data: c.Data, HTTPS: c.TLS()}
	if env.Terms == "" {
		demo.TermsDir = filepath.Join(c.Data, wiring.TermsDir)
	}
	b.demo, err = demonode.Setup(ctx, demo, b.svc, b.store, b.box, log)
	if err != nil {
		ln.Close()
		return err
	}
	if b.demo != nil && !watchdogGiven {
		c.Watchdog = "@every 10s" // so the demo's alert shows quickly
	}
	b.api = httpapi.New(b.svc, log)
	// Counters (refused requests by reason, Go runtime); serve listens on
	// loopback unless told otherwise, and they hold no secret.
	b.api.Mux().Handle("GET /metrics", promhttp.Handler())
	tickets, err := setupTickets(b.svc, b.api, env, c.Data, b.links, log)
	if err != nil {
		ln.Close()
		return err
	}
	defer tickets.close()
	b.desk = tickets.desk
	b.job, err = setupReports(env, c.Data, b.store, b.desk, b.api, b.alerts, log)
	if err != nil {
		ln.Close()
		return err
	}
	return b.serveUntilDone(ctx, c, ln, base)
}

// backend is serve's parts: what openBackend opened (the store and its
// backups, the service and its alert sender), then what Run mounts on the
// API before serving it.
type backend struct {
	store  wiring.LocalStore
	box    app.SecretBox
	svc    *app.Service
	alerts wiring.Alerts
	links  *actionlink.Signer
	log    *slog.Logger
	stops  []func() // what close stops, the last first

	demo *demonode.Node // nil: no demo node
	api  *httpapi.API
	desk *app.TicketDesk
	job  *app.ReportJob
}

// openBackend opens the store (with its backups when it is the embedded
// one), the alert channels and the service, and starts the alert sender.
// What it opened is closed again when a later step fails.
func openBackend(ctx context.Context, c Config, env wiring.Env, log *slog.Logger) (_ *backend, err error) {
	st, box, where, err := env.OpenStore(ctx, c.Data)
	if err != nil {
		return nil, err
	}
	log.Info("store", "at", where)
	b := &backend{store: st, box: box, log: log, stops: []func(){func() { st.Close() }}}
	defer func() {
		if err != nil {
			b.close()
		}
	}()
	if bs, ok := st.(*bolt.Store); ok { // backup.go: `gpusla backup` takes its snapshot here
		stopBackups, err := serveBackups(bs, c.Data, log)
		if err != nil {
			return nil, err
		}
		b.stops = append(b.stops, stopBackups)
	}
	if b.alerts, err = wiring.OpenAlerts(c.Alerts, c.Source(), c.Slack, os.Stdout); err != nil {
		return nil, err
	}
	if b.links, err = env.LocalActionLinks(c.Data); err != nil {
		return nil, err
	}
	b.alerts.WithLinks(b.links)
	log.Info("alerts go to " + b.alerts.Summary)
	cfg := app.Config{Store: st, Box: box, Log: log, Retention: c.Retention, BackendID: "serve", AlertRetry: c.AlertRetry}
	b.alerts.Apply(&cfg)
	if b.svc, err = app.New(cfg); err != nil {
		return nil, err
	}
	// Alerts go from a sender goroutine, so no ack waits on Slack; it
	// stops (with what it was sending recorded) before the store closes.
	senderCtx, stopSender := context.WithCancel(context.WithoutCancel(ctx))
	waitSender := b.svc.SendAlerts(senderCtx)
	b.stops = append(b.stops, waitSender, stopSender)
	return b, nil
}

// close stops what openBackend started, the last first: the alert sender
// (cancelled, then waited for), the backups, the store.
func (b *backend) close() {
	for i := len(b.stops) - 1; i >= 0; i-- {
		b.stops[i]()
	}
}

// serveUntilDone records the backend's start and serves the API on ln
// (base is its address) with the cron running and the demo node pushing,
// until ctx is done or the server fails; then it stops the cron, the
// server and the demo, in that order, and records the backend's stop as of
// the server's.
func (b *backend) serveUntilDone(ctx context.Context, c Config, ln net.Listener, base string) error {
	log := b.log
	srv := NewHTTPServer(b.api)
	// The backend's run (its liveness record) is the time nodes can reach
	// it: from here, where it starts answering, to where its listener
	// closes below. Not from when the port opened: a batch that waited
	// there while serve set up is received after this, and a node's
	// silence is counted from the run's start at the earliest.
	if _, err := b.svc.BackendStart(ctx); err != nil {
		ln.Close()
		return err
	}
	errc := make(chan error, 1)
	go func() {
		if c.TLS() {
			errc <- srv.ServeTLS(ln, c.TLSCert, c.TLSKey)
			return
		}
		errc <- srv.Serve(ln)
	}()

	sched, firstReports, err := schedule(ctx, c.Watchdog, app.MinuteTick(b.svc, b.desk, nil), b.store, b.svc.Now, b.job, log)
	if err != nil {
		return err
	}
	sched.Start()

	nodes, _ := b.store.ListNodes(ctx)
	// The nodes watched; those given back (the ended demo's among them)
	// are counted apart, so a renter with one node reads nodes=1.
	watched, released := 0, 0
	for _, n := range nodes {
		if n.ReleasedAt.IsZero() || n.ReleasedAt.After(b.svc.Now()) {
			watched++
		} else {
			released++
		}
	}
	up := []any{"api", base, "data", c.Data, "nodes", watched}
	if released > 0 {
		up = append(up, "released", released)
	}
	log.Info("gpusla serve is up", append(up, "watchdog", c.Watchdog)...)
	log.Info("look around", "nodes", base+httpapi.PathNodes, "incidents", base+httpapi.PathIncidents, "health", base+httpapi.PathHealth)
	if b.demo != nil {
		go b.demo.Run(ctx, base+httpapi.PathBatches)
	} else if watched == 0 {
		log.Info("no node watched: stop serve and register one with `gpusla node add --data " + c.Data + " --id NODE --contract C --gpu-model MODEL --gpus N` (the contract's terms in " +
			filepath.Join(c.Data, wiring.TermsDir) + ")")
	}

	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("http: %w", err)
		}
	}
	log.Info("shutting down")
	<-sched.Stop().Done()
	firstReports.Wait() // the start-up run writes into the data folder too
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Nodes can reach the backend until its listener closes, here; the
	// drain of the requests in flight that follows can take seconds on a
	// loaded store, and nobody else is heard in them. The run ends here,
	// or a node that went unheard in that drain would be charged for it.
	closing := b.svc.Now()
	_ = srv.Shutdown(sctx)
	if b.demo != nil {
		b.demo.Wait()
	}
	if err := b.svc.BackendStop(sctx, closing); err != nil {
		log.Error("record backend stop", "err", err)
	}
	return nil
}

// TLS says serve speaks https.
func (c Config) TLS() bool { return c.TLSCert != "" }

// schedule puts serve's periodic work on one cron: the minute tick on
// spec, the sweep of expired batches hourly (the embedded store; DynamoDB
// expires them by TTL), the daily sealer hourly (app.ReportJob.Seal), the
// monthly reports job hourly and once now (wait
// for that one on the WaitGroup: the cron's Stop does not know of it).
func schedule(ctx context.Context, spec string, tick func(context.Context) (app.WatchdogResult, error), store any, now func() time.Time, job *app.ReportJob, log *slog.Logger) (*cron.Cron, *sync.WaitGroup, error) {
	sched := cron.New(cron.WithLocation(time.UTC))
	if _, err := sched.AddFunc(spec, func() {
		// A run under way finishes at shutdown, but what it would only
		// wait for (a robot's rate limit) it leaves for the next start.
		res, err := tick(notify.WithYield(context.WithoutCancel(ctx), ctx))
		if err != nil {
			log.Error("watchdog", "err", err)
			return
		}
		log.Debug("watchdog", "nodes", res.Nodes, "transitions", res.Transitions)
	}); err != nil {
		return nil, nil, fmt.Errorf("watchdog schedule %q: %w", spec, err)
	}
	if _, err := sched.AddFunc("@every 1h", func() {
		sw, ok := store.(wiring.Sweeper)
		if !ok {
			return // DynamoDB expires batches by TTL
		}
		if n, err := sw.Sweep(now()); err != nil {
			log.Error("sweep expired batches", "err", err)
		} else if n > 0 {
			log.Info("swept expired batches", "count", n)
		}
	}); err != nil {
		return nil, nil, err
	}
	reports := func() {
		if _, err := job.Run(notify.WithYield(context.WithoutCancel(ctx), ctx), time.Now().UTC()); err != nil {
			log.Error("monthly reports", "err", err)
		}
	}
	if _, err := sched.AddFunc("@every 1h", reports); err != nil {
		return nil, nil, err
	}
	// The daily sealer: each day is sealed in the first hourly run an hour
	// after it ends, so the month's books find its days sealed; the days
	// already sealed cost one read a node.
	if _, err := sched.AddFunc("@every 1h", func() {
		st, err := job.Seal(context.WithoutCancel(ctx), time.Now().UTC())
		if err != nil {
			log.Error("seal days", "err", err, "sealed", st.Sealed)
		} else if st.Sealed > 0 {
			log.Info("sealed days", "sealed", st.Sealed, "nodes", st.Nodes, "batches", st.Batches, "left", st.Left)
		}
	}); err != nil {
		return nil, nil, err
	}
	var first sync.WaitGroup
	first.Go(reports)
	return sched, &first, nil
}

// tickets is the ticket part of serve: the ticket API and the Slack
// endpoints on the API's mux; the desk is watched by the minute tick.
type tickets struct {
	desk   *app.TicketDesk
	runner *slackapi.GoRunner
}

// setupTickets registers the ticket API (and the Slack endpoints when a
// signing secret is set, the alert links' page when a public URL is) on
// api's mux, timing tickets against the terms of $GPUSLA_TERMS or
// <data>/terms.
func setupTickets(svc *app.Service, api *httpapi.API, env wiring.Env, data string, links *actionlink.Signer, log *slog.Logger) (*tickets, error) {
	book, paths, err := env.LoadTermsFrom(filepath.Join(data, wiring.TermsDir))
	if err != nil {
		return nil, err
	}
	desk, err := svc.Tickets(book)
	if err != nil {
		return nil, err
	}
	httpapi.RegisterTickets(api.Mux(), desk, log)
	if _, err := httpapi.RegisterClaims(api.Mux(), desk, log); err != nil {
		return nil, err
	}
	td := &tickets{desk: desk}
	log.Info("ticket API on "+httpapi.PathTickets, "terms", strings.Join(paths, string(os.PathListSeparator)), "contracts", strings.Join(book.Contracts(), ","))
	if len(book) == 0 {
		log.Warn("no contract terms loaded: tickets cannot be timed; put terms files in " + filepath.Join(data, wiring.TermsDir) + " or set " + wiring.EnvTerms)
	}
	var rq *replacement.Requester
	if env.SlackSigningSecret != "" || links != nil {
		key, err := replacement.LoadOrCreateKey(data)
		if err != nil {
			return nil, err
		}
		rq = &replacement.Requester{Desk: desk, Key: key, Dir: filepath.Join(data, replacement.PacksDir)}
	}
	if links != nil {
		h, err := actionlink.New(actionlink.Config{Links: links, Desk: desk, Requester: rq, Log: log})
		if err != nil {
			return nil, err
		}
		h.Register(api.Mux())
		log.Info("alert links on "+actionlink.PathReplacement, "public_url", links.Base(), "secret", filepath.Join(data, wiring.ActionSecretFile))
	} else {
		log.Info("alert links off: set " + wiring.EnvPublicURL + " to the address people's browsers reach this backend at")
	}
	if secret := env.SlackSigningSecret; secret != "" {
		h, err := slackapi.New(slackapi.Config{Desk: desk, SigningSecret: secret, Log: log, Replacer: rq})
		if err != nil {
			return nil, err
		}
		td.runner = slackapi.NewGoRunner(h, 2*time.Minute)
		h.SetRunner(td.runner)
		h.Register(api.Mux())
		log.Info("Slack endpoints on " + slackapi.PathCommands + " and " + slackapi.PathInteractions)
	} else {
		log.Info("Slack commands and buttons off: set " + wiring.EnvSlackSigningSecret + " to the Slack app's signing secret")
	}
	return td, nil
}

// close waits for Slack follow-up work still running.
func (t *tickets) close() {
	if t.runner != nil {
		t.runner.Wait()
	}
}

// setupReports mounts the status page (token from GPUSLA_STATUS_TOKEN or
// <data>/status.token, created 0600 on first start) and prepares the
// monthly reports job, its reports stored in <data>/reports.
func setupReports(env wiring.Env, data string, store statuspage.Nodes, desk *app.TicketDesk, api *httpapi.API, alerts wiring.Alerts, log *slog.Logger) (*app.ReportJob, error) {
	blobs, err := blob.NewDir(filepath.Join(data, wiring.ReportsDir))
	if err != nil {
		return nil, fmt.Errorf("reports folder: %w", err)
	}
	token, from, err := env.LocalStatusToken(data)
	if err != nil {
		return nil, err
	}
	proxies, err := env.TrustedProxyList()
	if err != nil {
		return nil, err
	}
	ledger, err := desk.Ledger()
	if err != nil {
		return nil, err
	}
	statuspage.New(statuspage.Config{Nodes: store, Terms: desk.Contract, Tickets: desk, Reports: blobs, Claims: ledger, Channels: alerts.Channels,
		Token: token, TrustedProxies: proxies, Log: log}).Register(api.Mux())
	log.Info("status page", "path", statuspage.PathStatus, "token", "in "+from+" (open "+statuspage.PathStatus+"?token=…)")
	delay, err := env.ReportDelayOrDefault()
	if err != nil {
		return nil, err
	}
	months, err := env.ScorecardMonthsOrDefault()
	if err != nil {
		return nil, err
	}
	return &app.ReportJob{Desk: desk, Blobs: blobs, Notices: alerts.Notices, Renderer: bundle.Renderer{}, Delay: delay, ScorecardMonths: months, Log: log}, nil
}

// NewHTTPServer is serve's HTTP server; loadgen measures with the same one.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 16 << 10}
}
