package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
