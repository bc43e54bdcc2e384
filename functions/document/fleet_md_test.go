package document

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/sla/baseline"
)

// A node cooling down by 2 TFLOP/s a week: the sparkline spans the lowest
// (96, ▁) to the highest (104, █) day, each day at
// int((v − 96) / 8 × 7) of the eight blocks: 104 → █, 102 → ▆, 100 → ▄,
// 98 → ▂, 96 → ▁.
func TestFleetMarkdownShowsTheDrop(t *testing.T) {
	var days []baseline.Day
	for day := 1; day <= 31; day++ {
		days = append(days, baseline.Day{Date: fmt.Sprintf("2026-03-%02d", day), Value: 104 - 2*float64((day-1)/7)})
	}
	r := baseline.Result{
		Dists: []baseline.Dist{{Model: "H200", Figure: "gpu.burn.bf16", Unit: "TFLOP/s", Nodes: 6, GPUs: 6, Runs: 186, P10: 100, P50: 104, P90: 104, Threshold: 95}},
		Drift: []baseline.Drift{{Node: "cooling", Model: "H200", Figure: "gpu.burn.bf16", Unit: "TFLOP/s", Days: days, Baseline: 104,
			Dropped: true, Since: "2026-03-22", WorstPct: 7.7}},
	}
	var b strings.Builder
	FleetMarkdown(&b, r)
	for _, want := range []string{
		"## Fleet baselines",
		"| H200 | gpu.burn.bf16 (TFLOP/s) | 6 | 6 | 186 | 100 | 104 | 104 | 95 |",
		"1 node figures followed day by day; 1 with a sustained drop",
		"- **cooling** gpu.burn.bf16: down from 104 TFLOP/s since 2026-03-22 (to the end of the series), worst 7.7 % below: ███████▆▆▆▆▆▆▆▄▄▄▄▄▄▄▂▂▂▂▂▂▂▁▁▁",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("fleet markdown lacks %q:\n%s", want, b.String())
		}
	}
}
