package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slacktest"

	"github.com/gpusla/gpusla/infra/notify"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 30, 0, time.UTC)

// recorder stands in front of slacktest's chat.postMessage to see what was
// posted (blocks, thread) and to answer with rate limits on demand.
type recorder struct {
	mu        sync.Mutex
	posts     []url.Values
	limitNext int // answer this many requests with 429 Retry-After: 1
	ts        int
}

func (r *recorder) handler(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	v, _ := url.ParseQuery(string(body))
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.limitNext > 0 {
		r.limitNext--
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	r.posts = append(r.posts, v)
	r.ts++
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":"1764496830.%06d"}`, v.Get("channel"), r.ts)
}

func newBot(t *testing.T) (*Notifier, *recorder, *[]time.Duration) {
	rec := &recorder{}
	srv := slacktest.NewTestServer(func(c slacktest.Customize) { c.Handle("/chat.postMessage", rec.handler) })
	srv.Start()
	t.Cleanup(srv.Stop)
	n, err := New(Config{BotToken: "xoxb-test", Channel: "C-ALERTS", APIURL: srv.GetAPIURL()})
	if err != nil {
		t.Fatal(err)
	}
	var slept []time.Duration
	n.sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	return n, rec, &slept
}

func unreachable() notify.Alert {
	return notify.Alert{Kind: notify.AlertUnreachable, Node: "gz-01", Provider: "acme", IncidentID: "unreachable@20261130T100030.000Z",
		IncidentKind: "unreachable", Since: t0, Counted: true, Cause: "no_data",
		Detail: "no heartbeat received since 2026-11-30T10:00:00Z (interval 30s, grace 1m30s)"}
}

func blocksOf(t *testing.T, v url.Values) string {
	t.Helper()
	var blocks slackapi.Blocks
	if err := json.Unmarshal([]byte(v.Get("blocks")), &blocks); err != nil {
		t.Fatalf("posted blocks do not parse as Block Kit: %v\n%s", err, v.Get("blocks"))
	}
	if len(blocks.BlockSet) == 0 || blocks.BlockSet[0].BlockType() != slackapi.MBTHeader {
		t.Fatalf("first block is not a header: %s", v.Get("blocks"))
	}
	return v.Get("blocks")
}

func TestIncidentThread(t *testing.T) {
	n, rec, _ := newBot(t)
	ctx := context.Background()
	thread, err := n.Notify(ctx, unreachable())
	if err != nil {
		t.Fatal(err)
	}
	if thread != "1764496830.000001" {
		t.Fatalf("thread %q, want the ts of the first message", thread)
	}
	rc := notify.Alert{Kind: notify.AlertReclassified, Node: "gz-01", Provider: "acme", IncidentID: "unreachable@20261130T100030.000Z",
		IncidentKind: "unreachable", Since: t0, Counted: false, Cause: "backend_unreachable_only", Thread: thread,
		Detail: "probe's own batches cover the gap (3 observations, 3 connectivity passes)"}
	rcv := notify.Alert{Kind: notify.AlertRecovered, Node: "gz-01", Provider: "acme", IncidentID: "unreachable@20261130T100030.000Z",
		IncidentKind: "unreachable", Since: t0, Until: t0.Add(4*time.Minute + 40*time.Second), Duration: 4*time.Minute + 40*time.Second,
		Counted: true, Thread: thread}
	for _, a := range []notify.Alert{rcv, rc} {
		got, err := n.Notify(ctx, a)
		if err != nil || got != thread {
			t.Fatalf("reply: thread %q, %v", got, err)
		}
	}
	if len(rec.posts) != 3 {
		t.Fatalf("%d posts, want 3", len(rec.posts))
	}
	first := blocksOf(t, rec.posts[0])
	for _, want := range []string{"gz-01 unreachable", "*Provider*\\nacme", "*Since*", "no heartbeat received since", "unreachable@20261130T100030.000Z"} {
		if !strings.Contains(first, want) {
			t.Errorf("unreachable message lacks %q:\n%s", want, first)
		}
	}
	if rec.posts[0].Get("thread_ts") != "" || rec.posts[0].Get("channel") != "C-ALERTS" {
		t.Errorf("first message posted with %v", rec.posts[0])
	}
	recov := blocksOf(t, rec.posts[1])
	if rec.posts[1].Get("thread_ts") != thread || rec.posts[1].Get("reply_broadcast") != "true" ||
		!strings.Contains(recov, "recovered: unreachable for 4 minutes 40 seconds") || !strings.Contains(recov, "*Duration*\\n4 minutes 40 seconds") {
		t.Errorf("recovery: %v\n%s", rec.posts[1], recov)
	}
	recl := blocksOf(t, rec.posts[2])
	if rec.posts[2].Get("thread_ts") != thread || !strings.Contains(recl, "Correction: gz-01 unreachable — does not count against the provider") ||
		!strings.Contains(recl, "only the backend could not hear the node") {
		t.Errorf("reclassification: %v\n%s", rec.posts[2], recl)
	}
}

func TestDegradedNamesMeasuredValues(t *testing.T) {
	n, rec, _ := newBot(t)
	gpu := 3
	a := notify.Alert{Kind: notify.AlertDegraded, Node: "gz-01", Provider: "acme", IncidentID: "gpu_degraded@x", IncidentKind: "gpu_degraded", Since: t0,
		Failed: []notify.FailedCheck{{Name: "gpu.ecc.uncorrected", Category: "gpu_degraded", Verdict: "fail", Value: "12", Criterion: "0", GPU: &gpu},
			{Name: "gpu.pcie.width", Category: "gpu_degraded", Verdict: "fail", Value: "x8", Criterion: "x16", GPU: &gpu}}}
	if _, err := n.Notify(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	b := blocksOf(t, rec.posts[0])
	for _, want := range []string{"GPU hardware fault", "gpu.ecc.uncorrected (GPU 3): 12 (want 0)", "gpu.pcie.width (GPU 3): x8 (want x16)"} {
		if !strings.Contains(b, want) {
			t.Errorf("lacks %q:\n%s", want, b)
		}
	}
	if txt := rec.posts[0].Get("text"); !strings.Contains(txt, "12 (want 0)") {
		t.Errorf("fallback text lacks the value: %s", txt)
	}
}

func TestRateLimitHonoured(t *testing.T) {
	n, rec, slept := newBot(t)
	rec.limitNext = 2
	if _, err := n.Notify(context.Background(), unreachable()); err != nil {
		t.Fatalf("after two rate limits: %v", err)
	}
	if len(*slept) != 2 || (*slept)[0] != time.Second || len(rec.posts) != 1 {
		t.Fatalf("slept %v, posts %d: want two 1s waits (Retry-After) and one post", *slept, len(rec.posts))
	}
	// Past MaxWait the alert is left for the application to retry: no
	// endless waiting inside one Lambda invocation.
	n.cfg.MaxWait = 1500 * time.Millisecond
	rec.limitNext = 5
	*slept = nil
	_, err := n.Notify(context.Background(), unreachable())
	if err == nil || !strings.Contains(err.Error(), "rate limited") {
		t.Fatalf("err %v, want a rate-limit error", err)
	}
	if len(*slept) != 1 || len(rec.posts) != 1 {
		t.Fatalf("slept %v, posts %d", *slept, len(rec.posts))
	}
}

func TestWebhook(t *testing.T) {
	n, wh := newWebhook(t, 1)
	var slept []time.Duration
	n.sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	thread, err := n.Notify(context.Background(), unreachable())
	if err != nil || thread != "" {
		t.Fatalf("webhook: thread %q, %v", thread, err)
	}
	got := wh.got()
	if len(got) != 1 || len(slept) != 1 || slept[0] != 2*time.Second {
		t.Fatalf("posts %d, slept %v", len(got), slept)
	}
	raw, _ := json.Marshal(got[0])
	if !strings.Contains(string(raw), `"type":"header"`) || !strings.Contains(string(raw), "gz-01 unreachable") {
		t.Fatalf("webhook body: %s", raw)
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	cases := map[string]Config{
		"not both":          {WebhookURL: "https://hooks.slack.com/x", BotToken: "xoxb-1", Channel: "C"},
		"slack.webhook_url": {WebhookURL: "hooks.slack.com/x"},
		"slack.bot_token":   {BotToken: "abc", Channel: "C"},
		"slack.channel":     {BotToken: "xoxb-1"},
		"neither":           {},
	}
	for want, c := range cases {
		if _, err := New(c); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config %+v: error %v, want one naming %q", c, err, want)
		}
	}
}

func TestConsole(t *testing.T) {
	var buf bytes.Buffer
	c := &Console{W: &buf}
	th, err := c.Notify(context.Background(), unreachable())
	if err != nil || th != "unreachable@20261130T100030.000Z" {
		t.Fatal(th, err)
	}
	if s := buf.String(); !strings.HasPrefix(s, "ALERT [unreachable] gz-01 unreachable — provider acme, since 2026-11-30 10:00:30 UTC") {
		t.Fatalf("console line: %s", s)
	}
}

// TestTicketThread: a ticket's first message starts a thread, later ones
// reply in it, a breach is broadcast, and none carries incident buttons or
// calls itself an incident.
func TestTicketThread(t *testing.T) {
	n, rec, _ := newBot(t)
	ctx := context.Background()
	opened := notify.TicketMessage{Kind: notify.TicketOpened, Ticket: "T-20261130-ab12", Node: "gz-01", Provider: "acme",
		Opened: t0, Text: "P1 ticket ACME-7 opened; first response due 2026-11-30 18:30:30 CST"}
	thread, err := n.NotifyTicket(ctx, opened)
	if err != nil || thread != "1764496830.000001" {
		t.Fatalf("first ticket message: thread %q, %v", thread, err)
	}
	warn := opened
	warn.Kind, warn.Thread, warn.Text = notify.TicketWarning, thread, "first response: 6m left of 30m"
	breach := opened
	breach.Kind, breach.Thread, breach.Text = notify.TicketBreached, thread, "first response BREACHED"
	for _, m := range []notify.TicketMessage{warn, breach} {
		if got, err := n.NotifyTicket(ctx, m); err != nil || got != thread {
			t.Fatalf("%s: thread %q, %v", m.Kind, got, err)
		}
	}
	if len(rec.posts) != 3 {
		t.Fatalf("%d posts, want 3", len(rec.posts))
	}
	first := blocksOf(t, rec.posts[0])
	for _, want := range []string{"ticket T-20261130-ab12 on gz-01: opened", "*Provider*\\nacme", "ACME-7", "ticket `T-20261130-ab12`"} {
		if !strings.Contains(first, want) {
			t.Errorf("opened message lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(first, "gpusla_ticket_open") || strings.Contains(first, "*Incident*") {
		t.Errorf("ticket message looks like an incident alert:\n%s", first)
	}
	if rec.posts[1].Get("thread_ts") != thread || rec.posts[1].Get("reply_broadcast") == "true" {
		t.Errorf("warning: %v", rec.posts[1])
	}
	if rec.posts[2].Get("thread_ts") != thread || rec.posts[2].Get("reply_broadcast") != "true" ||
		!strings.Contains(blocksOf(t, rec.posts[2]), "deadline BREACHED") {
		t.Errorf("breach: %v", rec.posts[2])
	}
	var out bytes.Buffer
	c := &Console{W: &out}
	if th, err := c.NotifyTicket(ctx, opened); err != nil || th != opened.Ticket ||
		!strings.HasPrefix(out.String(), "TICKET [ticket_opened] ticket T-20261130-ab12 on gz-01: opened") {
		t.Errorf("console: %q, %q, %v", out.String(), th, err)
	}
}

// webhook records what an incoming webhook (slacktest) received, after
// answering the first limited posts with 429 Retry-After: 2.
type webhook struct {
	mu      sync.Mutex
	posts   []map[string]any
	limited int
}

func (h *webhook) got() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]map[string]any(nil), h.posts...)
}

func newWebhook(t *testing.T, limited int) (*Notifier, *webhook) {
	h := &webhook{limited: limited}
	srv := slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/services/T000/B000/XXXX", func(w http.ResponseWriter, r *http.Request) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.limited > 0 {
				h.limited--
				w.Header().Set("Retry-After", "2")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			var m map[string]any
			_ = json.NewDecoder(r.Body).Decode(&m)
			h.posts = append(h.posts, m)
			_, _ = w.Write([]byte("ok"))
		})
	})
	srv.Start()
	t.Cleanup(srv.Stop)
	n, err := New(Config{WebhookURL: "http://" + srv.ServerAddr + "/services/T000/B000/XXXX"})
	if err != nil {
		t.Fatal(err)
	}
	return n, h
}

