package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/functions/replacement"
	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/trialrun"
	"github.com/gpusla/gpusla/probe/wire/acceptance"
	"github.com/gpusla/gpusla/sla/trial"
)

// Bad flags are refused before any GPU work starts, each naming itself.
func TestTrialRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "probe.yaml")
	os.WriteFile(bad, []byte("expected:\n  model: H200\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--soak", "10s"}, "--soak 10s: 0, or from 1m0s to 30m0s"},
		{[]string{"--soak", "31m"}, "--soak 31m0s: 0, or from 1m0s to 30m0s"},
		{[]string{"--burn", "500ms"}, "--burn 500ms: at least 1s"},
		{[]string{"--power", "2s"}, "--power 2s: at least 5s"},
		{[]string{"--iperf-peer", "10.0.0.2"}, "--iperf-peer 10.0.0.2 needs --iperf-nominal MBITS"},
		{[]string{"--iperf-peer", "10.0.0.2:99999", "--iperf-nominal", "10000", "--no-push", "--key", filepath.Join(dir, "k.pem")}, `--iperf-peer "10.0.0.2:99999": port "99999" is not 1 to 65535`},
		{[]string{"--config", bad}, "give --no-push"},
		{[]string{"--expect", "driver=580.x"}, `expected.driver: "580.x" is not a driver version`},
		{[]string{"--expect", "model=B300"}, "the order's model"},
	} {
		_, err := runCmd(t, append([]string{"trial"}, c.args...)...)
		if exitCode(err) != checkrun.ExitError || !strings.Contains(err.Error(), c.want) {
			t.Errorf("trial %v: %v, want %q", c.args, err, c.want)
		}
	}
}

// replayCase is a recorded snapshot replayed through `gpuprobe trial
// --snapshot`, with the order the renter gives (none: the recording's own).
type replayCase struct {
	snapshot string
	args     []string
	// The overall verdict of trial.json, trial.md and the signed record,
	// and the exit status that says it.
	verdict string
	exit    int
}

// replayCases are every recorded snapshot: the relabelled, modified,
// sliced, capped, faulty and driverless ones fail (the memory hidden from
// NVML warns: never a pass); the real H200s have nothing wrong, but a
// replay measures no card, so they are incomplete, never a pass.
var replayCases = []replayCase{
	{"h20-as-h100.json", nil, acceptance.VerdictFail, checkrun.ExitFail},
	{"h20-as-h100.json", []string{"--config", "NOORDER"}, acceptance.VerdictFail, checkrun.ExitFail},
	{"rtx4090d-relabelled.json", nil, acceptance.VerdictFail, checkrun.ExitFail},
	{"rtx4090d-relabelled.json", []string{"--config", "NOORDER"}, acceptance.VerdictFail, checkrun.ExitFail},
	{"rtx4090-48gb.json", nil, acceptance.VerdictFail, checkrun.ExitFail},
	{"rtx4090-48gb.json", []string{"--config", "NOORDER"}, acceptance.VerdictFail, checkrun.ExitFail},
	{"h200-vgpu-slice.json", nil, acceptance.VerdictFail, checkrun.ExitFail},
	{"h200-pcie-x8.json", nil, acceptance.VerdictFail, checkrun.ExitFail},
	{"h200-power-capped.json", nil, acceptance.VerdictFail, checkrun.ExitFail},
	{"h200-remap-pending-xid79.json", nil, acceptance.VerdictFail, checkrun.ExitFail},
	{"h200-memory-unreadable.json", nil, acceptance.VerdictWarn, checkrun.ExitWarn},
	{"no-driver.json", nil, acceptance.VerdictFail, checkrun.ExitFail},
	{"h200x1-real.json", []string{"--expect", "model=H200,gpus=1,gpu_memory_gb=141,driver=580,disks=none"}, acceptance.VerdictIncomplete, exitIncomplete},
	{"h200x1-real.json", nil, acceptance.VerdictIncomplete, exitIncomplete},
	{"h200x2-real.json", []string{"--expect", "model=H200,gpus=2,gpu_memory_gb=141,driver=580,disks=none"}, acceptance.VerdictIncomplete, exitIncomplete},
	// The genuine pair held to an order it does not meet.
	{"h200x2-real.json", []string{"--expect", "model=H100"}, acceptance.VerdictFail, checkrun.ExitFail},
	{"h200x2-real.json", []string{"--expect", "gpus=8"}, acceptance.VerdictFail, checkrun.ExitFail},
	// An order spelt as providers write it is read, not refused.
	{"h200x1-real.json", []string{"--expect", "model=H100 SXM 80GB"}, acceptance.VerdictFail, checkrun.ExitFail},
	{"h20-as-h100.json", []string{"--expect", "model=H100 80GB SXM,gpus=1"}, acceptance.VerdictFail, checkrun.ExitFail},
}

