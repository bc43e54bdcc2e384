package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/serve"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/waitfor"
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
	return reportFrom(t, data, "md", "--data", data)
}

// reportFrom is November's report of data's terms in format, read from
// src (--data DIR or --events FILE).
func reportFrom(t *testing.T, data, format string, src ...string) (stdout, stderr string) {
	t.Helper()
	root := newRoot()
	var out, errs bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errs)
	root.SetArgs(append([]string{"report", "--terms", filepath.Join(data, "terms"), "--month", "2026-11", "--as-of", "2026-12-01T12:00:00Z", "--format", format}, src...))
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

// export writes serve's demo node like any other, marked (node_registered
// "demo": true) with its release, and the engine leaves it out of a month
// its demo was over in: a sealed report and claim made from the exported
// month (report --events) hold no credit against the demo's made-up
// provider, and the log stays whole. A log of the whole store (no --month,
// selection ending after the release) keeps the months the demo ran alone:
// October's report from it is --data's, demo and all.
func TestExportLeavesTheEndedDemoOut(t *testing.T) {
	over := demoData(t, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	file := filepath.Join(t.TempDir(), "month.jsonl")
	if _, warn := exportData(t, over, "--month", "2026-11", "-o", file); strings.Contains(warn, "left out") {
		t.Errorf("export left something out:\n%s", warn)
	}
	out, _ := reportFrom(t, over, "md", "--events", file)
	if strings.Contains(out, "demo-provider") || !strings.Contains(out, "gz-01") {
		t.Errorf("the report from the exported month:\n%.3000s", out)
	}
	for _, c := range []struct {
		name string
		data string
		args []string
	}{
		{"the month the demo was over in", over, []string{"--month", "2026-11"}},
		{"a month before the release", over, []string{"--month", "2026-10"}},
		{"--node demo-node", over, []string{"--node", "demo-node"}},
		{"the demo alone", demoData(t, time.Time{}), nil},
	} {
		log, warn := exportData(t, c.data, c.args...)
		if !strings.Contains(log, `"node":"demo-node","contract":"demo",`) || !strings.Contains(log, `"demo":true`) || strings.Contains(warn, "left out") {
			t.Errorf("%s: the demo node is not exported with its mark:\n%s\n%.1000s", c.name, warn, log)
		}
	}
	all := filepath.Join(t.TempDir(), "all.jsonl")
	exportData(t, over, "-o", all)
	october := func(src ...string) string {
		t.Helper()
		root := newRoot()
		var out, errs bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&errs)
		root.SetArgs(append([]string{"report", "--terms", filepath.Join(over, "terms"), "--month", "2026-10", "--as-of", "2026-12-01T12:00:00Z", "--format", "json"}, src...))
		if err := root.Execute(); err != nil {
			t.Fatalf("report %v: %v\n%s", src, err, errs.String())
		}
		return unseal(t, out.String())
	}
	// The whole store's log holds November too: only what was read differs.
	withoutInput := func(s string) string {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "input")
		b, _ := json.Marshal(m)
		return string(b)
	}
	fromLog, fromStore := withoutInput(october("--events", all)), withoutInput(october("--data", over))
	if fromLog != fromStore || !strings.Contains(fromLog, `"demo-node"`) {
		t.Errorf("October, the demo alone, from the whole store's log and from --data:\n--- events\n%.2000s\n--- data\n%.2000s", fromLog, fromStore)
	}
}

// report --events on the log `gpusla export` writes from serve's store is
// the report --data gives, byte for byte but the seal (--data is not
// sealed), the demo's months included: the log's node_registered carries
// the demo mark and node_released the release, so the engine leaves the
// demo node out of a month its demo was over in, offline, as the books do,
// and says so on standard error alike. The demo alone stays in both.
func TestReportEventsLeavesTheEndedDemoOutAsDataDoes(t *testing.T) {
	for _, c := range []struct {
		name     string
		released time.Time
		demo     bool // the demo node is in the month
	}{
		{name: "over", released: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)},
		{name: "alone", demo: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := demoData(t, c.released)
			ev := filepath.Join(t.TempDir(), "november.jsonl")
			if _, err := runCLI(t, "export", "--data", data, "--month", "2026-11", "-o", ev); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(ev)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(raw), `"node":"demo-node","contract":"demo",`) || !strings.Contains(string(raw), `"demo":true`) {
				t.Fatalf("the exported log does not mark the demo node:\n%.2000s", raw)
			}
			fromLog, logWarn := reportFrom(t, data, "json", "--events", ev)
			fromStore, storeWarn := reportFrom(t, data, "json", "--data", data, "--workers", "2")
			if got, want := unseal(t, fromLog), unseal(t, fromStore); got != want {
				t.Fatalf("--events and --data differ:\n--- events\n%.3000s\n--- data\n%.3000s", got, want)
			}
			// The renter's gz-01 is registered with the demo's end.
			if strings.Contains(fromLog, `"demo-node"`) != c.demo || strings.Contains(fromLog, `"gz-01"`) == c.demo {
				t.Fatalf("demo node in the month: %v, want %v:\n%.3000s", !c.demo, c.demo, fromLog)
			}
			const said = "gpusla: node demo-node left out: the demo is over: the demo node was released at 2026-11-20T12:00:00Z (recorded by serve:demo)"
			if strings.Contains(logWarn, said) != !c.demo || strings.Contains(storeWarn, said) != !c.demo {
				t.Fatalf("standard error, --events:\n%s\n--data:\n%s", logWarn, storeWarn)
			}
		})
	}
}

// unseal is a JSON report without its seal, re-encoded byte for byte as
// it was otherwise (keys in their order).
func unseal(t *testing.T, raw string) string {
	t.Helper()
	i := strings.Index(raw, "\n  \"seal\": {")
	if i < 0 {
		return raw
	}
	j := strings.Index(raw[i+1:], "\n  },")
	if j < 0 {
		t.Fatalf("seal not closed:\n%.500s", raw[i:])
	}
	return raw[:i] + raw[i+1+j+len("\n  },"):]
}

// lockedBuf is a log buffer read while serve writes it.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serve's "is up" line counts the nodes it watches: after the demo, a
// renter with one node reads nodes=1, the ended demo's node counted apart
// as released (it said nodes=2).
func TestServeUpCountsTheNodesWatched(t *testing.T) {
	data := demoData(t, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	var out lockedBuf
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- serve.Run(ctx, serve.Config{Listen: "127.0.0.1:0", Data: data, Watchdog: "@every 1m", Demo: "auto"}, wiring.Env{}, true, slog.New(slog.NewTextHandler(&out, nil)))
	}()
	waitfor.True(t, "serve up", func() bool { return strings.Contains(out.String(), "gpusla serve is up") })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var up string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "gpusla serve is up") {
			up = l
		}
	}
	if !strings.Contains(up, " nodes=1 released=1 ") {
		t.Errorf("serve's up line: %s\nwant nodes=1 released=1", up)
	}
}
