package slackapi_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	slackgo "github.com/slack-go/slack"
	"github.com/slack-go/slack/slacktest"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/slackapi"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/sla/events"
)

const secret = "8f742231b10e8888abcd99yyyzzz85a5"

// fakeSlack is slacktest's server with recorders in front of
// chat.postMessage (the notifier's thread posts) and a response_url.
type fakeSlack struct {
	srv       *slacktest.Server
	mu        sync.Mutex
	posts     []url.Values
	responses []map[string]any
	ts        int
}

func (f *fakeSlack) postMessage(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	v, _ := url.ParseQuery(string(body))
	f.mu.Lock()
	f.posts = append(f.posts, v)
	f.ts++
	ts := fmt.Sprintf("1764496830.%06d", f.ts)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":%q}`, v.Get("channel"), ts)
}

func (f *fakeSlack) response(w http.ResponseWriter, r *http.Request) {
	var m map[string]any
	_ = json.NewDecoder(r.Body).Decode(&m)
	f.mu.Lock()
	f.responses = append(f.responses, m)
	f.mu.Unlock()
	w.Write([]byte("ok"))
}

func (f *fakeSlack) Posts() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.posts...)
}

func (f *fakeSlack) Responses() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.responses...)
}

func (f *fakeSlack) responseURL() string { return f.srv.GetAPIURL() + "response/T1/B1/x" }

type env struct {
	t      testing.TB
	h      *slackapi.Handler
	runner *slackapi.GoRunner
	mux    *http.ServeMux
	desk   *app.TicketDesk
	store  ticketStore
	slack  *fakeSlack
	clock  *apptest.Clock
}

// ticketStore is what the tests need of a store: the application's and
// the ticket desk's, with a settable clock.
type ticketStore interface {
	store.Store
	store.TicketStore
	SetClock(func() time.Time)
}

func newEnv(t testing.TB, export app.ExportFunc) *env {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newEnvOn(t, export, st)
}

func newEnvOn(t testing.TB, export app.ExportFunc, st ticketStore, opts ...func(*slackapi.Config)) *env {
	fs := &fakeSlack{}
	fs.srv = slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/chat.postMessage", fs.postMessage)
		c.Handle("/response/", fs.response)
	})
	fs.srv.Start()
	t.Cleanup(fs.srv.Stop)
	notifier, err := slack.New(slack.Config{BotToken: "xoxb-test", Channel: "C-ALERTS", APIURL: fs.srv.GetAPIURL()})
	if err != nil {
		t.Fatal(err)
	}
	// The desk's clock is real time (Slack signs with real time), held
	// still by the manual clock so texts do not drift inside a test.
	clock := apptest.NewClock(time.Now())
	st.SetClock(clock.Now)
	log := slog.New(slog.DiscardHandler)
	svc, err := app.New(app.Config{Store: st, Notifier: notifier, Box: apptest.Box(t), Clock: clock, Log: log})
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
	for id, c := range map[string]string{"gz-01": "cn-example", "ny-01": "us-example"} {
		if err := st.CreateNode(t.Context(), store.Node{ID: id, Provider: "acme", Contract: c, OrderedAt: clock.Now().Add(-time.Hour),
			GPUModel: "H200", GPUCount: 8, HeartbeatInterval: 30 * time.Second, PushInterval: time.Minute, Grace: time.Minute}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := slackapi.Config{Desk: desk, SigningSecret: secret, Log: log, Export: export}
	for _, o := range opts {
		o(&cfg)
	}
	h, err := slackapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, h: h, desk: desk, store: st, slack: fs, clock: clock, mux: http.NewServeMux()}
	e.runner = slackapi.NewGoRunner(h, 10*time.Second)
	h.SetRunner(e.runner)
	h.Register(e.mux)
	return e
}

func sign(ts, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "v0:%s:%s", ts, body)
	return "v0=" + hex.EncodeToString(m.Sum(nil))
}