// Every recorded snapshot replayed through the whole trial: its overall
// verdict is the same in the exit status, trial.json, trial.md and the
// signed record, which verifies offline and says it is a replay; a row
// that needs a live card is never a pass; the real H200s show no warning
// or failure on any row they measure, and pass acceptance and the order
// where they are held to theirs.
func TestTrialReplaysEveryRecordedSnapshot(t *testing.T) {
	dir := t.TempDir()
	noOrder := filepath.Join(dir, "no-order.yaml")
	if err := os.WriteFile(noOrder, []byte("node: n1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	live := []string{trial.KeyBurn, trial.KeyBandwidth, trial.KeyPower, trial.KeyIperf, trial.KeyGateway, trial.KeyMirror}
	for i, c := range replayCases {
		out := filepath.Join(dir, fmt.Sprint(i))
		args := []string{"trial", "--no-progress", "--snapshot", snapshots + c.snapshot, "--out", out, "--key", filepath.Join(dir, "k.pem")}
		for _, a := range c.args {
			if a == "NOORDER" {
				// A config with no expected: and no backend: no order given.
				a = noOrder
			}
			args = append(args, a)
		}
		if slices.Contains(c.args, "NOORDER") {
			args = append(args, "--no-push")
		}
		text, err := runCmd(t, args...)
		name := fmt.Sprintf("%s %v", c.snapshot, c.args)
		if got := exitCode(err); got != c.exit {
			t.Errorf("%s: exit %d (%v), want %d\n%s", name, got, err, c.exit, text)
			continue
		}
		var rep trialrun.Report
		raw, err := os.ReadFile(filepath.Join(out, acceptance.ReportJSON))
		if err != nil || json.Unmarshal(raw, &rep) != nil {
			t.Fatalf("%s: trial.json: %v", name, err)
		}
		md, _ := os.ReadFile(filepath.Join(out, acceptance.ReportMD))
		if rep.Verdict != c.verdict || !strings.HasPrefix(string(md), "# gpuprobe trial: "+c.verdict+"\n") || !strings.Contains(string(md), "**Replayed from the recorded snapshot "+c.snapshot) {
			t.Errorf("%s: trial.json %s, trial.md %.40q; want %s, said replayed", name, rep.Verdict, md, c.verdict)
		}
		f, err := os.Open(filepath.Join(out, trialrun.RecordName))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		v, err := replacement.VerifyRecord(f, st.Size(), "")
		f.Close()
		if err != nil || !v.OK() || v.Manifest.Verdict != c.verdict || v.Manifest.Replayed == nil || v.Manifest.Replayed.File != c.snapshot || len(v.Manifest.Replayed.SHA256) != 64 {
			t.Errorf("%s: the record: %v %v %+v", name, err, v.Problems, v.Manifest)
			continue
		}
		for _, r := range v.Manifest.Rows {
			if slices.Contains(live, r.Key) && r.Verdict != trial.NotMeasured {
				t.Errorf("%s: %s is %s from a recording", name, r.Key, r.Verdict)
			}
			if strings.Contains(c.snapshot, "-real") && c.exit == exitIncomplete && (r.Verdict == trial.Warn || r.Verdict == trial.Fail) {
				t.Errorf("%s: the real card's %s is %s (%s)", name, r.Key, r.Verdict, r.Detail)
			}
		}
		acc, ord := rowOf(v.Manifest.Rows, trial.KeyAcceptance), rowOf(v.Manifest.Rows, trial.KeyOrder)
		switch {
		case c.verdict == acceptance.VerdictFail && acc.Verdict != trial.Fail:
			t.Errorf("%s: acceptance %s, want fail", name, acc.Verdict)
		case c.exit == exitIncomplete && len(c.args) > 0 && (acc.Verdict != trial.Pass || ord.Verdict != trial.Pass):
			t.Errorf("%s: acceptance %s, order %s (%s); want pass", name, acc.Verdict, ord.Verdict, ord.Detail)
		case c.exit == exitIncomplete && len(c.args) == 0 && (acc.Verdict != trial.NotMeasured || ord.Verdict != trial.NotMeasured):
			// No order anywhere: a genuine card is not held to its own name.
			t.Errorf("%s with no order: acceptance %s, order %s; want not measured", name, acc.Verdict, ord.Verdict)
		}
	}
}

func rowOf(rows []trial.Row, key string) trial.Row {
	for _, r := range rows {
		if r.Key == key {
			return r
		}
	}
	return trial.Row{}
}

// A replay measures nothing live: every flag that would measure is
// refused by name before anything is read.
func TestTrialSnapshotRefusesLiveFlags(t *testing.T) {
	for _, flag := range [][]string{{"--soak", "30m"}, {"--burn", "5s"}, {"--power", "10s"}, {"--iperf-peer", "10.0.0.2", "--iperf-nominal", "1000"},
		{"--force"}, {"--host-root", "/"}, {"--mirror", "http://mirrors.aliyun.com"}, {"--gateway", "10.0.0.1"}} {
		_, err := runCmd(t, append([]string{"trial", "--snapshot", snapshots + "h200x1-real.json"}, flag...)...)
		if exitCode(err) != checkrun.ExitError || !strings.Contains(err.Error(), flag[0]+" does not apply to a recorded snapshot") {
			t.Errorf("%v: %v", flag, err)
		}
	}
}
