package actionlink_test

import (
	"context"

	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/actionlink"
	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/replacement"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
	"github.com/gpusla/gpusla/infra/store/storetest"
	"github.com/gpusla/gpusla/probe/wire"
)

func TestMain(m *testing.M) {
	code := m.Run()
	dynamotest.Stop()
	os.Exit(code)
}

type testStore interface {
	store.Store
	store.TicketStore
	SetClock(func() time.Time)
}

// env is a backend with one node of each contract (cn-example: zh,
// us-example: en), each with an open gpu_lost incident, and the link
// handler on a mux.
type env struct {
	t      *testing.T
	clock  *apptest.Clock
	store  testStore
	desk   *app.TicketDesk
	links  *actionlink.Signer
	rq     *replacement.Requester
	mux    *http.ServeMux
	dir    string
	inc    map[string]store.Incident // by node
	netInc store.Incident            // a network incident of gz-01: no replacement
}

func newEnv(t *testing.T, st testStore) *env {
	t.Helper()
	dir := t.TempDir()
	clock := apptest.NewClock(time.Now().Truncate(time.Second))
	st.SetClock(clock.Now)
	log := slog.New(slog.DiscardHandler)
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Clock: clock, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	book, err := wiring.LoadTerms("../../testdata/terms")
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	key, err := replacement.LoadOrCreateKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, clock: clock, store: st, desk: desk, dir: dir, mux: http.NewServeMux(), inc: map[string]store.Incident{},
		rq: &replacement.Requester{Desk: desk, Key: key, Dir: filepath.Join(dir, "packs")}}
	e.links, err = actionlink.NewSigner(secret, "https://gpusla.example.com", time.Hour, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	h, err := actionlink.New(actionlink.Config{Links: e.links, Desk: desk, Requester: e.rq, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	h.Register(e.mux)
	for id, contract := range map[string]string{"gz-01": "cn-example", "ny-01": "us-example"} {
		n, sec, err := svc.AddNode(t.Context(), app.NewNode{ID: id, Provider: "acme", Contract: contract,
			OrderedAt: clock.Now().Add(-time.Hour), GPUModel: "H200", GPUCount: 8})
		if err != nil {
			t.Fatal(err)
		}
		p := &apptest.Probe{Node: n.ID, Secret: sec}
		now := clock.Now()
		_, body := p.Batch(now, wire.Observation{At: now, Kind: wire.KindHeartbeat}, apptest.Check(now,
			wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "7", Criterion: "8"}))
		if _, err := svc.Ingest(t.Context(), p.Request(now, body)); err != nil {
			t.Fatal(err)
		}
		incs, err := st.ListIncidents(t.Context(), id, now.Add(-time.Hour), now.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(incs) != 1 || incs[0].Kind != "gpu_lost" {
			t.Fatalf("%s: incidents %+v, want one gpu_lost", id, incs)
		}
		e.inc[id] = incs[0]
	}
	// A network incident: real, signed for, and still no replacement.
	start := clock.Now().Add(-time.Minute)
	e.netInc = store.Incident{Node: "gz-01", ID: store.CheckIncidentID("network_degraded", start, "net.ping"), Kind: "network_degraded",
		Check: "net.ping", Start: start, Version: 1, ConfirmedAt: start}
	if err := st.CreateIncident(t.Context(), e.netInc); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) link(node string) string {
	e.t.Helper()
	u, err := e.links.ReplacementURL(node, e.inc[node].ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

func (e *env) get(link string) (int, string) {
	e.t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Path != actionlink.PathReplacement {
		e.t.Fatalf("link %q: %v", link, err)
	}
	r := httptest.NewRequest(http.MethodGet, u.RequestURI(), nil)
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, r)
	for k, want := range map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
		if got := w.Header().Get(k); got != want {
			e.t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	return w.Code, w.Body.String()
}

var hidden = regexp.MustCompile(`<input type="hidden" name="([a-z]+)" value="([^"]*)">`)

// form is the confirmation page's form fields.
func form(t *testing.T, page string) url.Values {
	t.Helper()
	v := url.Values{}
	for _, m := range hidden.FindAllStringSubmatch(page, -1) {
		v.Set(m[1], htmlUnescape(m[2]))
	}
	if len(v) != 5 || v.Get("token") == "" {
		t.Fatalf("the page's form: %v\n%s", v, page)
	}
	return v
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&#43;", "+", "&amp;", "&", "&#34;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">").Replace(s)
}

func (e *env) post(v url.Values) (int, string) {
	e.t.Helper()
	r := httptest.NewRequest(http.MethodPost, actionlink.PathReplacement, strings.NewReader(v.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

func (e *env) tickets() []store.Ticket {
	e.t.Helper()
	tks, err := e.desk.List(context.Background(), false)
	if err != nil {
		e.t.Fatal(err)
	}
	return tks
}

func onBothStores(t *testing.T, run func(t *testing.T, e *env)) {
	t.Run("bolt", func(t *testing.T) {
		st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		run(t, newEnv(t, st))
	})
	t.Run("dynamo", func(t *testing.T) {
		st := dynamotest.NewStore(t)
		t.Cleanup(func() { st.Close() })
		run(t, newEnv(t, st))
	})
}

// TestConfirmThenRequestOnce: GET shows the confirmation page in the
// contract's language and changes nothing however often it is fetched (a
// chat app's preview); the page's POST opens the hardware ticket; a second
// POST, a GET afterwards and a Slack click (the requester again) all say
// "already requested" with the ticket id.
func TestConfirmThenRequestOnce(t *testing.T) {
	onBothStores(t, func(t *testing.T, e *env) {
		link := e.link("gz-01")
		var page string
		for range 3 {
			code, body := e.get(link)
			if code != http.StatusOK {
				t.Fatalf("GET: %d\n%s", code, body)
			}
			page = body
		}
		if n := len(e.tickets()); n != 0 {
			t.Fatalf("GET opened %d tickets", n)
		}
		for _, want := range []string{`lang="zh"`, "申请更换物理机", "GPU 掉卡", "gz-01", "acme", "cn-example", "此链接于", `<button type="submit">申请更换</button>`} {
			if !strings.Contains(page, want) {
				t.Fatalf("the zh page lacks %q:\n%s", want, page)
			}
		}
		f := form(t, page)
		code, body := e.post(f)
		if code != http.StatusCreated {
			t.Fatalf("POST: %d\n%s", code, body)
		}
		tks := e.tickets()
		if len(tks) != 1 || tks[0].Category != store.CategoryHardware || tks[0].IncidentID != e.inc["gz-01"].ID || tks[0].OpenedBy != actionlink.By {
			t.Fatalf("tickets after the POST: %+v", tks)
		}
		id := tks[0].ID
		for _, want := range []string{"已申请更换：硬件工单 " + id, "请更换物理机", "please replace the physical machine", "Evidence pack: "} {
			if !strings.Contains(body, want) {
				t.Fatalf("the answer lacks %q:\n%s", want, body)
			}
		}
		code, body = e.post(f)
		if code != http.StatusConflict || !strings.Contains(body, "已申请过：此故障的工单 "+id) {
			t.Fatalf("second POST: %d\n%s", code, body)
		}
		code, body = e.get(link)
		if code != http.StatusOK || !strings.Contains(body, "已申请过") || strings.Contains(body, "<form") {
			t.Fatalf("GET after the request: %d\n%s", code, body)
		}
		// The Slack button asks the same requester: the store says it is done.
		if _, tid, created, err := e.rq.RequestReplacement(t.Context(), "gz-01", e.inc["gz-01"].ID, "slack:U7", "1.2"); err != nil || created || tid != id {
			t.Fatalf("Slack after the link: ticket %s created %v err %v", tid, created, err)
		}
		if n := len(e.tickets()); n != 1 {
			t.Fatalf("%d tickets, want 1", n)
		}
	})
}

// TestRacingPosts: many POSTs of one page at once open one ticket; one
// answer is 201, every other "already requested".
func TestRacingPosts(t *testing.T) {
	onBothStores(t, func(t *testing.T, e *env) {
		_, page := e.get(e.link("ny-01"))
		f := form(t, page)
		const n = 8
		codes := make([]int, n)
		storetest.Parallel(t, n, func(i int) error {
			codes[i], _ = e.post(f)
			return nil
		})
		created := 0
		for _, c := range codes {
			switch c {
			case http.StatusCreated:
				created++
			case http.StatusConflict:
			default:
				t.Fatalf("answers %v", codes)
			}
		}
		if tks := e.tickets(); created != 1 || len(tks) != 1 {
			t.Fatalf("answers %v, %d tickets; want one 201 and one ticket", codes, len(tks))
		}
	})
}

// TestEnglishPage: a node under an English contract gets the page in
// English.
func TestEnglishPage(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := newEnv(t, st)
	code, page := e.get(e.link("ny-01"))
	for _, want := range []string{`lang="en"`, "Request the replacement of the physical machine", "GPU lost", "us-example", "This link expires at", ">Request replacement</button>"} {
		if code != http.StatusOK || !strings.Contains(page, want) {
			t.Fatalf("%d: the en page lacks %q:\n%s", code, want, page)
		}
	}
	f := form(t, page)
	code, body := e.post(f)
	if code != http.StatusCreated || !strings.Contains(body, "Replacement requested: hardware ticket ") {
		t.Fatalf("POST: %d\n%s", code, body)
	}
}

// TestRefusals: tampered, forged, rotated, unknown node, unknown or
// non-hardware incident all get one and the same answer; expired links say
// so in the contract's language; a POST without the page's token, with a
// wrong one, oversized or not a form is refused; nothing is ever opened.
func TestRefusals(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := newEnv(t, st)
	good := e.link("gz-01")
	tamper := func(k, v string) string {
		u, _ := url.Parse(good)
		q := u.Query()
		q.Set(k, v)
		u.RawQuery = q.Encode()
		return u.String()
	}
	rotated, _ := actionlink.NewSigner([]byte(strings.Repeat("z", 32)), "https://gpusla.example.com", time.Hour, e.clock.Now)
	rot, _ := rotated.ReplacementURL("gz-01", e.inc["gz-01"].ID)
	unknownNode, _ := e.links.ReplacementURL("gz-99", e.inc["gz-01"].ID)
	unknownInc, _ := e.links.ReplacementURL("gz-01", "gpu_lost@20200101T000000.000Z")
	netInc, _ := e.links.ReplacementURL("gz-01", e.netInc.ID)
	var first string
	for name, link := range map[string]string{"tampered node": tamper("node", "ny-01"), "tampered incident": tamper("incident", "gpu_lost@20200101T000000.000Z~gpu.count"),
		"forged sig": tamper("sig", strings.Repeat("A", 43)), "rotated secret": rot, "unknown node": unknownNode,
		"unknown incident": unknownInc, "network incident": netInc} {
		code, body := e.get(link)
		if code != http.StatusForbidden || !strings.Contains(body, "此链接无效") || !strings.Contains(body, "This link is not valid") {
			t.Fatalf("%s: %d\n%s", name, code, body)
		}
		if first == "" {
			first = body
		} else if body != first {
			t.Fatalf("%s: a different answer from the others (enumeration):\n%s\n---\n%s", name, body, first)
		}
	}
	if e.netInc.ID == "" {
		t.Fatal("no network incident to try")
	}
	for name, c := range map[string]struct {
		target string
		want   int
	}{
		"no query":   {actionlink.PathReplacement, http.StatusBadRequest},
		"huge query": {actionlink.PathReplacement + "?node=" + strings.Repeat("x", 2000), http.StatusRequestURITooLong},
		"bad escape": {actionlink.PathReplacement + "?node=%zz", http.StatusBadRequest},
	} {
		w := httptest.NewRecorder()
		e.mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, c.target, nil))
		if w.Code != c.want {
			t.Errorf("%s: %d, want %d", name, w.Code, c.want)
		}
	}

	_, page := e.get(good)
	f := form(t, page)
	without := url.Values{}
	for k, v := range f {
		if k != "token" {
			without[k] = v
		}
	}
	wrong := url.Values{}
	for k, v := range f {
		wrong[k] = v
	}
	wrong.Set("token", strings.Repeat("A", 43))
	for name, v := range map[string]url.Values{"no token": without, "wrong token": wrong} {
		if code, body := e.post(v); code != http.StatusForbidden || body != first {
			t.Errorf("%s: %d\n%s", name, code, body)
		}
	}
	big := httptest.NewRequest(http.MethodPost, actionlink.PathReplacement, strings.NewReader(f.Encode()+"&pad="+strings.Repeat("x", actionlink.MaxForm)))
	big.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, big)
	if w.Code != http.StatusRequestURITooLong && w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized form: %d", w.Code)
	}
	js := httptest.NewRequest(http.MethodPost, actionlink.PathReplacement, strings.NewReader(f.Encode()))
	js.Header.Set("Content-Type", "application/json")
	w = httptest.NewRecorder()
	e.mux.ServeHTTP(w, js)
	if w.Code != http.StatusBadRequest {
		t.Errorf("not a form: %d", w.Code)
	}

	// Expired: a genuine link past its hour, in the contract's language;
	// its form too.
	e.clock.Advance(time.Hour)
	code, body := e.get(good)
	if code != http.StatusGone || !strings.Contains(body, "此链接已失效") || !strings.Contains(body, "gpusla ticket request-replacement gz-01") {
		t.Fatalf("expired GET: %d\n%s", code, body)
	}
	if code, _ := e.post(f); code != http.StatusGone {
		t.Fatalf("expired POST: %d", code)
	}
	if n := len(e.tickets()); n != 0 {
		t.Fatalf("refused requests opened %d tickets", n)
	}
}

// TestNotifierSignsHardwareAlertsOnly: the notifier puts a verifiable link
// on an incident's first hardware alert and on nothing else.
func TestNotifierSignsHardwareAlertsOnly(t *testing.T) {
	clock := apptest.NewClock(t0)
	s := signer(t, secret, clock)
	rec := &apptest.Notifier{}
	n := actionlink.Notifier{Next: rec, Links: s}
	open := notify.Alert{Kind: notify.AlertDegraded, Node: "gz-01", IncidentID: "gpu_lost@20261130T100030.000Z", IncidentKind: "gpu_lost", Since: t0}
	recovered := open
	recovered.Kind = notify.AlertRecovered
	network := notify.Alert{Kind: notify.AlertDegraded, Node: "gz-01", IncidentID: "network_degraded@20261130T100030.000Z", IncidentKind: "network_degraded"}
	unreachable := notify.Alert{Kind: notify.AlertUnreachable, Node: "gz-01", IncidentID: "unreachable@20261130T100030.000Z", IncidentKind: "unreachable"}
	stale := recovered
	stale.ReplacementURL = "https://evil.example/"
	for _, a := range []notify.Alert{open, recovered, network, unreachable, stale} {
		if _, err := n.Notify(t.Context(), a); err != nil {
			t.Fatal(err)
		}
	}
	sent := rec.Sent()
	l, err := s.Verify(actionlink.ActionReplacement, query2(t, sent[0].ReplacementURL))
	if err != nil || l.Node != "gz-01" || l.IncidentID != open.IncidentID {
		t.Fatalf("the hardware alert's link %q: %+v %v", sent[0].ReplacementURL, l, err)
	}
	for _, a := range sent[1:] {
		if a.ReplacementURL != "" {
			t.Errorf("%s %s alert carries %q", a.Kind, a.IncidentKind, a.ReplacementURL)
		}
	}
}

func query2(t *testing.T, link string) url.Values {
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

// After the node is given back, its alert's replacement link answers that
// the node is no longer rented — the page (GET), the form taken before the
// release (POST), the Slack button and `gpusla ticket request-replacement`
// (the requester) alike — and opens no ticket, so no replacement clock
// starts. (Before, the POST opened a hardware ticket with the clock running.)
func TestReleasedNodeLinkOpensNothing(t *testing.T) {
	onBothStores(t, func(t *testing.T, e *env) {
		for node, words := range map[string]string{"ny-01": "no longer rented", "gz-01": "已不再租用"} {
			link := e.link(node)
			_, page := e.get(link)
			f := form(t, page)
			e.clock.Advance(time.Minute)
			released := e.clock.Now()
			if _, err := e.desk.Service().ReleaseNode(t.Context(), app.NodeRelease{Node: node, At: released, By: "cli:ops"}); err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(time.Minute)
			code, body := e.get(link)
			if code != http.StatusGone || !strings.Contains(body, words) || strings.Contains(body, "<form") {
				t.Fatalf("%s: GET after the release: %d\n%s", node, code, body)
			}
			code, body = e.post(f)
			if code != http.StatusGone || !strings.Contains(body, words) {
				t.Fatalf("%s: POST after the release: %d\n%s", node, code, body)
			}
			_, _, _, err := e.rq.RequestReplacement(t.Context(), node, e.inc[node].ID, "slack:U7", "1.2")
			if app.ErrorCode(err) != app.EConflict || !strings.Contains(app.ErrorMessage(err), "released") {
				t.Fatalf("%s: the requester after the release: %v", node, err)
			}
		}
		if tks := e.tickets(); len(tks) != 0 {
			t.Fatalf("tickets opened for released nodes: %+v", tks)
		}
	})
}
