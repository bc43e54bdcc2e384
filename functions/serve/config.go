package serve

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/notify/route"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/internal/yamlpos"
)

// Config is what `gpusla serve` runs with: its optional --config file,
// with flags and defaults filled in. Every field
// has a flag or default; Slack secrets may also come from the environment
// (GPUSLA_SLACK_WEBHOOK_URL, GPUSLA_SLACK_BOT_TOKEN, GPUSLA_SLACK_CHANNEL).
type Config struct {
	Listen    string        `yaml:"listen"`
	Data      string        `yaml:"data"`
	Watchdog  string        `yaml:"watchdog"`  // cron spec, default @every 1m (@every 10s with the demo)
	Retention time.Duration `yaml:"retention"` // TTL of stored batch bodies
	Demo      string        `yaml:"demo"`      // auto (default), on, off
	// AlertRetry is how long an alert Slack (or another channel) did not
	// take waits before it is tried again (default 1m; app.Config.AlertRetry).
	AlertRetry time.Duration `yaml:"alert_retry"`
	Slack      slack.Config  `yaml:"slack"`
	// Alerts are the alert channels and routes (docs/alerts.md); with
	// them, Slack (above or from the environment) is the channel "slack".
	Alerts route.Config `yaml:"alerts"`
	// TLSCert and TLSKey (PEM files, both or neither) make serve speak
	// https, so probes on other machines can push to it (the probe refuses
	// plain http except to localhost; a self-signed certificate is trusted
	// with the probe's backend.ca_file).
	TLSCert string `yaml:"tls_cert"`
	TLSKey  string `yaml:"tls_key"`
	// path is the file it was read from, for errors ("config" without one).
	path string
}

// Source names where the config came from, for errors.
func (c Config) Source() string {
	if c.path == "" {
		return "config"
	}
	return c.path
}

// LoadConfig reads the file strictly (an empty path: an empty config): an unknown or malformed field
// stops serve with the field and line named.
func LoadConfig(path string) (Config, error) {
	c := Config{path: path}
	if path == "" {
		return c, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	if _, err := yamlpos.Decode(path, raw, &c); err != nil {
		return c, fmt.Errorf("config %w", err)
	}
	return c, nil
}

func (c *Config) Validate(path string) error {
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
	if c.AlertRetry != 0 && c.AlertRetry < time.Second {
		return bad("alert_retry", "%s is too short: at least 1s (an attempt is cut off at three quarters of it)", c.AlertRetry)
	}
	switch c.Demo {
	case "auto", "on", "off":
	default:
		return bad("demo", "%q is not auto, on or off", c.Demo)
	}
	switch {
	case c.TLSCert == "" && c.TLSKey == "":
	case c.TLSCert == "":
		return bad("tls_cert", "missing: tls_key %q is set, and TLS needs both", c.TLSKey)
	case c.TLSKey == "":
		return bad("tls_key", "missing: tls_cert %q is set, and TLS needs both", c.TLSCert)
	default:
		if _, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey); err != nil {
			return bad("tls_cert", "%s with tls_key %s: %v", c.TLSCert, c.TLSKey, err)
		}
		// The key is a secret file like the master key: held to the same mode.
		if err := wiring.CheckPrivateFile("TLS key", c.TLSKey); err != nil {
			return bad("tls_key", "%v", err)
		}
		if c.Demo == "on" {
			// The in-process demo probe pushes to serve's own address.
			return bad("demo", "on: the demo probe pushes over plain http to loopback; run it without TLS")
		}
	}
	if c.Slack.Configured() {
		if err := c.Slack.Validate(); err != nil {
			return fmt.Errorf("config %s: %w", path, err)
		}
	}
	if c.Alerts.Configured() {
		// Building checks every channel and route (file:line: field);
		// nothing is sent.
		if _, err := wiring.OpenAlerts(c.Alerts, c.Source(), c.Slack, io.Discard); err != nil {
			return err
		}
	}
	return nil
}