// signed builds a request as Slack sends it, signed at time at.
func signed(path, body string, at time.Time) *http.Request {
	ts := strconv.FormatInt(at.Unix(), 10)
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("X-Slack-Request-Timestamp", ts)
	r.Header.Set("X-Slack-Signature", sign(ts, body))
	return r
}

func (e *env) do(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, r)
	e.runner.Wait()
	return w
}

var triggers int

func (e *env) commandBody(text string) string {
	triggers++
	return url.Values{"command": {"/gpusla"}, "text": {text}, "user_id": {"U42"}, "user_name": {"mei"}, "channel_id": {"C-OPS"},
		"team_id": {"T1"}, "trigger_id": {fmt.Sprintf("trig-%d", triggers)}, "response_url": {e.slack.responseURL()}}.Encode()
}

// command sends `/gpusla text` signed now and returns the answer's text.
func (e *env) command(text string) (int, slackapi.Message) {
	e.t.Helper()
	w := e.do(signed(slackapi.PathCommands, e.commandBody(text), time.Now()))
	var m slackapi.Message
	if w.Code == http.StatusOK {
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
			e.t.Fatalf("answer is not JSON: %v: %s", err, w.Body)
		}
	}
	return w.Code, m
}

func (e *env) tickets() []store.Ticket {
	e.t.Helper()
	l, err := e.desk.List(e.t.Context(), false)
	if err != nil {
		e.t.Fatal(err)
	}
	return l
}

