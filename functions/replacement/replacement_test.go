package replacement_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/replacement"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/incident"
)

type env struct {
	t     *testing.T
	svc   *app.Service
	desk  *app.TicketDesk
	clock *apptest.Clock
	probe *apptest.Probe
	dir   string
	req   *replacement.Requester
}

// Tuesday 2026-12-01 02:00 UTC is 10:00 in Shanghai: business hours.
var t0 = time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)

func newEnv(t *testing.T) *env {
	dir := t.TempDir()
	st, err := bolt.Open(filepath.Join(dir, "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := apptest.NewClock(t0)
	st.SetClock(clock.Now)
	book, err := wiring.LoadTerms("../../testdata/terms")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Clock: clock, Log: slog.New(slog.DiscardHandler), Terms: book})
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	n, secret, err := svc.AddNode(t.Context(), app.NewNode{ID: "gz-h200-01", Provider: "Example Compute", Contract: "cn-example",
		OrderedAt: t0.Add(-time.Hour), GPUModel: "H200", GPUCount: 8, GPUMemoryMiB: 141 * 1024, PricePerHour: 148, Currency: "CNY"})
	if err != nil {
		t.Fatal(err)
	}
	key, err := replacement.LoadOrCreateKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, svc: svc, desk: desk, clock: clock, probe: &apptest.Probe{Node: n.ID, Secret: secret}, dir: dir,
		req: &replacement.Requester{Desk: desk, Key: key, Dir: filepath.Join(dir, "replacements")}}
}

func (e *env) push(obs ...wire.Observation) {
	e.t.Helper()
	_, body := e.probe.Batch(e.clock.Now(), obs...)
	if _, err := e.svc.Ingest(context.Background(), e.probe.Request(e.clock.Now(), body)); err != nil {
		e.t.Fatal(err)
	}
}

func gpu(i int) *int { return &i }

const xidLine = "line 4012: Xid 79 (GPU has fallen off the bus) at PCI 0000:18:00.0"

// failingNode: first checks pass at delivery (with a passing burn), then
// GPU 3 falls off the bus: 7 of 8 GPUs, an XID 79 in the kernel log.
func (e *env) failingNode() {
	hb := wire.Observation{At: e.clock.Now(), Kind: wire.KindHeartbeat}
	e.push(hb, apptest.Check(e.clock.Now(),
		wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Pass, Value: "8", Criterion: "8"},
		wire.Check{Name: "stress.burn", Category: wire.CategoryPerformance, Verdict: wire.Pass, Value: "612 TFLOPS", Criterion: ">= 550 TFLOPS", GPU: gpu(3)}))
	e.clock.Advance(10 * time.Minute)
	for i := 0; i < 2; i++ {
		e.push(wire.Observation{At: e.clock.Now(), Kind: wire.KindHeartbeat}, apptest.Check(e.clock.Now(),
			wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "7", Criterion: "8"},
			wire.Check{Name: "gpu.xid.kernel_log", Category: wire.CategoryGPUDegraded, Verdict: wire.Fail, Value: "Xid 79", Criterion: "no hardware XID",
				GPU: gpu(3), Detail: "kernel log: " + xidLine}))
		e.clock.Advance(time.Minute)
	}
}

