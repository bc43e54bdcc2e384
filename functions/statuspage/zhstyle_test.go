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
	"github.com/gpusla/gpusla/sla/i18n"
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
