package trialrun

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/replacement"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/push/pushtest"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/probe/wire/acceptance"
	"github.com/gpusla/gpusla/sla/trial"
)

func num(v float64) *float64 { return &v }
func gpu0() *int             { g := 0; return &g }

func chk(name, cat, verdict string, v *float64, unit string) wire.Check {
	return wire.Check{Name: name, Category: cat, Verdict: verdict, Number: v, Unit: unit, GPU: gpu0()}
}

// healthy are the results of a healthy one-GPU H200 node, step by step,
// as the real steps give them (names, units, numbers).
func healthy(soak float64) map[string][]wire.Check {
	model := chk("gpu.model", "inventory", "pass", nil, "")
	model.Value = "NVIDIA H200"
	rtt := wire.Check{Name: "net.gateway.rtt", Category: "network_degraded", Verdict: "pass", Number: num(0.31), Unit: "ms"}
	iperf := wire.Check{Name: "net.iperf3.peer", Category: "network_degraded", Verdict: "pass", Number: num(9400), Unit: "Mbit/s", Criterion: "≥ 70 % of 10000 Mbit/s"}
	// A provider's text reaches the report: a value with Markdown in it.
	hostile := chk("gpu.identity", "inventory", "pass", nil, "")
	hostile.Value = "NVIDIA H200 | <b>x</b> [a](http://e)"
	return map[string][]wire.Check{
		"read": {{Name: "gpu.count", Category: "gpu_lost", Verdict: "pass", Number: num(1), Unit: "GPUs"}, {Name: "gpu.driver", Category: "inventory", Verdict: "pass", Value: "580.159.04"},
			model, hostile, chk("gpu.order.model", "inventory", "pass", nil, ""), chk("gpu.utilization", "gpu_degraded", "pass", num(0), "%"),
			chk("gpu.processes", "gpu_degraded", "pass", nil, ""), {Name: "host.disk.system", Category: "host", Verdict: "pass"},
			{Name: "host.disk.ordered:/data", Category: "inventory", Verdict: "pass", Number: num(1920), Unit: "GB"}, // --expect disks=/data:2000
			{Name: "net.http.mirror.reach", Category: "connectivity", Verdict: "pass"}, {Name: "net.http.mirror.latency", Category: "network_degraded", Verdict: "pass", Number: num(38), Unit: "ms"},
			{Name: "net.gateway.reach", Category: "connectivity", Verdict: "pass"}, rtt, {Name: "net.gateway.loss", Category: "network_degraded", Verdict: "pass", Number: num(0), Unit: "%"}},
		"burns": {chk("gpu.burn.bf16.errors", "gpu_degraded", "pass", num(0), "values"), chk("gpu.burn.bf16", "performance_below_spec", "pass", num(658), "TFLOP/s")},
		"soak": {chk("gpu.soak.bf16.errors", "gpu_degraded", "pass", num(0), "values"), chk("gpu.soak.bf16.duration", "performance_below_spec", "pass", num(soak), "s"),
			chk("gpu.soak.bf16.power.swing", "performance_below_spec", "pass", num(0.41), "%")},
		"power":  {chk("gpu.power.errors", "gpu_degraded", "pass", num(0), "values"), chk("gpu.power.swing", "performance_below_spec", "pass", num(0.52), "%")},
		"copies": {chk("gpu.bw.d2d", "performance_below_spec", "pass", num(4290), "GB/s"), chk("gpu.memtest", "gpu_degraded", "pass", num(0), "words")},
		"iperf3": {iperf},
	}
}

func steps(res map[string][]wire.Check, stopAfter string, cancel context.CancelFunc) []Step {
	var out []Step
	for _, n := range []string{"read", "burns", "soak", "power", "copies", "iperf3"} {
		out = append(out, Step{Name: n, Planned: time.Second, Idle: n == "read", Run: func(context.Context) []wire.Check {
			if n == stopAfter {
				cancel()
			}
			return res[n]
		}})
	}
	return out
}

// pushTo is a config of a node pushing to a real test backend.
func pushTo(t *testing.T) (*config.Config, *pushtest.Receiver) {
	t.Helper()
	const secret = "0123456789abcdef0123456789abcdef"
	recv, err := pushtest.Start("trial-node", []byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(recv.Close)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "secret"), []byte(secret), 0o600)
	doc := fmt.Sprintf("node: trial-node\nbackend:\n  url: %s\n  min_backoff: 20ms\n  max_backoff: 100ms\nsecret_file: secret\nspool:\n  dir: %s\n", recv.URL(), filepath.Join(dir, "spool"))
	path := filepath.Join(dir, "probe.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, recv
}

