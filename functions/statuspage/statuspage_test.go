package statuspage

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/internal/htmlshape"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/scorecard/scorecardtest"
	"github.com/gpusla/gpusla/sla/terms"
)

const token = "s3cret-status-token"

// Public settings the seeded terms add: cn-example (Asia/Shanghai, zh)
// lists its nodes showing the GPUs, names sh-a100-01 "Shanghai A" and
// keeps gz-h20-03 off the public page; us-example (America/New_York, en)
// lists its nodes showing nothing but their labels.
const (
	cnPublic = "\nstatus_page:\n  public: true\n  show: [gpus]\n  nodes:\n    sh-a100-01: {label: Shanghai A}\n    gz-h20-03: {public: false}\n"
	usPublic = "\nstatus_page:\n  public: true\n  show: []\n"
)

// private are the strings the public view must never contain: node ids,
// providers, contracts, addresses and hostnames in evidence, ticket ids,
// references and summaries, and the stored provider scorecard's
// comparison (goldenScorecard: its providers, a column's title, its
// figures, a too-few cell, the table's markup).
var private = []string{"sh-a100-01", "va-h200-07", "gz-h20-03", "Example GPU Cloud", "Acme Metal", "cn-example", "us-example",
	"10.20.30.40", "gpu-node-7.internal.example", "PRV-99812", "rack 12 PSU", "T-",
	"Alpha", "order to delivery", "2.60 h (n=3)", "9.91 ms", "too few: n=1 &lt; 3", `class="score-cell`, `<table class="scorecard"`, "scorecard.json"}

