package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/functions/serve/servetest"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gpusla.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func defaults(c *Config) {
	c.Listen, c.Watchdog, c.Demo = "127.0.0.1:0", "@every 1m", "off"
}

// TestAlertsSection: serve's config takes the alerts: section, checked at
// start with the file, line and field of a mistake.
func TestAlertsSection(t *testing.T) {
	good := `alerts:
  channels:
    ops:
      type: wecom
      webhook_url: https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k-1
  routes:
    - channels: [ops]
      incidents: [gpu_lost]
`
	p := writeConfig(t, good)
	c, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	defaults(&c)
	if err := c.Validate(p); err != nil {
		t.Fatalf("valid alerts section refused: %v", err)
	}
	p = writeConfig(t, strings.Replace(good, "gpu_lost", "gpu_gone", 1))
	if c, err = LoadConfig(p); err != nil {
		t.Fatal(err)
	}
	defaults(&c)
	if err := c.Validate(p); err == nil || !strings.Contains(err.Error(), p+`:8: alerts.routes[0].incidents[0]: unknown incident kind "gpu_gone"`) {
		t.Fatalf("error %v", err)
	}
}

// tls_cert and tls_key come together and must load; the demo cannot run
// over TLS. Each mistake names its field.
func TestTLSConfig(t *testing.T) {
	dir := t.TempDir()
	cert, key := servetest.SelfSigned(t, dir)
	other, _ := servetest.SelfSigned(t, t.TempDir()) // a certificate whose key is not key
	if err := os.WriteFile(filepath.Join(dir, "junk.pem"), []byte("not pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A copy of the key that the world may read: refused like the
	// master key with that mode, never accepted silently.
	open := filepath.Join(dir, "open-key.pem")
	if raw, err := os.ReadFile(key); err != nil || os.WriteFile(open, raw, 0o644) != nil || os.Chmod(open, 0o644) != nil {
		t.Fatal("copying the key", err)
	}
	for _, c := range []struct {
		yaml, field string
	}{
		{"tls_cert: " + cert + "\ntls_key: " + open + "\n", "tls_key: TLS key " + open + " is readable by others (mode 0644); chmod 600 it"},
		{"tls_cert: " + cert + "\ntls_key: " + key + "\n", ""},
		{"tls_cert: " + cert + "\n", "tls_key: missing"},
		{"tls_key: " + key + "\n", "tls_cert: missing"},
		{"tls_cert: " + other + "\ntls_key: " + key + "\n", "tls_cert: " + other},
		{"tls_cert: " + filepath.Join(dir, "junk.pem") + "\ntls_key: " + key + "\n", "tls_cert:"},
		{"tls_cert: " + filepath.Join(dir, "none.pem") + "\ntls_key: " + key + "\n", "no such file"},
		{"tls_cert: " + cert + "\ntls_key: " + key + "\ndemo: \"on\"\n", "demo: on: the demo probe pushes over plain http"},
	} {
		p := writeConfig(t, c.yaml)
		cfg, err := LoadConfig(p)
		if err != nil {
			t.Fatal(err)
		}
		demo := cfg.Demo
		defaults(&cfg)
		if demo != "" {
			cfg.Demo = demo
		}
		err = cfg.Validate(p)
		if c.field == "" && err != nil || c.field != "" && (err == nil || !strings.Contains(err.Error(), c.field)) {
			t.Errorf("%q: %v, want %q", c.yaml, err, c.field)
		}
	}
}

// alert_retry is a duration of at least a second; a mistake names it.
func TestAlertRetryConfig(t *testing.T) {
	for yaml, want := range map[string]string{
		"alert_retry: 30s\n":  "",
		"alert_retry: 10ms\n": "alert_retry: 10ms is too short",
		"alert_retry: soon\n": "alert_retry",
	} {
		p := writeConfig(t, yaml)
		cfg, err := LoadConfig(p)
		if err == nil {
			defaults(&cfg)
			err = cfg.Validate(p)
		}
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: %v, want %q", yaml, err, want)
		}
	}
}
