package main

import (
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/serve"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/internal/logtext"
)

func init() {
	commands = append(commands, newServeCmd)
}

func newServeCmd() *cobra.Command {
	var cfgPath, logFormat, masterKeyFile string
	flagCfg := serve.Config{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the whole backend locally: HTTP ingest, embedded store, watchdog, alerts",
		Long: `Runs every backend function in one process: the HTTP API (POST /v1/batches,
GET /healthz; GET /v1/nodes, /v1/incidents with an API key of scope read:
gpusla apikey create --scope read) on a loopback address, the embedded
store under --data, the watchdog on a schedule, and alerts to Slack when
configured (--config slack: or GPUSLA_SLACK_* variables), else to the console.

With no node registered (or --demo on) it registers a demo node and runs the
probe's daemon in-process, pushing real signed batches to the API (host
checks, GPU checks on recorded snapshots); its pushes fail once for a while
so an unreachable alert and its recovery show within the first two minutes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := serve.LoadConfig(cfgPath)
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
			set("tls-cert", &c.TLSCert, flagCfg.TLSCert, "")
			set("tls-key", &c.TLSKey, flagCfg.TLSKey, "")
			env := wiring.FromEnv()
			if cmd.Flags().Changed("master-key-file") {
				env.MasterKeyFile = masterKeyFile
			}
			c.Slack = env.LocalSlack(c.Slack)
			if err := c.Validate(cfgPath); err != nil {
				return err
			}
			log := newLogger(logFormat)
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve.Run(ctx, c, env, watchdogGiven, log)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfgPath, "config", "", "YAML config file (listen, data, watchdog, retention, demo, slack, alerts, tls_cert, tls_key)")
	f.StringVar(&flagCfg.Listen, "listen", "127.0.0.1:8080", "HTTP listen address")
	f.StringVar(&flagCfg.Data, "data", "./data", "data folder (store, master key, demo spool)")
	f.StringVar(&flagCfg.Watchdog, "watchdog", "@every 1m", "watchdog schedule (cron spec); @every 10s while the demo runs unless set")
	f.StringVar(&flagCfg.Demo, "demo", "auto", "demo node and probe: auto (when no other node is registered), on, off")
	f.StringVar(&flagCfg.TLSCert, "tls-cert", "", "PEM certificate file: serve https (with --tls-key), so probes on other machines can push")
	f.StringVar(&flagCfg.TLSKey, "tls-key", "", "PEM private key file of --tls-cert")
	f.StringVar(&logFormat, "log-format", "text", "log format: text or json")
	f.StringVar(&masterKeyFile, "master-key-file", "", "master key file, kept apart from the data folder and its backups (default: $"+wiring.EnvMasterKeyFile+", else DATA/"+wiring.MasterKeyFile+"); created if missing")
	return cmd
}

func newLogger(format string) *slog.Logger {
	var h slog.Handler
	if format == "json" {
		h = slog.NewJSONHandler(os.Stderr, logtext.Options(slog.LevelInfo))
	} else {
		h = slog.NewTextHandler(os.Stderr, logtext.Options(slog.LevelInfo))
	}
	l := slog.New(h)
	slog.SetDefault(l)
	return l
}
