package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/netcheck"
)

func TestLoadFullExample(t *testing.T) {
	os.Chmod("testdata/secret", 0o600) // git does not keep the mode
	c, err := Load("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Node != "gpu-node-01" || c.Location.String() != "Asia/Shanghai" || len(c.Secret) < MinSecretBytes {
		t.Fatalf("identity: %+v", c)
	}
	if c.Spool.MaxBytes != 64<<20 || c.Metrics.Listen != "127.0.0.1:9464" {
		t.Fatalf("spool/metrics: %+v %+v", c.Spool, c.Metrics)
	}
	if c.Schedules.HeartbeatEvery != Every(30*time.Second) || c.Schedules.StressEvery == nil || c.Schedules.PushEvery != time.Minute {
		t.Fatalf("schedules: %+v", c.Schedules)
	}
	if c.Network.Gateway.MaxAvg != 2*time.Millisecond || c.Network.Iperf3.MinPct != 70 || c.Network.Iperf3.Port != 5201 {
		t.Fatalf("network: %+v", c.Network)
	}
	if c.Expected.GPUs != 8 || c.Expected.Model != "H200" || len(c.Expected.Disks) != 1 {
		t.Fatalf("expected: %+v", c.Expected)
	}
	if w := c.Stress.Window; w.String() != "02:00-05:00" {
		t.Fatalf("window %v", w)
	}
	if c.Stress.Burn != 30*time.Second || c.Stress.Soak != 10*time.Minute {
		t.Fatalf("burn %v soak %v", c.Stress.Burn, c.Stress.Soak)
	}
	if b := c.Backend; b.Timeout != 10*time.Second || b.MinBackoff != time.Second || b.MaxBackoff != 15*time.Second || b.LinkEvery != 5*time.Second {
		t.Fatalf("backend: %+v", b)
	}
}

