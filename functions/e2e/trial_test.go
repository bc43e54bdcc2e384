package e2e

import (
	"cmp"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/probe/wire/acceptance"
	"github.com/gpusla/gpusla/sla/trial"
)

// trialCase is one trial node: a recorded snapshot replayed by the
// gpuprobe binary's `trial --snapshot`, pushed into `gpusla serve`.
type trialCase struct {
	id, snapshot string
	// order is node add's order: what the backend holds.
	order []string
	// noProbeOrder: the probe's config has no expected: (node add's is
	// dropped), so only the backend knows what was paid for.
	noProbeOrder bool
	// verdict is the local record's (trial.json, trial.md, the signed
	// record, the exit status); page the page's acceptance and order
	// rows; pageVerdict the worst of the page's node rows ("" verdict).
	verdict, acc, ord, pageVerdict string
}

const (
	vFail, vWarn, vIncomplete = acceptance.VerdictFail, acceptance.VerdictWarn, acceptance.VerdictIncomplete
	rPass, rFail, rWarn, rNM  = trial.Pass, trial.Fail, trial.Warn, trial.NotMeasured
)

// trialCases are every recorded snapshot under the order it was recorded
// against, the relabelled ones with the order in the backend only and
// with no order anywhere, and a genuine H200 registered as an H100.
var trialCases = []trialCase{
	{id: "h20", snapshot: "h20-as-h100.json", order: []string{"--gpu-model", "H100", "--gpus", "1", "--gpu-memory-gb", "80"}, verdict: vFail, acc: rFail, ord: rFail},
	{id: "h20-backend-order", snapshot: "h20-as-h100.json", order: []string{"--gpu-model", "H100", "--gpus", "1", "--gpu-memory-gb", "80"}, noProbeOrder: true, verdict: vFail, acc: rFail, ord: rFail},
	{id: "h20-no-order", snapshot: "h20-as-h100.json", order: []string{"--gpus", "1"}, noProbeOrder: true, verdict: vFail, acc: rFail, ord: rFail},
	{id: "4090d", snapshot: "rtx4090d-relabelled.json", order: []string{"--gpu-model", "RTX 4090", "--gpus", "1", "--gpu-memory-gb", "24"}, verdict: vFail, acc: rFail, ord: rFail},
	{id: "4090d-no-order", snapshot: "rtx4090d-relabelled.json", order: []string{"--gpus", "1"}, noProbeOrder: true, verdict: vFail, acc: rFail, ord: rFail},
	{id: "4090-48gb", snapshot: "rtx4090-48gb.json", order: []string{"--gpu-model", "RTX 4090", "--gpus", "1", "--gpu-memory-gb", "48"}, verdict: vFail, acc: rFail, ord: rFail},
	{id: "vgpu", snapshot: "h200-vgpu-slice.json", order: []string{"--gpu-model", "H200", "--gpus", "1", "--gpu-memory-gb", "141"}, verdict: vFail, acc: rFail, ord: rFail},
	{id: "pcie-x8", snapshot: "h200-pcie-x8.json", order: []string{"--gpu-model", "H200", "--gpus", "2", "--gpu-memory-gb", "141"}, verdict: vFail, acc: rFail, ord: rFail},
	{id: "capped", snapshot: "h200-power-capped.json", order: []string{"--gpu-model", "H200", "--gpus", "2", "--gpu-memory-gb", "141"}, verdict: vFail, acc: rFail, ord: rFail},
	{id: "xid79", snapshot: "h200-remap-pending-xid79.json", order: []string{"--gpu-model", "H200", "--gpus", "2", "--gpu-memory-gb", "141"}, verdict: vFail, acc: rFail, ord: rPass},
	{id: "memory-hidden", snapshot: "h200-memory-unreadable.json", order: []string{"--gpu-model", "H200", "--gpus", "1", "--gpu-memory-gb", "141"}, verdict: vWarn, acc: rWarn, ord: rWarn},
	{id: "no-driver", snapshot: "no-driver.json", order: []string{"--gpu-model", "H200", "--gpus", "2"}, verdict: vFail, acc: rFail, ord: rFail},
	{id: "h200x1", snapshot: "h200x1-real.json", order: []string{"--gpu-model", "H200", "--gpus", "1", "--gpu-memory-gb", "141"}, verdict: vIncomplete, acc: rPass, ord: rPass},
	{id: "h200x2", snapshot: "h200x2-real.json", order: []string{"--gpu-model", "H200", "--gpus", "2", "--gpu-memory-gb", "141"}, verdict: vIncomplete, acc: rPass, ord: rPass},
	// A genuine H200 where an H100 SXM was registered, the probe told
	// nothing: the record cannot know; the page holds it to the order.
	{id: "h200-for-h100", snapshot: "h200x1-real.json", order: []string{"--gpu-model", "H100 SXM", "--gpus", "1", "--gpu-memory-gb", "80"}, noProbeOrder: true,
		verdict: vIncomplete, acc: rFail, ord: rFail, pageVerdict: vFail},
	// No order anywhere: a genuine card is held to nothing, never passed.
	{id: "h200-no-order", snapshot: "h200x1-real.json", order: []string{"--gpus", "1"}, noProbeOrder: true, verdict: vIncomplete, acc: rNM, ord: rNM},
}

