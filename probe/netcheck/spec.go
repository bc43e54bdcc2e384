// Package netcheck measures the node's network the way the renter would by
// hand: ping the default gateway and other targets (count, average, p99,
// loss), time TCP connects, fetch the package mirror over HTTP(S), time DNS
// lookups, and run iperf3 to a peer node. Each measurement is judged against
// thresholds from the config and returned as wire.Checks.
//
// Steps 1 and 2 of the observation pipeline (read, judge, observe, spool,
// push): measures the network and judges each measurement.
//
// Reachability (did anything answer) is reported as its own check in the
// connectivity category, separately from quality (latency, loss, rate) in
// the network category: the backend uses the first to decide whose fault a
// gap in heartbeats was, and the second to open network-degraded incidents.
package netcheck

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"
)

// Defaults from the seed checklist: a gateway on the same network answers within
// 2 ms on average; iperf3 reaches at least 70 % of the nominal bandwidth.
const (
	DefaultGatewayMaxAvg = 2 * time.Millisecond
	DefaultIperfMinPct   = 70.0
	DefaultPingCount     = 10
	DefaultPingInterval  = 200 * time.Millisecond
	DefaultMaxLossPct    = 5.0
	DefaultTimeout       = 5 * time.Second
	DefaultIperfDuration = 10 * time.Second
	DefaultIperfPort     = 5201
)

// Spec is the `network:` section of the probe config.
type Spec struct {
	Gateway Gateway      `yaml:"gateway"`
	Ping    []PingTarget `yaml:"ping"`
	TCP     []TCPTarget  `yaml:"tcp"`
	HTTP    []HTTPTarget `yaml:"http"`
	DNS     []DNSTarget  `yaml:"dns"`
	Iperf3  *Iperf       `yaml:"iperf3"`
}

// PingOpts are how to ping and what passes.
type PingOpts struct {
	Count      int           `yaml:"count"`        // echo requests, default 10
	Interval   time.Duration `yaml:"interval"`     // between requests, default 200ms
	Timeout    time.Duration `yaml:"timeout"`      // whole run, default count×interval + 2s
	MaxAvg     time.Duration `yaml:"max_avg"`      // 0: not judged (gateway: 2ms)
	MaxP99     time.Duration `yaml:"max_p99"`      // 0: not judged
	MaxLossPct float64       `yaml:"max_loss_pct"` // default 5
}

// Gateway pings the default gateway from the routing table.
type Gateway struct {
	Disabled bool   `yaml:"disabled"`
	Address  string `yaml:"address"` // override; default from /proc/net/route
	PingOpts `yaml:",inline"`
}

// PingTarget is another host to ping.
type PingTarget struct {
	Name     string `yaml:"name"` // default: the host
	Host     string `yaml:"host"`
	PingOpts `yaml:",inline"`
}

// TCPTarget times TCP connects.
type TCPTarget struct {
	Name       string        `yaml:"name"`
	Address    string        `yaml:"address"` // host:port
	Count      int           `yaml:"count"`   // connects, default 3
	Timeout    time.Duration `yaml:"timeout"` // per connect, default 5s
	MaxConnect time.Duration `yaml:"max_connect"`
}

// HTTPTarget fetches a URL (the seed checklist's `curl -I` of the package mirror).
type HTTPTarget struct {
	Name       string        `yaml:"name"`
	URL        string        `yaml:"url"`
	Method     string        `yaml:"method"`  // HEAD (default) or GET
	Timeout    time.Duration `yaml:"timeout"` // default 5s
	MaxLatency time.Duration `yaml:"max_latency"`
}

// DNSTarget times a name lookup.
type DNSTarget struct {
	Name    string        `yaml:"name"`
	Host    string        `yaml:"host"`   // the name to resolve
	Server  string        `yaml:"server"` // ip:port; default the system resolver
	Timeout time.Duration `yaml:"timeout"`
	MaxTime time.Duration `yaml:"max_time"`
}

// Iperf is an iperf3 throughput test to a peer running `gpuprobe iperf-server`
// (or iperf3 -s).
type Iperf struct {
	Name        string        `yaml:"name"` // default "peer"
	Host        string        `yaml:"host"`
	Port        int           `yaml:"port"`     // default 5201
	Duration    time.Duration `yaml:"duration"` // default 10s
	Parallel    int           `yaml:"parallel"` // streams, default 1
	Reverse     bool          `yaml:"reverse"`  // peer sends, we receive
	NominalMbps float64       `yaml:"nominal_mbps"`
	MinPct      float64       `yaml:"min_pct"` // default 70
	Binary      string        `yaml:"binary"`  // default "iperf3"
}