func (e *env) incident(kind string) store.Incident {
	e.t.Helper()
	incs, err := e.svc.Incidents(e.t.Context(), "gz-h200-01", t0.Add(-time.Hour), e.clock.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	for _, i := range incs {
		if i.Kind == kind {
			return i
		}
	}
	e.t.Fatalf("no %s incident among %+v", kind, incs)
	return store.Incident{}
}

// TestRequestReplacement: the text cites what was ordered and measured,
// the criterion, since when, the request and the contract's clause; the
// hardware ticket is opened once with its replacement clock running; the
// pack verifies.
func TestRequestReplacement(t *testing.T) {
	e := newEnv(t)
	e.failingNode()
	lost := e.incident("gpu_lost")
	res, err := e.req.Request(t.Context(), replacement.Request{Node: "gz-h200-01", IncidentID: lost.ID, Lang: replacement.Both, By: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"请更换物理机", "please replace the physical machine", "8 × H200 141 GiB", "GPU 掉卡",
		"gpu.count：实测7，合格标准8，结论：未通过", "gpu.count: measured 7, criterion 8, verdict: fail", lost.ID, "已持续2分钟", "2m so far",
		"开始时间：2026年12月1日 10:10（北京时间）", "Since: 1 December 2026 10:10 (China Standard Time)", // in the contract's zone
		"以下时间均为北京时间。", "Fault: GPU lost",
		// Grouped: two failing checks, each seen twice.
		"实测结果（未通过的检查2项，共4次）：", "  共2次，2026年12月1日 10:10至2026年12月1日 10:11", "Measured (2 failing checks, 4 results):",
		xidLine, "stress.burn", "612 TFLOPS",
		"依据合同 cn-example 第6条（4小时内完成硬件更换，按自然时间计）", "最迟应于2026年12月1日 14:12（北京时间）前完成",
		"hardware replacement within 4h, wall clock", "due by 1 December 2026 14:12 (China Standard Time)",
		replacement.KeyID(e.req.Key.Public().(ed25519.PublicKey)),
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("ticket text lacks %q:\n%s", want, res.Text)
		}
	}
	// The clause by its number; the terms file and line are the pack's.
	if strings.Contains(res.Text, "cn-example.yaml") {
		t.Errorf("ticket text cites the terms file:\n%s", res.Text)
	}
	if zh := strings.Index(res.Text, "请更换物理机"); zh < 0 || zh > strings.Index(res.Text, "please replace") {
		t.Errorf("both: Chinese first")
	}
	if !res.Created || res.Ticket.Category != store.CategoryHardware || res.Ticket.IncidentID != lost.ID || res.Ticket.Priority != "P1" {
		t.Fatalf("ticket %+v created=%v", res.Ticket, res.Created)
	}
	tim, _, err := e.desk.Timing(&res.Ticket, e.clock.Now())
	if err != nil || tim.Replacement == nil || !tim.Replacement.Deadline.Equal(e.clock.Now().Add(4*time.Hour)) {
		t.Fatalf("replacement clock: %+v %v", tim.Replacement, err)
	}

	// Again: one ticket, same pack name.
	e.clock.Advance(time.Minute)
	again, err := e.req.Request(t.Context(), replacement.Request{Node: "gz-h200-01", IncidentID: lost.ID, Lang: replacement.English})
	if err != nil {
		t.Fatal(err)
	}
	if again.Created || again.Ticket.ID != res.Ticket.ID || again.Pack != res.Pack {
		t.Fatalf("second request: %+v", again)
	}
	if strings.Contains(again.Text, "请更换") {
		t.Fatal("--lang en must not carry Chinese")
	}
	if l, _ := e.desk.List(t.Context(), false); len(l) != 1 {
		t.Fatalf("%d tickets after two requests, want 1", len(l))
	}

	raw, err := os.ReadFile(again.Pack)
	if err != nil {
		t.Fatal(err)
	}
	vr, err := replacement.Verify(bytes.NewReader(raw), int64(len(raw)), again.Manifest.KeyID)
	if err != nil || !vr.OK() {
		t.Fatalf("pack does not verify: %v %v", err, vr.Problems)
	}
	if vr.Batches != 3 || len(again.Evidence.Failing) != 4 || len(again.Evidence.First) != 2 {
		t.Fatalf("pack: %d batches, %d failing, %d first checks; want 3, 4, 2", vr.Batches, len(again.Evidence.Failing), len(again.Evidence.First))
	}
	var failing []replacement.Check
	if err := json.Unmarshal(member(t, raw, replacement.FailingFile), &failing); err != nil || len(failing) != 4 {
		t.Fatalf("failing_checks.json: %v %d", err, len(failing))
	}
	if !bytes.Equal(member(t, raw, replacement.TicketFile), []byte(again.Text)) {
		t.Fatal("ticket.txt is not the text")
	}
}

// TestPackTamperFails: any changed byte, removed or added file, other key
// or forged manifest is named by Verify.
func TestPackTamperFails(t *testing.T) {
	e := newEnv(t)
	e.failingNode()
	res, err := e.req.Request(t.Context(), replacement.Request{Node: "gz-h200-01", Lang: replacement.Chinese})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(res.Pack)
	if err != nil {
		t.Fatal(err)
	}
	batch := replacement.BatchFile(res.Manifest.Batches[1].Seq)
	cases := map[string]struct {
		edit func(name string, b []byte) []byte
		add  string
		key  string
		want string
	}{
		"batch byte": {edit: func(n string, b []byte) []byte {
			if n == batch {
				return bytes.Replace(b, []byte(`"value":"7"`), []byte(`"value":"8"`), 1)
			}
			return b
		}, want: batch + ": the batch hashes to"},
		"ticket text": {edit: func(n string, b []byte) []byte {
			if n == replacement.TicketFile {
				return append(b, 'x')
			}
			return b
		}, want: replacement.TicketFile + ": "},
		"manifest re-summed": {edit: func(n string, b []byte) []byte {
			if n == replacement.ManifestFile {
				return bytes.Replace(b, []byte(res.Manifest.Incident), []byte("gpu_lost@20261201T000000.000Z"), 1)
			}
			return b
		}, want: "the signature does not verify"},
		"signature removed": {edit: func(n string, b []byte) []byte {
			if n == replacement.SignatureFile {
				return nil
			}
			return b
		}, want: "manifest.sig: missing"},
		"file added":   {edit: func(_ string, b []byte) []byte { return b }, add: "extra.txt", want: "extra.txt: in the zip but not in the manifest"},
		"other key id": {edit: func(_ string, b []byte) []byte { return b }, key: "00112233445566778899aabbccddeeff", want: "not by the expected key"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			z := rezip(t, raw, c.edit, c.add)
			vr, err := replacement.Verify(bytes.NewReader(z), int64(len(z)), c.key)
			if err != nil {
				t.Fatal(err)
			}
			if vr.OK() {
				t.Fatal("a tampered pack verified")
			}
			var all []string
			for _, p := range vr.Problems {
				all = append(all, p.String())
			}
			if !strings.Contains(strings.Join(all, "\n"), c.want) {
				t.Fatalf("problems %q lack %q", all, c.want)
			}
		})
	}
	if _, err := replacement.Verify(bytes.NewReader([]byte("not a zip")), 9, ""); err == nil {
		t.Fatal("not a zip: no error")
	}
}

