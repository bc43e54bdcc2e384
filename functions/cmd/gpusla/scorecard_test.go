package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func runScorecard(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"scorecard", "--terms", "../../../testdata/terms/cn-example.yaml", "--terms", "../../../testdata/terms/us-example.yaml"}, args...))
	err := root.Execute()
	return out.String(), err
}

func TestScorecardCommand(t *testing.T) {
	ev := "../../../sla/report/testdata/example-events.jsonl"
	out, err := runScorecard(t, "--events", ev, "--from", "2026-03", "--to", "2026-03", "--as-of", "2026-04-05T00:00:00Z", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Schema    string
		Providers []struct{ Provider string }
	}
	if err := json.Unmarshal([]byte(out), &sc); err != nil || sc.Schema != "gpusla.scorecard/v2" || len(sc.Providers) != 2 {
		t.Fatalf("json: %v %+v", err, sc)
	}
	// --to defaults to the month before --as-of.
	out, err = runScorecard(t, "--events", ev, "--as-of", "2026-04-05T00:00:00Z", "--format", "html")
	if err != nil || !strings.Contains(out, "Provider scorecard 2026-03 to 2026-03") || !strings.Contains(out, "<svg") {
		t.Fatalf("html: %v %.300s", err, out)
	}
	dst := filepath.Join(t.TempDir(), "sc.md")
	if _, err := runScorecard(t, "--events", ev, "--as-of", "2026-04-05T00:00:00Z", "-o", dst); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(dst); err != nil || !bytes.Contains(b, []byte("## Comparison")) {
		t.Fatalf("-o: %v", err)
	}
}

func TestScorecardBadInputNamesTheFlagOrLine(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"type\":\"node_released\",\"id\":\"x\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bill := filepath.Join(dir, "bill.csv")
	if err := os.WriteFile(bill, []byte("node,period,billed_hours\ngz-01,2026-03,abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--events", bad, "--to", "2026-03"}, "bad.jsonl:1: node:"},
		{[]string{"--events", bad, "--to", "2026-3x"}, `--to: "2026-3x" is not a month`},
		{[]string{"--events", bad, "--from", "03-2026"}, `--from: "03-2026" is not a month`},
		{[]string{"--events", bad, "--as-of", "yesterday"}, `--as-of "yesterday"`},
		{[]string{"--events", bad, "--from", "2026-04", "--to", "2026-03"}, "--to 2026-03 is before --from 2026-04"},
		{[]string{"--events", bad, "--to", "2026-03", "--format", "pdf"}, `--format "pdf"`},
		{[]string{"--events", bad, "--data", dir}, "give one of --events FILE or --data DIR"},
		{[]string{"--events", filepath.Join(dir, "none.jsonl"), "--to", "2026-03"}, "--events: open"},
		{[]string{"--events", bad, "--to", "2026-03", "--bill", bill}, "bill.csv:2"},
	} {
		_, err := runScorecard(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}

func TestScorecardReadsTheLocalStore(t *testing.T) {
	data := t.TempDir()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"node", "add", "--data", data, "--id", "gz-h200-01", "--provider", "Example Compute", "--contract", "cn-example",
		"--gpu-model", "H200", "--gpus", "8", "--gpu-memory-gb", "141", "--price", "148", "--currency", "CNY"})
	if err := root.Execute(); err != nil {
		t.Fatalf("node add: %v\n%s", err, out.String())
	}
	now := time.Now().UTC()
	got, err := runScorecard(t, "--data", data, "--to", now.Format("2006-01"), "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, `"contracts": [
        "cn-example"`) {
		t.Errorf("the registered node's provider is missing:\n%.600s", got)
	}
}
