package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/eventexport"
	"github.com/gpusla/gpusla/functions/fleetsim"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

const reportLog = `{"type":"node_registered","id":"r1","node":"gz-01","contract":"cn-example","ordered_at":"2026-03-01T01:00:00Z","hardware":{"gpu_model":"H200","gpu_count":8}}
{"type":"observation","id":"o1","node":"gz-01","at":"2026-03-01T01:20:00Z","received_at":"2026-03-01T01:20:01Z","kind":"heartbeat"}
{"type":"observation","id":"o2","node":"gz-01","at":"2026-03-01T01:21:00Z","received_at":"2026-03-01T01:21:01Z","kind":"heartbeat"}
{"type":"observation","id":"o2","node":"gz-01","at":"2026-03-01T01:21:00Z","received_at":"2026-03-01T01:21:01Z","kind":"heartbeat"}
{"type":"ticket_opened","id":"t1","ticket":"T-1","node":"gz-01","at":"2026-03-06T15:50:00Z","priority":"P1"}
`

func runReport(t *testing.T, log string, args ...string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	ev := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(ev, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(io.Discard) // notes and warnings; the tests that read them run the command themselves
	root.SetArgs(append([]string{"report", "--terms", "../../../testdata/terms/cn-example.yaml",
		"--terms", "../../../testdata/terms/us-example.yaml", "--events", ev}, args...))
	err := root.Execute()
	return out.String(), err
}

func TestReportCommand(t *testing.T) {
	out, err := runReport(t, reportLog, "--month", "2026-03", "--as-of", "2026-03-02T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Schema string
		Input  struct{ Events, Duplicates int }
		Nodes  []struct {
			Node    string
			Tickets []struct{ Ticket string }
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Schema != "gpusla.report/v1" || len(r.Nodes) != 1 || r.Nodes[0].Node != "gz-01" || r.Input.Events != 5 {
		t.Fatalf("unexpected report: %+v", r)
	}
	for _, f := range []string{"md", "csv"} {
		out, err := runReport(t, reportLog, "--month", "2026-03", "--as-of", "2026-03-02T00:00:00Z", "--format", f)
		if err != nil || !strings.Contains(out, "gz-01") {
			t.Fatalf("format %s: %v\n%s", f, err, out)
		}
	}
}

func TestReportCommandErrors(t *testing.T) {
	cases := []struct {
		name, log string
		args      []string
		want      string
	}{
		{"malformed line", reportLog + "{oops\n", []string{"--month", "2026-03", "--as-of", "2026-03-02T00:00:00Z"}, "events.jsonl:6: not a JSON event"},
		{"bad month", reportLog, []string{"--month", "March"}, "--month"},
		{"bad format", reportLog, []string{"--month", "2026-03", "--format", "xml"}, "unknown format"},
		{"bad as-of", reportLog, []string{"--month", "2026-03", "--as-of", "yesterday"}, "--as-of"},
		{"as-of in the future", reportLog, []string{"--month", "2026-03", "--as-of", "2999-01-01T00:00:00Z"}, "--as-of 2999-01-01T00:00:00Z is after now"},
		{"unknown priority", strings.Replace(reportLog, `"priority":"P1"`, `"priority":"P9"`, 1), []string{"--month", "2026-03", "--as-of", "2026-03-09T00:00:00Z"}, `priority "P9"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runReport(t, c.log, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if out != "" {
				t.Fatalf("printed a partial report on error:\n%s", out)
			}
		})
	}
}

func TestReportWritesFileAtomically(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "report.md")
	if _, err := runReport(t, reportLog, "--month", "2026-03", "--as-of", "2026-03-02T00:00:00Z", "--format", "md", "--lang", "en", "-o", dest); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dest)
	if err != nil || !strings.Contains(string(b), "# SLA report March 2026") {
		t.Fatalf("%v %s", err, b)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), ".*tmp*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// --lang picks the documents' language (default: the contract's
// report.lang, zh for cn-example), --bom marks a CSV for Excel, a bad
// language is refused before anything is read, and the claim page quotes
// the seal of the events given.
func TestReportLanguages(t *testing.T) {
	out, err := runReport(t, reportLog, "--month", "2026-03", "--as-of", "2026-04-02T00:00:00Z", "--format", "md")
	if err != nil || !strings.Contains(out, "服务赔偿申请") || !strings.Contains(out, "合同编号") {
		t.Fatalf("default language of cn-example is not zh: %v\n%s", err, out)
	}
	if !strings.Contains(out, "证据包：哈希链头") {
		t.Errorf("claim page does not quote the evidence seal:\n%s", out)
	}
	out, err = runReport(t, reportLog, "--month", "2026-03", "--as-of", "2026-04-02T00:00:00Z", "--format", "md", "--lang", "en")
	if err != nil || !strings.Contains(out, "Claim for service credits") || strings.Contains(out, "服务赔偿申请") {
		t.Fatalf("--lang en: %v\n%s", err, out)
	}
	out, err = runReport(t, reportLog, "--month", "2026-03", "--as-of", "2026-04-02T00:00:00Z", "--format", "csv", "--bom")
	if err != nil || !strings.HasPrefix(out, "\ufeff月份,") {
		t.Fatalf("--bom csv: %v\n%q", err, out[:min(len(out), 40)])
	}
	_, err = runReport(t, "not even json", "--month", "2026-03", "--lang", "fr")
	if err == nil || !strings.Contains(err.Error(), `--lang: language "fr"`) {
		t.Fatalf("--lang fr: %v", err)
	}
}

// A node registered under a contract no --terms file defines is left out
// with a warning on standard error naming it and its contract; the other
// nodes' report is written to standard output, names the node in its
// left_out, and the exit status is 3 (partial), never 0, so a scheduled
// run cannot lose the warning. It used to fail the whole run, then to exit
// 0 as if the report were whole.
func TestReportSkipsUnknownContract(t *testing.T) {
	log := reportLog + `{"type":"node_registered","id":"r9","node":"gz-09","contract":"cn-exmaple","ordered_at":"2026-03-01T01:00:00Z","hardware":{"gpu_model":"H200","gpu_count":8}}
{"type":"observation","id":"o9","node":"gz-09","at":"2026-03-01T01:20:00Z","received_at":"2026-03-01T01:20:01Z","kind":"heartbeat"}
{"type":"ticket_opened","id":"t9","ticket":"T-9","node":"gz-09","at":"2026-03-01T02:00:00Z","priority":"P1"}
`
	dir := t.TempDir()
	ev := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(ev, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	args := []string{"report", "--terms", "../../../testdata/terms/cn-example.yaml", "--terms", "../../../testdata/terms/us-example.yaml",
		"--events", ev, "--month", "2026-03", "--as-of", "2026-03-02T00:00:00Z"}
	if code := run(args, &out, &errOut); code != 3 {
		t.Fatalf("exit status %d, want 3 (partial)\n%s", code, errOut.String())
	}
	var r struct {
		Nodes   []struct{ Node string }
		LeftOut []struct{ Node, Contract, Reason string } `json:"left_out"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("stdout is not the report (%v):\n%s", err, out.String())
	}
	if len(r.Nodes) != 1 || r.Nodes[0].Node != "gz-01" {
		t.Fatalf("nodes %+v, want gz-01 alone", r.Nodes)
	}
	why := `contract "cn-exmaple" is defined by no terms given (known: cn-example, us-example)`
	if len(r.LeftOut) != 1 || r.LeftOut[0].Node != "gz-09" || r.LeftOut[0].Contract != "cn-exmaple" || r.LeftOut[0].Reason != why {
		t.Fatalf("left_out %+v", r.LeftOut)
	}
	// The month is not over as of 2 March: the report says it is provisional.
	want := "gpusla: 2026-03 is not over as of 2026-03-02T00:00:00Z: the report is provisional and holds no claim letter\n" +
		"gpusla: warning: node gz-09 left out of the report: " + why + "\n" +
		"gpusla: the report is partial: 1 node(s) left out, named above and in the document (exit status 3)\n"
	if errOut.String() != want {
		t.Fatalf("stderr %q, want %q", errOut.String(), want)
	}
	// Markdown names it too, in both languages.
	for lang, w := range map[string]string{"en": "## Nodes left out of this report", "zh": "## 本报告未包含的节点"} {
		out.Reset()
		if code := run(append(args, "--format", "md", "--lang", lang), &out, io.Discard); code != 3 || !strings.Contains(out.String(), w) || !strings.Contains(out.String(), "gz-09") {
			t.Errorf("%s md: exit %d, lacks %q or gz-09", lang, code, w)
		}
	}
	// A whole report exits 0.
	if err := os.WriteFile(ev, []byte(reportLog), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run(args, io.Discard, io.Discard); code != 0 {
		t.Fatalf("whole report: exit status %d, want 0", code)
	}
	// The bundle is partial the same way.
	if code := run([]string{"bundle", "--terms", "../../../testdata/terms/cn-example.yaml", "--events", ev, "--month", "2026-03",
		"-o", filepath.Join(dir, "b.zip")}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("bundle, whole: exit status %d", code)
	}
	if err := os.WriteFile(ev, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"bundle", "--terms", "../../../testdata/terms/cn-example.yaml", "--events", ev, "--month", "2026-03",
		"-o", filepath.Join(dir, "b.zip")}, io.Discard, io.Discard); code != 3 {
		t.Fatalf("bundle, partial: exit status %d, want 3", code)
	}
}

// `gpusla report --data` builds the month from the local backend's store,
// node by node: the report `gpusla export` and `gpusla report --events`
// give for the same store, but for the seal (the evidence bundle's, made
// from a log).
func TestReportFromTheStore(t *testing.T) {
	data := t.TempDir()
	st, _, err := wiring.OpenData(data, true)
	if err != nil {
		t.Fatal(err)
	}
	sh, _ := time.LoadLocation("Asia/Shanghai")
	if _, err := fleetsim.Write(t.Context(), st, fleetsim.Config{Nodes: 6, Prefix: "gz-", Contract: "cn-example", Loc: sh,
		From: time.Date(2026, 3, 1, 0, 0, 0, 0, sh), Months: 1}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	run := func(args ...string) []byte {
		t.Helper()
		root := newRoot()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(io.Discard)
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.Bytes()
	}
	ev := filepath.Join(t.TempDir(), "march.jsonl")
	run("export", "--data", data, "--month", "2026-03", "-o", ev)
	common := []string{"report", "--terms", "../../../testdata/terms/cn-example.yaml", "--month", "2026-03", "--as-of", "2026-04-01T06:00:00Z"}
	unsealed := func(raw []byte) string {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%v\n%.500s", err, raw)
		}
		delete(m, "seal")
		b, _ := json.Marshal(m)
		return string(b)
	}
	fromLog := unsealed(run(append(common, "--events", ev)...))
	fromStore := unsealed(run(append(common, "--data", data, "--workers", "2")...))
	if fromLog != fromStore || !strings.Contains(fromStore, `"gz-00005"`) {
		t.Fatalf("the store's report differs from its exported log's:\n--- log\n%.2000s\n--- store\n%.2000s", fromLog, fromStore)
	}
	if _, err := runCLI(t, append(common, "--data", data, "--scorecard")...); err == nil || !strings.Contains(err.Error(), "--scorecard reads an event log") {
		t.Fatalf("--data --scorecard: %v", err)
	}
}

// --terms takes the data folder's terms/ as serve and node add read it: its
// *.yaml files, nothing else there; a mistake in one names the file and line.
func TestReportTermsFolder(t *testing.T) {
	dir := t.TempDir()
	terms := filepath.Join(dir, "terms")
	cn, err := os.ReadFile("../../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"cn-example.yaml": string(cn), "notes.txt": "not terms", "old/x.yaml": "{"} {
		p := filepath.Join(terms, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ev := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(ev, []byte(reportLog), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func() (string, error) {
		root := newRoot()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(io.Discard)
		root.SetArgs([]string{"report", "--terms", terms, "--events", ev, "--month", "2026-03", "--as-of", "2026-03-02T00:00:00Z", "--format", "csv"})
		err := root.Execute()
		return out.String(), err
	}
	if out, err := run(); err != nil || !strings.Contains(out, "gz-01") || !strings.Contains(out, "cn-example") {
		t.Fatalf("report with --terms %s: %v\n%s", terms, err, out)
	}
	if err := os.WriteFile(filepath.Join(terms, "z.yml"), []byte("contract: z\nuptime: {target: 101}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(); err == nil || !strings.Contains(err.Error(), "z.yml:") {
		t.Fatalf("a bad terms file in the folder: %v, want its file and line named", err)
	}
}

// report --data without --as-of is judged at the last instant the store
// records: serve's stop when that came last (the time since is no node's
// outage: no backend heard it), else what its exported log last records.
func TestReportFromTheStoreJudgedWhenServeStopped(t *testing.T) {
	data := t.TempDir()
	st, _, err := wiring.OpenData(data, true)
	if err != nil {
		t.Fatal(err)
	}
	sh, _ := time.LoadLocation("Asia/Shanghai")
	if _, err := fleetsim.Write(t.Context(), st, fleetsim.Config{Nodes: 2, Prefix: "gz-", Contract: "cn-example", Loc: sh,
		From: time.Date(2026, 3, 1, 0, 0, 0, 0, sh), Months: 1}); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if _, err := eventexport.Write(t.Context(), st, app.ExportSelect{From: time.Unix(0, 0), To: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}, &log); err != nil {
		t.Fatal(err)
	}
	logLast, err := events.LastKnown("export", &log)
	if err != nil || logLast.IsZero() {
		t.Fatal(logLast, err)
	}
	// A run that stopped before the log's end: the log's end.
	if _, err := st.PutBackendRun(t.Context(), store.BackendRun{ID: "a@1", Start: logLast.Add(-48 * time.Hour), LastTick: logLast.Add(-24 * time.Hour), Stopped: true}, 0); err != nil {
		t.Fatal(err)
	}
	if got, err := lastKnown(t.Context(), st); err != nil || !got.Equal(logLast) {
		t.Fatalf("last known %v, %v; want the log's %v", got, err, logLast)
	}
	// serve stopped after the last data: judged at its stop, not at now.
	stop := logLast.Add(3 * time.Hour).UTC()
	if _, err := st.PutBackendRun(t.Context(), store.BackendRun{ID: "b@2", Start: logLast.Add(-time.Hour), LastTick: stop, Stopped: true}, 0); err != nil {
		t.Fatal(err)
	}
	st.Close()
	out, err := runCLI(t, "report", "--terms", "../../../testdata/terms/cn-example.yaml", "--month", "2026-03", "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		AsOf string `json:"as_of"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &rep); err != nil {
		t.Fatalf("%v\n%.300s", err, out)
	}
	if rep.AsOf != stop.Format(time.RFC3339) {
		t.Fatalf("report --data judged as of %s, want serve's stop %s", rep.AsOf, stop.Format(time.RFC3339))
	}
}

// countingStore counts the stored batches a reader is handed.
type countingStore struct {
	eventexport.Store
	h       store.History
	batches int
}

func (c *countingStore) GetState(ctx context.Context, node string) (store.NodeState, error) {
	return c.h.GetState(ctx, node)
}

func (c *countingStore) EachBatch(ctx context.Context, node string, from, to time.Time, fn func(*store.BatchRecord) error) error {
	return c.h.EachBatch(ctx, node, from, to, func(r *store.BatchRecord) error { c.batches++; return fn(r) })
}

func (c *countingStore) EachRun(ctx context.Context, node string, from, to time.Time, fn func(*store.HeartbeatRun) error) error {
	return c.h.EachRun(ctx, node, from, to, fn)
}

func (c *countingStore) EachEvidence(ctx context.Context, node string, from, to time.Time, fn func(*store.Evidence) error) error {
	return c.h.EachEvidence(ctx, node, from, to, fn)
}

// report --data's as-of is the store's last known instant, that of the log
// `gpusla export` writes of the whole store, without replaying every batch
// before the books read the month: a batch is known at its receipt, so
// only those received after everything else is known are read. A month of
// two nodes (its batches all received within its heartbeat runs): none is
// read. A late batch received after it all: read alone, and the as-of is
// its receipt. One received later still whose only observation is dated
// an hour after its receipt (outside the window, so the export writes
// nothing of it): read, and the as-of does not move — the export's.
func TestLastKnownReadsOnlyTheLastBatches(t *testing.T) {
	data := t.TempDir()
	st, _, err := wiring.OpenData(data, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sh, _ := time.LoadLocation("Asia/Shanghai")
	if _, err := fleetsim.Write(t.Context(), st, fleetsim.Config{Nodes: 2, Prefix: "gz-", Contract: "cn-example", Loc: sh,
		From: time.Date(2026, 3, 1, 0, 0, 0, 0, sh), Months: 1}); err != nil {
		t.Fatal(err)
	}
	all := 0
	for _, n := range []string{"gz-00000", "gz-00001"} {
		if err := st.EachBatch(t.Context(), n, time.Unix(0, 0), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), func(*store.BatchRecord) error { all++; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if all == 0 {
		t.Fatal("the month holds no stored batch: nothing to leave unread")
	}
	exported := func() time.Time {
		t.Helper()
		var log bytes.Buffer
		if _, err := eventexport.Write(t.Context(), st, app.ExportSelect{From: time.Unix(0, 0), To: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}, &log); err != nil {
			t.Fatal(err)
		}
		last, err := events.LastKnown("export", &log)
		if err != nil {
			t.Fatal(err)
		}
		return last
	}
	check := func(what string, want time.Time, read int) {
		t.Helper()
		c := &countingStore{Store: st, h: st}
		got, err := lastKnown(t.Context(), c)
		if err != nil || !got.Equal(want) || !got.Equal(exported()) || c.batches != read {
			t.Fatalf("%s: last known %v (%v) reading %d of %d batches; want %v, the export's %v, reading %d", what, got, err, c.batches, all, want, exported(), read)
		}
	}
	end := exported()
	check("the month", end, 0)
	p := &apptest.Probe{Node: "gz-00000", Secret: []byte("s"), Seq: 1 << 20}
	late := end.Add(2 * time.Hour)
	put := func(received time.Time, at time.Time) {
		t.Helper()
		b, body := p.Batch(at, wire.Observation{At: at, Kind: wire.KindHeartbeat})
		if err := st.PutBatch(t.Context(), store.BatchRecord{Node: b.Node, Seq: b.Seq, ID: b.ID, Hash: "h", ReceivedAt: received, Why: []string{"late"},
			Body: body, ExpiresAt: received.AddDate(1, 0, 0)}); err != nil {
			t.Fatal(err)
		}
	}
	put(late, late.Add(-time.Hour))
	check("a late batch", late, 1)
	put(late.Add(time.Hour), late.Add(2*time.Hour))
	check("a batch dated after its receipt", late, 2)
}
