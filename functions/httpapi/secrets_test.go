package httpapi_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/infra/dingtalk"
	"github.com/gpusla/gpusla/infra/feishu"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/robot"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/infra/webhook"
	"github.com/gpusla/gpusla/infra/wecom"
	"github.com/gpusla/gpusla/sla/events"
)

// everyChannel routes every message to all of its notifiers.
type everyChannel map[string]notify.Notifier

func (c everyChannel) names() []string {
	var out []string
	for n := range c {
		out = append(out, n)
	}
	return out
}
func (c everyChannel) AlertChannels(string, notify.Alert) []string          { return c.names() }
func (c everyChannel) TicketChannels(string, notify.TicketMessage) []string { return c.names() }
func (c everyChannel) Notifier(name string) (notify.Notifier, bool)         { n, ok := c[name]; return n, ok }

// With the Slack webhook unreachable, its full URL (a
// credential) came back to any tickets key in notices[].last_error and was
// logged three times. Every channel is run down here — unreachable, or
// answering 500 with the request quoted back — with a credential in its
// URL, token or secret, and every output is searched for it: the log, the
// alert records, the tickets API's answer and the month's export.
func TestDownChannelsEchoNoSecret(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	down := gone.URL // nothing listens here once closed
	gone.Close()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad gateway for "+r.URL.String(), http.StatusInternalServerError)
	}))
	defer echo.Close()
	secrets := []string{"SlackHookSecret0123456789", "xoxb-9999-8888-SlackBotSecret", "FeishuTokenSecret-0123456789",
		"DingAccessTokenSecret0123456789", "SECdingSigningSecret0123456789", "WeComKeySecret-0123456789", "WebhookHmacSecret0123456789", "WebhookPathSecret0123456789"}
	must := func(n notify.Notifier, err error) notify.Notifier {
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	instant := func(p *robot.Poster) { p.Sleep = func(context.Context, time.Duration) error { return nil } }
	fs := must(feishu.New(feishu.Config{WebhookURL: down + "/open-apis/bot/v2/hook/" + secrets[2]})).(*feishu.Notifier)
	dt := must(dingtalk.New(dingtalk.Config{WebhookURL: echo.URL + "/robot/send?access_token=" + secrets[3], Secret: secrets[4]})).(*dingtalk.Notifier)
	wc := must(wecom.New(wecom.Config{WebhookURL: down + "/cgi-bin/webhook/send?key=" + secrets[5]})).(*wecom.Notifier)
	wh := must(webhook.New(webhook.Config{URL: echo.URL + "/hooks/" + secrets[7], Secret: secrets[6]})).(*webhook.Notifier)
	for _, p := range []*robot.Poster{fs.Poster, dt.Poster, wc.Poster, wh.Poster} {
		instant(p)
	}
	channels := everyChannel{
		"slack-hook": must(slack.New(slack.Config{WebhookURL: down + "/services/T000/B000/" + secrets[0], MaxWait: time.Second})),
		"slack-500":  must(slack.New(slack.Config{WebhookURL: echo.URL + "/services/T000/B000/" + secrets[0], MaxWait: time.Second})),
		"slack-bot":  must(slack.New(slack.Config{BotToken: secrets[1], Channel: "C1", APIURL: down + "/api/", MaxWait: time.Second})),
		"feishu":     fs, "dingtalk": dt, "wecom": wc, "webhook": wh,
	}

	var logs bytes.Buffer
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clock := apptest.NewClock(t0)
	st.SetClock(clock.Now)
	book := app.TermsBook{"acme-std": apptest.Terms(t)["acme-std"]}
	svc, err := app.New(app.Config{Store: st, Channels: channels, Box: apptest.Box(t), Clock: clock, Terms: book,
		Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{store: st, svc: svc, api: httpapi.New(svc, nil), clock: clock}
	e.a = apptest.AddNode(t, svc, "node-a")
	desk, err := svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	httpapi.RegisterTickets(e.api.Mux(), desk, nil)
	ctx := t.Context()
	_, body := e.a.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
	if _, err := svc.Ingest(ctx, e.a.Request(t0, body)); err != nil {
		t.Fatal(err)
	}
	for clock.Now().Before(t0.Add(10 * time.Minute)) { // unreachable: the alert fails on every channel
		clock.Advance(time.Minute)
		if _, err := svc.Watchdog(ctx); err != nil {
			t.Fatal(err)
		}
	}
	tix := e.key(t, "tickets")
	w := call(e.api, http.MethodPost, httpapi.PathTickets, `{"node":"node-a","priority":"P1"}`, tix)
	if w.Code != http.StatusCreated {
		t.Fatalf("open: %d %s", w.Code, w.Body)
	}
	if _, err := desk.Watch(ctx); err != nil {
		t.Fatal(err)
	}
	answer := get(e.api, httpapi.PathTickets+"?node=node-a", tix).Body.String()
	// A notice stored before the channels redacted their errors is
	// redacted on the way out too.
	tks, err := st.ListTickets(ctx, false)
	if err != nil || len(tks) != 1 || len(tks[0].Notices) == 0 {
		t.Fatalf("tickets %+v %v", tks, err)
	}
	legacy := tks[0]
	legacy.Notices[0].LastErr = `slack: failed to post webhook: Post "https://hooks.slack.com/services/T000/B000/LegacyHookSecret0123456789": EOF`
	if err := st.UpdateTicket(ctx, legacy, legacy.Version); err != nil {
		t.Fatal(err)
	}
	secrets = append(secrets, "LegacyHookSecret0123456789")
	answer += get(e.api, httpapi.PathTickets+"?node=node-a", tix).Body.String()

	pend, err := st.ListPendingAlerts(ctx)
	if err != nil || len(pend) < len(channels) {
		t.Fatalf("pending alerts %d (%v), want one per channel", len(pend), err)
	}
	var records strings.Builder
	for _, p := range pend {
		if p.LastErr == "" {
			t.Errorf("channel %s: no last error recorded", p.Channel)
		}
		records.WriteString(p.Channel + ": " + p.LastErr + "\n")
	}
	var export bytes.Buffer
	if err := desk.MonthExport(2026, time.November)(ctx, events.NewWriter(&export)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(answer, `"last_error"`) || !strings.Contains(logs.String(), "alert not delivered") {
		t.Fatalf("the failures were not recorded: answer %s\nlog %s", answer, logs.String())
	}
	for what, out := range map[string]string{"log": logs.String(), "alert records": records.String(), "tickets API": answer, "export": export.String()} {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("the %s shows the secret %q:\n%s", what, s, out)
			}
		}
	}
}