// TestRequestRefused: a node or incident that does not warrant a
// replacement gets an error naming the field, and nothing is opened.
func TestRequestRefused(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ node, inc, want string }{
		{"nope", "", `no node "nope"`},
		{"gz-h200-01", "", "has no open gpu_lost/gpu_degraded/inventory_mismatch incident"},
		{"gz-h200-01", "gpu_lost@20261201T000000.000Z", `has no incident "gpu_lost@20261201T000000.000Z"`},
	} {
		_, err := e.req.Request(t.Context(), replacement.Request{Node: c.node, IncidentID: c.inc})
		var ae *app.Error
		if err == nil || !errors.As(err, &ae) || ae.Kind != app.EInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("request %s %q: %v, want invalid %q", c.node, c.inc, err, c.want)
		}
	}
	// A network incident is not a hardware fault.
	e.push(wire.Observation{At: e.clock.Now(), Kind: wire.KindHeartbeat})
	for i := 0; i < 3; i++ {
		e.clock.Advance(time.Minute)
		e.push(wire.Observation{At: e.clock.Now(), Kind: wire.KindHeartbeat}, apptest.Check(e.clock.Now(),
			wire.Check{Name: "net.gateway.ping", Category: wire.CategoryNetwork, Verdict: wire.Fail, Value: "9 ms", Criterion: "< 2 ms"}))
	}
	net := e.incident("network_degraded")
	if _, err := e.req.Request(t.Context(), replacement.Request{Node: "gz-h200-01", IncidentID: net.ID}); err == nil || !strings.Contains(err.Error(), "is network_degraded") {
		t.Fatalf("network incident: %v", err)
	}
	if l, _ := e.desk.List(t.Context(), false); len(l) != 0 {
		t.Fatalf("refused requests opened %d tickets", len(l))
	}
	if _, err := replacement.ParseLang("fr"); err == nil {
		t.Fatal("lang fr accepted")
	}
}

// TestKeyKept: the signing key is created once and read back the same.
func TestKeyKept(t *testing.T) {
	dir := t.TempDir()
	a, err := replacement.LoadOrCreateKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := replacement.LoadOrCreateKey(dir)
	if err != nil || !a.Equal(b) {
		t.Fatalf("key not kept: %v", err)
	}
	if st, _ := os.Stat(filepath.Join(dir, replacement.KeyFile)); st.Mode().Perm() != 0o600 {
		t.Fatalf("key mode %v", st.Mode())
	}
	os.WriteFile(filepath.Join(dir, replacement.KeyFile), []byte("junk"), 0o600)
	if _, err := replacement.LoadOrCreateKey(dir); err == nil || !strings.Contains(err.Error(), "not a PEM") {
		t.Fatalf("damaged key: %v", err)
	}
}

