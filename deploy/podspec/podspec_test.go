package podspec_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/deploy/chartrender"
	"github.com/gpusla/gpusla/deploy/podspec"
	"github.com/gpusla/gpusla/probe/config"
)

func render(t *testing.T, set ...string) []chartrender.Rendered {
	t.Helper()
	vals := map[string]any{}
	for _, kv := range set {
		if err := podspec.SetValue(vals, kv); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := chartrender.Render("../chart/gpusla", vals)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// The probe's container as the chart makes it, read back for a machine
// without Kubernetes: its arguments, its environment with the node's name
// from the downward API, every mount with its source and mode, root with
// NET_RAW and SYSLOG, and the ConfigMap's config — one the probe accepts,
// carrying the values set on the command line.
func TestProbeContainerReadFromTheChart(t *testing.T) {
	rs := render(t, "backend.url=http://127.0.0.1:18090/v1/batches", "probe.config.schedules.health=1m", "probe.metricsPort=19464")
	p, err := podspec.Of(rs, "gpusla-gpuprobe", "gpu-node-7")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Args, []string{"run", "--config", "/etc/gpuprobe/probe.yaml"}) || len(p.Command) != 0 {
		t.Errorf("command %q, args %q", p.Command, p.Args)
	}
	if !slices.Contains(p.Env, "NODE_NAME=gpu-node-7") || !slices.Contains(p.Env, "GPUPROBE_STATE_DIR=/run/gpuprobe") {
		t.Errorf("env %q", p.Env)
	}
	want := map[string]podspec.Mount{
		"/host/proc":          {Target: "/host/proc", Kind: podspec.KindBind, Source: "/proc", ReadOnly: true},
		"/host/sys":           {Target: "/host/sys", Kind: podspec.KindBind, Source: "/sys", ReadOnly: true},
		"/dev/kmsg":           {Target: "/dev/kmsg", Kind: podspec.KindBind, Source: "/dev/kmsg", ReadOnly: true},
		"/var/lib/gpuprobe":   {Target: "/var/lib/gpuprobe", Kind: podspec.KindBind, Source: "/var/lib/gpuprobe"},
		"/etc/gpuprobe/enrol": {Target: "/etc/gpuprobe/enrol", Kind: podspec.KindSecret, Source: "gpuprobe-enrol", ReadOnly: true},
		"/etc/gpuprobe/probe.yaml": {Target: "/etc/gpuprobe/probe.yaml", Kind: podspec.KindFile, Source: "etc/gpuprobe/probe.yaml",
			ReadOnly: true},
		"/run/gpuprobe": {Target: "/run/gpuprobe", Kind: podspec.KindTmpfs, Source: "16777216"},
		"/tmp":          {Target: "/tmp", Kind: podspec.KindTmpfs, Source: "268435456"},
	}
	for _, m := range p.Mounts {
		if want[m.Target] != m {
			t.Errorf("mount %+v; want %+v", m, want[m.Target])
		}
		delete(want, m.Target)
	}
	if len(want) != 0 {
		t.Errorf("mounts missing: %v", want)
	}
	if p.User != 0 || !slices.Equal(p.Caps, []string{"NET_RAW", "SYSLOG"}) || p.Privileged || !p.NoNewPrivs || !p.ReadOnlyRoot ||
		!p.HostNetwork || !p.HostPID {
		t.Errorf("security %+v", p)
	}
	c, err := config.Parse([]byte(p.Files["etc/gpuprobe/probe.yaml"]), "probe.yaml")
	if err != nil {
		t.Fatalf("the probe refuses the chart's config: %v", err)
	}
	if c.Backend.URL != "http://127.0.0.1:18090/v1/batches" || c.Metrics.Listen != "0.0.0.0:19464" || c.Schedules.StressEvery != nil {
		t.Errorf("config %+v", c)
	}

	dir := t.TempDir()
	if err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"args": "run\n--config\n/etc/gpuprobe/probe.yaml\n", "command": ""} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	mounts, _ := os.ReadFile(filepath.Join(dir, "mounts"))
	if !strings.Contains(string(mounts), "/host/proc\tbind\t/proc\tro\n") || !strings.Contains(string(mounts), "/run/gpuprobe\ttmpfs\t16777216\trw\n") {
		t.Errorf("mounts file:\n%s", mounts)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "files", "etc", "gpuprobe", "probe.yaml")); string(got) != p.Files["etc/gpuprobe/probe.yaml"] {
		t.Errorf("files/etc/gpuprobe/probe.yaml: %q", got)
	}

	if _, err := podspec.Of(rs, "gpusla-nope", "n"); err == nil || !strings.Contains(err.Error(), "gpusla-gpuprobe-stress") {
		t.Errorf("an unknown DaemonSet: %v", err)
	}
}

// -set reads values as YAML scalars and refuses to walk through one.
func TestSetValue(t *testing.T) {
	vals := map[string]any{"probe": map[string]any{"metricsPort": 9464}}
	for _, kv := range []string{"probe.metricsPort=19464", "probe.privileged=true", "backend.url=http://x:1/v1/batches", "a.b.c=x y"} {
		if err := podspec.SetValue(vals, kv); err != nil {
			t.Fatalf("%s: %v", kv, err)
		}
	}
	probe := vals["probe"].(map[string]any)
	if probe["metricsPort"] != 19464 || probe["privileged"] != true || vals["backend"].(map[string]any)["url"] != "http://x:1/v1/batches" ||
		vals["a"].(map[string]any)["b"].(map[string]any)["c"] != "x y" {
		t.Fatalf("values %v", vals)
	}
	for _, kv := range []string{"novalue", "=x", "probe.metricsPort.x=1"} {
		if err := podspec.SetValue(vals, kv); err == nil {
			t.Errorf("-set %q accepted", kv)
		}
	}
}
