package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
)

// demoData is a data folder as serve leaves it: the demo node registered
// under the demo's contract (its terms in data/terms/demo.yaml), down ten
// hours on 10 November; with released set the demo ended then and the
// renter's own gz-01 runs beside it, down as long.
func demoData(t *testing.T, released time.Time) string {
	t.Helper()
	data := t.TempDir()
	dir := filepath.Join(data, "terms")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for src, dst := range map[string]string{"../../demo/terms.yaml": "demo.yaml", "../../../testdata/terms/cn-example.yaml": "cn-example.yaml"} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, _, err := wiring.OpenData(data, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ordered := time.Date(2026, 10, 31, 9, 0, 0, 0, time.UTC)
	nodes := []store.Node{{ID: "demo-node", Provider: "demo-provider", Contract: "demo", Demo: true, GPUCount: 2}}
	if !released.IsZero() {
		nodes = append(nodes, store.Node{ID: "gz-01", Provider: "Example Cloud (Shanghai)", Contract: "cn-example", GPUCount: 8})
	}
	for _, n := range nodes {
		n.OrderedAt, n.CreatedAt, n.GPUModel = ordered, ordered, "H200"
		n.HeartbeatInterval, n.PushInterval, n.Grace = 5*time.Second, 10*time.Second, 15*time.Second
		if err := st.CreateNode(t.Context(), n); err != nil {
			t.Fatal(err)
		}
		for _, r := range [][2]time.Time{{ordered.Add(time.Hour), time.Date(2026, 11, 10, 2, 0, 0, 0, time.UTC)}, {time.Date(2026, 11, 10, 12, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)}} {
			if err := st.PutRun(t.Context(), store.HeartbeatRun{Node: n.ID, From: r[0], To: r[1], Count: int64(r[1].Sub(r[0])/(5*time.Second)) + 1,
				ReceivedFrom: r[0].Add(time.Second), ReceivedTo: r[1].Add(time.Second)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !released.IsZero() {
		if _, err := st.ReleaseNode(t.Context(), "demo-node", store.Release{At: released, RecordedAt: released, By: "serve:demo"}); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

func reportData(t *testing.T, data string) (stdout, stderr string) {
	t.Helper()
	root := newRoot()
	var out, errs bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errs)
	root.SetArgs([]string{"report", "--terms", filepath.Join(data, "terms"), "--data", data, "--month", "2026-11", "--as-of", "2026-12-01T12:00:00Z", "--format", "md"})
	if err := root.Execute(); err != nil {
		t.Fatalf("report: %v\n%s", err, errs.String())
	}
	return out.String(), errs.String()
}

// report --data over serve's data folder: the demo alone is reported with
// its credit and claim letter, as the demo shows them; once the demo is
// over (released, the renter's node registered) the month holds no row,
// credit or letter of it, the exit status is not a partial report's, and
// standard error says why it was left out.
func TestReportDataLeavesTheEndedDemoOut(t *testing.T) {
	alone, _ := reportData(t, demoData(t, time.Time{}))
	if !strings.Contains(alone, "demo-node") || !strings.Contains(alone, "demo-provider") {
		t.Fatalf("the demo alone is not reported:\n%.3000s", alone)
	}
	over, warn := reportData(t, demoData(t, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)))
	if strings.Contains(over, "demo-node") || strings.Contains(over, "demo-provider") {
		t.Fatalf("the demo over is still in the renter's month:\n%s", over)
	}
	if !strings.Contains(over, "gz-01") {
		t.Fatalf("the renter's node is missing:\n%.3000s", over)
	}
	if !strings.Contains(warn, "node demo-node left out: the demo is over: the demo node was released at 2026-11-20T12:00:00Z (recorded by serve:demo)") {
		t.Fatalf("standard error does not say why the demo is left out:\n%s", warn)
	}
}

func exportData(t *testing.T, data string, args ...string) (stdout, stderr string) {
	t.Helper()
	root := newRoot()
	var out, errs bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errs)
	root.SetArgs(append([]string{"export", "--data", data}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("export %v: %v\n%s", args, err, errs.String())
	}
	return out.String(), errs.String()
}

// export leaves serve's demo node out once its demo was over before the
// selection ends, as report --data does, so a sealed report and claim made
// from the log (report --events) hold no credit against the demo's made-up
// provider; a month that ended before the release, --node demo-node, and a
// store where the demo is all there is keep it.
func TestExportLeavesTheEndedDemoOut(t *testing.T) {
	over := demoData(t, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	log, warn := exportData(t, over)
	if strings.Contains(log, `"demo-node"`) || !strings.Contains(log, `"gz-01"`) {
		t.Fatalf("the demo over is still in the export, or the renter's node is missing:\n%.2000s", log)
	}
	if !strings.Contains(warn, "gpusla export: left out demo-node: serve's demo node, its demo over since 2026-11-20T12:00:00Z (released by serve:demo); --node demo-node exports it") {
		t.Errorf("standard error does not say the demo is left out:\n%s", warn)
	}
	file := filepath.Join(t.TempDir(), "month.jsonl")
	exportData(t, over, "--month", "2026-11", "-o", file)
	root := newRoot()
	var out, errs bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errs)
	root.SetArgs([]string{"report", "--terms", filepath.Join(over, "terms"), "--events", file, "--month", "2026-11", "--as-of", "2026-12-01T12:00:00Z", "--format", "md"})
	if err := root.Execute(); err != nil {
		t.Fatalf("report --events: %v\n%s", err, errs.String())
	}
	if strings.Contains(out.String(), "demo-provider") || !strings.Contains(out.String(), "gz-01") {
		t.Errorf("the report from the exported month:\n%.3000s", out.String())
	}
	for _, c := range []struct {
		name string
		data string
		args []string
	}{
		{"a month before the release", over, []string{"--month", "2026-10"}},
		{"--node demo-node", over, []string{"--node", "demo-node"}},
		{"the demo alone", demoData(t, time.Time{}), nil},
	} {
		log, warn := exportData(t, c.data, c.args...)
		if !strings.Contains(log, `"demo-node"`) || strings.Contains(warn, "left out") {
			t.Errorf("%s: the demo node is not exported:\n%s\n%.1000s", c.name, warn, log)
		}
	}
}
