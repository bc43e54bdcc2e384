// Package config is the daemon's YAML configuration (`gpuprobe run
// --config FILE`, documented in docs/probe.md): where to send, who we are,
// what was ordered, when to check, what passes. Load validates everything
// and names the field and line of the first problem, so a typo never
// surfaces hours later as a silent gap in the data.
//
// It configures the daemon's observation pipeline (read, judge, observe,
// spool, push): what step 1 reads and step 2 holds it to, when step 3 runs
// each job, and the spool and backend of steps 4 and 5.
package config

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/internal/yamlpos"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/netcheck"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
)

// Defaults.
// DefaultPath is where the probe's config lives on a node: the shipped
// systemd unit (probe/deploy/gpuprobe.service) runs gpuprobe run --config
// with it, and gpusla node add tells where to save the config it prints.
const DefaultPath = "/etc/gpuprobe/probe.yaml"

const (
	DefaultHeartbeat = "30s"
	DefaultHealth    = "5m"
	DefaultNetwork   = "15m"
	DefaultStress    = "0 3 * * *" // daily 03:00 in the configured time zone
	// DefaultUsage is the usage reading (disks, interface counters, boot)
	// at the top of every hour: a month boundary in any whole-hour zone
	// falls just before one, so the readings that straddle it are minutes
	// apart from it.
	DefaultUsage = "0 * * * *"
	// DefaultStressBurn is each precision's burn in the stress job.
	DefaultStressBurn = 30 * time.Second
	// MaxSoak is the seed's 30-minute soak ("压力测试 30 分钟"); MinSoak the
	// shortest soak whose curve has quarters to compare (judge.SoakMinSamples).
	MaxSoak = 30 * time.Minute
	MinSoak = time.Minute
	// StressMargin is what the stress job needs besides its burns: GPU
	// setup, bandwidth, the memory test, the iperf3 test.
	StressMargin       = 5 * time.Minute
	DefaultQuietWindow = "02:00-05:00"
	DefaultJitter      = 5 * time.Second
	// DefaultPush is the push interval when the heartbeat is the default
	// 30 s: two heartbeats a batch halves the requests and backend writes
	// (the AWS cost goal, docs/cost.md) while the backend still sees a
	// heartbeat every 30 s. It matches the backend's default push interval
	// (functions/app.DefaultPushInterval), which its grace is set against.
	DefaultPush = 60 * time.Second
	// MaxPush bounds schedules.push: observations wait that long on the
	// node, and the backend calls a node unreachable once heartbeats are
	// overdue by more than its grace.
	MaxPush = 10 * time.Minute
	// DefaultTimeout is backend.timeout: a request that hangs delays the
	// retry that would end an outage in the backend's books, so it is
	// kept well under the 30 s heartbeat interval.
	DefaultTimeout = 10 * time.Second
	// DefaultMinBackoff and DefaultMaxBackoff are the retry delays'
	// bounds; with a plain-duration heartbeat the longest defaults to half
	// its interval when that is shorter (validateRetry).
	DefaultMinBackoff = time.Second
	DefaultMaxBackoff = 5 * time.Minute
	// DefaultLinkCheck is backend.link_check (or half the heartbeat
	// interval when that is shorter); MinLinkCheck the shortest allowed.
	DefaultLinkCheck   = 5 * time.Second
	MinLinkCheck       = 10 * time.Millisecond
	DefaultSpoolDir    = "/var/lib/gpuprobe/spool"
	DefaultSpoolBytes  = 64 << 20
	DefaultIdleUtilPct = 5.0
	// MinSecretBytes keeps HMAC keys from being guessable passwords.
	MinSecretBytes = 16
)

