package statuspage

import (
	"bytes"
	"context"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/zhstyle"
	"github.com/gpusla/gpusla/probe/wire/wiretest"
	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/msg"
)

// TestChineseByItsOwnRules: the status page in Chinese, team view and
// public view, holds to the house style of docs/i18n.md (internal/zhstyle):
// no English word outside the allowed names, full-width punctuation, no
// space between Chinese and a number, 服务商, the zone as readers name it.
// What the fixture's records say as given (node ids, provider names, a
// provider's ticket text) is data.
func TestChineseByItsOwnRules(t *testing.T) {
	f := seeded(t)
	for _, mode := range []Mode{Private, Public} {
		text := pageText(t, f, mode, i18n.ZH)
		data := []string{"Example GPU Cloud", "Acme Metal", "Alpha", "Beta", // providers
			// the fixture's records, stored as the engine and the renter wrote them
			"no heartbeat from gpu-node-7.internal.example (10.20.30.40) since 11:20:00", "xid 79", "10.20.30.40 unreachable",
			"net.ping fail: 10.20.30.40 unreachable", "node unreachable, rack 12 PSU?",
			"Shanghai A"} // the public label the terms give a node
		for _, finding := range zhstyle.Check(text, data...) {
			t.Errorf("%s view: %s", mode, finding)
		}
	}
}

// Every sentence of the probe's, as the value of a failing check on a
// stored incident, reads on the zh status page by the house style, and on
// the en page as the probe's English.
func TestProbeSentencesOnThePage(t *testing.T) {
	samples := wiretest.Samples()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	var failed []notify.FailedCheck
	data := []string{"Example GPU Cloud", "Acme Metal", "Alpha", "Beta", "gpu.xid fail: xid 79", "xid 79",
		"no heartbeat from gpu-node-7.internal.example (10.20.30.40) since 11:20:00", "net.ping fail: 10.20.30.40 unreachable",
		"10.20.30.40 unreachable", "node unreachable, rack 12 PSU?", "Shanghai A"}
	for i := range samples {
		c := samples[i].Text
		failed = append(failed, notify.FailedCheck{Name: "gpu.model", Category: "inventory", Verdict: "fail", Value: samples[i].En, ValueText: &c, Since: start})
		data = append(data, samples[i].Data...)
	}
	f := seeded(t, store.Incident{Node: "gz-h20-03", Kind: "gpu_degraded", Start: start, End: start.Add(time.Hour), Failed: failed})
	for _, l := range []i18n.Lang{i18n.ZH, i18n.EN} {
		text := pageText(t, f, Private, l)
		if l == i18n.EN {
			for _, s := range samples {
				if !strings.Contains(text, "gpu.model fail: "+s.En) {
					t.Errorf("en page: the probe's English %q not shown", s.En)
				}
			}
			continue
		}
		if !strings.Contains(text, "gpu.model 未通过：可用 GPU 8块，订单要求9块") {
			t.Errorf("zh page: a coded value not in Chinese")
		}
		for _, finding := range zhstyle.Check(text, data...) {
			t.Errorf("zh page: %s", finding)
		}
	}
}

var markup = regexp.MustCompile(`(?s)<style.*?</style>|<script.*?</script>|<svg.*?</svg>|<[^>]+>`)

// pageText is the status page's text in mode and l, markup taken out.
func pageText(t *testing.T, f fixture, mode Mode, l i18n.Lang) string {
	t.Helper()
	p, err := f.h.Build(context.Background(), Request{Mode: mode, Lang: l})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := render(&buf, p); err != nil {
		t.Fatal(err)
	}
	return html.UnescapeString(markup.ReplaceAllString(buf.String(), "\n"))
}

// An incident with no failed checks shows the engine's account of why it
// opened: on a zh page its sentence in Chinese by the house style (an
// unreachable node, a node slower than its siblings), a record kept
// without its sentence marked as the system's record; on the en page the
// Evidence as stored, byte for byte.
func TestEvidenceInThePagesLanguage(t *testing.T) {
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	var st incident.State
	opened := st.Tick(start.Add(5*time.Minute), start.Add(-30*time.Second), 30*time.Second, incident.Thresholds{Grace: 90 * time.Second})
	if len(opened) != 1 || opened[0].Why.IsZero() {
		t.Fatalf("the engine opened %+v", opened)
	}
	f := baseline.Finding{Node: "gz-h20-03", Model: "H20", Figure: "gpu.burn.bf16", Unit: "TFLOP/s", GPU: 3, Start: start.Add(-2 * time.Hour),
		Runs: 3, Values: []float64{101.5, 99.2, 98.7}, Against: baseline.AgainstOtherNodes, Margin: 0.05,
		Dist: baseline.Dist{Model: "H20", Figure: "gpu.burn.bf16", Unit: "TFLOP/s", Nodes: 12, GPUs: 96, P10: 140.2, P50: 148.9, Threshold: 140.2}}
	mk := func(kind string, at time.Time, why msg.Text) store.Incident {
		kept, err := msg.Keep(why)
		if err != nil {
			t.Fatal(err)
		}
		return store.Incident{Node: "gz-h20-03", Kind: kind, Start: at, End: at.Add(20 * time.Minute), Counted: true, Cause: "no_data",
			Evidence: why.String(), EvidenceText: kept}
	}
	incs := []store.Incident{mk("unreachable", opened[0].Since, opened[0].Why), mk("performance_below_spec", f.Start, f.Text())}
	fx := seeded(t, incs...)
	data := []string{"Example GPU Cloud", "Acme Metal", "Alpha", "Beta", "xid 79", "10.20.30.40 unreachable",
		"net.ping fail: 10.20.30.40 unreachable", "node unreachable, rack 12 PSU?", "Shanghai A",
		"no heartbeat from gpu-node-7.internal.example (10.20.30.40) since 11:20:00"}
	en := pageText(t, fx, Private, i18n.EN)
	for _, inc := range incs {
		if !strings.Contains(en, inc.Evidence) {
			t.Errorf("en page: the stored evidence %q not shown as stored", inc.Evidence)
		}
	}
	zh := pageText(t, fx, Private, i18n.ZH)
	for _, want := range []string{
		"自2026年11月30日 16:59:30（北京时间）起未收到节点的任何数据（心跳间隔30秒，宽限1分30秒）",
		"比同型号的其他节点慢：gpu.burn.bf16（GPU 3）连续3次低于其他节点",
		"系统记录原文：“no heartbeat from gpu-node-7.internal.example (10.20.30.40) since 11:20:00”",
	} {
		if !strings.Contains(zh, want) {
			t.Errorf("zh page: %q not shown in\n%s", want, zh)
		}
	}
	for _, inc := range incs {
		if strings.Contains(zh, inc.Evidence) {
			t.Errorf("zh page: the English evidence %q shown", inc.Evidence)
		}
	}
	for _, finding := range zhstyle.Check(zh, data...) {
		t.Errorf("zh page: %s", finding)
	}
}