func run(t *testing.T, soak time.Duration, res map[string][]wire.Check, push bool, stopAfter string) (*Result, *pushtest.Receiver) {
	t.Helper()
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := Options{Steps: steps(res, stopAfter, cancel), Probe: "test", Hostname: "h1", Order: expect.Expected{Model: "H200", GPUs: 1},
		Soak: soak, Out: filepath.Join(t.TempDir(), "out"), Key: key, PushWait: 30 * time.Second}
	var recv *pushtest.Receiver
	if push {
		cfg, r := pushTo(t)
		p, err := OpenPusher(cfg, "test", slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		o.Push, o.Node, recv = p, cfg.Node, r
	}
	out, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	return out, recv
}

// verify checks the record as `gpusla verify` does.
func verify(t *testing.T, path string) *replacement.RecordResult {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	if !replacement.IsRecord(f, st.Size()) {
		t.Fatalf("%s is not an acceptance record", path)
	}
	res, err := replacement.VerifyRecord(f, st.Size(), "")
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A healthy one-GPU node with a 30-minute soak passes every criterion
// (the all-reduce does not apply), its results reach the backend in the
// node's hash chain with the trial's markers and the record's hash, and the
// record verifies offline.
func TestHealthyNodePassesAndIsPushedAndSigned(t *testing.T) {
	out, recv := run(t, SeedSoak, healthy(1800.4), true, "")
	rep := out.Report
	if rep.Verdict != acceptance.VerdictPass || rep.Soak.Shortened {
		t.Errorf("verdict %s, soak %+v", rep.Verdict, rep.Soak)
	}
	for _, r := range rep.Rows {
		want := trial.Pass
		if r.Key == trial.KeyAllReduce {
			want = trial.NotApplicable
		}
		if r.Verdict != want {
			t.Errorf("%s: %s, want %s (%s)", r.Key, r.Verdict, want, r.Detail)
		}
	}
	v := verify(t, out.RecordPath)
	if !v.OK() || v.Manifest.Node != "trial-node" || v.Manifest.Probe != "test" || v.Files != 2 || v.Manifest.Pushed == nil || v.Manifest.Pushed.Batches != 7 {
		t.Errorf("verify: %+v %+v", v.Problems, v.Manifest)
	}
	if _, err := recv.CheckChain(); err != nil {
		t.Error(err)
	}
	// The record counts the batches spooled before it was signed; what the
	// trial says at its end counts the record's own batch too, delivered.
	if d := out.Delivered; d == nil || d.Batches != 8 || d.Acked != 8 {
		t.Errorf("delivered at the end: %+v, want 8 of 8", d)
	}
	var marks, idle, record int
	var recordCheck wire.Check
	for _, b := range recv.Batches() {
		for _, o := range b.Observations {
			for _, c := range o.Checks {
				switch c.Name {
				case "probe.trial":
					marks++
				case "probe.trial.idle":
					idle++
				case "probe.trial.record":
					record++
					recordCheck = c
				}
			}
		}
	}
	if marks != 6 || idle != 1 || record != 1 || recordCheck.Value != "sha256 "+out.RecordHash || !strings.Contains(recordCheck.Detail, "key "+v.Manifest.KeyID) {
		t.Errorf("markers %d, idle %d, record %d %+v", marks, idle, record, recordCheck)
	}
	md, err := os.ReadFile(filepath.Join(out.Dir, acceptance.ReportMD))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), `NVIDIA H200 \| \<b\>x\</b\> \[a\](http://e)`) || strings.Contains(string(md), "<b>") {
		t.Errorf("a node's text is live Markdown in trial.md")
	}
	if !strings.Contains(string(md), "Not judged here, and not part of this verdict: delivery (order to delivery), the 22:00 test ticket, billing granularity and what the trial cost") {
		t.Errorf("trial.md does not say which of the seed's criteria it leaves to the trial page")
	}
}

