package nodeadd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/config"
)

// The probe config `node add` prints carries the node's push interval, so
// the probe pushes as often as the backend expects (two 30 s heartbeats a
// batch by default), and it parses as a probe config.
func TestNodeAddPrintsPushInterval(t *testing.T) {
	for _, c := range []struct {
		hb, push, wantPush time.Duration
	}{
		{app.DefaultHeartbeatInterval, app.DefaultPushInterval, 60 * time.Second},
		{10 * time.Second, 40 * time.Second, 40 * time.Second},
		{30 * time.Second, 30 * time.Second, 0}, // each heartbeat at once
	} {
		n := store.Node{ID: "gz-01", Provider: "acme", Contract: "c", GPUCount: 8,
			HeartbeatInterval: c.hb, PushInterval: c.push}
		var out bytes.Buffer
		if err := Print(&out, n, []byte("s3cret-s3cret-s3cret"), Probe{BackendURL: "http://127.0.0.1:8080/v1/batches", SecretFile: "/etc/gpuprobe/secret", GPUMemoryGB: 80}); err != nil {
			t.Fatal(err)
		}
		// What the renter does next: the acceptance check on the config's
		// path, then the install the docs describe.
		if o := out.String(); !strings.Contains(o, "gpuprobe check --config "+config.DefaultPath) || !strings.Contains(o, `docs/probe.md, "Install"`) {
			t.Errorf("the next steps are not named:\n%s", o)
		}
		// In an order that works on a bare node: the binary is on the PATH
		// before it is run, the unit is installed before it is started.
		steps := []string{"install -m 0755 gpuprobe /usr/local/bin/gpuprobe", "gpuprobe check --config", "/etc/systemd/system/", "systemctl enable --now gpuprobe"}
		at := -1
		for _, s := range steps {
			i := strings.Index(out.String(), s)
			if i <= at {
				t.Errorf("step %q missing or out of order:\n%s", s, out.String())
			}
			at = i
		}
		_, doc, ok := strings.Cut(out.String(), "\n---\n")
		if !ok {
			t.Fatalf("no config document in:\n%s", out.String())
		}
		cfg, err := config.Parse([]byte(doc), "printed")
		if err != nil {
			t.Fatalf("printed config does not parse: %v\n%s", err, doc)
		}
		if cfg.Schedules.HeartbeatInterval != c.hb || cfg.Schedules.PushEvery != c.wantPush {
			t.Errorf("heartbeat %v push %v: printed config gives heartbeat %v push every %v, want push every %v\n%s",
				c.hb, c.push, cfg.Schedules.HeartbeatInterval, cfg.Schedules.PushEvery, c.wantPush, doc)
		}
	}
}