// Config is the whole file.
type Config struct {
	Node       string          `yaml:"node"`
	Backend    Backend         `yaml:"backend"`
	SecretFile string          `yaml:"secret_file"`
	TimeZone   string          `yaml:"timezone"`
	Schedules  Schedules       `yaml:"schedules"`
	Stress     Stress          `yaml:"stress"`
	Network    netcheck.Spec   `yaml:"network"`
	Spool      Spool           `yaml:"spool"`
	Metrics    Metrics         `yaml:"metrics"`
	Expected   expect.Expected `yaml:"expected"`
	// Enrol, instead of node and secret_file, registers the probe with a
	// renter's enrolment token on its first start (enrol.go).
	Enrol Enrol `yaml:"enrol"`
	// HostRoot is where the host's /proc and /sys are read: "/" on the
	// machine; "/host" in the Kubernetes DaemonSet, which mounts them
	// there read-only.
	HostRoot string `yaml:"host_root"`
	// Kubernetes says how the probe treats pods (kube.go).
	Kubernetes Kubernetes `yaml:"kubernetes"`
	// GPUSnapshot, when set, makes the health job judge the GPU readings of
	// this recorded snapshot (gpuprobe snapshot), re-read on every run:
	// replaying a machine's readings on one without its GPUs (the
	// end-to-end tests; a dry run of a config before deployment).
	GPUSnapshot string `yaml:"gpu_snapshot"`

	// Resolved by Load.
	Path     string         `yaml:"-"`
	Location *time.Location `yaml:"-"`
	Secret   []byte         `yaml:"-"`
}

// Backend is where batches go.
type Backend struct {
	URL        string        `yaml:"url"`         // the ingest endpoint, e.g. https://…/v1/batches
	Timeout    time.Duration `yaml:"timeout"`     // per request, default 10s
	MinBackoff time.Duration `yaml:"min_backoff"` // first retry delay, default 1s
	// MaxBackoff is the longest retry delay: by default half the heartbeat
	// interval (at most 5m), and never longer than the interval, because
	// after a cut the backend hears the node again only at its next retry
	// and ends the outage in its books then.
	MaxBackoff time.Duration `yaml:"max_backoff"`
	// LinkCheck is how often the daemon opens a TCP connection to the
	// backend's host:port to record when the link went down and came back
	// (probe/linkwatch): a Go duration shorter than the heartbeat interval,
	// or off (or 0). Default 5s, or half the heartbeat interval when that is
	// shorter.
	LinkCheck string `yaml:"link_check"`
	// LinkEvery is LinkCheck parsed (Load); 0 is off.
	LinkEvery time.Duration `yaml:"-"`
	// CAFile is a PEM file of the certificates to trust for an https
	// backend instead of the system's roots: a `gpusla serve --tls-cert`
	// with its own (self-signed) certificate. Relative to the config file.
	CAFile string `yaml:"ca_file"`
	// RootCAs is CAFile read (Load); nil: the system's roots.
	RootCAs *x509.CertPool `yaml:"-"`
}

// Schedules say when each job runs: a Go duration ("30s": every 30 s from
// start), a cron expression in the configured time zone ("0 3 * * *"), a
// descriptor ("@daily", "@every 1h"), or "off".
type Schedules struct {
	Heartbeat string        `yaml:"heartbeat"`
	Health    string        `yaml:"health"`
	Network   string        `yaml:"network"`
	Stress    string        `yaml:"stress"` // stress and bandwidth (incl. iperf3)
	Usage     string        `yaml:"usage"`  // disks, interface byte counters, boot: what bill lines are held to
	Jitter    time.Duration `yaml:"jitter"` // random delay before each run, default 5s
	// Push is how often observations are sealed into a batch and sent: a
	// Go duration, at least the heartbeat interval, or 0 for each
	// observation at once. Default: 60s with the default 30s heartbeat,
	// otherwise 0. A failing check is always sent at once.
	Push string `yaml:"push"`

	// Parsed by Load; nil means off.
	HeartbeatEvery cron.Schedule `yaml:"-"`
	// HeartbeatInterval is the time between heartbeats; PushEvery the push
	// interval, 0 when each observation is pushed at once.
	HeartbeatInterval time.Duration `yaml:"-"`
	PushEvery         time.Duration `yaml:"-"`
	HealthEvery       cron.Schedule `yaml:"-"`
	NetworkEvery      cron.Schedule `yaml:"-"`
	StressEvery       cron.Schedule `yaml:"-"`
	UsageEvery        cron.Schedule `yaml:"-"`
}

