package monthreport

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The report's scorecard section on the scorecard's scenario (two
// providers, three H200 SXM nodes each, March 2026; sla/scorecard's scenario
// test computes each provider's figures by hand). Beside them, the whole
// fleet's, computed here by hand from the same log:
//   - delivery p90: deliveries 0.25 h ×3 (Beta), 0.5, 1, 3 h (Alpha); sorted,
//     h = 5·0.9 = 4.5 → 1 + 0.5·(3 − 1) = 2.00 h, n = 6;
//   - acceptance: a2 fails (wrong model) → 1 of 6 = 16.7 %;
//   - gateway RTT p99: Alpha's 1…10 ms and Beta's ten 2 ms: sorted v18 = 9,
//     v19 = 10, h = 19·0.99 = 18.81 → 9.81 ms, n = 20;
//   - iperf3 p50: five runs at 90 % (Alpha), five at 50 % (Beta) → 70.0 %, n = 10;
//   - tickets breaching: Alpha 2 of 4, Beta 0 of 6 → 20.0 %, n = 10.
func TestReportScorecardSection(t *testing.T) {
	dir := filepath.Join("..", "..", "sla", "scorecard", "testdata", "golden")
	req := Request{Terms: []string{filepath.Join(dir, "two-providers-terms.yaml")}, Events: filepath.Join(dir, "two-providers.jsonl"),
		Month: "2026-03", AsOf: "2026-04-05T00:00:00Z", Scorecard: true}
	rep, sc, _, err := BuildWithScorecard(req)
	if err != nil {
		t.Fatal(err)
	}
	alone, _, err := Build(Request{Terms: req.Terms, Events: req.Events, Month: req.Month, AsOf: req.AsOf})
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := Write(rep, Output{Format: "json", Stdout: &a}); err != nil {
		t.Fatal(err)
	}
	if err := Write(alone, Output{Format: "json", Stdout: &b}); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatal("the report built with its scorecard differs from the report built alone")
	}
	render := func(format, lang string) string {
		var buf bytes.Buffer
		if err := Write(rep, Output{Format: format, Lang: lang, Stdout: &buf, Scorecard: sc}); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	for _, c := range []struct {
		format, lang string
		want         []string
	}{
		{"md", "en", []string{"## Provider scorecard March 2026", "### Alpha (3 nodes, 24 GPUs)", "### Beta (3 nodes, 24 GPUs)",
			"| all providers (6 nodes) |",
			"| delivery | order to delivery, p90 | 2.60 h (n=3) | #2 of 2 | 2.00 h (n=6) |",
			"| hardware truth | nodes failing acceptance | 33.3 % (n=3) | #2 of 2 | 16.7 % (n=6) |",
			"| network stability | gateway RTT, p99 | 9.91 ms (n=10) | #2 of 2 | 9.81 ms (n=20) |",
			"| network stability | iperf3 of nominal, p50 | 50.0 % (n=5) | #2 of 2 | 70.0 % (n=10) |",
			"| support | off-hours first response, p90 | 40.0 min (too few: n=1 < 3) | – |",
			"| support | tickets breaching a target | 0.0 % (n=6) | #1 of 2 | 20.0 % (n=10) |"}},
		{"md", "zh", []string{"## 服务商评分卡", "| 维度 | 指标 | Alpha | 排名 | 所有服务商（6台节点） |", "### Alpha（3台节点，24张 GPU）", "所有服务商（6台节点）",
			"| 交付 | 下单到交付 p90 | 2.60 h（n=3） | 第2 / 2名 | 2.00 h（n=6） |",
			"| 网络稳定性 | 网关 RTT p99 | 9.91 ms（n=10） |", "40.0 min（观测过少：n=1 < 3）"}},
		{"html", "en", []string{`<section id="scorecard">`, "<h3>Alpha (3 nodes, 24 GPUs)</h3>", ">2.00 h (n=6)</td>"}},
	} {
		got := render(c.format, c.lang)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %s lacks %q", c.format, c.lang, w)
			}
		}
		if c.format == "md" && c.lang == "en" && t.Failed() {
			i := strings.Index(got, "## Provider scorecard")
			t.Logf("%s", got[max(i, 0):])
		}
	}
	var doc struct {
		Scorecard struct {
			AllProviders struct {
				Delivery struct {
					P90 struct {
						Value float64 `json:"value"`
						N     int     `json:"n"`
					} `json:"p90_hours"`
				} `json:"delivery"`
			} `json:"all_providers"`
		} `json:"scorecard"`
		Month string `json:"month"`
	}
	if err := json.Unmarshal([]byte(render("json", "")), &doc); err != nil {
		t.Fatal(err)
	}
	if p := doc.Scorecard.AllProviders.Delivery.P90; doc.Month != "2026-03" || p.N != 6 || p.Value < 1.9999 || p.Value > 2.0001 {
		t.Errorf("json: month %q, all providers' delivery p90 %+v", doc.Month, p)
	}
}