// TestSignatureEdgeCases: missing, wrong, five minutes old and replayed
// requests are refused with 401 and record nothing.
func TestSignatureEdgeCases(t *testing.T) {
	e := newEnv(t, nil)
	body := e.commandBody("ticket open gz-01 P1 GPU 3 lost")
	now := time.Now()

	missing := httptest.NewRequest(http.MethodPost, slackapi.PathCommands, strings.NewReader(body))
	noTS := signed(slackapi.PathCommands, body, now)
	noTS.Header.Del("X-Slack-Request-Timestamp")
	wrong := signed(slackapi.PathCommands, body, now)
	wrong.Header.Set("X-Slack-Signature", sign(strconv.FormatInt(now.Unix(), 10), body+"&x=1"))
	otherSecret := signed(slackapi.PathCommands, body, now)
	otherSecret.Header.Set("X-Slack-Signature", "v0="+strings.Repeat("0", 64))
	tampered := signed(slackapi.PathCommands, body, now)
	tampered.Body = io.NopCloser(strings.NewReader(strings.Replace(body, "P1", "P3", 1)))
	old := signed(slackapi.PathCommands, body, now.Add(-5*time.Minute-time.Second))
	future := signed(slackapi.PathCommands, body, now.Add(5*time.Minute+time.Second))
	garbageTS := signed(slackapi.PathCommands, body, now)
	garbageTS.Header.Set("X-Slack-Request-Timestamp", "yesterday")
	for name, r := range map[string]*http.Request{"missing": missing, "no timestamp": noTS, "wrong": wrong, "zero signature": otherSecret,
		"body changed": tampered, "five minutes old": old, "five minutes ahead": future, "malformed timestamp": garbageTS} {
		if w := e.do(r); w.Code != http.StatusUnauthorized {
			t.Errorf("%s: %d %s, want 401", name, w.Code, w.Body)
		}
	}
	if n := len(e.tickets()); n != 0 {
		t.Fatalf("%d tickets recorded by refused requests", n)
	}

	// Just inside the window is fine; the same signed request again is a replay.
	good := signed(slackapi.PathCommands, body, now.Add(-4*time.Minute))
	if w := e.do(good); w.Code != http.StatusOK {
		t.Fatalf("valid request: %d %s", w.Code, w.Body)
	}
	replay := signed(slackapi.PathCommands, body, now.Add(-4*time.Minute))
	if w := e.do(replay); w.Code != http.StatusUnauthorized {
		t.Fatalf("replay: %d, want 401", w.Code)
	}
	if n := len(e.tickets()); n != 1 {
		t.Fatalf("%d tickets after a request and its replay, want 1", n)
	}
	// The same signature re-spelt (hex upper-cased, or one letter of it)
	// verifies alike and is the same replay: no second ticket.
	for _, spell := range []func(string) string{strings.ToUpper, upperFirstLetter} {
		again := signed(slackapi.PathCommands, body, now.Add(-4*time.Minute))
		again.Header.Set("X-Slack-Signature", "v0="+spell(strings.TrimPrefix(again.Header.Get("X-Slack-Signature"), "v0=")))
		if w := e.do(again); w.Code != http.StatusUnauthorized {
			t.Fatalf("replay as %s: %d, want 401", again.Header.Get("X-Slack-Signature"), w.Code)
		}
	}
	if n := len(e.tickets()); n != 1 {
		t.Fatalf("%d tickets after a request and its re-spelt replays, want 1", n)
	}
	// Interactions are verified the same way.
	click := clickBody("U1", notify.ActionTicketOpen, "gz-01", "unreachable@20261130T100000.000Z", "1764496000.000100", e.slack.responseURL())
	bad := signed(slackapi.PathInteractions, click, now)
	bad.Header.Set("X-Slack-Signature", sign("1", click))
	if w := e.do(bad); w.Code != http.StatusUnauthorized {
		t.Fatalf("badly signed click: %d, want 401", w.Code)
	}
	if n := len(e.tickets()); n != 1 {
		t.Fatalf("a refused click recorded something: %d tickets", n)
	}
	// A click accepted once, then replayed with its signature upper-cased.
	okClick := signed(slackapi.PathInteractions, click, now)
	respelt := signed(slackapi.PathInteractions, click, now)
	respelt.Header.Set("X-Slack-Signature", "v0="+strings.ToUpper(strings.TrimPrefix(respelt.Header.Get("X-Slack-Signature"), "v0=")))
	if w := e.do(okClick); w.Code != http.StatusOK {
		t.Fatalf("click: %d %s", w.Code, w.Body)
	}
	if w := e.do(respelt); w.Code != http.StatusUnauthorized {
		t.Fatalf("click replayed upper-cased: %d, want 401", w.Code)
	}
	if n := len(e.tickets()); n != 2 {
		t.Fatalf("%d tickets after a click and its re-spelt replay, want 2", n)
	}
}

// upperFirstLetter upper-cases the first hex letter only (a mixed-case spelling).
func upperFirstLetter(h string) string {
	if i := strings.IndexAny(h, "abcdef"); i >= 0 {
		return h[:i] + strings.ToUpper(h[i:i+1]) + h[i+1:]
	}
	return h
}

// TestAnswersEscapeSuppliedText: a ticket whose summary and provider
// reference say "<!channel>" (typed by a user: Slack sends it escaped, and
// it is stored as typed) is answered, listed and replied to with the text
// escaped, in the command's answer and in what goes to response_url, and
// its notice in the channel carries no live mention either.
func TestAnswersEscapeSuppliedText(t *testing.T) {
	e := newEnv(t, nil)
	const typed = "<!channel> fan & PSU <https://evil.example|refund>"
	slackSent := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(typed) // as Slack sends what people type
	code, m := e.command("ticket open gz-01 P1 " + slackSent + " ref=" + strings.ReplaceAll(slackSent, " ", ""))
	if code != 200 {
		t.Fatalf("open: %d %+v", code, m)
	}
	tk := e.tickets()[0]
	if tk.Summary != typed || tk.ProviderRef != strings.ReplaceAll(typed, " ", "") {
		t.Fatalf("stored summary %q, ref %q; want them as typed: %q", tk.Summary, tk.ProviderRef, typed)
	}
	_, status := e.command("status")
	_, ref := e.command("ticket ref " + tk.ID + " " + strings.ReplaceAll(slackSent, " ", ""))
	answers := []string{m.Text, status.Text, ref.Text}
	for _, r := range e.slack.Responses() {
		answers = append(answers, fmt.Sprint(r["text"]))
	}
	for _, p := range e.slack.Posts() {
		answers = append(answers, p.Get("text"), p.Get("blocks"))
	}
	for _, a := range answers {
		for _, c := range []string{"<!channel>", "<https://evil", `\u003c!channel`} {
			if strings.Contains(a, c) {
				t.Errorf("%q reaches Slack raw in %q", c, a)
			}
		}
	}
	if !strings.Contains(status.Text, "&lt;!channel&gt;fan&amp;PSU") {
		t.Errorf("status does not show the reference escaped: %q", status.Text)
	}
}

