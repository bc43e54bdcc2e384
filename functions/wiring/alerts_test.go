package wiring

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/route"
	"github.com/gpusla/gpusla/infra/slack"
)

const feishuDoc = `alerts:
  channels:
    ops:
      type: feishu
      webhook_url: https://open.feishu.cn/open-apis/bot/v2/hook/0f6e6f3c
  routes:
    - channels: [slack]
      kinds: [unreachable]
`

// TestLambdaAlerts: the alert-channels parameter and Slack's parameters make
// one set of channels, Slack named "slack" (routes name it) and posting the
// reports; a mistake names the parameter, its line and field.
func TestLambdaAlerts(t *testing.T) {
	s, err := LoadSecrets(context.Background(), parameterStore{"/g/master-key": key64,
		"/g/slack-webhook": "https://hooks.slack.com/services/T/B/x", "/g/alert-channels": feishuDoc}, "/g", "")
	if err != nil {
		t.Fatal(err)
	}
	a, err := lambdaAlerts(Env{SecretsPath: "/g"}, s)
	if err != nil {
		t.Fatal(err)
	}
	if a.Channels == nil || a.Notifier != nil || a.Notices == nil {
		t.Fatalf("alerts %+v: want channels, and notices to them", a)
	}
	// The month's report goes to every channel, the robot's too.
	if got := a.Notices.NoticeChannels("c", notify.Notice{Kind: notify.NoticeReport, Contract: "c"}); !slices.Equal(got, []string{"ops", "slack"}) {
		t.Fatalf("the month's report goes to %v, want every channel", got)
	}
	got := a.Channels.AlertChannels("c", notify.Alert{Kind: notify.AlertUnreachable, IncidentKind: "unreachable"})
	if !slices.Equal(got, []string{"slack"}) {
		t.Fatalf("unreachable goes to %v, want [slack]", got)
	}
	if got := a.Channels.AlertChannels("c", notify.Alert{Kind: notify.AlertDegraded, IncidentKind: "gpu_lost"}); !slices.Equal(got, []string{"ops", "slack"}) {
		t.Fatalf("gpu_lost goes to %v, want the default (every channel)", got)
	}

	s.Alerts = strings.Replace(feishuDoc, "[slack]", "[slak]", 1)
	if _, err := lambdaAlerts(Env{SecretsPath: "/g"}, s); err == nil || !strings.Contains(err.Error(), `ssm:/g/alert-channels:7: alerts.routes[0].channels[0]: no channel named "slak"`) {
		t.Fatalf("error %v", err)
	}
	s.Alerts = "alerts:\n  channels:\n    chat:\n      type: slack\n      webhook_url: https://hooks.slack.com/services/T/B/y\n"
	if _, err := lambdaAlerts(Env{SecretsPath: "/g"}, s); err == nil || !strings.Contains(err.Error(), "Slack is also configured") {
		t.Fatalf("Slack in two places: %v", err)
	}
}

// TestOpenAlertsWithoutChannels: Slack alone, or the console.
func TestOpenAlertsWithoutChannels(t *testing.T) {
	var out strings.Builder
	a, err := OpenAlerts(routeNone(), "config", slack.Config{}, &out)
	if err != nil || a.Channels != nil || a.Notices == nil {
		t.Fatalf("no Slack, no channels: %+v, %v", a, err)
	}
	if p, ok := a.Notices.NoticePoster(""); !ok || p != a.Notifier.(notify.NoticePoster) {
		t.Fatalf("notices go to %v, want the console", p)
	}
	if _, ok := a.Notifier.(*slack.Console); !ok {
		t.Fatalf("notifier %T, want the console", a.Notifier)
	}
	a, err = OpenAlerts(routeNone(), "config", slack.Config{WebhookURL: "https://hooks.slack.com/services/T/B/x"}, &out)
	if _, ok := a.Notifier.(*slack.Notifier); err != nil || !ok || a.Notices == nil || a.Channels != nil {
		t.Fatalf("Slack alone: %+v, %v", a, err)
	}
}

func routeNone() (c route.Config) { return c }