// A node's delivery in Slack: the overdue alert opens the thread, the late
// delivery replies in it and is broadcast; both name the order and the
// target or lateness and never state an outage verdict (a delivery is no
// outage).
func TestDeliveryThread(t *testing.T) {
	n, rec, _ := newBot(t)
	ctx := context.Background()
	over := notify.Alert{Kind: notify.AlertDeliveryOverdue, Node: "gz-01", Provider: "acme", IncidentID: "delivery@20261130T100030.000Z",
		IncidentKind: notify.DeliveryKind, Since: t0, Until: t0.Add(30 * time.Minute), Duration: 30 * time.Minute,
		Detail: "Not delivered yet: 1m0s late so far."}
	thread, err := n.Notify(ctx, over)
	if err != nil {
		t.Fatal(err)
	}
	late := over
	late.Kind, late.Until, late.Duration, late.Thread, late.Detail = notify.AlertDelivered, t0.Add(65*time.Minute), 35*time.Minute, thread, "Delivered at the first passing acceptance check"
	if got, err := n.Notify(ctx, late); err != nil || got != thread {
		t.Fatalf("reply: thread %q, %v", got, err)
	}
	first, second := blocksOf(t, rec.posts[0]), blocksOf(t, rec.posts[1])
	for _, want := range []string{"gz-01 delivery overdue: not delivered 30 minutes after the order", "*Ordered*", "*Due*", "*Target*\\n30 minutes", "1m0s late so far"} {
		if !strings.Contains(first, want) {
			t.Errorf("overdue message lacks %q:\n%s", want, first)
		}
	}
	for _, want := range []string{"gz-01 delivered 35 minutes late", "*Delivered*", "*Late by*\\n35 minutes"} {
		if !strings.Contains(second, want) {
			t.Errorf("delivered message lacks %q:\n%s", want, second)
		}
	}
	if rec.posts[1].Get("thread_ts") != thread || rec.posts[1].Get("reply_broadcast") != "true" {
		t.Errorf("delivered reply posted with %v", rec.posts[1])
	}
	for i, p := range rec.posts {
		if b := strings.ToLower(blocksOf(t, p) + p.Get("text")); strings.Contains(b, "counts as outage") || strings.Contains(b, "counts under the contract") {
			t.Errorf("delivery message %d states an outage verdict:\n%s", i, b)
		}
	}
}

