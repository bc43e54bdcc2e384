package checkrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
)

type steps struct{ names []string }

func (s *steps) Start(int)        {}
func (s *steps) Step(name string) { s.names = append(s.names, name) }
func (s *steps) Done()            {}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		verdicts []string
		exit     int
		verdict  string
	}{
		{nil, ExitPass, wire.Pass},
		{[]string{wire.Pass, wire.Skipped}, ExitPass, wire.Pass},
		{[]string{wire.Pass, wire.Warn, wire.Skipped}, ExitWarn, wire.Warn},
		{[]string{wire.Warn, wire.Fail, wire.Pass}, ExitFail, wire.Fail},
	} {
		var cs []wire.Check
		for i, v := range tc.verdicts {
			cs = append(cs, wire.Check{Name: string(rune('a' + i)), Category: wire.CategoryHost, Verdict: v})
		}
		r := newReport("t", "live", time.Time{}, 0, cs)
		if r.ExitCode != tc.exit || r.Verdict != tc.verdict {
			t.Errorf("%v: exit %d %s, want %d %s", tc.verdicts, r.ExitCode, r.Verdict, tc.exit, tc.verdict)
		}
	}
}

func TestLiveRunsGroupsInOrderAndRecordedSkipsMeasurements(t *testing.T) {
	g1 := Group{Name: "one",
		Read: func(_ context.Context, s *Snapshot) error { s.GPUError = "read by one"; return nil },
		Judge: func(s *Snapshot) []wire.Check {
			return []wire.Check{{Name: "one.check", Category: wire.CategoryHost, Verdict: wire.Pass, Value: s.GPUError}}
		},
	}
	g2 := Group{Name: "stress", Run: func(context.Context) []wire.Check {
		return []wire.Check{{Name: "stress.burn", Category: wire.CategoryPerformance, Verdict: wire.Warn}}
	}}
	p := &steps{}
	r := &Runner{Groups: []Group{g1, g2}, Progress: p, Probe: "v1"}
	s, rep, err := r.Live(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.names, ","); got != "reading one,judging one,running stress" {
		t.Errorf("progress: %s", got)
	}
	if len(rep.Checks) != 2 || rep.Checks[0].Value != "read by one" || rep.ExitCode != ExitWarn || rep.Source != "live" || rep.Probe != "v1" {
		t.Fatalf("report: %+v", rep)
	}
	rec := r.Recorded(s, "snapshot:x.json")
	if len(rec.Checks) != 2 || rec.Checks[1].Name != "stress" || rec.Checks[1].Verdict != wire.Skipped || rec.ExitCode != ExitPass {
		t.Fatalf("recorded: %+v", rec.Checks)
	}

	bad := &Runner{Groups: []Group{{Name: "broken", Read: func(context.Context, *Snapshot) error { return errors.New("boom") }}}}
	if _, _, err := bad.Live(context.Background()); err == nil || err.Error() != "broken: boom" {
		t.Fatalf("read error: %v", err)
	}
	if _, err := bad.Take(context.Background()); err == nil {
		t.Fatal("Take ignored the read error")
	}
}

func TestTableAndJSON(t *testing.T) {
	rep := judge(t, "h200-power-capped.json", nil)
	var tab bytes.Buffer
	if err := rep.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	out := tab.String()
	for _, want := range []string{
		"CHECK", "VERDICT", "VALUE", "CRITERION",
		"gpu.power.enforced_limit  0    FAIL     400 W",
		"Failures:\n  gpu.power.enforced_limit (GPU 0) [inventory]: power limit capped at 400 W",
		"FAIL in", "exit 3",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Format != ReportFormat || back.ExitCode != ExitFail || back.Verdict != wire.Fail || back.Counts[wire.Fail] != 1 || len(back.Checks) != len(rep.Checks) {
		t.Fatalf("json: %+v", back)
	}
	// Every check is a valid wire check, so a report can go to the backend as is.
	b := wire.Batch{V: wire.Version, ID: "x", Node: "n", Seq: 1, CreatedAt: time.Now(),
		Observations: []wire.Observation{{At: time.Now(), Kind: wire.KindCheck, Checks: back.Checks}}}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestSnapshotFiles(t *testing.T) {
	dir := t.TempDir()
	s, err := ReadSnapshot(realSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "snap.json")
	if err := WriteSnapshot(path, s); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSnapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.GPU.Devices) != 2 || back.GPU.Devices[1].UUID != s.GPU.Devices[1].UUID {
		t.Fatal("round trip lost data")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
	if err := WriteSnapshot(filepath.Join(dir, "missing", "x.json"), s); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}

	for name, tc := range map[string]struct{ body, want string }{
		"syntax":  {"{\n \"format\": 1,\n \"gpu\": {,\n}", "line 3"},
		"unknown": {`{"format": 1, "gpu_eror": "x"}`, `unknown field "gpu_eror"`},
		"format":  {`{"format": 2, "gpu_error": "x"}`, "format: 2 is not a snapshot format"},
		"empty":   {`{"format": 1}`, "no readings"},
		"type":    {`{"format": 1, "gpu": {"devices": [{"index": "zero"}]}}`, "index"},
	} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadSnapshot(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: got %v, want %q and the file name", name, err, tc.want)
		}
	}
	if _, err := ReadSnapshot(filepath.Join(dir, "nope.json")); err == nil {
		t.Fatal("missing file read")
	}
}

