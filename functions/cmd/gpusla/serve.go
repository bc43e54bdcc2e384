package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/functions/app"
	demonode "github.com/gpusla/gpusla/functions/demo"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

func init() {
	commands = append(commands, newServeCmd)
}

// serveConfig is the optional --config file of `gpusla serve`. Every field
// has a flag or default; Slack secrets may also come from the environment
// (GPUSLA_SLACK_WEBHOOK_URL, GPUSLA_SLACK_BOT_TOKEN, GPUSLA_SLACK_CHANNEL).
type serveConfig struct {
	Listen    string        `yaml:"listen"`
	Data      string        `yaml:"data"`
	Watchdog  string        `yaml:"watchdog"`  // cron spec, default @every 1m (@every 10s with the demo)
	Retention time.Duration `yaml:"retention"` // TTL of stored batch bodies
	Demo      string        `yaml:"demo"`      // auto (default), on, off
	Slack     slack.Config  `yaml:"slack"`
}

// loadServeConfig reads the file strictly: an unknown or malformed field
// stops serve with the field and line named.
func loadServeConfig(path string) (serveConfig, error) {
	var c serveConfig
	if path == "" {
		return c, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return c, fmt.Errorf("config %s: %s", path, nameYAMLField(raw, err))
	}
	return c, nil
}

var reYAMLLine = regexp.MustCompile(`line (\d+): (.*)`)

// nameYAMLField rewrites a YAML decoding error so it names the field at the
// line it reports ("line 3: retention: cannot unmarshal …").
func nameYAMLField(raw []byte, err error) string {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	m := reYAMLLine.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	line, _ := strconv.Atoi(m[1])
	var root yaml.Node
	if yaml.Unmarshal(raw, &root) != nil || len(root.Content) == 0 {
		return msg
	}
	if field := fieldAtLine(root.Content[0], "", line); field != "" && !strings.Contains(m[2], field) {
		return fmt.Sprintf("line %d: %s: %s", line, field, m[2])
	}
	return msg
}

// fieldAtLine finds the dotted path of the mapping key whose value is at line.
func fieldAtLine(n *yaml.Node, prefix string, line int) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		path := k.Value
		if prefix != "" {
			path = prefix + "." + k.Value
		}
		if k.Line == line || v.Line == line && v.Kind != yaml.MappingNode {
			return path
		}
		if f := fieldAtLine(v, path, line); f != "" {
			return f
		}
	}
	return ""
}

func (c *serveConfig) validate(path string) error {
	bad := func(field, format string, a ...any) error {
		return fmt.Errorf("config %s: %s: %s", path, field, fmt.Sprintf(format, a...))
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return bad("listen", "%q is not host:port", c.Listen)
	}
	if _, err := cron.ParseStandard(c.Watchdog); err != nil {
		return bad("watchdog", "%q is not a cron spec (e.g. @every 1m): %v", c.Watchdog, err)
	}
	if c.Retention < 0 {
		return bad("retention", "must not be negative")
	}
	switch c.Demo {
	case "auto", "on", "off":
	default:
		return bad("demo", "%q is not auto, on or off", c.Demo)
	}
	if c.Slack.Configured() {
		if err := c.Slack.Validate(); err != nil {
			return fmt.Errorf("config %s: %w", path, err)
		}
	}
	return nil
}

