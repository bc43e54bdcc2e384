package statuspage

import (
	"bytes"
	"context"
	"html"
	"regexp"
	"testing"

	"github.com/gpusla/gpusla/internal/zhstyle"
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
	markup := regexp.MustCompile(`(?s)<style.*?</style>|<script.*?</script>|<svg.*?</svg>|<[^>]+>`)
	for _, mode := range []Mode{Private, Public} {
		p, err := f.h.Build(context.Background(), Request{Mode: mode, Lang: i18n.ZH})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := render(&buf, p); err != nil {
			t.Fatal(err)
		}
		text := html.UnescapeString(markup.ReplaceAllString(buf.String(), "\n"))
		data := []string{"Example GPU Cloud", "Acme Metal", "Alpha", "Beta", // providers
			// the fixture's records, stored as the engine and the renter wrote them
			"no heartbeat from gpu-node-7.internal.example (10.20.30.40) since 11:20:00", "gpu.xid fail: xid 79",
			"net.ping fail: 10.20.30.40 unreachable", "node unreachable, rack 12 PSU?",
			"Shanghai A"} // the public label the terms give a node
		for _, finding := range zhstyle.Check(text, data...) {
			t.Errorf("%s view: %s", mode, finding)
		}
	}
}