// goldenScorecard is sla/scorecard's golden two-provider scorecard (Alpha
// and Beta, March 2026) as the monthly job stores it beside a report.
func goldenScorecard(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := scorecard.JSON(&buf, scorecardtest.Golden(t)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type fixture struct {
	h        *Handler
	now      time.Time
	ticketID string
	book     app.TermsBook
}

// seeded is a backend with three nodes on two contracts: sh-a100-01 up (a
// 20-minute GPU loss 30 days ago), va-h200-07 unreachable for 40 minutes
// (and 3 hours 12 days ago, alerted on Slack, with a ticket the provider
// answered), gz-h20-03 with a degraded GPU; an open ticket; stored reports
// for October (data) and November (no node in service: not offered).
// extra incidents are stored beside the fixture's own.
func seeded(t *testing.T, extra ...store.Incident) fixture {
	t.Helper()
	dir := t.TempDir()
	st, err := bolt.Open(filepath.Join(dir, "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Clock: apptest.NewClock(now)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, n := range []store.Node{
		{ID: "sh-a100-01", Provider: "Example GPU Cloud", Contract: "cn-example", GPUModel: "A100", GPUCount: 8},
		{ID: "va-h200-07", Provider: "Acme Metal", Contract: "us-example", GPUModel: "H200", GPUCount: 8},
		{ID: "gz-h20-03", Provider: "Example GPU Cloud", Contract: "cn-example", GPUModel: "H20", GPUCount: 8},
	} {
		n.OrderedAt, n.CreatedAt, n.HeartbeatInterval, n.Grace = now.AddDate(0, -4, 0), now.AddDate(0, -4, 0), 30*time.Second, 90*time.Second
		if err := st.CreateNode(ctx, n); err != nil {
			t.Fatal(err)
		}
		last := now.Add(-20 * time.Second)
		if i == 1 {
			last = now.Add(-40 * time.Minute)
		}
		s := store.NodeState{Node: n.ID, LastReceivedAt: last, LastHeartbeatAt: last, FirstHeartbeatAt: now.AddDate(0, 0, -60-i*20)}
		if _, err := st.PutState(ctx, s, 0); err != nil {
			t.Fatal(err)
		}
	}
	past := now.AddDate(0, 0, -12)
	incs := []store.Incident{
		{Node: "va-h200-07", Kind: "unreachable", Start: now.Add(-40*time.Minute + 30*time.Second), ConfirmedAt: now.Add(-38 * time.Minute), Counted: true, Cause: "no_data",
			Evidence: "no heartbeat from gpu-node-7.internal.example (10.20.30.40) since 11:20:00"},
		{Node: "va-h200-07", Kind: "unreachable", Start: past, End: past.Add(3 * time.Hour), ConfirmedAt: past.Add(2 * time.Minute), Counted: true, Cause: "no_data"},
		{Node: "gz-h20-03", Kind: "gpu_degraded", Start: now.Add(-2 * time.Hour), Counted: false,
			Failed: []notify.FailedCheck{{Name: "gpu.xid", Category: "gpu_degraded", Verdict: "fail", Value: "xid 79"}}},
		{Node: "sh-a100-01", Kind: "gpu_lost", Start: now.AddDate(0, 0, -30), End: now.AddDate(0, 0, -30).Add(20 * time.Minute), Counted: true, Cause: "check_failed",
			Failed: []notify.FailedCheck{{Name: "net.ping", Verdict: "fail", Value: "10.20.30.40 unreachable"}}},
	}
	incs = append(incs, extra...)
	for i, inc := range incs {
		inc.ID = store.IncidentID(inc.Kind, inc.Start)
		if err := st.CreateIncident(ctx, inc); err != nil {
			t.Fatal(err)
		}
		incs[i] = inc
	}
	// The past outage's alert went out two minutes after it was confirmed.
	if err := st.CreateAlert(ctx, store.AlertRecord{Node: "va-h200-07", IncidentID: incs[1].ID, Kind: notify.AlertUnreachable, Version: 1,
		CreatedAt: past.Add(2 * time.Minute), SentAt: past.Add(4 * time.Minute), Attempts: 1}); err != nil {
		t.Fatal(err)
	}
	tdir := filepath.Join(dir, "terms")
	if err := os.MkdirAll(tdir, 0o700); err != nil {
		t.Fatal(err)
	}
	for file, extra := range map[string]string{"cn-example.yaml": cnPublic, "us-example.yaml": usPublic} {
		raw, err := os.ReadFile(filepath.Join("../../testdata/terms", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tdir, file), append(raw, extra...), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	book, err := wiring.LoadTerms(tdir)
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	tk, _, err := desk.Open(ctx, app.OpenRequest{Node: "va-h200-07", Priority: "sev1", Summary: "node unreachable, rack 12 PSU?", ProviderRef: "PRV-99812",
		At: now.Add(-35 * time.Minute), By: "test", Key: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	old, _, err := desk.Open(ctx, app.OpenRequest{Node: "va-h200-07", Priority: "sev2", Summary: "down again", At: past.Add(10 * time.Minute),
		By: "test", Key: "k0", IncidentID: incs[1].ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []app.EventRequest{{Type: "provider_responded", At: past.Add(40 * time.Minute), Key: "r"}, {Type: "ticket_resolved", At: past.Add(3 * time.Hour), Key: "s"}} {
		if _, err := desk.Record(ctx, old.ID, e); err != nil {
			t.Fatal(err)
		}
	}
	// The resolved ticket's messages go out, which closes it.
	if _, err := desk.Flush(ctx, old.ID); err != nil {
		t.Fatal(err)
	}
	reports, err := blob.NewDir(filepath.Join(dir, "reports"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"2026-10/us-example/report.html":    "<!DOCTYPE html><title>October</title><p>report",
		"2026-10/us-example/report.json":    `{"month":"2026-10","nodes":[{"node":"va-h200-07","period":{"in_service":true,"seconds":2678400}}]}`,
		"2026-10/us-example/evidence.zip":   "PK",
		"2026-10/us-example/scorecard.json": string(goldenScorecard(t)),
		"2026-11/cn-example/report.html":    "<!DOCTYPE html><title>November</title><p>empty",
		"2026-11/cn-example/report.json":    `{"month":"2026-11","nodes":[]}`,
		"2026-12/us-example/report.html":    "<!DOCTYPE html><title>December, half written</title>",
	} {
		if err := reports.Put(ctx, name, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	ledger := seedClaims(t, desk)
	h := New(Config{Nodes: st, Terms: desk.Contract, Tickets: desk, Reports: reports, Claims: ledger, Token: token, Now: func() time.Time { return now }})
	return fixture{h: h, now: now, ticketID: tk.ID, book: book}
}

func get(t *testing.T, h http.Handler, target, auth string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("GET", target, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestTokenAndModes(t *testing.T) {
	f := seeded(t)
	mux := http.NewServeMux()
	f.h.Register(mux)
	for _, c := range []struct {
		name, auth, query string
		want              int
		mode              string
	}{
		{"no token: public", "", "", 200, "public"},
		{"wrong token", "Bearer nope", "", 401, ""},
		{"wrong query", "", "?token=nope", 401, ""},
		{"not bearer", "Basic dXNlcjpwdw==", "", 401, ""},
		{"bearer", "Bearer " + token, "", 200, "private"},
		{"query", "", "?token=" + token, 200, "private"},
	} {
		rec := get(t, mux, PathStatus+c.query, c.auth)
		if rec.Code != c.want {
			t.Errorf("%s: status %d, want %d", c.name, rec.Code, c.want)
		}
		if c.mode != "" && !strings.Contains(rec.Body.String(), `data-mode="`+c.mode+`"`) {
			t.Errorf("%s: not the %s view", c.name, c.mode)
		}
		if c.name == "query" && !strings.Contains(rec.Header().Get("Set-Cookie"), CookieName+"=") {
			t.Errorf("query token did not set the cookie")
		}
	}
	off := New(Config{Nodes: nil})
	if rec := get(t, off, PathStatus, ""); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("no token configured: status %d, want 503", rec.Code)
	}
	if rec := get(t, mux, PathReports+"2026-10/us-example/report.html", "Bearer "+token); rec.Code != 200 || !strings.Contains(rec.Body.String(), "October") {
		t.Errorf("report download: %d %q", rec.Code, rec.Body.String())
	}
	if rec := get(t, mux, PathReports+"2026-10/us-example/report.html", ""); rec.Code != 401 {
		t.Errorf("report download without the token: %d, want 401", rec.Code)
	}
	if rec := get(t, mux, PathReports+"..%2f..%2fetc/passwd", "Bearer "+token); rec.Code == 200 {
		t.Errorf("escaping name served: %d", rec.Code)
	}
	if rec := get(t, mux, PathStatus+"?lang=fr", ""); rec.Code != 400 || !strings.Contains(rec.Body.String(), `"fr"`) {
		t.Errorf("?lang=fr: %d %q, want 400 naming the value", rec.Code, rec.Body.String())
	}
}

// Without any contract on the public page, no token is 401 as before.
func TestNoPublicNodeNeedsTheToken(t *testing.T) {
	f := seeded(t)
	strict := map[string]*terms.Terms{}
	for c, tm := range f.book {
		cp := *tm
		cp.StatusPage = terms.StatusPage{}
		strict[c] = &cp
	}
	c := f.h.c
	c.Terms = func(id string) (*terms.Terms, bool) { tm, ok := strict[id]; return tm, ok }
	h := New(c)
	if rec := get(t, h, PathStatus, ""); rec.Code != 401 {
		t.Errorf("no public contract, no token: %d, want 401", rec.Code)
	}
	if rec := get(t, h, PathStatus, "Bearer "+token); rec.Code != 200 {
		t.Errorf("with the token: %d", rec.Code)
	}
}

func TestPageContent(t *testing.T) {
	f := seeded(t)
	p, err := f.h.Build(context.Background(), Request{Mode: Private, Lang: i18n.EN})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	zones := map[string]string{}
	for _, n := range p.Nodes {
		states[n.Node], zones[n.Node] = n.State, n.Zone
		if len(n.Days) != Days {
			t.Errorf("%s: %d day bars, want %d", n.Node, len(n.Days), Days)
		}
	}
	if states["va-h200-07"] != "unreachable" || states["gz-h20-03"] != "degraded" || states["sh-a100-01"] != "up" {
		t.Fatalf("states %v", states)
	}
	if zones["va-h200-07"] != "America/New_York" || zones["sh-a100-01"] != "Asia/Shanghai" {
		t.Fatalf("zones %v", zones)
	}
	if len(p.Open) != 2 || len(p.History) != 4 || len(p.Tickets) != 1 {
		t.Fatalf("open incidents %d, history %d, tickets %d", len(p.Open), len(p.History), len(p.Tickets))
	}
	tk := p.Tickets[0]
	// sev1: 1 h response, opened 35 min ago: 25 min left, in New York time.
	if tk.Target != "response" || tk.DeadlineMS != f.now.Add(25*time.Minute).UnixMilli() || tk.Deadline != "2026-11-30 07:25:00 -05:00 America/New_York" {
		t.Fatalf("ticket deadline %+v", tk)
	}
	for _, n := range p.Nodes {
		if n.Node == "sh-a100-01" {
			// Shanghai's day of the 20-minute GPU loss (12:00-12:20 UTC, 20:00-20:20 CST).
			d := n.Days[Days-1-30]
			if d.Date != "2026-10-31" || d.Class == "ok" || d.Percent > 99 || !strings.Contains(d.Title, "Asia/Shanghai") {
				t.Errorf("the day of sh-a100-01's 20-minute GPU loss shows %+v", d)
			}
		}
	}
	// Only October is offered: November has no node in service, December
	// has no report.json yet.
	if len(p.Reports) != 1 || p.Reports[0].Month != "2026-10" || len(p.Reports[0].Files) != 4 || p.Reports[0].Files[0].Name != "html" ||
		p.Reports[0].Files[3].Name != "provider scorecard (json)" {
		t.Fatalf("reports %+v, want October alone with its four files, html first, the scorecard last", p.Reports)
	}
}

// The history: each incident's timeline in its contract's zone, and the
// verdict account.Judge gives (the same one the live API returns).
func TestHistoryTimeline(t *testing.T) {
	f := seeded(t)
	p, err := f.h.Build(context.Background(), Request{Mode: Private, Lang: i18n.EN})
	if err != nil {
		t.Fatal(err)
	}
	var past *Incident
	for i := range p.History {
		if p.History[i].Node == "va-h200-07" && !p.History[i].Open {
			past = &p.History[i]
		}
	}
	if past == nil {
		t.Fatalf("no past outage of va-h200-07 in %+v", p.History)
	}
	var what []string
	for _, s := range past.Timeline {
		what = append(what, s.At+" "+s.What)
	}
	want := []string{
		"2026-11-18 07:00:00 -05:00 America/New_York started (the first failing observation)",
		"2026-11-18 07:02:00 -05:00 America/New_York confirmed by the backend",
		"2026-11-18 07:04:00 -05:00 America/New_York alert sent",
		"2026-11-18 07:10:00 -05:00 America/New_York ticket ",
		"2026-11-18 07:40:00 -05:00 America/New_York provider responded",
		"2026-11-18 10:00:00 -05:00 America/New_York ticket resolved",
		"2026-11-18 10:00:00 -05:00 America/New_York ended (repaired)",
	}
	if len(what) != len(want) {
		t.Fatalf("timeline\n%s\nwant\n%s", strings.Join(what, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(what[i], want[i]) {
			t.Errorf("step %d: %q, want %q", i, what[i], want[i])
		}
	}
	if !past.Counted || past.CountedSeconds != 3*3600 || past.Verdict != "yes: 3h of 3h counted" {
		t.Errorf("verdict %+v", past)
	}
	// The open gpu_degraded: cn-example does not count it, and says why.
	for _, inc := range p.History {
		if inc.Kind == "gpu_degraded" && (inc.Counted || inc.Verdict != "no: the contract does not count GPU hardware fault as unavailable") {
			t.Errorf("gpu_degraded verdict %q", inc.Verdict)
		}
	}
}

// Every public response — the page and its JSON in both languages, every
// link on it, the reports — holds none of the private strings, while the
// team view holds them (so the scan can fail).
func TestPublicViewLeaksNothing(t *testing.T) {
	f := seeded(t)
	mux := http.NewServeMux()
	f.h.Register(mux)
	secrets := append(append([]string(nil), private...), f.ticketID)
	team := get(t, mux, PathStatus+"?lang=en", "Bearer "+token).Body.String() + get(t, mux, PathJSON, "Bearer "+token).Body.String()
	for _, s := range secrets {
		if !strings.Contains(team, s) {
			t.Errorf("the team view lacks %q: the public scan would prove nothing", s)
		}
	}
	seen := map[string]bool{}
	queue := []string{PathStatus, PathStatus + "?lang=zh", PathStatus + "?lang=en", PathJSON, PathJSON + "?lang=zh",
		PathReports + "2026-10/us-example/report.html", PathReports + "2026-10/us-example/evidence.zip", "/status/nope"}
	href := regexp.MustCompile(`(?:href|src|action)="([^"]*)"`)
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if seen[u] {
			continue
		}
		seen[u] = true
		rec := get(t, mux, u, "")
		body := rec.Body.String() + strings.Join(rec.Header().Values("Set-Cookie"), ";") + rec.Header().Get("Location")
		for _, s := range secrets {
			if strings.Contains(body, s) {
				t.Errorf("public %s (%d) shows %q", u, rec.Code, s)
			}
		}
		if strings.HasPrefix(u, PathReports) && rec.Code != 401 {
			t.Errorf("public %s: %d, want 401", u, rec.Code)
		}
		for _, m := range href.FindAllStringSubmatch(body, -1) {
			link := strings.ReplaceAll(m[1], "&amp;", "&")
			if strings.HasPrefix(link, "http") || strings.HasPrefix(link, "//") {
				t.Errorf("public %s links off the page: %s", u, link)
				continue
			}
			if strings.HasPrefix(link, "?") {
				link = PathStatus + link
			}
			if strings.HasPrefix(link, "#") {
				continue
			}
			queue = append(queue, link)
		}
	}
	// What the public view does show: the labels, the zone, the GPUs where
	// the terms allow, gz-h20-03 not at all.
	var p Page
	if err := json.Unmarshal(get(t, mux, PathJSON+"?lang=en", "").Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if p.Mode != Public || len(p.Nodes) != 2 {
		t.Fatalf("public page %+v", p)
	}
	labels := map[string]NodeView{}
	for _, n := range p.Nodes {
		labels[n.Node] = n
	}
	sh, ok := labels["Shanghai A"]
	if !ok || sh.GPUs != "8 × A100" || sh.Zone != "Asia/Shanghai" || sh.Provider != "" {
		t.Errorf("Shanghai A: %+v", sh)
	}
	var va NodeView
	for l, n := range labels {
		if regexp.MustCompile(`^node-[0-9a-f]{8}$`).MatchString(l) {
			va = n
		}
	}
	if va.Zone != "America/New_York" || va.GPUs != "" || va.State != "unreachable" {
		t.Errorf("the us-example node: %+v (labels %v)", va, labels)
	}
	for _, inc := range p.History {
		if inc.Detail != "" || !strings.HasPrefix(inc.ID, "incident-") {
			t.Errorf("public incident shows its id or evidence: %+v", inc)
		}
	}
	if len(p.Reports) != 0 || len(p.Tickets) != 1 || p.Tickets[0].ID != "" || p.Tickets[0].Summary != "" {
		t.Errorf("public reports %+v, tickets %+v", p.Reports, p.Tickets)
	}
	// The scorecard section says where the comparison is, and shows none.
	if p.Scorecard != nil {
		t.Errorf("public scorecard %+v", p.Scorecard)
	}
	if html := get(t, mux, PathStatus+"?lang=en", "").Body.String(); !strings.Contains(html, "Provider comparisons are shown on the team view only.") {
		t.Errorf("the public page's scorecard section does not say where the comparison is")
	}
	// The label is stable and keyed: the same token gives the same label,
	// another token another.
	again, _ := f.h.Build(context.Background(), Request{Mode: Public, Lang: i18n.EN})
	c := f.h.c
	c.Token = "another token"
	other, _ := New(c).Build(context.Background(), Request{Mode: Public, Lang: i18n.EN})
	if again.Nodes[1].Node != p.Nodes[1].Node || other.Nodes[1].Node == p.Nodes[1].Node {
		t.Errorf("labels %q, again %q, other token %q", p.Nodes[1].Node, again.Nodes[1].Node, other.Nodes[1].Node)
	}
}

// The guard refuses a public page that would show a withheld value, here
// a label that quotes another node's id.
func TestGuardFailsClosed(t *testing.T) {
	f := seeded(t)
	cn := *f.book["cn-example"]
	cn.StatusPage.Nodes = map[string]terms.NodePage{"sh-a100-01": {Label: "twin of gz-h20-03"}}
	c := f.withTerms(&cn)
	_, err := New(c).Build(context.Background(), Request{Mode: Public})
	if err == nil || strings.Contains(err.Error(), "gz-h20-03") || !strings.Contains(err.Error(), "node id") {
		t.Fatalf("err %v, want the page withheld without naming the value", err)
	}
}

// Each language: the contracts' shared report.lang, the switch, and no
// sentence missing from the catalog.
func TestLanguages(t *testing.T) {
	f := seeded(t)
	mux := http.NewServeMux()
	f.h.Register(mux)
	// Two contracts, zh and en: the browser's preference decides.
	req := httptest.NewRequest("GET", PathStatus, nil)
	req.Header.Set("Accept-Language", "zh-CN,zh;q=0.9,en;q=0.8")
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	if !strings.Contains(rec.Body.String(), `<html lang="zh-CN"`) || !strings.Contains(rec.Body.String(), "节点") {
		t.Errorf("Accept-Language zh: not Chinese")
	}
	// Only cn-example's nodes (report.lang zh) on a page: Chinese by default.
	if l := defaultLang([]*node{{tm: f.book["cn-example"]}}, "en-US"); l != i18n.ZH {
		t.Errorf("cn-example alone: %s, want zh", l)
	}
	if l := defaultLang([]*node{{tm: f.book["cn-example"]}, {tm: f.book["us-example"]}}, ""); l != i18n.EN {
		t.Errorf("mixed, no preference: %s, want en", l)
	}
	for _, l := range i18n.Langs {
		for _, mode := range []Mode{Public, Private} {
			p, err := f.h.Build(context.Background(), Request{Mode: mode, Lang: l})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			pr := i18n.New(l)
			if err := renderWith(&buf, p, pr); err != nil {
				t.Fatal(err)
			}
			if m := pr.Missing(); len(m) > 0 {
				t.Errorf("%s %s: no %s entry for %q", l, mode, l, m)
			}
		}
	}
}

// failingState is a store whose GetState fails, naming the node.
type failingState struct{ Nodes }

func (failingState) GetState(_ context.Context, node string) (store.NodeState, error) {
	return store.NodeState{}, errors.New("disk on fire reading " + node)
}

// A public page that cannot be built says so without the error's text
// (which names nodes); the team view gets the error.
func TestPublicErrorNamesNothing(t *testing.T) {
	f := seeded(t)
	c := f.h.c
	c.Nodes = failingState{c.Nodes}
	h := New(c)
	rec := get(t, h, PathStatus, "")
	if rec.Code != 500 || regexp.MustCompile(`sh-a100|va-h200|gz-h20|disk on fire`).MatchString(rec.Body.String()) {
		t.Errorf("public error: %d %q", rec.Code, rec.Body.String())
	}
	if rec := get(t, h, PathStatus, "Bearer "+token); rec.Code != 500 || !strings.Contains(rec.Body.String(), "disk on fire") {
		t.Errorf("team error: %d %q", rec.Code, rec.Body.String())
	}
}

// The public page is reused for publicTTL (anyone may ask for it), then
// rebuilt; the team view is built every time.
func TestPublicPageCache(t *testing.T) {
	f := seeded(t)
	now := f.now
	c := f.h.c
	c.Now = func() time.Time { return now }
	h := New(c)
	first, err := h.page(context.Background(), Request{Mode: Public, AcceptLanguage: "en-US,en"})
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(publicTTL - time.Second)
	if again, _ := h.page(context.Background(), Request{Mode: Public, AcceptLanguage: "en"}); again != first {
		t.Errorf("public page rebuilt within its TTL")
	}
	if zh, _ := h.page(context.Background(), Request{Mode: Public, Lang: i18n.ZH}); zh == first || zh.Lang != i18n.ZH {
		t.Errorf("another language served the cached page")
	}
	if team, _ := h.page(context.Background(), Request{Mode: Private}); team == first || team.Mode != Private {
		t.Errorf("the team view came from the public cache")
	}
	now = now.Add(2 * time.Second)
	if later, _ := h.page(context.Background(), Request{Mode: Public, AcceptLanguage: "en"}); later == first || later.NowUnixMS != now.UnixMilli() {
		t.Errorf("public page not rebuilt after its TTL")
	}
}

// Bars are calendar days in the contract's zone: New York's 1 November
// 2026 lasts 25 hours (a day wholly down is 0 %, not 4 % up), and in
// Santiago, whose clocks skip midnight on 6 September 2026, every day
// still gets its bar, today's last.
func TestDayBarsInZone(t *testing.T) {
	pr := i18n.New(i18n.EN)
	ny, _ := time.LoadLocation("America/New_York")
	dayStartNY := time.Date(2026, 11, 1, 0, 0, 0, 0, ny)
	down := interval.Set{{Start: dayStartNY, End: time.Date(2026, 11, 2, 0, 0, 0, 0, ny)}}
	if got := down[0].Duration(); got != 25*time.Hour {
		t.Fatalf("the fixture's day is %s", got)
	}
	now := time.Date(2026, 11, 2, 17, 0, 0, 0, time.UTC)
	days, _ := dayBars(pr, down, ny, now, now.AddDate(-1, 0, 0))
	if len(days) != Days || days[Days-1].Date != "2026-11-02" || days[Days-2].Date != "2026-11-01" {
		t.Fatalf("%d bars ending %+v", len(days), days[len(days)-2:])
	}
	if d := days[Days-2]; d.Percent != 0 || d.Class != "down" || days[Days-1].Class != "ok" || days[Days-3].Class != "ok" {
		t.Errorf("1 November (25 h, all down): %+v; 31 October %+v; 2 November %+v", d, days[Days-3], days[Days-1])
	}
	scl, err := time.LoadLocation("America/Santiago")
	if err != nil {
		t.Skip(err)
	}
	now = time.Date(2026, 9, 20, 15, 0, 0, 0, time.UTC)
	days, _ = dayBars(pr, nil, scl, now, now.AddDate(-1, 0, 0))
	seen := map[string]bool{}
	for _, d := range days {
		seen[d.Date] = true
	}
	if len(days) != Days || len(seen) != Days || days[Days-1].Date != "2026-09-20" || !seen["2026-09-06"] {
		t.Errorf("Santiago: %d bars, %d dates, last %s", len(days), len(seen), days[len(days)-1].Date)
	}
}

// The team view's scorecard tab: the newest stored scorecard's comparison,
// each cell the figure with its rank and n, the too-few cell marked and
// unranked, its as-of instant in the zone of the contract whose month
// folder holds it (us-example: New York), in Chinese and English alike.
func TestScorecardTab(t *testing.T) {
	f := seeded(t)
	views := map[i18n.Lang]*ScoreView{}
	for _, l := range i18n.Langs {
		p, err := f.h.Build(context.Background(), Request{Mode: Private, Lang: l})
		if err != nil {
			t.Fatal(err)
		}
		if p.Scorecard == nil || len(p.Scorecard.Rows) != 2 || len(p.Scorecard.Columns) != 12 {
			t.Fatalf("%s: scorecard %+v (notes %v)", l, p.Scorecard, p.Notes)
		}
		views[l] = p.Scorecard
		var buf bytes.Buffer
		if err := render(&buf, p); err != nil {
			t.Fatal(err)
		}
		html := buf.String()
		for _, w := range []string{`<section id="scorecard">`, `<table class="scorecard">`, `data-provider="Alpha"`, `class="score-cell toofew"`,
			`class="score-cell best"`, `href="/status/reports/2026-10/us-example/scorecard.json"`} {
			if !strings.Contains(html, w) {
				t.Errorf("%s team page lacks %s", l, w)
			}
		}
	}
	en, zh := views[i18n.EN], views[i18n.ZH]
	// Machines and node-months, both, beside each provider.
	if en.Rows[0].Exposure != "3 machines, 2.99 node-months" || zh.Rows[0].Exposure != "3台机器，2.99节点月" || en.Warnings == nil {
		t.Errorf("exposure %q / %q, warnings %v", en.Rows[0].Exposure, zh.Rows[0].Exposure, en.Warnings)
	}
	if en.AsOf != "2026-04-04 20:00:00 -04:00 America/New_York" || zh.AsOf != "2026年4月4日 20:00:00（美国东部时间，UTC−04:00）" || en.Zone != "America/New_York" {
		t.Errorf("as of %q / %q in %s, want the golden scorecard's 2026-04-05T00:00Z in New York", en.AsOf, zh.AsOf, en.Zone)
	}
	cell := func(v *ScoreView, provider, key string) ScoreCell {
		for ci, c := range v.Columns {
			if c.Key != key {
				continue
			}
			for _, r := range v.Rows {
				if r.Provider == provider {
					return r.Cells[ci]
				}
			}
		}
		t.Fatalf("no cell %s %s", provider, key)
		return ScoreCell{}
	}
	// The golden figures (docs/scorecard.md's example).
	for _, c := range []struct {
		provider, key, en, enRank, zh, zhRank string
		tooFew                                bool
	}{
		{"Alpha", "delivery.p90_hours", "2.60 h (n=3)", "#2 of 2", "2.60 h（n=3）", "第2 / 2名", false},
		{"Beta", "delivery.p90_hours", "0.25 h (n=3)", "#1 of 2", "0.25 h（n=3）", "第1 / 2名", false},
		{"Alpha", "support.off_hours_first_response_p90_minutes", "40.0 min (too few: n=1 < 3)", "–", "40.0 min（观测过少：n=1 < 3）", "–", true},
		{"Beta", "support.off_hours_first_response_p90_minutes", "114.0 min (n=3)", "#1 of 1", "114.0 min（n=3）", "第1 / 1名", false},
	} {
		e, z := cell(en, c.provider, c.key), cell(zh, c.provider, c.key)
		if e.Text != c.en || e.RankText != c.enRank || e.TooFew != c.tooFew || z.Text != c.zh || z.RankText != c.zhRank {
			t.Errorf("%s %s: en %q %q, zh %q %q; want %q %q, %q %q", c.provider, c.key, e.Text, e.RankText, z.Text, z.RankText, c.en, c.enRank, c.zh, c.zhRank)
		}
	}
	// Every column's words are translated.
	for i := range en.Columns {
		if en.Columns[i].Dimension == zh.Columns[i].Dimension || en.Columns[i].Title == zh.Columns[i].Title || en.Columns[i].Better == zh.Columns[i].Better {
			t.Errorf("column %s not translated: %+v", en.Columns[i].Key, zh.Columns[i])
		}
	}
	if !strings.HasPrefix(zh.Title, "服务商评分卡2026年") || en.Title != "Provider scorecard March 2026" {
		t.Errorf("titles %q / %q", en.Title, zh.Title)
	}
}

// A provider named "NVIDIA", withheld, beside a node whose shown
// model is "NVIDIA H200" made the guard answer 500 to everyone. The shown
// model is masked before the guard looks, so the page is served, with the
// model and without the provider; a label that does name the provider is
// still refused.
func TestGuardAllowsAWithheldNameInsideAShownModel(t *testing.T) {
	f := seeded(t)
	st := f.h.c.Nodes.(interface {
		CreateNode(context.Context, store.Node) error
	})
	now := f.now
	if err := st.CreateNode(context.Background(), store.Node{ID: "nv-h200-09", Provider: "NVIDIA", Contract: "cn-example", GPUModel: "NVIDIA H200", GPUCount: 8,
		OrderedAt: now.AddDate(0, -1, 0), CreatedAt: now.AddDate(0, -1, 0), HeartbeatInterval: 30 * time.Second, Grace: 90 * time.Second}); err != nil {
		t.Fatal(err)
	}
	p, err := f.h.Build(context.Background(), Request{Mode: Public, Lang: i18n.EN})
	if err != nil {
		t.Fatalf("public page: %v", err)
	}
	var model bool
	for _, n := range p.Nodes {
		model = model || n.GPUs == "8 × NVIDIA H200"
		if n.Provider != "" {
			t.Errorf("the public page shows a provider: %+v", n)
		}
	}
	if !model {
		t.Fatalf("the shown model is missing: %+v", p.Nodes)
	}
	cn := *f.book["cn-example"]
	cn.StatusPage.Nodes = map[string]terms.NodePage{"nv-h200-09": {Label: "NVIDIA spare"}}
	c := f.withTerms(&cn)
	if _, err := New(c).Build(context.Background(), Request{Mode: Public}); err == nil || !strings.Contains(err.Error(), "provider") {
		t.Fatalf("a label naming the withheld provider: %v, want the page withheld", err)
	}
}

// A withheld value is a leak as a word of its own, not as part of a longer
// ASCII word; in a script without word boundaries it always is.
func TestContainsWord(t *testing.T) {
	for _, c := range []struct {
		text, v string
		want    bool
	}{
		{"Mapping done", "Ping", false}, {"Ping done", "Ping", true}, {"ok (Ping)", "Ping", true}, {"gz-h20-03x", "gz-h20-03", false},
		{"twin of gz-h20-03", "gz-h20-03", true}, {"阿里云的节点", "阿里云", true}, {"Pings and Ping", "Ping", true},
	} {
		if got := containsWord(c.text, c.v); got != c.want {
			t.Errorf("containsWord(%q, %q) = %v", c.text, c.v, got)
		}
	}
}

// withTerms is the fixture's handler config with cn in place of the
// loaded cn-example terms.
func (f fixture) withTerms(cn *terms.Terms) Config {
	c := f.h.c
	c.Terms = func(id string) (*terms.Terms, bool) {
		if id == cn.Contract {
			return cn, true
		}
		return f.book[id], true
	}
	return c
}

// The token cookie is Secure whenever the browser reached the page over
// https: serve's own TLS, an https-only deployment (the Lambda), or a
// trusted proxy's X-Forwarded-Proto (the documented nginx recipe terminates
// TLS in front of serve). Anyone else's X-Forwarded-Proto is ignored.
func TestCookieSecureBehindTrustedProxies(t *testing.T) {
	f := seeded(t)
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	for _, c := range []struct {
		name    string
		https   bool
		proxies []netip.Prefix
		remote  string
		xfp     []string
		tls     bool
		secure  bool
	}{
		{"plain http, no proxy", false, nil, "127.0.0.1:5000", nil, false, false},
		{"a client claiming https, no proxy trusted", false, nil, "127.0.0.1:5000", []string{"https"}, false, false},
		{"the trusted nginx says https", false, loopback, "127.0.0.1:5000", []string{"https"}, false, true},
		{"the trusted proxy over IPv6", false, loopback, "[::1]:5000", []string{"https"}, false, true},
		{"the trusted proxy says http", false, loopback, "127.0.0.1:5000", []string{"http"}, false, false},
		{"the last value is the nearest proxy's", false, loopback, "127.0.0.1:5000", []string{"https, http"}, false, false},
		{"an untrusted address claiming https", false, loopback, "10.9.8.7:5000", []string{"https"}, false, false},
		{"a trusted range", false, []netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")}, "10.9.8.7:5000", []string{"https"}, false, true},
		{"serve's own TLS", false, nil, "10.9.8.7:5000", nil, true, true},
		{"https-only deployment", true, nil, "203.0.113.5:5000", nil, false, true},
	} {
		cfg := f.h.c
		cfg.HTTPS, cfg.TrustedProxies = c.https, c.proxies
		req := httptest.NewRequest(http.MethodGet, PathStatus+"?token="+token, nil)
		req.RemoteAddr = c.remote
		for _, v := range c.xfp {
			req.Header.Add("X-Forwarded-Proto", v)
		}
		if c.tls {
			req.TLS = &tls.ConnectionState{}
		}
		rec := httptest.NewRecorder()
		New(cfg).ServeHTTP(rec, req)
		cookies := rec.Result().Cookies()
		if len(cookies) != 1 || cookies[0].Name != CookieName || cookies[0].Secure != c.secure || !cookies[0].HttpOnly {
			t.Errorf("%s: cookies %+v, want one with Secure=%v", c.name, cookies, c.secure)
		}
	}
}

// A withheld value that is also one of the page's own argument-free words
// (a contract called "none", as the page says "none" of a missing value)
// does not withhold every page: leaves that are the catalog's constants
// hold no data and are not searched.
func TestGuardIgnoresThePageWords(t *testing.T) {
	f := seeded(t)
	st := f.h.c.Nodes.(interface {
		CreateNode(context.Context, store.Node) error
	})
	if err := st.CreateNode(context.Background(), store.Node{ID: "xx-0001", Provider: "Acme Metal", Contract: "none", GPUModel: "H100", GPUCount: 8,
		OrderedAt: f.now.AddDate(0, -1, 0), CreatedAt: f.now.AddDate(0, -1, 0)}); err != nil {
		t.Fatal(err)
	}
	if !i18n.Constants()["none"] {
		t.Fatal(`"none" is no longer a constant of the catalog; pick another page word`)
	}
	for _, l := range []i18n.Lang{i18n.EN, i18n.ZH} {
		if _, err := f.h.Build(context.Background(), Request{Mode: Public, Lang: l}); err != nil {
			t.Errorf("%s public page with a contract named none: %v", l, err)
		}
	}
}

// A node that opened incidents as fast as its bounds let it (the issue was
// 14,336 checks, and a 21 MB page) leaves a bounded page: the longest open
// MaxOpenRows and the newest MaxHistoryRows listed, a line saying how many
// more, the headings counting them all, the feed no longer than the list.
func TestPageBoundedWhateverANodeOpens(t *testing.T) {
	f := seeded(t)
	st := f.h.c.Nodes.(interface {
		CreateIncident(context.Context, store.Incident) error
	})
	const open, closed = 700, 400
	for i := range open + closed {
		start := f.now.Add(-time.Duration(i+1) * time.Minute)
		check := fmt.Sprintf("gpu.burn.fp32.errors/gpu%d <img src=x onerror=alert(1)>", i)
		inc := store.Incident{Node: "gz-h20-03", ID: store.CheckIncidentID("gpu_degraded", start, check), Kind: "gpu_degraded", Check: check,
			Start: start, Failed: []notify.FailedCheck{{Name: check, Verdict: "fail", Value: strings.Repeat("v", 256)}}}
		if i >= open {
			inc.End = start.Add(30 * time.Second)
		}
		if err := st.CreateIncident(context.Background(), inc); err != nil {
			t.Fatal(err)
		}
	}
	p, err := f.h.Build(context.Background(), Request{Mode: Private, Lang: i18n.EN})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Open) != MaxOpenRows || p.OpenCount() != open+2 || len(p.History) != MaxHistoryRows || p.HistoryCount() != open+closed+4 {
		t.Fatalf("open %d of %d, history %d of %d", len(p.Open), p.OpenCount(), len(p.History), p.HistoryCount())
	}
	for _, c := range []struct{ lang i18n.Lang }{{i18n.EN}, {i18n.ZH}} {
		rec := get(t, f.h, PathStatus+"?lang="+string(c.lang), "Bearer "+token)
		body := rec.Body.String()
		if rec.Code != 200 || len(body) > 2<<20 {
			t.Fatalf("%s: %d, %d bytes", c.lang, rec.Code, len(body))
		}
		if strings.Contains(body, "<img src=x") {
			t.Errorf("%s: a check name is live HTML", c.lang)
		}
		more := map[i18n.Lang][]string{i18n.EN: {"Open incidents (702)", "… and 502 more open incidents, not listed here", "… and 604 older incidents, not listed here"},
			i18n.ZH: {"另有502起进行中的事件未在此列出", "另有604起更早的事件未在此列出"}}[c.lang]
		for _, want := range more {
			if !strings.Contains(body, want) {
				t.Errorf("%s: the page lacks %q", c.lang, want)
			}
		}
	}
	rec := get(t, f.h, PathFeed, "Bearer "+token)
	if n := strings.Count(rec.Body.String(), "<entry>"); rec.Code != 200 || n != MaxHistoryRows {
		t.Errorf("feed: %d, %d entries", rec.Code, n)
	}
}

// hostileText is text a provider's node (its check names, values and
// evidence) or a ticket's provider reference can carry: raw HTML, a
// script, links, an entity, a Markdown image, a table breaker, a newline.
var hostileText = []string{`<img src=x onerror=alert(1)>`, "<script>alert(1)</script>", "<a href='https://evil.example'>x</a>",
	"[click](javascript:alert(1))", "![i](https://evil.example/i.png)", "&lt;b&gt;", "a|b", "x\n\n<div onclick=alert(1)>y</div>", `"><svg onload=alert(1)>`}

// TestOutsideTextInertOnThePageAndTheFeed: a failing check whose name,
// value and evidence are hostile, on an open and a closed incident, and a
// ticket whose provider reference and summary are, leave the team's page
// (en, zh) with the very elements and attributes the same data with a
// harmless name gives and the text as written, and the Atom feed well
// formed with the text as written in its entries.
func TestOutsideTextInertOnThePageAndTheFeed(t *testing.T) {
	shape := func(h string) (page map[i18n.Lang][]string, text map[i18n.Lang]string, feed []byte) {
		f := seeded(t)
		st := f.h.c.Nodes.(interface {
			CreateIncident(context.Context, store.Incident) error
		})
		for i, end := range []time.Duration{0, 10 * time.Minute} {
			start := f.now.Add(-time.Duration(i+1) * time.Hour)
			inc := store.Incident{Node: "gz-h20-03", ID: store.CheckIncidentID("gpu_degraded", start, h), Kind: "gpu_degraded", Check: h,
				Start: start, Evidence: h, Failed: []notify.FailedCheck{{Name: h, Verdict: "fail", Value: h, Criterion: h, Detail: h}}}
			if end > 0 {
				inc.End = start.Add(end)
			}
			if err := st.CreateIncident(context.Background(), inc); err != nil {
				t.Fatal(err)
			}
		}
		page, text = map[i18n.Lang][]string{}, map[i18n.Lang]string{}
		for _, lang := range i18n.Langs {
			rec := get(t, f.h, PathStatus+"?lang="+string(lang), "Bearer "+token)
			if rec.Code != 200 {
				t.Fatalf("%q %s: %d", h, lang, rec.Code)
			}
			shape, txt, err := htmlshape.Of(rec.Body)
			if err != nil {
				t.Fatal(err)
			}
			page[lang] = shape
			text[lang] = strings.Join(strings.Fields(txt), " ")
		}
		rec := get(t, f.h, PathFeed, "Bearer "+token)
		return page, text, rec.Body.Bytes()
	}
	plain, _, _ := shape("harmless name")
	for _, h := range hostileText {
		page, text, feed := shape(h)
		want := strings.Join(strings.Fields(h), " ")
		for _, lang := range i18n.Langs {
			if g, b := strings.Join(page[lang], " "), strings.Join(plain[lang], " "); g != b {
				t.Errorf("%q %s: the page's elements differ from the harmless page's:\n got %s\nwant %s", h, lang, g, b)
			}
			if !strings.Contains(text[lang], want) {
				t.Errorf("%q %s: the page's text lacks it as written", h, lang)
			}
		}
		var doc struct {
			Entries []struct {
				Content string `xml:"content"`
			} `xml:"entry"`
		}
		if err := xml.Unmarshal(feed, &doc); err != nil {
			t.Fatalf("%q: the feed is not XML: %v", h, err)
		}
		found := false
		for _, e := range doc.Entries {
			found = found || strings.Contains(strings.Join(strings.Fields(e.Content), " "), want)
		}
		if !found {
			t.Errorf("%q: no feed entry holds it as written", h)
		}
	}
}
