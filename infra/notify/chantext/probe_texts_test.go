package chantext

import (
	"html"
	"regexp"
	"testing"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/internal/zhstyle"
	"github.com/gpusla/gpusla/probe/wire/wiretest"
)

// Every sentence of the probe's, sent as a failing check's value,
// criterion and detail, reads in a zh contract's alert on Feishu, DingTalk
// and WeCom by the house style (zhstyle: no English word outside the
// allowed names, full-width punctuation, no space between Chinese and a
// number), and in an en contract's alert as the probe's English.
func TestProbeSentencesOnEveryRobot(t *testing.T) {
	font := regexp.MustCompile(`</?font[^>]*>`)
	for _, s := range wiretest.Samples() {
		c := s.Text
		fc := notify.FailedCheck{Name: "gpu.count", Verdict: "fail", GPU: gpuN(3), Since: g0, Value: s.En, ValueText: &c,
			Criterion: s.En, CriterionText: &c, Detail: s.En, DetailText: &c}
		if got, want := FailedLine(fc), "gpu.count (GPU 3): "+s.En+" (want "+s.En+") — "+s.En; got != want {
			t.Errorf("en: %q, want the probe's English %q", got, want)
		}
		for _, lang := range []string{"zh", "en"} {
			zone := map[string]string{"zh": "Asia/Shanghai"}[lang]
			a := notify.Alert{Kind: notify.AlertDegraded, Node: "gz-01", Provider: "acme_gpu", IncidentID: "gpu_lost@20261130T100030.000Z",
				IncidentKind: "gpu_lost", Since: g0, Counted: true, Lang: lang, Zone: zone, Failed: []notify.FailedCheck{fc}}
			for _, d := range []Dialect{Feishu, DingTalk, WeCom} {
				m := render(t, d, a)
				text := html.UnescapeString(font.ReplaceAllString(m.Title+"\n"+m.Body, ""))
				if lang == "en" {
					continue
				}
				for _, f := range zhstyle.Check(text, append(s.Data, "acme_gpu")...) {
					t.Errorf("%s zh, %q: %s", d.Name, c.Key, f)
				}
			}
		}
	}
}