func TestOversizedBodyRefused(t *testing.T) {
	e := newEnv(t, nil)
	body := "text=" + strings.Repeat("a", slackapi.MaxBody)
	if w := e.do(signed(slackapi.PathCommands, body, time.Now())); w.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized body: %d, want 413", w.Code)
	}
}

// TestSlashCommands: open, record, status and errors through /gpusla, with
// the ticket's messages posted (by the real Slack notifier, against
// slacktest) in one thread after the answer.
func TestSlashCommands(t *testing.T) {
	e := newEnv(t, nil)
	code, m := e.command("ticket open gz-01 P1 GPU 3 fell off the bus ref=ACME-123 hardware")
	if code != 200 || m.ResponseType != "in_channel" || !strings.Contains(m.Text, "已为 *gz-01* 开立（P1") || !strings.Contains(m.Text, "首次响应截止") { // cn-example is zh
		t.Fatalf("open: %d %+v", code, m)
	}
	tk := e.tickets()[0]
	if tk.ProviderRef != "ACME-123" || tk.Category != "hardware" || tk.Summary != "GPU 3 fell off the bus" || tk.OpenedBy != "slack:U42 (mei)" {
		t.Fatalf("ticket recorded as %+v", tk)
	}
	posts := e.slack.Posts()
	if len(posts) != 1 || posts[0].Get("thread_ts") != "" || !strings.Contains(posts[0].Get("text"), "工单 "+tk.ID+" 已为") { // the zh contract's words
		t.Fatalf("opened notice: %v", posts)
	}
	thread := "1764496830.000001"

	e.clock.Advance(3 * time.Minute)
	code, m = e.command("ticket responded " + tk.ID + " waiting")
	if code != 200 || !strings.Contains(m.Text, "已记录：服务商已响应，*"+tk.ID) || !strings.Contains(m.Text, "首次响应时限达标") {
		t.Fatalf("responded: %d %+v", code, m)
	}
	posts = e.slack.Posts()
	if len(posts) != 2 || posts[1].Get("thread_ts") != thread || !strings.Contains(posts[1].Get("text"), "解决时限暂停计时") { // the resolution clock is paused
		t.Fatalf("responded notice not in the ticket's thread: %v", posts[len(posts)-1])
	}
	e.command("ticket replied " + tk.ID)
	e.command("ticket resolved " + tk.ID)
	code, m = e.command("ticket resolved " + tk.ID)
	if !strings.Contains(m.Text, "already resolved") {
		t.Fatalf("second resolve: %d %+v", code, m)
	}

	_, m = e.command("status")
	if !strings.Contains(m.Text, "*gz-01*") || !strings.Contains(m.Text, "*ny-01*") || !strings.Contains(m.Text, tk.ID) || !strings.Contains(m.Text, "硬件更换截止") { // replacement due, in cn-example's zh
		t.Fatalf("status: %s", m.Text)
	}
	// Each node's part in its own contract's words (gz-01 is
	// cn-example's, zh; ny-01 us-example's, en).
	for _, want := range []string{"*gz-01*（", "*ny-01* ("} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("status lacks %q: %s", want, m.Text)
		}
	}
	_, m = e.command("status ny-01")
	if strings.Contains(m.Text, "gz-01") {
		t.Fatalf("status of one node shows others: %s", m.Text)
	}

	for text, want := range map[string]string{
		"ticket open gz-01 P9 lost":   `"P9" is not a priority of contract cn-example (one of P1, P2, P3)`,
		"ticket open nope P1 lost":    `no node "nope"`,
		"ticket responded T-zzzzzzzz": "not found",
		"ticket open gz-01":           "needs &lt;node&gt; &lt;priority&gt; &lt;summary&gt;", // escaped: Slack shows "<node>", no link
		"frobnicate":                  `unknown command "frobnicate"`,
		"report 2026-13":              "not a month",
		"scorecard 2026-3":            `scorecard: "2026-3" is not a month`,
		"scorecard 2026-04 2026-03":   "2026-03 is before 2026-04",
		"scorecard 2026-01 2026-02 x": "at most two months",
		"status nope":                 `no node "nope"`,
	} {
		code, m := e.command(text)
		if code != 200 || !strings.Contains(m.Text, want) {
			t.Errorf("%q: %d %q, want it to say %q", text, code, m.Text, want)
		}
	}
	if _, m := e.command(""); !strings.Contains(m.Text, "Usage") {
		t.Errorf("empty command: %q", m.Text)
	}
}

