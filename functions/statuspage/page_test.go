package statuspage

import (
	"context"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/i18n"
)

// The page opens with its overall status, as hosted status pages do: the
// seeded va-h200-07 is unreachable, so 1 of the 3 nodes in service is out;
// a node never heard from is not counted against it but named apart, and
// its 90-day uptime is "—" with why, not 0.000 %.
func TestBannerAndNodeAwaitingDelivery(t *testing.T) {
	f := seeded(t)
	ctx := context.Background()
	if err := f.h.c.Nodes.(store.Store).CreateNode(ctx, store.Node{ID: "wait-01", Provider: "Example GPU Cloud", Contract: "cn-example",
		GPUModel: "H20", GPUCount: 8, OrderedAt: f.now.Add(-10 * time.Minute), CreatedAt: f.now.Add(-10 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	p, err := f.h.Build(ctx, Request{Mode: Private, Lang: i18n.EN})
	if err != nil {
		t.Fatal(err)
	}
	if b := p.Banner; b.Class != "down" || b.Text != "Outage: 1 of 3 nodes down or unreachable" ||
		!strings.Contains(b.Sub, "2 open incident(s), 1 open ticket(s)") || !strings.Contains(b.Sub, "1 node(s) awaiting delivery") {
		t.Errorf("banner %+v", b)
	}
	for _, n := range p.Nodes {
		if n.Node != "wait-01" {
			continue
		}
		if n.Uptime != "—" || n.UptimePct != nil || n.UptimeNote != "not in service yet: no heartbeat received" {
			t.Errorf("awaiting node: uptime %q (%v), note %q", n.Uptime, n.UptimePct, n.UptimeNote)
		}
	}
	zh, err := f.h.Build(ctx, Request{Mode: Private, Lang: i18n.ZH})
	if err != nil {
		t.Fatal(err)
	}
	if zh.Banner.Text != "故障：1/3 个节点故障或无法访问" || !strings.Contains(zh.Banner.Sub, "另有1个节点等待交付") {
		t.Errorf("zh banner %+v", zh.Banner)
	}
	// Nodes in two zones: the page's own time is in UTC; in one zone, in it.
	if !strings.Contains(p.Generated, "UTC") {
		t.Errorf("generated %q, want UTC for nodes in Shanghai and New York", p.Generated)
	}
	sh, _ := time.LoadLocation("Asia/Shanghai")
	if got := pageZone([]*node{{loc: sh}, {loc: sh}}); got.String() != "Asia/Shanghai" {
		t.Errorf("pageZone = %s", got)
	}
	// The provider's ticket number, in the team view only.
	if len(p.Tickets) != 1 || p.Tickets[0].ProviderRef != "PRV-99812" {
		t.Errorf("team view tickets %+v, want PRV-99812", p.Tickets)
	}
	pub, err := f.h.Build(ctx, Request{Mode: Public, Lang: i18n.EN})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range pub.Tickets {
		if tk.ProviderRef != "" {
			t.Errorf("public view shows the provider's ref %q", tk.ProviderRef)
		}
	}
}

// The Atom feed is the page's incident history: one entry per incident,
// newest first, in the page's language; the public feed withholds what the
// public page does, and a wrong token is refused.
func TestFeed(t *testing.T) {
	f := seeded(t)
	mux := http.NewServeMux()
	f.h.Register(mux)
	get := func(path, auth string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		return rec
	}
	type entry struct {
		ID      string `xml:"id"`
		Title   string `xml:"title"`
		Updated string `xml:"updated"`
		Content string `xml:"content"`
	}
	type doc struct {
		Lang    string  `xml:"lang,attr"`
		Title   string  `xml:"title"`
		Entries []entry `xml:"entry"`
	}
	for _, v := range []struct {
		auth, lang string
		private    bool
	}{{"", "zh", false}, {token, "en", true}} {
		rec := get(PathFeed+"?lang="+v.lang, v.auth)
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/atom+xml") {
			t.Fatalf("feed %s: %d %s", v.lang, rec.Code, rec.Header().Get("Content-Type"))
		}
		body := rec.Body.String()
		var d doc
		if err := xml.Unmarshal([]byte(body), &d); err != nil {
			t.Fatalf("feed is not XML: %v\n%s", err, body)
		}
		mode := Public
		if v.private {
			mode = Private
		}
		p, err := f.h.Build(context.Background(), Request{Mode: mode, Lang: i18n.Lang(v.lang)})
		if err != nil {
			t.Fatal(err)
		}
		if d.Lang != v.lang || len(d.Entries) != len(p.History) || len(d.Entries) == 0 {
			t.Fatalf("feed %s: lang %q, %d entries, page history %d", v.lang, d.Lang, len(d.Entries), len(p.History))
		}
		for i, e := range d.Entries {
			if e.ID != "urn:gpusla:incident:"+p.History[i].ID || !strings.Contains(e.Content, p.History[i].Verdict) {
				t.Errorf("entry %d: %+v, want incident %s", i, e, p.History[i].ID)
			}
		}
		if !v.private {
			for _, s := range private {
				if strings.Contains(body, s) {
					t.Errorf("public feed shows %q", s)
				}
			}
		}
	}
	if rec := get(PathFeed, "wrong"); rec.Code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", rec.Code)
	}
}

// The live timers' words: 12秒前 and 剩余 12小时10分14秒 in Chinese.
func TestTimerWords(t *testing.T) {
	zh := timerWords(i18n.New(i18n.ZH))
	if zh.Ago != "%s前" || zh.Left != "剩余 %s" || zh.Units != [4]string{"天", "小时", "分", "秒"} || zh.Join != "" {
		t.Errorf("zh timer words %+v", zh)
	}
	en := timerWords(i18n.New(i18n.EN))
	if en.Ago != "%s ago" || en.Units != [4]string{"d", "h", "m", "s"} || en.Join != " " {
		t.Errorf("en timer words %+v", en)
	}
}

// A node given back (gpusla node release) is no longer watched: the page
// shows it released, neither up nor an outage, and the banner counts it
// apart from the nodes in service.
func TestReleasedNodeIsNeitherUpNorAnOutage(t *testing.T) {
	f := seeded(t)
	ctx := context.Background()
	at := f.now.Add(-time.Minute)
	if _, err := f.h.c.Nodes.(store.Store).ReleaseNode(ctx, "va-h200-07", store.Release{At: at, RecordedAt: at, By: "cli:test"}); err != nil {
		t.Fatal(err)
	}
	p, err := f.h.Build(ctx, Request{Mode: Private, Lang: i18n.EN})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range p.Nodes {
		if n.Node == "va-h200-07" {
			found = true
			if n.State != "released" || n.StateLabel != "released" || !strings.HasPrefix(n.StateText, "released ") {
				t.Errorf("released node: state %q label %q text %q", n.State, n.StateLabel, n.StateText)
			}
		}
	}
	if !found {
		t.Fatal("the released node is not on the team view")
	}
	if b := p.Banner; strings.HasPrefix(b.Text, "Outage") || !strings.Contains(b.Sub, "1 node(s) released") {
		t.Errorf("banner %+v: the released node counted as in service", b)
	}
	zh, err := f.h.Build(ctx, Request{Mode: Private, Lang: i18n.ZH})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range zh.Nodes {
		if n.Node == "va-h200-07" && (n.StateLabel != "已退租" || !strings.HasPrefix(n.StateText, "已于")) {
			t.Errorf("zh released node: label %q text %q", n.StateLabel, n.StateText)
		}
	}
}

// A public page whose listed nodes were all released, beside a node in
// service whose terms keep it off the public page, must not say every node
// was released: it says what is true of the nodes it shows, in both
// languages, and the same words whether a private node exists or not (the
// public page does not tell that unlisted nodes exist).
func TestPublicPageWithOnlyReleasedNodesDoesNotSayEveryNodeWasReleased(t *testing.T) {
	f := seeded(t)
	ctx := context.Background()
	at := f.now.Add(-time.Minute)
	// sh-a100-01 and va-h200-07 are public; gz-h20-03, in service, is not.
	for _, id := range []string{"sh-a100-01", "va-h200-07"} {
		if _, err := f.h.c.Nodes.(store.Store).ReleaseNode(ctx, id, store.Release{At: at, RecordedAt: at, By: "cli:test"}); err != nil {
			t.Fatal(err)
		}
	}
	want := map[i18n.Lang]string{
		i18n.EN: "No node on the public page is in service: every node shown here was released",
		i18n.ZH: "公开页面上没有在服务中的节点：此处列出的节点均已退租",
	}
	for lang, text := range want {
		p, err := f.h.Build(ctx, Request{Mode: Public, Lang: lang})
		if err != nil {
			t.Fatal(err)
		}
		if p.Banner.Text != text {
			t.Errorf("%s public banner %q, want %q", lang, p.Banner.Text, text)
		}
		if !strings.Contains(p.Banner.Sub, map[i18n.Lang]string{i18n.EN: "team view", i18n.ZH: "团队视图"}[lang]) {
			t.Errorf("%s public banner sub %q does not point to the team view", lang, p.Banner.Sub)
		}
		if len(p.Nodes) != 2 {
			t.Errorf("%s public page draws %d nodes, want the 2 listed", lang, len(p.Nodes))
		}
	}
	// The team view draws every node: gz-h20-03 is in service there.
	team, err := f.h.Build(ctx, Request{Mode: Private, Lang: i18n.EN})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(team.Banner.Text, "released") || !strings.Contains(team.Banner.Sub, "2 node(s) released") {
		t.Errorf("team banner %+v: gz-h20-03 is in service", team.Banner)
	}
	// With every node released the team view says so, as before.
	if _, err := f.h.c.Nodes.(store.Store).ReleaseNode(ctx, "gz-h20-03", store.Release{At: at, RecordedAt: at, By: "cli:test"}); err != nil {
		t.Fatal(err)
	}
	team, err = f.h.Build(ctx, Request{Mode: Private, Lang: i18n.EN})
	if err != nil {
		t.Fatal(err)
	}
	if team.Banner.Text != "No node in service: every node was released" {
		t.Errorf("team banner with every node released: %q", team.Banner.Text)
	}
	pub, err := f.h.Build(ctx, Request{Mode: Public, Lang: i18n.EN})
	if err != nil {
		t.Fatal(err)
	}
	if pub.Banner.Text != want[i18n.EN] {
		t.Errorf("public banner %q changes with the private node's state (want %q)", pub.Banner.Text, want[i18n.EN])
	}
}