func TestDefaults(t *testing.T) {
	c, err := Parse([]byte("node: n1\nbackend: {url: 'http://127.0.0.1:8080/v1/batches'}\nsecret_file: /s\n"), "min.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Schedules.Heartbeat != "30s" || c.Schedules.Health != "5m" || c.Schedules.Network != "15m" ||
		c.Schedules.Stress != DefaultStress || c.Location != time.UTC {
		t.Fatalf("schedule defaults: %+v", c.Schedules)
	}
	if c.Network.Gateway.MaxAvg != netcheck.DefaultGatewayMaxAvg || c.Spool.Dir != DefaultSpoolDir || c.Metrics.Listen != "" {
		t.Fatalf("defaults: %+v", c)
	}
	if b := c.Backend; b.Timeout != 10*time.Second || b.MinBackoff != time.Second || b.MaxBackoff != 15*time.Second ||
		b.LinkEvery != 5*time.Second || b.LinkCheck != "5s" {
		t.Fatalf("backend defaults: %+v", b)
	}
}

// The retry delays and the link check against the heartbeat: defaults
// follow a plain-duration heartbeat (half its interval, capped at 5m for
// max_backoff and 5s for link_check), a max_backoff longer than the
// interval or a link_check not shorter than it is refused naming the
// field, and a cron heartbeat bounds nothing.
func TestBackoffAndLinkCheckAgainstTheHeartbeat(t *testing.T) {
	cases := []struct {
		backend, schedules string
		min, max, link     time.Duration
		err                string
	}{
		{"", "", time.Second, 15 * time.Second, 5 * time.Second, ""},
		{"", "heartbeat: 1h", time.Second, 5 * time.Minute, 5 * time.Second, ""},
		{"", "heartbeat: 5s", time.Second, 2500 * time.Millisecond, 2500 * time.Millisecond, ""},
		{"", "heartbeat: 100ms", 50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, ""},
		{"", "heartbeat: '@every 1m'", time.Second, 5 * time.Minute, 5 * time.Second, ""},
		{"", "heartbeat: '*/5 * * * *'", time.Second, 5 * time.Minute, 5 * time.Second, ""},
		{"max_backoff: 30s", "", time.Second, 30 * time.Second, 5 * time.Second, ""},
		{"min_backoff: 20s", "", 20 * time.Second, 20 * time.Second, 5 * time.Second, ""},
		{"max_backoff: 100ms", "heartbeat: 100ms", 100 * time.Millisecond, 100 * time.Millisecond, 50 * time.Millisecond, ""},
		{"max_backoff: 5m", "heartbeat: '@every 1m'", time.Second, 5 * time.Minute, 5 * time.Second, ""},
		{"link_check: 'off'", "", time.Second, 15 * time.Second, 0, ""},
		{"link_check: 0", "", time.Second, 15 * time.Second, 0, ""},
		{"link_check: 29s", "", time.Second, 15 * time.Second, 29 * time.Second, ""},
		{"link_check: 2m", "heartbeat: '@every 5m'", time.Second, 5 * time.Minute, 2 * time.Minute, ""},
		{"max_backoff: 5m", "", 0, 0, 0, "backend.max_backoff: 5m0s is longer than the heartbeat interval 30s"},
		{"max_backoff: 31s", "", 0, 0, 0, "backend.max_backoff: 31s is longer than the heartbeat interval 30s"},
		{"max_backoff: 200ms", "heartbeat: 100ms", 0, 0, 0, "backend.max_backoff: 200ms is longer than the heartbeat interval 100ms"},
		{"min_backoff: 2s\n  max_backoff: 1s", "", 0, 0, 0, "backend.max_backoff: 1s is below min_backoff 2s"},
		{"min_backoff: 1m", "", 0, 0, 0, "backend.min_backoff: 1m0s is longer than the heartbeat interval 30s"},
		{"max_backoff: -1s", "", 0, 0, 0, "backend.max_backoff: must be positive"},
		{"link_check: 30s", "", 0, 0, 0, "backend.link_check: 30s is not shorter than the heartbeat interval 30s"},
		{"link_check: 1m", "", 0, 0, 0, "backend.link_check: 1m0s is not shorter than the heartbeat interval 30s"},
		{"link_check: -5s", "", 0, 0, 0, `backend.link_check: "-5s" is negative`},
		{"link_check: often", "", 0, 0, 0, `backend.link_check: "often" is not a duration`},
		{"link_check: 1ms", "", 0, 0, 0, "backend.link_check: 1ms is shorter than 10ms"},
	}
	for _, c := range cases {
		doc := "node: n1\nbackend:\n  url: http://127.0.0.1:8080/v1/batches\n"
		if c.backend != "" {
			doc += "  " + c.backend + "\n"
		}
		doc += "secret_file: /s\n"
		if c.schedules != "" {
			doc += "schedules:\n  " + c.schedules + "\n"
		}
		cfg, err := Parse([]byte(doc), "b.yaml")
		if c.err != "" {
			// The line of the field named, here always one below url.
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "b.yaml:4:") &&
				!strings.HasPrefix(err.Error(), "b.yaml:5:") {
				t.Errorf("%q: error %v, want %q at its line", doc, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", doc, err)
			continue
		}
		if b := cfg.Backend; b.MinBackoff != c.min || b.MaxBackoff != c.max || b.LinkEvery != c.link {
			t.Errorf("%q: min %v max %v link %v, want %v %v %v", doc, b.MinBackoff, b.MaxBackoff, b.LinkEvery, c.min, c.max, c.link)
		}
	}
}

// Each broken file must be refused with the field and line named.
func TestErrorsNameFieldAndLine(t *testing.T) {
	base := "node: n1\nbackend:\n  url: https://b.example/v1/batches\nsecret_file: /s\n"
	cases := []struct{ doc, want string }{
		{"", "x.yaml: empty file"},
		{"- a\n", "x.yaml:1: the top level must be a mapping"},
		{"backend: {url: https://b/}\nsecret_file: /s\n", "x.yaml:1: node: missing"},
		{"node: 'bad id'\n", `x.yaml:1: node: "bad id" is not a node id`},
		{"node: n1\nbackend:\n  url: http://sla.example.com/\nsecret_file: /s\n", "x.yaml:3: backend.url: \"http://sla.example.com/\": plain http is allowed only to localhost"},
		{"node: n1\nbackend:\n  url: https://b/\n", "x.yaml:1: secret_file: missing"},
		{base + "backend_url: x\n", "x.yaml:5: backend_url: unknown field"},
		{base + "network:\n  ping:\n    - host: 10.0.0.1\n      cout: 5\n", "x.yaml:8: network.ping[0].cout: unknown field"},
		{base + "timezone: Mars/Olympus\n", `x.yaml:5: timezone: "Mars/Olympus" is not an IANA time zone`},
		{base + "schedules:\n  health: every five minutes\n", `x.yaml:6: schedules.health: "every five minutes" is neither`},
		{base + "schedules:\n  heartbeat: \"off\"\n", "x.yaml:6: schedules.heartbeat: cannot be off"},
		{base + "schedules:\n  jitter: 5 seconds\n", "x.yaml:6: schedules.jitter:"},
		{base + "stress:\n  quiet_window: 2am-5am\n", `x.yaml:6: stress.quiet_window: "2am" is not a time of day`},
		{base + "stress:\n  burn: 45m\n", "x.yaml:6: stress.burn: 45m0s is not between 1s and 30m0s"},
		{base + "stress:\n  soak: 10s\n", "x.yaml:6: stress.soak: 10s is not between 1m0s and 30m0s"},
		{base + "stress:\n  burn: 12m\n", "x.yaml:6: stress.burn: the stress job's burns (5 × 12m0s), soak (0s) and other tests (5m0s) take 1h5m0s, more than stress.timeout 1h0m0s"},
		{base + "stress:\n  timeout: 30m\n  soak: 30m\n", "x.yaml:7: stress.soak: the stress job's burns (5 × 30s), soak (30m0s) and other tests (5m0s) take 37m30s"},
		{base + "network:\n  ping:\n    - {name: a, host: h1}\n    - {name: a, host: h2}\n", `x.yaml:8: network.ping[1].name: "a" is already used by ping[0]`},
		{base + "network:\n  tcp:\n    - address: nohost\n", `x.yaml:7: network.tcp[0].address: "nohost" is not host:port`},
		{base + "network:\n  iperf3:\n    host: 10.0.0.2\n", "x.yaml:6: network.iperf3.nominal_mbps: missing"},
		{base + "network:\n  gateway:\n    max_loss_pct: 120\n", "x.yaml:7: network.gateway.max_loss_pct: 120 is not a percentage"},
		{base + "spool:\n  max_bytes: 1KiB\n", "x.yaml:6: spool.max_bytes: 1024 is below the minimum"},
		{base + "spool:\n  max_bytes: lots\n", "x.yaml:6: spool.max_bytes: \"lots\" is not a size"},
		{base + "metrics:\n  listen: 0.0.0.0:9464\n", `x.yaml:6: metrics.listen: "0.0.0.0:9464": the metrics endpoint may listen only on localhost`},
		{base + "expected:\n  gpus: -1\n", "x.yaml:6: expected.gpus: -1 is negative"},
		{base + "expected:\n  gpus: eight\n", "x.yaml:6: expected.gpus: cannot unmarshal"},
		{base + "expected:\n  model: Voodoo 5\n", `x.yaml:6: expected.model: model "Voodoo 5" is not in the spec database`},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.doc), "x.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want %q", c.doc, err, c.want)
		}
	}
}

func TestSecretFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "probe.yaml")
	os.WriteFile(cfg, []byte("node: n1\nbackend: {url: 'https://b/'}\nsecret_file: key\n"), 0o600)
	if _, err := Load(cfg); err == nil || !strings.Contains(err.Error(), "secret_file") {
		t.Fatalf("missing secret: %v", err)
	}
	key := filepath.Join(dir, "key")
	os.WriteFile(key, []byte("short\n"), 0o600)
	if _, err := Load(cfg); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Fatalf("short secret: %v", err)
	}
	os.WriteFile(key, []byte("0123456789abcdef0123\n"), 0o644)
	os.Chmod(key, 0o644)
	if _, err := Load(cfg); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable secret: %v", err)
	}
	os.Chmod(key, 0o600)
	c, err := Load(cfg)
	if err != nil || string(c.Secret) != "0123456789abcdef0123" {
		t.Fatalf("secret %q %v", c.Secret, err)
	}
}

// backend.ca_file: read at Load into RootCAs, relative to the config;
// a file without certificates, or with a key in it, is refused by name;
// and it is only for an https backend.
func TestCAFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "key"), []byte("0123456789abcdef0123\n"), 0o600)
	ca, err := os.ReadFile("testdata/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "ca.pem"), ca, 0o644)
	os.WriteFile(filepath.Join(dir, "empty.pem"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "key.pem"), append(append([]byte{}, ca...), "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"...), 0o644)
	load := func(caFile string) (*Config, error) {
		cfg := filepath.Join(dir, "probe.yaml")
		os.WriteFile(cfg, []byte("node: n1\nbackend:\n  url: https://127.0.0.1:8443/v1/batches\n  ca_file: "+caFile+"\nsecret_file: key\n"), 0o600)
		return Load(cfg)
	}
	c, err := load("ca.pem")
	if err != nil || c.Backend.RootCAs == nil {
		t.Fatalf("good CA file: %v", err)
	}
	for file, want := range map[string]string{
		"missing.pem": "backend.ca_file: open", "empty.pem": "no PEM certificate", "key.pem": `holds a "PRIVATE KEY" block`,
	} {
		if _, err := load(file); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ca_file %s: %v, want %q", file, err, want)
		}
	}
	if c, err := Parse([]byte("node: n1\nbackend:\n  url: https://b/\nsecret_file: key\n"), "x.yaml"); err != nil || c.Backend.RootCAs != nil {
		t.Fatalf("without ca_file: %v, roots %v (want the system's: nil)", err, c.Backend.RootCAs)
	}
	_, err = Parse([]byte("node: n1\nbackend:\n  url: http://127.0.0.1:8080/v1/batches\n  ca_file: ca.pem\nsecret_file: key\n"), "x.yaml")
	if err == nil || !strings.Contains(err.Error(), "x.yaml:4: backend.ca_file: is for an https backend.url") {
		t.Fatalf("ca_file with plain http: %v", err)
	}
}

