package document

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/report"
)

func TestHTMLShowsFleetBaselinesAndDrift(t *testing.T) {
	r := &report.Report{Schema: report.Schema, Month: "2026-03", Nodes: []report.Node{}, Contracts: []report.Contract{},
		Fleet: &baseline.Result{
			Dists: []baseline.Dist{{Model: "H200", Figure: "gpu.burn.fp32", Unit: "TFLOP/s", Nodes: 6, GPUs: 6, P10: 55, P50: 60, P90: 60, Threshold: 55}},
			Drift: []baseline.Drift{{Node: "hot", Figure: "gpu.burn.fp32", Unit: "TFLOP/s", Baseline: 100, Dropped: true, Since: "2026-03-06", WorstPct: 8,
				Days: []baseline.Day{{Date: "2026-03-01", Value: 100}, {Date: "2026-03-02", Value: 100}, {Date: "2026-03-03", Value: 92}}}},
		}}
	var b bytes.Buffer
	if err := Render(&b, r, "html", Extras{Lang: "en"}); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, w := range []string{"<h2>Fleet baselines</h2>", ">55.00</td>", `stroke="#c0392b"`, "since 2026-03-06, worst 8.0 % below 100.00", "points=\"4.0,4.0 180.0,4.0 356.0,56.0\""} {
		if !strings.Contains(s, w) {
			t.Errorf("html lacks %q", w)
		}
	}
}