// Every recorded snapshot replayed by the real binaries, end to end: `gpusla
// node add` registers the node's order, `gpuprobe trial --snapshot FILE
// --config` judges the recording and pushes every step into `gpusla serve`
// with the node's secret, `gpusla verify` checks the signed record offline,
// and `gpusla scorecard --trial` judges each node in its own column. The
// verdict is the same in the exit status, trial.json, trial.md, the record
// and the page's node rows, except where only the backend holds the order:
// there the page holds the card to it (an H200 registered as an H100
// fails) and the record, which cannot know, is not measured. No row that
// needs a live card passes, and the real H200s show no warning or failure
// on any row they measure.
func TestTrialSnapshotsEndToEnd(t *testing.T) {
	b := newBackend(t, storeEmbedded, newFakeSlack(t), "127.0.0.1")
	regs := make([]registered, len(trialCases))
	for i, c := range trialCases {
		regs[i] = b.register(c.id, c.order...)
	}
	b.start()
	local := map[string][]trial.Row{}
	for i, c := range trialCases {
		local[c.id] = replayTrial(t, regs[i], c)
	}
	b.stop()
	now := time.Now().UTC()
	asOf := now.Truncate(time.Second)
	if asOf.Before(now) {
		asOf = asOf.Add(time.Second) // now rounded up: no record is after it, and it is not the future
	}
	page := run(t, b.env, bin.gpusla, "scorecard", "--data", b.dir, "--trial", "--format", "json", "--terms", terms,
		"--from", now.Add(-time.Hour).Format("2006-01"), "--to", asOf.Format("2006-01"), "--as-of", asOf.Format(time.RFC3339))
	var tr struct {
		Providers []struct {
			Node    string
			Figures []trial.Row
		}
	}
	if err := json.Unmarshal([]byte(page), &tr); err != nil {
		t.Fatalf("the trial page is not JSON: %v\n%s", err, page)
	}
	cols := map[string][]trial.Row{}
	for _, p := range tr.Providers {
		cols[p.Node] = p.Figures
	}
	for _, c := range trialCases {
		rows := cols[c.id]
		var nodeRows []trial.Row
		for _, r := range rows {
			if slices.Contains(trial.NodeKeys, r.Key) {
				nodeRows = append(nodeRows, r)
			}
		}
		if len(nodeRows) != len(trial.NodeKeys) {
			t.Errorf("%s: the page has %d of the %d node rows", c.id, len(nodeRows), len(trial.NodeKeys))
			continue
		}
		acc, ord := rowByKey(rows, trial.KeyAcceptance), rowByKey(rows, trial.KeyOrder)
		if acc.Verdict != c.acc || ord.Verdict != c.ord {
			t.Errorf("%s on the page: acceptance %s (%s), order %s (%s); want %s, %s", c.id, acc.Verdict, acc.Detail, ord.Verdict, ord.Detail, c.acc, c.ord)
		}
		if v, want := acceptance.VerdictOf(nodeRows), cmp.Or(c.pageVerdict, c.verdict); v != want {
			t.Errorf("%s on the page: its node rows give %s, want %s", c.id, v, want)
		}
		// The page judges what the node sent: its rows are the record's
		// wherever the probe knew the backend's order.
		if c.pageVerdict == "" {
			for i, r := range local[c.id] {
				if r.Key != nodeRows[i].Key || r.Verdict != nodeRows[i].Verdict {
					t.Errorf("%s: the record's %s is %s, the page's %s is %s", c.id, r.Key, r.Verdict, nodeRows[i].Key, nodeRows[i].Verdict)
				}
			}
		}
		for _, r := range nodeRows {
			if strings.HasSuffix(c.snapshot, "-real.json") && c.pageVerdict == "" && (r.Verdict == rWarn || r.Verdict == rFail) {
				t.Errorf("%s: the real card's %s is %s on the page (%s)", c.id, r.Key, r.Verdict, r.Detail)
			}
		}
	}
}