// TestReportAnsweredBeforeItIsBuilt: the report is acknowledged at once and
// delivered through response_url when it is ready — the slow part never
// holds Slack's request.
func TestReportAnsweredBeforeItIsBuilt(t *testing.T) {
	release := make(chan struct{})
	var e *env
	e = newEnv(t, func(ctx context.Context, w *events.Writer) error {
		<-release // the export is slow
		return e.desk.MonthExport(e.clock.Now().Year(), e.clock.Now().Month())(ctx, w)
	})
	e.command("ticket open gz-01 P2 slow NCCL ref=R-9")
	month := e.clock.Now().Format("2006-01")
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, signed(slackapi.PathCommands, e.commandBody("report"), time.Now()))
	var m slackapi.Message
	_ = json.Unmarshal(w.Body.Bytes(), &m)
	if w.Code != 200 || !strings.Contains(m.Text, "Building the report for "+month) {
		t.Fatalf("report ack: %d %+v", w.Code, m)
	}
	if n := len(e.slack.Responses()); n != 0 {
		t.Fatalf("report posted before it was built: %d", n)
	}
	close(release)
	e.runner.Wait()
	rs := e.slack.Responses()
	if len(rs) != 1 {
		t.Fatalf("%d posts to response_url, want the report", len(rs))
	}
	text, _ := rs[0]["text"].(string)
	// The clock's own month is not over: the reply says so.
	if rs[0]["response_type"] != "in_channel" || !strings.Contains(text, "*SLA report "+month+"* (provisional, as of ") || !strings.Contains(text, "gz-01 P2") ||
		!strings.Contains(text, "1 tickets, 0 breached") || !strings.Contains(text, "uptime") {
		t.Fatalf("report: %v", rs[0])
	}
}

func clickBody(user, action, node, incident, messageTs, responseURL string) string {
	payload := map[string]any{
		"type":         "block_actions",
		"user":         map[string]any{"id": user, "name": "mei"},
		"channel":      map[string]any{"id": "C-ALERTS"},
		"container":    map[string]any{"type": "message", "message_ts": messageTs, "channel_id": "C-ALERTS"},
		"message":      map[string]any{"ts": messageTs},
		"response_url": responseURL,
		"trigger_id":   fmt.Sprintf("trig-click-%d", time.Now().UnixNano()),
		"actions": []map[string]any{{"type": "button", "action_id": action, "block_id": "gpusla_ticket",
			"value": notify.IncidentButtonValue(node, incident), "action_ts": fmt.Sprint(time.Now().UnixNano())}},
	}
	raw, _ := json.Marshal(payload)
	return url.Values{"payload": {string(raw)}}.Encode()
}