// Stress says when the heavy jobs may run.
type Stress struct {
	QuietWindow   string        `yaml:"quiet_window"`     // "HH:MM-HH:MM" local to timezone
	MaxGPUUtilPct float64       `yaml:"max_gpu_util_pct"` // GPUs count as idle at or below this
	Timeout       time.Duration `yaml:"timeout"`          // default 1h
	// Burn is each precision's burn in the stress job (default 30s, up
	// to the seed's 30-minute soak); Soak, when set, adds one long burn
	// whose per-second throughput curve is judged for stability (0: off;
	// 1m to 30m).
	Burn time.Duration `yaml:"burn"`
	Soak time.Duration `yaml:"soak"`

	Window Window `yaml:"-"`
}

// Spool is the on-disk outbox.
type Spool struct {
	Dir      string   `yaml:"dir"`
	MaxBytes ByteSize `yaml:"max_bytes"`
}

// Metrics is the optional Prometheus endpoint.
type Metrics struct {
	Listen string `yaml:"listen"` // loopback host:port; empty: off
	// Remote allows a listen address that is not loopback: a Kubernetes
	// DaemonSet on the host network, scraped by Prometheus (a
	// ServiceMonitor). The page holds check names, figures and GPU UUIDs,
	// never a secret.
	Remote bool `yaml:"remote"`
}

// Error names the file, line and field of a problem: the form every
// configuration of the project reports in (internal/yamlpos).
type Error = yamlpos.Error

// Load reads and validates the file at path, and reads the secret.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := parse(data, path, (*Config).applyEnrolment)
	if err != nil {
		return nil, err
	}
	if !c.Enrol.Enabled() {
		if err := c.readSecret(); err != nil {
			return nil, err
		}
	}
	if err := c.readCAFile(); err != nil {
		return nil, err
	}
	return c, nil
}

// readCAFile loads backend.ca_file into Backend.RootCAs: every block must
// be a certificate, and there must be one at least, so a wrong file (a
// key, an empty one) is an error here rather than a TLS failure later.
func (c *Config) readCAFile() error {
	if c.Backend.CAFile == "" {
		return nil
	}
	p := c.Backend.CAFile
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(c.Path), p)
	}
	bad := func(format string, a ...any) error {
		return &Error{File: c.Path, Field: "backend.ca_file", Msg: fmt.Sprintf(format, a...)}
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		return bad("%v", err)
	}
	pool := x509.NewCertPool()
	n := 0
	for rest := raw; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return bad("%s: holds a %q block; want certificates only", p, block.Type)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return bad("%s: certificate %d: %v", p, n+1, err)
		}
		pool.AddCert(cert)
		n++
	}
	if n == 0 {
		return bad("%s: no PEM certificate in it", p)
	}
	c.Backend.RootCAs = pool
	return nil
}

// Parse decodes and validates data (named name in errors) without touching
// the secret file.
func Parse(data []byte, name string) (*Config, error) { return parse(data, name, nil) }

// parse is Parse with a step between decoding and validation (Load's: what
// an enrolment gave), whose errors are placed like validation's.
func parse(data []byte, name string, between func(*Config) error) (*Config, error) {
	c := &Config{Path: name}
	top, err := yamlpos.Decode(name, data, c)
	if err != nil {
		return nil, err
	}
	if top == nil {
		return nil, &Error{File: name, Msg: "empty file"}
	}
	if between != nil {
		if err := between(c); err != nil {
			return nil, placed(err, name, top)
		}
	}
	if err := c.validate(); err != nil {
		return nil, placed(err, name, top)
	}
	return c, nil
}