// An alert of a zh contract on Beijing time reads in Chinese in
// Slack too, its times on the contract's clock, named once (no per-reader
// date token beside the text's own clock), durations in words.
func TestBlocksInTheContractsWords(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 10, 0, 30, 0, time.UTC)
	a := notify.Alert{Kind: notify.AlertRecovered, Node: "gz-01", Provider: "acme", IncidentID: "gpu_lost@20261130T100030.000Z",
		IncidentKind: "gpu_lost", Since: t0, Until: t0.Add(30 * time.Minute), Duration: 30 * time.Minute, Counted: true, Lang: "zh", Zone: "Asia/Shanghai"}
	js, err := json.Marshal(Blocks(a))
	if err != nil {
		t.Fatal(err)
	}
	s := string(js)
	for _, want := range []string{"gz-01 已恢复：GPU 掉卡，持续30分钟", "*节点*", "*开始时间*\\n2026年11月30日 18:00:30（北京时间）", "*持续时长*\\n30分钟", "*是否按合同计入*\\n是", "故障编号"} {
		if !strings.Contains(s, want) {
			t.Errorf("blocks lack %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "<!date^") || strings.Contains(s, "UTC") {
		t.Errorf("blocks show a second clock:\n%s", s)
	}
}

// A Slack that is down or failing: the error names what went wrong but
// neither the webhook URL (the credential itself) nor the bot token
// (errors reach notices[].last_error and the log).
func TestErrorsWithholdTheCredential(t *testing.T) {
	const secretPath = "/services/T0SECRET/B0SECRET/zQ9secretWebhookTokenValue"
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + secretPath
	down.Close() // unreachable from now on
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream said no to "+r.URL.String(), http.StatusInternalServerError)
	}))
	defer failing.Close()
	botDown := httptest.NewServer(http.NotFoundHandler())
	botDown.Close()
	const token = "xoxb-1111-2222-SECRETbotTOKEN"
	for name, cfg := range map[string]Config{
		"webhook unreachable": {WebhookURL: downURL},
		"webhook 500":         {WebhookURL: failing.URL + secretPath},
		"bot API unreachable": {BotToken: token, Channel: "C1", APIURL: botDown.URL + "/api/"},
	} {
		n, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, aerr := n.Notify(t.Context(), unreachable())
		_, terr := n.NotifyTicket(t.Context(), notify.TicketMessage{Kind: notify.TicketOpened, Ticket: "T-1", Node: "gz-01", Text: "opened"})
		rerr := n.PostNotice(t.Context(), reportNotice([]byte("%PDF")))
		perr := n.PostNotice(t.Context(), notify.Notice{Kind: notify.NoticeClaimReminder, Title: "claim deadline near"})
		for _, err := range []error{aerr, terr, rerr, perr} {
			if err == nil {
				t.Fatalf("%s: delivered", name)
			}
			for _, secret := range []string{"zQ9secretWebhookTokenValue", "T0SECRET", token, "SECRETbotTOKEN"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("%s: the error shows %q: %v", name, secret, err)
				}
			}
			if !strings.Contains(err.Error(), "slack: ") || name != "webhook 500" && !strings.Contains(err.Error(), "127.0.0.1") {
				t.Errorf("%s: the error no longer says which service failed: %v", name, err)
			}
		}
	}
}