// TestAlertButtons: the buttons infra/slack puts on an incident alert open
// a ticket in the alert's thread, record the provider's answer and the
// resolution — each once, however often clicked.
func TestAlertButtons(t *testing.T) {
	e := newEnv(t, nil)
	alert := notify.Alert{Kind: notify.AlertUnreachable, Node: "gz-01", Provider: "acme", IncidentID: "unreachable@20261130T100000.000Z",
		IncidentKind: "unreachable", Since: e.clock.Now()}
	var buttons []*slackgo.ButtonBlockElement
	for _, b := range slack.Blocks(alert) {
		if ab, ok := b.(*slackgo.ActionBlock); ok {
			for _, el := range ab.Elements.ElementSet {
				buttons = append(buttons, el.(*slackgo.ButtonBlockElement))
			}
		}
	}
	if len(buttons) != 3 || buttons[0].Text.Text != "Ticket opened" || buttons[1].Text.Text != "Provider responded" || buttons[2].Text.Text != "Resolved" {
		t.Fatalf("alert buttons: %+v", buttons)
	}
	alert.Thread = "1764.1"
	for _, b := range slack.Blocks(alert) {
		if _, ok := b.(*slackgo.ActionBlock); ok {
			t.Fatal("a reply in the incident's thread must not repeat the buttons")
		}
	}
	msgTs := "1764496000.000100"
	click := func(b *slackgo.ButtonBlockElement) int {
		node, inc, err := notify.ParseIncidentButtonValue(b.Value)
		if err != nil {
			t.Fatal(err)
		}
		return e.do(signed(slackapi.PathInteractions, clickBody("U7", b.ActionID, node, inc, msgTs, e.slack.responseURL()), time.Now())).Code
	}
	reply := func() string {
		rs := e.slack.Responses()
		s, _ := rs[len(rs)-1]["text"].(string)
		return s
	}

	// Provider responded before any ticket: told what to do, nothing recorded.
	if code := click(buttons[1]); code != 200 || !strings.Contains(reply(), "press *Ticket opened* first") {
		t.Fatalf("responded before open: %d %q", code, reply())
	}
	for i := 0; i < 3; i++ {
		if code := click(buttons[0]); code != 200 {
			t.Fatalf("open click %d: %d", i, code)
		}
	}
	tks := e.tickets()
	if len(tks) != 1 {
		t.Fatalf("three clicks on Ticket opened made %d tickets, want 1", len(tks))
	}
	tk := tks[0]
	if tk.Thread != msgTs || tk.IncidentID != alert.IncidentID || tk.Priority != "P1" || !strings.Contains(reply(), "已开立") {
		t.Fatalf("button ticket %+v, reply %q", tk, reply())
	}
	posts := e.slack.Posts()
	if len(posts) != 1 || posts[0].Get("thread_ts") != msgTs {
		t.Fatalf("opened notice must go to the alert's thread once: %v", posts)
	}

	// The provider's number, once known, through the slash command.
	if _, m := e.command("ticket ref " + tk.ID + " ACME-4711"); !strings.Contains(m.Text, "服务商工单号 ACME-4711") {
		t.Fatalf("ticket ref: %+v", m)
	}
	if got, _ := e.desk.Get(t.Context(), tk.ID); got.ProviderRef != "ACME-4711" {
		t.Fatalf("provider ref not recorded: %+v", got)
	}

	e.clock.Advance(10 * time.Minute)
	for i := 0; i < 2; i++ {
		if code := click(buttons[1]); code != 200 {
			t.Fatalf("responded click: %d", code)
		}
	}
	if !strings.Contains(reply(), "已记录过：服务商已响应") { // already recorded
		t.Fatalf("second responded click: %q", reply())
	}
	e.clock.Advance(time.Hour)
	click(buttons[2])
	click(buttons[2])
	got, _ := e.desk.Get(t.Context(), tk.ID)
	if len(got.Events) != 2 || got.Events[0].Type != store.EventProviderResponded || got.Events[1].Type != store.EventResolved {
		t.Fatalf("after repeated clicks: %+v, want one response and one resolution", got.Events)
	}
	if got.Events[0].By != "slack:U7 (mei)" {
		t.Fatalf("who clicked: %q", got.Events[0].By)
	}
	for _, p := range e.slack.Posts()[1:] {
		if p.Get("thread_ts") != msgTs {
			t.Fatalf("ticket message outside the incident's thread: %v", p)
		}
	}
	if n := len(e.slack.Posts()); n != 3 {
		t.Fatalf("%d thread posts, want opened, responded, resolved", n)
	}

	// Someone else's interaction (another app's button) is acknowledged and ignored.
	other := clickBody("U7", "other_action", "gz-01", alert.IncidentID, msgTs, e.slack.responseURL())
	if code := e.do(signed(slackapi.PathInteractions, other, time.Now())).Code; code != 200 {
		t.Fatalf("foreign action: %d", code)
	}
}