// placed gives a validation error the file and, when it names none, the
// line of its field.
func placed(err error, name string, top *yaml.Node) error {
	var fe *Error
	if errors.As(err, &fe) {
		fe.File = name
		if fe.Line == 0 {
			fe.Line = yamlpos.Line(top, fe.Field)
		}
	}
	return err
}

// LoadNetwork reads the `network:` section of the config at path, for
// `gpuprobe check --config`: the daemon's own sections (node, backend,
// secret) need not be there, but every key present must be known, and the
// section gets the defaults and validation Load gives it. A file without
// the section yields the defaults (the gateway ping alone).
func LoadNetwork(path string) (netcheck.Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return netcheck.Spec{}, fmt.Errorf("config: %w", err)
	}
	return ParseNetwork(data, path)
}

// ParseNetwork is LoadNetwork on bytes (named name in errors).
func ParseNetwork(data []byte, name string) (netcheck.Spec, error) {
	var c Config
	top, err := yamlpos.Decode(name, data, &c)
	if err != nil {
		return netcheck.Spec{}, err
	}
	if err := validateNetwork(&c.Network); err != nil {
		return netcheck.Spec{}, placed(err, name, top)
	}
	return c.Network, nil
}

// validateNetwork fills in the section's defaults and names its first
// problem as a field below network:.
func validateNetwork(n *netcheck.Spec) error {
	n.SetDefaults()
	if err := n.Validate(); err != nil {
		var fe *netcheck.FieldError
		if errors.As(err, &fe) {
			return &Error{Field: "network." + fe.Field, Msg: fe.Msg}
		}
		return &Error{Field: "network", Msg: err.Error()}
	}
	return nil
}