func newServeCmd() *cobra.Command {
	var cfgPath, logFormat string
	flagCfg := serveConfig{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the whole backend locally: HTTP ingest, embedded store, watchdog, alerts",
		Long: `Runs every backend function in one process: the HTTP API (POST /v1/batches,
GET /healthz, /v1/nodes, /v1/incidents) on a loopback address, the embedded
store under --data, the watchdog on a schedule, and alerts to Slack when
configured (--config slack: or GPUSLA_SLACK_* variables), else to the console.

With no node registered (or --demo on) it registers a demo node and runs the
probe's daemon in-process, pushing real signed batches to the API (host
checks, GPU checks on recorded snapshots); its pushes fail once for a while
so an unreachable alert and its recovery show within the first two minutes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := loadServeConfig(cfgPath)
			if err != nil {
				return err
			}
			// Flags given explicitly win over the file; the file over defaults.
			set := func(name string, dst *string, v string, def string) {
				if cmd.Flags().Changed(name) {
					*dst = v
				} else if *dst == "" {
					*dst = def
				}
			}
			set("listen", &c.Listen, flagCfg.Listen, "127.0.0.1:8080")
			set("data", &c.Data, flagCfg.Data, "./data")
			set("demo", &c.Demo, flagCfg.Demo, "auto")
			watchdogGiven := c.Watchdog != "" || cmd.Flags().Changed("watchdog")
			set("watchdog", &c.Watchdog, flagCfg.Watchdog, "@every 1m")
			if v := os.Getenv("GPUSLA_SLACK_WEBHOOK_URL"); v != "" {
				c.Slack.WebhookURL = v
			}
			if v := os.Getenv("GPUSLA_SLACK_BOT_TOKEN"); v != "" {
				c.Slack.BotToken = v
			}
			if v := os.Getenv("GPUSLA_SLACK_CHANNEL"); v != "" {
				c.Slack.Channel = v
			}
			c.Slack.APIURL = os.Getenv(envSlackAPIURL)
			if err := c.validate(cfgPath); err != nil {
				return err
			}
			log := newLogger(logFormat)
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve(ctx, c, watchdogGiven, log)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfgPath, "config", "", "YAML config file (listen, data, watchdog, retention, demo, slack)")
	f.StringVar(&flagCfg.Listen, "listen", "127.0.0.1:8080", "HTTP listen address")
	f.StringVar(&flagCfg.Data, "data", "./data", "data folder (store, master key, demo spool)")
	f.StringVar(&flagCfg.Watchdog, "watchdog", "@every 1m", "watchdog schedule (cron spec); @every 10s while the demo runs unless set")
	f.StringVar(&flagCfg.Demo, "demo", "auto", "demo node and probe: auto (when no other node is registered), on, off")
	f.StringVar(&logFormat, "log-format", "text", "log format: text or json")
	return cmd
}

func newLogger(format string) *slog.Logger {
	var h slog.Handler
	if format == "json" {
		h = slog.NewJSONHandler(os.Stderr, nil)
	} else {
		h = slog.NewTextHandler(os.Stderr, nil)
	}
	l := slog.New(h)
	slog.SetDefault(l)
	return l
}

func serve(ctx context.Context, c serveConfig, watchdogGiven bool, log *slog.Logger) error {
	store, box, where, err := openServeStore(ctx, c.Data)
	if err != nil {
		return err
	}
	log.Info("store", "at", where)
	defer store.Close()
	if bs, ok := store.(*bolt.Store); ok { // backup.go: `gpusla backup` takes its snapshot here
		stopBackups, err := serveBackups(bs, c.Data, log)
		if err != nil {
			return err
		}
		defer stopBackups()
	}
	var notifier notify.Notifier = &slack.Console{W: os.Stdout}
	if c.Slack.Configured() {
		if notifier, err = slack.New(c.Slack); err != nil {
			return err
		}
		log.Info("alerts go to Slack", "mode", map[bool]string{true: "bot token", false: "webhook"}[c.Slack.BotToken != ""])
	} else {
		log.Info("no Slack configured: alerts are printed to the console (set slack: in --config or GPUSLA_SLACK_WEBHOOK_URL)")
	}
	svc, err := app.New(app.Config{Store: store, Notifier: notifier, Box: box, Log: log, Retention: c.Retention, BackendID: "serve"})
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", c.Listen, err)
	}
	base := "http://" + ln.Addr().String()
	if _, err := svc.BackendStart(ctx); err != nil {
		ln.Close()
		return err
	}

	demo, err := demonode.Setup(ctx, demonode.Config{Mode: c.Demo, Data: c.Data}, svc, store, box, log)
	if err != nil {
		ln.Close()
		return err
	}
	if demo != nil && !watchdogGiven {
		c.Watchdog = "@every 10s" // so the demo's alert shows quickly
	}

	api := httpapi.New(svc, log)
	tickets, err := setupTickets(svc, api, c.Data, log) // ticket.go: ticket API, Slack endpoints
	if err != nil {
		ln.Close()
		return err
	}
	defer tickets.close()
	reports, err := setupReports(c.Data, store, tickets, api, notifier, log) // servereports.go: status page, monthly reports
	if err != nil {
		ln.Close()
		return err
	}
	srv := newHTTPServer(api)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	sched := cron.New(cron.WithLocation(time.UTC))
	if _, err := sched.AddFunc(c.Watchdog, func() {
		tickets.watch(context.WithoutCancel(ctx)) // ticket deadlines: warnings at 80 %, breaches
		res, err := svc.Watchdog(context.WithoutCancel(ctx))
		if err != nil {
			log.Error("watchdog", "err", err)
			return
		}
		log.Debug("watchdog", "nodes", res.Nodes, "transitions", res.Transitions)
	}); err != nil {
		return fmt.Errorf("watchdog schedule %q: %w", c.Watchdog, err)
	}
	if _, err := sched.AddFunc("@every 1h", func() {
		sw, ok := store.(sweeper)
		if !ok {
			return // DynamoDB expires batches by TTL
		}
		if n, err := sw.Sweep(svc.Now()); err != nil {
			log.Error("sweep expired batches", "err", err)
		} else if n > 0 {
			log.Info("swept expired batches", "count", n)
		}
	}); err != nil {
		return err
	}
	if err := reports.schedule(ctx, sched); err != nil {
		return err
	}
	sched.Start()

	nodes, _ := store.ListNodes(ctx)
	log.Info("gpusla serve is up", "api", base, "data", c.Data, "nodes", len(nodes), "watchdog", c.Watchdog)
	log.Info("look around", "nodes", base+httpapi.PathNodes, "incidents", base+httpapi.PathIncidents, "health", base+httpapi.PathHealth)
	if demo != nil {
		go demo.Run(ctx, base+httpapi.PathBatches)
	} else if len(nodes) == 0 {
		log.Info("no node registered: add one with `gpusla node add --data " + c.Data + " --id NODE --provider P --contract C`")
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
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if demo != nil {
		demo.Wait()
	}
	if err := svc.BackendStop(sctx); err != nil {
		log.Error("record backend stop", "err", err)
	}
	return nil
}

// newHTTPServer is serve's HTTP server; loadgen measures with the same one.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 16 << 10}
}