// replayTrial runs `gpuprobe trial --snapshot` for the case with the
// config node add printed, holds its exit status, trial.json, trial.md and
// `gpusla verify` of its record to the case, and returns the record's rows.
func replayTrial(t *testing.T, reg registered, c trialCase) []trial.Row {
	t.Helper()
	dir := t.TempDir()
	cfg := map[string]any{}
	for k, v := range reg.Config {
		cfg[k] = v
	}
	if c.noProbeOrder {
		delete(cfg, "expected")
	}
	secret := filepath.Join(dir, "secret")
	cfg["secret_file"], cfg["spool"] = secret, map[string]any{"dir": filepath.Join(dir, "spool")}
	raw, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "probe.yaml")
	for path, data := range map[string][]byte{secret: []byte(reg.Secret + "\n"), cfgPath: raw} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin.gpuprobe, "trial", "--snapshot", filepath.Join(root, "probe", "checkrun", "testdata", "snapshots", c.snapshot),
		"--config", cfgPath, "--out", out, "--key", filepath.Join(dir, "node.pem"), "--no-progress", "--push-wait", "1m")
	text, err := cmd.CombinedOutput()
	wantExit := map[string]int{vFail: 3, vWarn: 2, vIncomplete: 4}[c.verdict]
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != wantExit {
		t.Fatalf("%s: gpuprobe trial: %v, want exit %d\n%s", c.id, err, wantExit, text)
	}
	if !strings.Contains(string(text), "all ") || !strings.Contains(string(text), " batches acknowledged") {
		t.Errorf("%s: not every batch reached the backend:\n%s", c.id, text)
	}
	var rep struct {
		acceptance.Manifest
	}
	js, err := os.ReadFile(filepath.Join(out, acceptance.ReportJSON))
	if err != nil || json.Unmarshal(js, &rep) != nil {
		t.Fatalf("%s: trial.json: %v", c.id, err)
	}
	md, _ := os.ReadFile(filepath.Join(out, acceptance.ReportMD))
	if rep.Verdict != c.verdict || !strings.HasPrefix(string(md), "# gpuprobe trial: "+c.verdict+"\n") {
		t.Errorf("%s: trial.json %s, trial.md %.40q; want %s", c.id, rep.Verdict, md, c.verdict)
	}
	v := run(t, nil, bin.gpusla, "verify", filepath.Join(out, "acceptance.zip"))
	if !strings.Contains(v, "\nverdict "+c.verdict+"\n") || !strings.Contains(v, "REPLAYED from the recorded snapshot \""+c.snapshot+"\"") ||
		!strings.Contains(v, "OK: the node's signature and every file match the manifest") {
		t.Errorf("%s: gpusla verify:\n%s", c.id, v)
	}
	for _, r := range rep.Rows {
		switch r.Key {
		case trial.KeyBurn, trial.KeyBandwidth, trial.KeyPower, trial.KeyIperf, trial.KeyGateway, trial.KeyMirror:
			if r.Verdict != rNM {
				t.Errorf("%s: %s is %s from a recording", c.id, r.Key, r.Verdict)
			}
		}
	}
	return rep.Rows
}

func rowByKey(rows []trial.Row, key string) trial.Row {
	for _, r := range rows {
		if r.Key == key {
			return r
		}
	}
	return trial.Row{}
}