// validate checks the sections in the order of the file, filling in
// defaults as it goes, and returns the first problem as an *Error naming
// its field.
func (c *Config) validate() error {
	for _, step := range []func() error{
		c.validateEnrol,
		c.validateIdentity,
		c.validateTimeZone,
		c.Schedules.validate,
		// The backend's retry delays and link check are bounded by the
		// heartbeat interval, so they come after the schedules.
		func() error { return c.Backend.validateRetry(c.Schedules.HeartbeatEvery) },
		func() error { return c.Backend.validateLink(c.Schedules.HeartbeatEvery) },
		c.Stress.validate,
		func() error { return validateNetwork(&c.Network) },
		c.Spool.validate,
		c.Metrics.validate,
		c.validateExpected,
		c.validateHost,
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// badField is the *Error of one field; Parse adds the file and line.
func badField(field, format string, args ...any) error {
	return &Error{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// validateIdentity checks who we are and where we send, first: the node
// id, a backend URL that is https (or http to localhost) without
// credentials, and the secret the node signs with.
func (c *Config) validateIdentity() error {
	if c.Node == "" && !c.Enrol.Enabled() {
		return badField("node", "missing: the node id the backend knows this machine by (or an enrol: section, to register with a renter's token)")
	}
	if c.Node != "" && !wire.ValidNodeID(c.Node) {
		return badField("node", "%q is not a node id (letters, digits, '.', '_', '-'; 1 to 64)", c.Node)
	}
	if c.Backend.URL == "" {
		return badField("backend.url", "missing: the backend's ingest URL, e.g. https://sla.example.com/v1/batches")
	}
	u, err := url.Parse(c.Backend.URL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return badField("backend.url", "%q is not an http(s) URL", c.Backend.URL)
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return badField("backend.url", "%q: plain http is allowed only to localhost; use https", c.Backend.URL)
	}
	if u.User != nil {
		return badField("backend.url", "must not carry credentials; the node signs with secret_file")
	}
	if c.Backend.CAFile != "" && u.Scheme != "https" {
		return badField("backend.ca_file", "is for an https backend.url; %q is plain http", c.Backend.URL)
	}
	if c.SecretFile == "" && !c.Enrol.Enabled() {
		return badField("secret_file", "missing: a file holding this node's HMAC secret (or an enrol: section, to register with a renter's token)")
	}
	return nil
}

// validateRetry defaults and checks the request timeout and the retry
// backoff. With a heartbeat that is a plain duration the longest delay
// defaults to half its interval and may not exceed it: after a cut the
// backend hears the node again only at its next retry, and ends the
// outage in its books then, so a longer wait would count as outage time
// the link was already back for. (A cron heartbeat's interval need not be
// regular, so it bounds nothing.)
func (b *Backend) validateRetry(heartbeat cron.Schedule) error {
	hb, plain := heartbeat.(Every)
	interval := time.Duration(hb)
	if b.Timeout == 0 {
		b.Timeout = DefaultTimeout
	}
	switch {
	case b.Timeout < 0:
		return badField("backend.timeout", "must be positive")
	case b.MinBackoff < 0:
		return badField("backend.min_backoff", "must be positive")
	case b.MaxBackoff < 0:
		return badField("backend.max_backoff", "must be positive")
	case plain && b.MinBackoff > interval:
		return badField("backend.min_backoff", "%v is longer than the heartbeat interval %v: the first retry after a cut would come later than the next heartbeat was due",
			b.MinBackoff, interval)
	}
	if b.MaxBackoff == 0 {
		b.MaxBackoff = DefaultMaxBackoff
		if plain {
			b.MaxBackoff = min(DefaultMaxBackoff, interval/2)
		}
		b.MaxBackoff = max(b.MaxBackoff, b.MinBackoff)
	}
	if b.MinBackoff == 0 {
		b.MinBackoff = min(DefaultMinBackoff, b.MaxBackoff)
	}
	switch {
	case b.MaxBackoff < b.MinBackoff:
		return badField("backend.max_backoff", "%v is below min_backoff %v", b.MaxBackoff, b.MinBackoff)
	case plain && b.MaxBackoff > interval:
		return badField("backend.max_backoff", "%v is longer than the heartbeat interval %v: after a cut the backend hears the node again only at its next retry and ends the outage then, so a longer wait would count as outage time",
			b.MaxBackoff, interval)
	}
	return nil
}

// validateLink parses backend.link_check: off (or 0), or a duration
// shorter than a plain-duration heartbeat's interval, since the point is
// a finer record of the link than the heartbeats give. Unset, it is
// DefaultLinkCheck, or half the heartbeat interval when that is shorter
// (a test heartbeat of 1s), so a config that never names it stays valid.
func (b *Backend) validateLink(heartbeat cron.Schedule) error {
	hb, plain := heartbeat.(Every)
	interval := time.Duration(hb)
	s := strings.TrimSpace(b.LinkCheck)
	if s == "" {
		b.LinkEvery = DefaultLinkCheck
		if plain {
			b.LinkEvery = min(DefaultLinkCheck, interval/2)
		}
		b.LinkCheck = b.LinkEvery.String()
		return nil
	}
	if s == "off" {
		b.LinkEvery = 0
		return nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return badField("backend.link_check", "%q is not a duration (5s), or off", b.LinkCheck)
	case d < 0:
		return badField("backend.link_check", "%q is negative", b.LinkCheck)
	case d > 0 && d < MinLinkCheck:
		return badField("backend.link_check", "%v is shorter than %v", d, MinLinkCheck)
	case plain && d >= interval:
		return badField("backend.link_check", "%v is not shorter than the heartbeat interval %v: the heartbeats already record the link that finely",
			d, interval)
	}
	b.LinkEvery = d
	return nil
}

// validateTimeZone resolves timezone (default UTC), which the cron
// schedules and the quiet window are read in.
func (c *Config) validateTimeZone() error {
	if c.TimeZone == "" {
		c.TimeZone = "UTC"
	}
	loc, err := time.LoadLocation(c.TimeZone)
	if err != nil {
		return badField("timezone", "%q is not an IANA time zone (e.g. Asia/Shanghai): %v", c.TimeZone, err)
	}
	c.Location = loc
	return nil
}

// validate parses each job's schedule (a default where unset; only the
// heartbeat may not be off), then the push interval and the jitter.
func (s *Schedules) validate() error {
	for _, f := range []struct {
		name string
		spec *string
		def  string
		out  *cron.Schedule
		off  bool
	}{
		{"heartbeat", &s.Heartbeat, DefaultHeartbeat, &s.HeartbeatEvery, false},
		{"health", &s.Health, DefaultHealth, &s.HealthEvery, true},
		{"network", &s.Network, DefaultNetwork, &s.NetworkEvery, true},
		{"stress", &s.Stress, DefaultStress, &s.StressEvery, true},
		{"usage", &s.Usage, DefaultUsage, &s.UsageEvery, true},
	} {
		if *f.spec == "" {
			*f.spec = f.def
		}
		sch, err := ParseSchedule(*f.spec)
		if err != nil {
			return badField("schedules."+f.name, "%v", err)
		}
		if sch == nil && !f.off {
			return badField("schedules."+f.name, "cannot be off: the backend counts a missing heartbeat as an outage")
		}
		*f.out = sch
	}
	if err := s.resolvePush(); err != nil {
		return err
	}
	if s.Jitter == 0 {
		s.Jitter = DefaultJitter
	}
	if s.Jitter < 0 || s.Jitter > time.Hour {
		return badField("schedules.jitter", "%v is not between 0 and 1h", s.Jitter)
	}
	return nil
}

// validate defaults and checks when the stress job may run and how long
// its burns and soak take: together they must fit in its timeout.
func (s *Stress) validate() error {
	if s.QuietWindow == "" {
		s.QuietWindow = DefaultQuietWindow
	}
	w, err := ParseWindow(s.QuietWindow)
	if err != nil {
		return badField("stress.quiet_window", "%v", err)
	}
	s.Window = w
	if s.MaxGPUUtilPct == 0 {
		s.MaxGPUUtilPct = DefaultIdleUtilPct
	}
	if s.MaxGPUUtilPct < 0 || s.MaxGPUUtilPct > 100 {
		return badField("stress.max_gpu_util_pct", "%g is not a percentage", s.MaxGPUUtilPct)
	}
	if s.Timeout == 0 {
		s.Timeout = time.Hour
	}
	if s.Timeout < 0 {
		return badField("stress.timeout", "must be positive")
	}
	if s.Burn == 0 {
		s.Burn = DefaultStressBurn
	}
	if s.Burn < time.Second || s.Burn > MaxSoak {
		return badField("stress.burn", "%v is not between 1s and %v (the seed's 30-minute soak)", s.Burn, MaxSoak)
	}
	if s.Soak != 0 && (s.Soak < MinSoak || s.Soak > MaxSoak) {
		return badField("stress.soak", "%v is not between %v and %v (0: no soak)", s.Soak, MinSoak, MaxSoak)
	}
	// Five precisions, the soak, and a margin for the bandwidth, memory
	// and iperf3 tests must fit in the job's timeout, else every run
	// would be cancelled before it finished.
	if need := 5*s.Burn + s.Soak + StressMargin; need > s.Timeout {
		field := "stress.burn"
		if s.Soak > 0 {
			field = "stress.soak"
		}
		return badField(field, "the stress job's burns (5 × %v), soak (%v) and other tests (%v) take %v, more than stress.timeout %v",
			s.Burn, s.Soak, StressMargin, need, s.Timeout)
	}
	return nil
}

// validate defaults the spool's directory and cap; the cap must hold two
// full batches.
func (s *Spool) validate() error {
	if s.Dir == "" {
		s.Dir = DefaultSpoolDir
	}
	if s.MaxBytes == 0 {
		s.MaxBytes = DefaultSpoolBytes
	}
	if s.MaxBytes < 2*wire.MaxBodyBytes {
		return badField("spool.max_bytes", "%d is below the minimum of %d (two full batches)", s.MaxBytes, 2*wire.MaxBodyBytes)
	}
	return nil
}

// validate keeps the optional metrics endpoint on loopback.
func (m *Metrics) validate() error {
	if m.Listen == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(m.Listen)
	if err != nil || port == "" {
		return badField("metrics.listen", "%q is not host:port", m.Listen)
	}
	if !isLoopback(host) && !m.Remote {
		return badField("metrics.listen", "%q: the metrics endpoint may listen only on localhost (127.0.0.1, ::1), unless metrics.remote: true (for a scraper on another machine)", m.Listen)
	}
	return nil
}

// validateExpected checks what was ordered: a model the spec database
// knows, and the fields expect itself validates.
func (c *Config) validateExpected() error {
	if c.Expected.Model != "" {
		// An order naming a model the probe cannot judge is bad input, not
		// a failing card.
		if _, err := specdb.Default().Resolve(c.Expected.Model); err != nil {
			return badField("expected.model", "%v", err)
		}
	}
	if err := c.Expected.Validate(); err != nil {
		// expect names the field as "expected.x: message".
		field, msg, ok := strings.Cut(err.Error(), ": ")
		if !ok {
			return badField("expected", "%v", err)
		}
		return badField(field, "%s", msg)
	}
	return nil
}

// resolvePush sets PushEvery from schedules.push. Unset, it is 60 s when
// the heartbeat is the default 30 s and 0 (push each observation at once)
// otherwise, so that a config with a short test heartbeat and no push
// setting still delivers each heartbeat promptly.
func (s *Schedules) resolvePush() error {
	hb := Interval(s.HeartbeatEvery)
	s.HeartbeatInterval = hb
	bad := func(format string, args ...any) error {
		return &Error{Field: "schedules.push", Msg: fmt.Sprintf(format, args...)}
	}
	if strings.TrimSpace(s.Push) == "" {
		if hb == 30*time.Second {
			s.Push, s.PushEvery = DefaultPush.String(), DefaultPush
		} else {
			s.Push, s.PushEvery = "0", 0
		}
		return nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s.Push))
	switch {
	case err != nil:
		return bad("%q is not a duration (60s), or 0 to push each observation at once", s.Push)
	case d < 0:
		return bad("%q is negative", s.Push)
	case d > 0 && d < hb:
		return bad("%s is shorter than the heartbeat interval %s; use 0 to push each observation at once", d, hb)
	case d > MaxPush:
		return bad("%s is longer than %s: observations would wait that long on the node", d, MaxPush)
	}
	if d <= hb {
		d = 0 // one heartbeat a batch: the same as pushing each at once
	}
	s.PushEvery = d
	return nil
}

// Interval is the time between two runs of a schedule (for a cron spec,
// between its next two runs after a fixed instant).
func Interval(sch cron.Schedule) time.Duration {
	if e, ok := sch.(Every); ok {
		return time.Duration(e)
	}
	if sch == nil {
		return 0
	}
	t := sch.Next(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC))
	return sch.Next(t).Sub(t)
}

func (c *Config) readSecret() error {
	p := c.SecretFile
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(c.Path), p)
	}
	st, err := os.Stat(p)
	if err != nil {
		return &Error{File: c.Path, Field: "secret_file", Msg: err.Error()}
	}
	if st.Mode().Perm()&0o077 != 0 {
		return &Error{File: c.Path, Field: "secret_file",
			Msg: fmt.Sprintf("%s is readable by others (mode %04o); chmod 600 it", p, st.Mode().Perm())}
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		return &Error{File: c.Path, Field: "secret_file", Msg: err.Error()}
	}
	secret := bytes.TrimSpace(raw)
	if len(secret) < MinSecretBytes {
		return &Error{File: c.Path, Field: "secret_file",
			Msg: fmt.Sprintf("%s holds %d bytes; a secret needs at least %d", p, len(secret), MinSecretBytes)}
	}
	c.Secret = secret
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