// TestScorecardAnsweredThenPosted: `/gpusla scorecard` is acknowledged at
// once and the comparison arrives through response_url, built from the
// backend's own export with the desk's contracts.
func TestScorecardAnsweredThenPosted(t *testing.T) {
	e := newEnv(t, nil)
	e.command("ticket open gz-01 P2 slow NCCL ref=R-9")
	month := e.clock.Now().Format("2006-01")
	code, m := e.command("scorecard " + month)
	if code != 200 || !strings.Contains(m.Text, "Building the provider scorecard "+month+" to "+month) {
		t.Fatalf("scorecard ack: %d %+v", code, m)
	}
	e.runner.Wait()
	rs := e.slack.Responses()
	if len(rs) != 1 {
		t.Fatalf("%d posts to response_url, want the scorecard", len(rs))
	}
	text, _ := rs[0]["text"].(string)
	for _, want := range []string{"*Provider scorecard " + month + " to " + month + "*", "• *delivery* — order to delivery, p90 (lower is better):",
		"• *support* — tickets breaching a target", "too few: n=", "gpusla scorecard --format html"} {
		if !strings.Contains(text, want) {
			t.Errorf("scorecard lacks %q:\n%s", want, text)
		}
	}
	if rs[0]["response_type"] != "in_channel" {
		t.Errorf("response_type %v", rs[0]["response_type"])
	}
}

// `/gpusla report` with a node registered under a contract the loaded terms
// do not define: the reply names the node and its contract, and reports
// every other node. It used to fail as a whole.
func TestReportNamesSkippedNode(t *testing.T) {
	e := newEnv(t, nil)
	if err := e.store.CreateNode(t.Context(), store.Node{ID: "gz-09", Provider: "acme", Contract: "cn-exmaple", OrderedAt: e.clock.Now().Add(-time.Hour),
		GPUModel: "H200", GPUCount: 8, HeartbeatInterval: 30 * time.Second, PushInterval: time.Minute, Grace: time.Minute}); err != nil {
		t.Fatal(err)
	}
	e.command("ticket open gz-01 P2 slow NCCL ref=R-9")
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, signed(slackapi.PathCommands, e.commandBody("report"), time.Now()))
	e.runner.Wait()
	rs := e.slack.Responses()
	if len(rs) != 1 {
		t.Fatalf("%d posts to response_url, want the report", len(rs))
	}
	text, _ := rs[0]["text"].(string)
	if !strings.Contains(text, `:warning: node *gz-09* left out of the report: contract "cn-exmaple" is defined by no terms given (known: `) ||
		!strings.Contains(text, "*gz-01* (cn-example)") || strings.Contains(text, "*gz-09* (") {
		t.Fatalf("report: %s", text)
	}
}
