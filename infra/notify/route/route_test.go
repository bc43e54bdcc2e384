package route

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/infra/notify"
)

const channels = `
  channels:
    ops-feishu:
      type: feishu
      webhook_url: https://open.feishu.cn/open-apis/bot/v2/hook/0f6e6f3c-1111-2222-3333-444455556666
      secret: fs-secret
    net-dingtalk:
      type: dingtalk
      webhook_url: https://oapi.dingtalk.com/robot/send?access_token=abc123
      secret: SECdd
    team-wecom:
      type: wecom
      webhook_url: https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k-123
    oncall:
      type: webhook
      url: https://oncall.example/gpusla
      secret: ${GPUSLA_TEST_ONCALL_SECRET}
`

func buildDoc(t *testing.T, doc string) (*Router, error) {
	t.Helper()
	// Documents hold the alerts: section as serve's config does.
	if strings.HasPrefix(doc, "\n") {
		doc = "alerts:" + doc
	} else {
		doc = "alerts:\n" + doc
	}
	c, err := Parse("alerts.yaml", []byte(doc))
	if err != nil {
		return nil, err
	}
	return c.Build("alerts.yaml")
}

func mustBuild(t *testing.T, doc string) *Router {
	t.Helper()
	r, err := buildDoc(t, doc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func alert(kind notify.AlertKind, incident, node string) notify.Alert {
	return notify.Alert{Kind: kind, IncidentKind: incident, Node: node, Provider: "acme"}
}

func TestRoutes(t *testing.T) {
	t.Setenv("GPUSLA_TEST_ONCALL_SECRET", "0123456789abcdef-oncall")
	r := mustBuild(t, channels+`
  routes:
    - channels: [net-dingtalk]
      incidents: [unreachable, network_degraded]
    - channels: [team-wecom]
      contracts: [cn-example]
      nodes: ["gz-*"]
    - channels: [oncall]
      kinds: [unreachable, ticket_breached]
    - channels: [ops-feishu]
      kinds: [tickets]
  default: [ops-feishu]
`)
	cases := []struct {
		name     string
		contract string
		a        *notify.Alert
		m        *notify.TicketMessage
		want     string
	}{
		{"unreachable: incidents route, kind route", "us-example", ptr(alert(notify.AlertUnreachable, "unreachable", "ny-01")), nil, "net-dingtalk,oncall"},
		{"its recovery goes where it went", "us-example", ptr(alert(notify.AlertRecovered, "unreachable", "ny-01")), nil, "net-dingtalk,oncall"},
		{"its reclassification too", "us-example", ptr(alert(notify.AlertReclassified, "unreachable", "ny-01")), nil, "net-dingtalk,oncall"},
		{"a GPU incident on a cn node: contract+node route", "cn-example", ptr(alert(notify.AlertDegraded, "gpu_lost", "gz-01")), nil, "team-wecom"},
		{"the same on a node the glob does not take: default", "cn-example", ptr(alert(notify.AlertDegraded, "gpu_lost", "sh-01")), nil, "ops-feishu"},
		{"a degraded recovery is not the unreachable kind's", "us-example", ptr(alert(notify.AlertRecovered, "gpu_lost", "ny-01")), nil, "ops-feishu"},
		{"a ticket opened: tickets group", "us-example", nil, &notify.TicketMessage{Kind: notify.TicketOpened, Node: "ny-01"}, "ops-feishu"},
		{"a ticket breach: tickets group and the breach route", "us-example", nil, &notify.TicketMessage{Kind: notify.TicketBreached, Node: "ny-01"}, "oncall,ops-feishu"},
		{"a ticket on a cn node: the node route takes tickets too", "cn-example", nil, &notify.TicketMessage{Kind: notify.TicketWarning, Node: "gz-02"}, "ops-feishu,team-wecom"},
	}
	for _, c := range cases {
		var got []string
		if c.a != nil {
			got = r.AlertChannels(c.contract, *c.a)
		} else {
			got = r.TicketChannels(c.contract, *c.m)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("%s: %v, want %s", c.name, got, c.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestNoRoutesSendsEverywhere(t *testing.T) {
	t.Setenv("GPUSLA_TEST_ONCALL_SECRET", "0123456789abcdef-oncall")
	r := mustBuild(t, channels)
	if got := r.AlertChannels("x", alert(notify.AlertDegraded, "gpu_lost", "n")); !slices.Equal(got, r.Names()) || len(got) != 4 {
		t.Fatalf("no routes: %v, want every channel", got)
	}
	r = mustBuild(t, channels+"  routes: [{channels: [oncall], kinds: [unreachable]}]\n  default: []\n")
	if got := r.AlertChannels("x", alert(notify.AlertDegraded, "gpu_lost", "n")); len(got) != 0 {
		t.Fatalf("default []: %v, want nowhere", got)
	}
	if r.Type("oncall") != "webhook" {
		t.Fatalf("type %q", r.Type("oncall"))
	}
}

// TestConfigErrors: each mistake is named with its line and field.
func TestConfigErrors(t *testing.T) {
	t.Setenv("GPUSLA_TEST_ONCALL_SECRET", "0123456789abcdef-oncall")
	cases := []struct{ doc, want string }{
		{channels + "  routes:\n    - channels: [ops-fieshu]\n", `alerts.yaml:19: alerts.routes[0].channels[0]: no channel named "ops-fieshu"`},
		{channels + "  routes:\n    - channels: [oncall]\n      kinds: [degrade]\n", `alerts.yaml:20: alerts.routes[0].kinds[0]: unknown kind "degrade"`},
		{channels + "  routes:\n    - channels: [oncall]\n      incidents: [gpu_gone]\n", `alerts.yaml:20: alerts.routes[0].incidents[0]: unknown incident kind "gpu_gone"`},
		{channels + "  routes:\n    - channels: [oncall]\n      nodes: [\"gz-[\"]\n", `alerts.yaml:20: alerts.routes[0].nodes[0]: "gz-[": not a pattern`},
		{channels + "  routes:\n    - kinds: [unreachable]\n", `alerts.yaml:19: alerts.routes[0].channels: required`},
		{channels + "  routes:\n    - channels: [oncall]\n      node: [gz-01]\n", `alerts.yaml:20: alerts.routes[0].node: unknown field`},
		{channels + "  default: [nowhere]\n", `alerts.yaml:18: alerts.default[0]: no channel named "nowhere"`},
		{"  channels:\n    x:\n      type: telegram\n", `alerts.yaml:4: alerts.channels.x.type: "telegram": want one of`},
		{"  channels:\n    Ops:\n      type: wecom\n", `alerts.yaml:3: alerts.channels.Ops: channel name "Ops"`},
		{"  channels:\n    x:\n      type: wecom\n      webhook_url: https://qyapi.weixin.qq.com/cgi-bin/webhook/send\n", `alerts.yaml:5: alerts.channels.x.webhook_url: has no key parameter`},
		{"  channels:\n    x:\n      type: dingtalk\n      webhook_url: https://oapi.dingtalk.com/robot/send?access_token=a\n      secret: nope\n", `alerts.yaml:6: alerts.channels.x.secret: a DingTalk signing secret starts with SEC`},
		{"  channels:\n    x:\n      type: webhook\n      url: https://e.example/h\n      secret: short\n", `alerts.yaml:6: alerts.channels.x.secret: 5 bytes; at least 16`},
		{"  channels:\n    x:\n      type: feishu\n      webhook_url: https://open.feishu.cn/other\n", `alerts.yaml:5: alerts.channels.x.webhook_url: not a custom bot URL`},
		{"  channels:\n    x:\n      type: webhook\n      url: https://e.example/h\n      secret: ${GPUSLA_TEST_UNSET_SECRET}\n", `alerts.yaml:6: alerts.channels.x.secret: environment variable GPUSLA_TEST_UNSET_SECRET is not set`},
		{"  channels:\n    x:\n      type: wecom\n      webhook_url: https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k\n      secret: s\n", `alerts.yaml:6: alerts.channels.x.secret: unknown field`},
		{"  channels:\n    a:\n      type: slack\n      webhook_url: https://hooks.slack.com/services/T/B/X\n    b:\n      type: slack\n      webhook_url: https://hooks.slack.com/services/T/B/Y\n", `alerts.yaml:6: alerts.channels.b: a second slack channel`},
		{"  channels:\n    a:\n      type: slack\n      bot_token: xoxb-1\n", `alerts.yaml:3: alerts.channels.a.channel: required with bot_token`},
	}
	for _, c := range cases {
		_, err := buildDoc(t, c.doc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("config\n%s\nerror %v\nwant it to contain %q", c.doc, err, c.want)
		}
	}
}

// TestNoticeRoutes: a month's report and a claim reminder go to every
// channel when no route takes them (a Feishu-, DingTalk- or WeCom-only
// team gets them as a Slack team does); routes narrow them by contract,
// provider or notice kind, and a route about incidents never takes them.
func TestNoticeRoutes(t *testing.T) {
	t.Setenv("GPUSLA_TEST_ONCALL_SECRET", "0123456789abcdef-oncall")
	report := notify.Notice{Kind: notify.NoticeReport, Contract: "cn-example", Provider: "acme"}
	reminder := notify.Notice{Kind: notify.NoticeClaimReminder, Contract: "us-example", Provider: "Example GPU Cloud"}
	r := mustBuild(t, channels)
	for _, n := range []notify.Notice{report, reminder} {
		if got := r.NoticeChannels(n.Contract, n); !slices.Equal(got, r.Names()) {
			t.Errorf("no routes: %s went to %v, want every channel", n.Kind, got)
		}
	}
	for _, name := range r.Names() {
		if _, ok := r.NoticePoster(name); !ok {
			t.Errorf("channel %s (%s) cannot post notices", name, r.Type(name))
		}
	}
	r = mustBuild(t, channels+`
  routes:
    - channels: [net-dingtalk]
      incidents: [unreachable]
    - channels: [team-wecom]
      contracts: [cn-example]
    - channels: [oncall]
      kinds: [claim_reminder]
    - channels: [ops-feishu]
      kinds: [notices]
      providers: [acme]
  default: [ops-feishu]
`)
	for _, c := range []struct {
		n    notify.Notice
		want string
	}{
		{report, "ops-feishu,team-wecom"},
		{reminder, "oncall"},
		{notify.Notice{Kind: notify.NoticeReport, Contract: "us-example", Provider: "Example GPU Cloud"}, "ops-feishu"}, // default
	} {
		if got := strings.Join(r.NoticeChannels(c.n.Contract, c.n), ","); got != c.want {
			t.Errorf("%s of %s: %s, want %s", c.n.Kind, c.n.Contract, got, c.want)
		}
	}
	if _, ok := r.NoticePoster("nowhere"); ok {
		t.Error("a channel that is not configured has a poster")
	}
}