func member(t *testing.T, z []byte, name string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == name {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			return b
		}
	}
	t.Fatalf("no %s in the pack", name)
	return nil
}

// rezip copies z, passing each member through edit (nil drops it) and
// adding a member named add.
func rezip(t *testing.T, z []byte, edit func(string, []byte) []byte, add string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if b = edit(f.Name, b); b == nil {
			continue
		}
		w, _ := zw.Create(f.Name)
		w.Write(b)
	}
	if add != "" {
		w, _ := zw.Create(add)
		w.Write([]byte("x"))
	}
	zw.Close()
	return out.Bytes()
}

// TestKindsAreTheEngines: the kinds a replacement is asked for are the SLA
// engine's hardware kinds, spelt the same.
func TestKindsAreTheEngines(t *testing.T) {
	want := []string{string(incident.GPULost), string(incident.GPUDegraded), string(incident.InventoryMismatch)}
	if strings.Join(replacement.Kinds, ",") != strings.Join(want, ",") {
		t.Fatalf("Kinds %v, want %v", replacement.Kinds, want)
	}
}

// TestGeneralTicketWarned: an incident whose "Ticket opened" button made a
// general ticket keeps that one ticket, and the request says no
// replacement clock runs on it.
func TestGeneralTicketWarned(t *testing.T) {
	e := newEnv(t)
	e.failingNode()
	deg := e.incident("gpu_degraded")
	if _, _, err := e.desk.Open(t.Context(), app.OpenRequest{Node: "gz-h200-01", Priority: "P2", Key: app.IncidentTicketKey("gz-h200-01", deg.ID), IncidentID: deg.ID}); err != nil {
		t.Fatal(err)
	}
	res, err := e.req.Request(t.Context(), replacement.Request{Node: "gz-h200-01", IncidentID: deg.ID, Lang: replacement.English})
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || !strings.Contains(res.Warning, "replacement clock does not run") {
		t.Fatalf("created=%v warning=%q", res.Created, res.Warning)
	}
	if l, _ := e.desk.List(t.Context(), false); len(l) != 1 {
		t.Fatalf("%d tickets", len(l))
	}
}

// TestTextEverySentenceTranslated: every branch of the text (a recovered
// incident, checks with and without a GPU and with details, no contract,
// a contract without a deadline) finds its Chinese sentence.
func TestTextEverySentenceTranslated(t *testing.T) {
	book, err := wiring.LoadTerms("../../testdata/terms")
	if err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Minute)
	ev := &replacement.Evidence{
		Node:     store.Node{ID: "n1", Provider: "p", Contract: "cn-example", GPUModel: "H200", GPUCount: 8},
		Incident: store.Incident{ID: "gpu_degraded@x", Kind: "gpu_degraded", Start: t0, End: t0.Add(time.Hour)},
		Failing: []replacement.Check{
			{At: at, Check: wire.Check{Name: "gpu.ecc.volatile", Verdict: "fail", Value: "3", Criterion: "0", Detail: "DBE on GPU 2", GPU: gpu(2)}},
			{At: at, Check: wire.Check{Name: "gpu.count", Verdict: "fail", Value: "7", Criterion: "8", Detail: "one missing"}},
		},
		Stress: []replacement.Check{{At: at, Check: wire.Check{Name: "stress.burn", Verdict: "fail", Value: "errors"}}},
		First:  []replacement.Check{{At: t0, Check: wire.Check{Name: "gpu.count", Verdict: "pass"}}},
		AsOf:   t0.Add(2 * time.Hour),
	}
	for name, in := range map[string]replacement.TextInput{
		"no contract": {Evidence: ev},
		"no deadline": {Evidence: ev, Terms: book["cn-example"]},
		"deadline":    {Evidence: ev, Terms: book["cn-example"], Due: t0.Add(4 * time.Hour)},
	} {
		txt, err := replacement.Text(in, replacement.Both)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, want := range []string{"已于", "recovered at", "详情：DBE on GPU 2", "detail: one missing", "stress.burn：errors"} {
			if !strings.Contains(txt, want) {
				t.Errorf("%s: text lacks %q:\n%s", name, want, txt)
			}
		}
	}
}