// FieldError names the field of the spec that is wrong, as a path below
// `network:` (e.g. "ping[1].host").
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func bad(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

func (o *PingOpts) defaults(maxAvg time.Duration) {
	if o.Count == 0 {
		o.Count = DefaultPingCount
	}
	if o.Interval == 0 {
		o.Interval = DefaultPingInterval
	}
	if o.Timeout == 0 {
		o.Timeout = time.Duration(o.Count)*o.Interval + 2*time.Second
	}
	if o.MaxAvg == 0 {
		o.MaxAvg = maxAvg
	}
	if o.MaxLossPct == 0 {
		o.MaxLossPct = DefaultMaxLossPct
	}
}

func (o *PingOpts) validate(f string) error {
	switch {
	case o.Count < 1 || o.Count > 10000:
		return bad(f+".count", "%d is not between 1 and 10000", o.Count)
	case o.Interval < time.Millisecond:
		return bad(f+".interval", "%v is below 1ms", o.Interval)
	case o.Timeout <= 0:
		return bad(f+".timeout", "must be positive")
	case o.MaxAvg < 0:
		return bad(f+".max_avg", "must not be negative")
	case o.MaxP99 < 0:
		return bad(f+".max_p99", "must not be negative")
	case o.MaxLossPct < 0 || o.MaxLossPct > 100:
		return bad(f+".max_loss_pct", "%g is not a percentage", o.MaxLossPct)
	}
	return nil
}

// SetDefaults fills in everything the config left out.
func (s *Spec) SetDefaults() {
	s.Gateway.defaults(DefaultGatewayMaxAvg)
	for i := range s.Ping {
		p := &s.Ping[i]
		p.defaults(0)
		if p.Name == "" {
			p.Name = p.Host
		}
	}
	for i := range s.TCP {
		t := &s.TCP[i]
		if t.Name == "" {
			t.Name = t.Address
		}
		if t.Count == 0 {
			t.Count = 3
		}
		if t.Timeout == 0 {
			t.Timeout = DefaultTimeout
		}
	}
	for i := range s.HTTP {
		h := &s.HTTP[i]
		if h.Name == "" {
			if u, err := url.Parse(h.URL); err == nil {
				h.Name = u.Host
			}
		}
		if h.Method == "" {
			h.Method = "HEAD"
		}
		if h.Timeout == 0 {
			h.Timeout = DefaultTimeout
		}
	}
	for i := range s.DNS {
		d := &s.DNS[i]
		if d.Name == "" {
			d.Name = d.Host
		}
		if d.Timeout == 0 {
			d.Timeout = DefaultTimeout
		}
	}
	if p := s.Iperf3; p != nil {
		if p.Name == "" {
			p.Name = "peer"
		}
		if p.Port == 0 {
			p.Port = DefaultIperfPort
		}
		if p.Duration == 0 {
			p.Duration = DefaultIperfDuration
		}
		if p.Parallel == 0 {
			p.Parallel = 1
		}
		if p.MinPct == 0 {
			p.MinPct = DefaultIperfMinPct
		}
		if p.Binary == "" {
			p.Binary = "iperf3"
		}
	}
}

// Validate returns the first problem, as a *FieldError. Call SetDefaults first.
func (s *Spec) Validate() error {
	if err := validateGateway(s.Gateway); err != nil {
		return err
	}
	names := targetNames{}
	for i, p := range s.Ping {
		if err := validatePing(fmt.Sprintf("ping[%d]", i), p, names); err != nil {
			return err
		}
	}
	for i, t := range s.TCP {
		if err := validateTCP(fmt.Sprintf("tcp[%d]", i), t, names); err != nil {
			return err
		}
	}
	for i, h := range s.HTTP {
		if err := validateHTTP(fmt.Sprintf("http[%d]", i), h, names); err != nil {
			return err
		}
	}
	for i, d := range s.DNS {
		if err := validateDNS(fmt.Sprintf("dns[%d]", i), d, names); err != nil {
			return err
		}
	}
	if p := s.Iperf3; p != nil {
		return validateIperf(p)
	}
	return nil
}

// targetNames are the names taken so far, by kind of target: each target's
// name becomes its check's name, so two of one kind may not share one.
type targetNames map[string]string

// claim takes name for the target at field path f, or says why it cannot.
func (n targetNames) claim(kind, name, f string) error {
	if name == "" {
		return bad(f+".name", "missing")
	}
	if !validName(name) {
		return bad(f+".name", "%q may hold only letters, digits, '.', '-', '_', ':'", name)
	}
	key := kind + "/" + name
	if prev, ok := n[key]; ok {
		return bad(f+".name", "%q is already used by %s", name, prev)
	}
	n[key] = f
	return nil
}

// validateGateway checks the gateway ping, unless it is disabled.
func validateGateway(g Gateway) error {
	if g.Disabled {
		return nil
	}
	if g.Address != "" && net.ParseIP(g.Address) == nil {
		return bad("gateway.address", "%q is not an IP address", g.Address)
	}
	return g.validate("gateway")
}

// validatePing checks ping target p at field path f.
func validatePing(f string, p PingTarget, names targetNames) error {
	if p.Host == "" {
		return bad(f+".host", "missing")
	}
	if err := names.claim("ping", p.Name, f); err != nil {
		return err
	}
	return p.validate(f)
}

// validateTCP checks TCP connect target t at field path f.
func validateTCP(f string, t TCPTarget, names targetNames) error {
	host, port, err := net.SplitHostPort(t.Address)
	if err != nil || host == "" {
		return bad(f+".address", "%q is not host:port", t.Address)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return bad(f+".address", "port %q is not 1 to 65535", port)
	}
	if err := names.claim("tcp", t.Name, f); err != nil {
		return err
	}
	switch {
	case t.Count < 1 || t.Count > 100:
		return bad(f+".count", "%d is not between 1 and 100", t.Count)
	case t.Timeout <= 0:
		return bad(f+".timeout", "must be positive")
	case t.MaxConnect < 0:
		return bad(f+".max_connect", "must not be negative")
	}
	return nil
}

// validateHTTP checks HTTP(S) target h at field path f.
func validateHTTP(f string, h HTTPTarget, names targetNames) error {
	u, err := url.Parse(h.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return bad(f+".url", "%q is not an http:// or https:// URL", h.URL)
	}
	if err := names.claim("http", h.Name, f); err != nil {
		return err
	}
	switch {
	case h.Method != "HEAD" && h.Method != "GET":
		return bad(f+".method", "%q is neither HEAD nor GET", h.Method)
	case h.Timeout <= 0:
		return bad(f+".timeout", "must be positive")
	case h.MaxLatency < 0:
		return bad(f+".max_latency", "must not be negative")
	}
	return nil
}

// validateDNS checks DNS lookup target d at field path f.
func validateDNS(f string, d DNSTarget, names targetNames) error {
	if d.Host == "" {
		return bad(f+".host", "missing")
	}
	if d.Server != "" {
		if host, _, err := net.SplitHostPort(d.Server); err != nil || net.ParseIP(host) == nil {
			return bad(f+".server", "%q is not ip:port", d.Server)
		}
	}
	if err := names.claim("dns", d.Name, f); err != nil {
		return err
	}
	switch {
	case d.Timeout <= 0:
		return bad(f+".timeout", "must be positive")
	case d.MaxTime < 0:
		return bad(f+".max_time", "must not be negative")
	}
	return nil
}

// validateIperf checks the iperf3 test: a peer, sane run parameters, and
// the contracted bandwidth it is judged against.
func validateIperf(p *Iperf) error {
	switch {
	case p.Host == "":
		return bad("iperf3.host", "missing")
	case p.Port < 1 || p.Port > 65535:
		return bad("iperf3.port", "%d is not 1 to 65535", p.Port)
	case p.Duration < time.Second || p.Duration > 10*time.Minute:
		return bad("iperf3.duration", "%v is not between 1s and 10m", p.Duration)
	case p.Parallel < 1 || p.Parallel > 128:
		return bad("iperf3.parallel", "%d is not between 1 and 128", p.Parallel)
	case p.NominalMbps <= 0:
		return bad("iperf3.nominal_mbps", "missing: the bandwidth the contract promises, in Mbit/s")
	case p.MinPct <= 0 || p.MinPct > 100:
		return bad("iperf3.min_pct", "%g is not a percentage", p.MinPct)
	case !validName(p.Name):
		return bad("iperf3.name", "%q may hold only letters, digits, '.', '-', '_', ':'", p.Name)
	}
	return nil
}

// validName keeps check names stable and safe as metric label values.
func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_', r == ':':
		default:
			return false
		}
	}
	return true
}