// A shortened soak is marked in the record and leaves the seed's 30-minute
// criterion not measured: the trial is incomplete, never a pass.
func TestShortenedSoakIsMarkedAndNotAPass(t *testing.T) {
	out, _ := run(t, 3*time.Minute, healthy(180.2), false, "")
	rep := out.Report
	if rep.Verdict != acceptance.VerdictIncomplete || !rep.Soak.Shortened || rep.Soak.PlannedSeconds != 180 || rep.Pushed != nil {
		t.Errorf("verdict %s, soak %+v, pushed %+v", rep.Verdict, rep.Soak, rep.Pushed)
	}
	for _, r := range rep.Rows {
		if r.Key == trial.KeyBurn && (r.Verdict != trial.NotMeasured || r.Detail != "shortened: the soak ran 3.0 min of the seed's 30") {
			t.Errorf("burn row %+v", r)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out.Dir, acceptance.ReportMD))
	if !strings.Contains(string(md), "The soak was shortened to 3m0s") {
		t.Errorf("trial.md does not say the soak was shortened")
	}
	if v := verify(t, out.RecordPath); !v.OK() || !v.Manifest.Soak.Shortened {
		t.Errorf("verify %+v", v.Problems)
	}
}

// A trial stopped half-way (Ctrl-C) still judges and records what ran; the
// steps it never reached are named, their criteria not measured.
func TestStoppedTrialRecordsWhatRan(t *testing.T) {
	out, _ := run(t, SeedSoak, healthy(1800), false, "burns")
	rep := out.Report
	notRun := 0
	for _, s := range rep.Steps {
		if s.NotRun != "" {
			notRun++
		}
	}
	if notRun != 4 || rep.Verdict != acceptance.VerdictIncomplete {
		t.Errorf("%d steps not run, verdict %s", notRun, rep.Verdict)
	}
	if v := verify(t, out.RecordPath); !v.OK() {
		t.Errorf("verify %+v", v.Problems)
	}
}

// A record changed after signing does not verify: a file, the manifest's
// verdict, or a signature by another key.
func TestTamperedRecordIsCaught(t *testing.T) {
	out, _ := run(t, SeedSoak, healthy(1800), false, "")
	raw, err := os.ReadFile(out.RecordPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		edit       func(name string, b []byte) []byte
	}{
		{"report changed", "trial.md: SHA-256", func(n string, b []byte) []byte {
			if n == acceptance.ReportMD {
				return bytes.Replace(b, []byte("| acceptance | pass"), []byte("| acceptance | fail"), 1)
			}
			return b
		}},
		{"verdict changed", "the signature does not verify", func(n string, b []byte) []byte {
			if n == acceptance.ManifestFile {
				return bytes.Replace(b, []byte(`"verdict": "pass"`), []byte(`"verdict": "fail"`), 1)
			}
			return b
		}},
	} {
		path := filepath.Join(t.TempDir(), "x.zip")
		if err := os.WriteFile(path, rezip(t, raw, c.edit), 0o644); err != nil {
			t.Fatal(err)
		}
		v := verify(t, path)
		if v.OK() || !strings.Contains(fmt.Sprint(v.Problems), c.want) {
			t.Errorf("%s: problems %v, want %q", c.name, v.Problems, c.want)
		}
	}
	// The manifest says which key signed it; a renter expecting another
	// key is told.
	f, _ := os.Open(out.RecordPath)
	defer f.Close()
	st, _ := f.Stat()
	if v, err := replacement.VerifyRecord(f, st.Size(), "00112233445566778899aabbccddeeff"); err != nil || v.OK() || !strings.Contains(fmt.Sprint(v.Problems), "not by the expected key") {
		t.Errorf("another key: %v %v", err, v.Problems)
	}
	var m acceptance.Manifest
	if err := json.Unmarshal(readMember(t, raw, acceptance.ManifestFile), &m); err != nil || m.KeyID == "" || len(m.Files) != 2 {
		t.Errorf("manifest %v %+v", err, m)
	}
}

func rezip(t *testing.T, raw []byte, edit func(string, []byte) []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		w, _ := zw.Create(f.Name)
		w.Write(edit(f.Name, readMember(t, raw, f.Name)))
	}
	zw.Close()
	return out.Bytes()
}

func readMember(t *testing.T, raw []byte, name string) []byte {
	t.Helper()
	zr, _ := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	for _, f := range zr.File {
		if f.Name == name {
			r, _ := f.Open()
			b, _ := io.ReadAll(r)
			return b
		}
	}
	t.Fatalf("no %s", name)
	return nil
}