// Bad snapshots are named precisely: an unknown field names the GPU it
// is in and its line, a truncated file the line where it ends, a wrong
// type the field and line.
func TestSnapshotErrorsSayWhere(t *testing.T) {
	real, err := os.ReadFile(realSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	// A typo inside GPU 1's readings: the second "memory_total_mib".
	first := bytes.Index(real, []byte(`"memory_total_mib"`))
	second := first + 1 + bytes.Index(real[first+1:], []byte(`"memory_total_mib"`))
	typo := append(append(append([]byte{}, real[:second]...), []byte(`"memroy_total_mib"`)...), real[second+len(`"memory_total_mib"`):]...)
	typoLine := 1 + bytes.Count(real[:second], []byte("\n"))
	_, err = ParseSnapshot(typo)
	want := fmt.Sprintf(`line %d: gpu.devices[1].memroy_total_mib (GPU 1, NVIDIA H200): unknown field "memroy_total_mib"`, typoLine)
	if err == nil || err.Error() != want {
		t.Errorf("typo in GPU 1:\n got %v\nwant %s", err, want)
	}

	cut := real[:len(real)/2]
	_, err = ParseSnapshot(cut)
	want = fmt.Sprintf("line %d: the snapshot ends in the middle of its JSON: the file is truncated", 1+bytes.Count(cut, []byte("\n")))
	if err == nil || err.Error() != want {
		t.Errorf("truncated:\n got %v\nwant %s", err, want)
	}

	_, err = ParseSnapshot([]byte("{\n\"format\": 1,\n\"gpu\": {\"devices\": [{\"index\": 0, \"name\": \"NVIDIA H200\"},\n{\"index\": 1, \"name\": \"NVIDIA H200\",\n \"gpu_cores\": \"many\"}]}}"))
	if err == nil || err.Error() != `line 5: gpu.devices[1].gpu_cores (GPU 1, NVIDIA H200): string is not a uint32` {
		t.Errorf("type error: %v", err)
	}
}

// A measuring group's per-second curves (the soak's) are in the --json
// report, one figure a second; without curves the field is absent.
func TestCurvesInTheJSONReport(t *testing.T) {
	gpu := 0
	curve := []float64{651.9, 652.0, 652.1}
	g := Group{Name: "stress",
		Run:    func(context.Context) []wire.Check { return nil },
		Curves: func() []Curve { return []Curve{{Name: "gpu.soak.bf16", GPU: &gpu, Unit: "TFLOP/s", PerSecond: curve}} }}
	_, rep, err := (&Runner{Groups: []Group{g}}).Live(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	rep.WriteJSON(&b)
	var doc struct {
		Curves []Curve `json:"curves"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.Curves) != 1 || len(doc.Curves[0].PerSecond) != 3 ||
		doc.Curves[0].PerSecond[2] != 652.1 || doc.Curves[0].Name != "gpu.soak.bf16" {
		t.Fatalf("curves %+v %v\n%s", doc.Curves, err, b.String())
	}
	_, rep, _ = (&Runner{Groups: []Group{{Name: "x", Run: g.Run}}}).Live(context.Background())
	b.Reset()
	rep.WriteJSON(&b)
	if strings.Contains(b.String(), "curves") {
		t.Errorf("no curves: %s", b.String())
	}
}