func TestWindow(t *testing.T) {
	w, _ := ParseWindow("22:00-04:00")
	at := func(h, m int) time.Time { return time.Date(2026, 11, 30, h, m, 0, 0, time.UTC) }
	for _, c := range []struct {
		t    time.Time
		want bool
	}{{at(23, 0), true}, {at(3, 59), true}, {at(4, 0), false}, {at(12, 0), false}, {at(22, 0), true}} {
		if w.Contains(c.t) != c.want {
			t.Errorf("%v in %v: want %v", c.t, w, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	full, _ := os.ReadFile("testdata/full.yaml")
	f.Add(full)
	f.Add([]byte("node: n1\nbackend: {url: 'https://b/'}\nsecret_file: /s\nnetwork: {ping: [{host: x}]}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b, "fuzz.yaml")
		if err == nil && (c.Node == "" || c.Schedules.HeartbeatEvery == nil || c.Location == nil) {
			t.Fatalf("accepted an incomplete config: %+v", c)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "fuzz.yaml") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}

// The push interval: 60 s only with the default 30 s heartbeat (two
// heartbeats a batch), otherwise each observation at once unless set; a
// bad setting names schedules.push.
func TestPushInterval(t *testing.T) {
	base := "node: n1\nbackend: {url: 'http://127.0.0.1:8080/v1/batches'}\nsecret_file: /s\n"
	cases := []struct {
		schedules string
		push      time.Duration
		hb        time.Duration
		err       string
	}{
		{"", DefaultPush, 30 * time.Second, ""},
		{"schedules: {heartbeat: 30s}", 60 * time.Second, 30 * time.Second, ""},
		{"schedules: {heartbeat: 1s}", 0, time.Second, ""},
		{"schedules: {heartbeat: 100ms}", 0, 100 * time.Millisecond, ""},
		{"schedules: {heartbeat: '@every 1m'}", 0, time.Minute, ""},
		{"schedules: {push: '0'}", 0, 30 * time.Second, ""},
		{"schedules: {push: 30s}", 0, 30 * time.Second, ""},
		{"schedules: {push: 2m}", 2 * time.Minute, 30 * time.Second, ""},
		{"schedules: {heartbeat: 200ms, push: 400ms}", 400 * time.Millisecond, 200 * time.Millisecond, ""},
		{"schedules: {push: 10s}", 0, 0, "schedules.push: 10s is shorter than the heartbeat interval 30s"},
		{"schedules: {push: 11m}", 0, 0, "schedules.push: 11m0s is longer than 10m0s"},
		{"schedules: {push: soon}", 0, 0, `schedules.push: "soon" is not a duration`},
		{"schedules: {push: -1m}", 0, 0, `schedules.push: "-1m" is negative`},
	}
	for _, c := range cases {
		cfg, err := Parse([]byte(base+c.schedules+"\n"), "p.yaml")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "p.yaml:4:") {
				t.Errorf("%s: error %v, want line 4 and %q", c.schedules, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.schedules, err)
			continue
		}
		if cfg.Schedules.PushEvery != c.push || cfg.Schedules.HeartbeatInterval != c.hb {
			t.Errorf("%s: push %v heartbeat %v, want %v and %v", c.schedules, cfg.Schedules.PushEvery,
				cfg.Schedules.HeartbeatInterval, c.push, c.hb)
		}
	}
}

// `gpuprobe check --config` reads the network section of a file that may
// lack the daemon's own sections, with Load's defaults and errors.
func TestParseNetwork(t *testing.T) {
	n, err := ParseNetwork([]byte("expected:\n  model: H200\nnetwork:\n  http:\n    - {name: mirror, url: 'http://127.0.0.1:8080/'}\n"), "x.yaml")
	if err != nil || len(n.HTTP) != 1 || n.HTTP[0].Method != "HEAD" || n.Gateway.MaxAvg != netcheck.DefaultGatewayMaxAvg {
		t.Fatalf("%+v %v", n, err)
	}
	if n, err := ParseNetwork(nil, "x.yaml"); err != nil || n.Gateway.Count != netcheck.DefaultPingCount {
		t.Fatalf("empty file: %+v %v", n, err)
	}
	if n, err := ParseNetwork([]byte("expected:\n  gpus: 8\n"), "x.yaml"); err != nil || n.Gateway.Disabled {
		t.Fatalf("no section: %+v %v", n, err)
	}
	for doc, want := range map[string]string{
		"network:\n  http:\n    - {url: 'ftp://m/'}\n":            `x.yaml:3: network.http[0].url: "ftp://m/" is not an http:// or https:// URL`,
		"network:\n  dns:\n    - host: m\n      sever: 1.1.1.1\n": "x.yaml:4: network.dns[0].sever: unknown field",
		"netwerk: {}\n": "x.yaml:1: netwerk: unknown field",
		"- a\n":         "x.yaml:1: the top level must be a mapping",
		"network:\n  gateway:\n    address: gw\n": `x.yaml:3: network.gateway.address: "gw" is not an IP address`,
	} {
		if _, err := ParseNetwork([]byte(doc), "x.yaml"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q:\n got  %v\n want %q", doc, err, want)
		}
	}
}
