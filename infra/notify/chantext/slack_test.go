package chantext

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// TestSlackRepliesInTheContractsWords: Slack's replies about a ticket
// (the chat-text rule: as the documents say it) in the ticket's
// contract's language and zone, durations in words.
func TestSlackRepliesInTheContractsWords(t *testing.T) {
	opened := time.Date(2026, 3, 12, 15, 50, 0, 0, time.UTC)
	resp := &ticket.Clock{Target: 30 * time.Minute, Clock: terms.Wall, Deadline: opened.Add(30 * time.Minute), Status: ticket.Breached, Late: 7 * time.Minute}
	tim := &ticket.Timing{Response: resp}
	f := TicketFacts{ID: "T-0042", Node: "gz-01", Priority: "P1", ProviderRef: "ACME-7", Opened: opened, By: "slack:U7 (mei)"}
	e := TicketEvent{Type: events.TypeProviderResponded, At: opened.Add(37 * time.Minute), Target: "response", Late: 7 * time.Minute}
	for _, c := range []struct {
		lang, zone string
		got, want  string
	}{
		{"en", "Asia/Shanghai", SlackFor("en", "Asia/Shanghai").Opened(f, tim),
			"Ticket *T-0042* opened for *gz-01* (P1, business hours): first response due 2026-03-13 00:20:00 (China Standard Time)."},
		{"zh", "Asia/Shanghai", SlackFor("zh", "Asia/Shanghai").Opened(f, tim),
			"工单 *T-0042* 已为 *gz-01* 开立（P1，工作时间内）：首次响应截止2026年3月13日 00:20:00（北京时间）。"},
		{"en", "UTC", SlackFor("en", "UTC").Recorded(f, e, false),
			"Recorded: provider responded on *T-0042* at 2026-03-12 16:27:00 UTC — first response target breached, *7 minutes late*."},
		{"zh", "Asia/Shanghai", SlackFor("zh", "Asia/Shanghai").Recorded(f, e, true),
			"已记录过：服务商已响应，*T-0042*，于2026年3月13日 00:27:00（北京时间）。"},
		{"en", "UTC", SlackFor("en", "UTC").TicketLine(f, tim),
			"*T-0042* P1 (ACME-7) — :rotating_light: first response BREACHED (due 2026-03-12 16:20:00 UTC, 7 minutes ago)"},
	} {
		if c.got != c.want {
			t.Errorf("%s %s:\n got %q\nwant %q", c.lang, c.zone, c.got, c.want)
		}
		if goDuration.MatchString(c.got) || (c.lang == "zh" && strings.Contains(c.got, "UTC")) {
			t.Errorf("%s: a Go duration or UTC in %q", c.lang, c.got)
		}
	}
}

// TestSlackStatusPerContract: a status reply covering nodes of
// a zh contract on Beijing time and an en one on New York time writes each
// node's part in its own contract's words and on its clock, durations in
// words.
func TestSlackStatusPerContract(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 0, 30, 0, time.UTC)
	got := SlackStatus([]SlackNode{
		{ID: "gz-01", Provider: "acme", Contract: "cn-example", Lang: "zh", Zone: "Asia/Shanghai", Heard: true, Ago: 5 * time.Minute,
			Unreachable: at, Open: []SlackOpen{{Kind: "gpu_lost", Since: at}}, Tickets: []string{"T-1（P1）"}},
		{ID: "ny-01", Provider: "example", Contract: "us-example", Lang: "en", Zone: "America/New_York", Heard: true, Ago: 90 * time.Second,
			Open: []SlackOpen{{Kind: "gpu_lost", Since: at}}},
		{ID: "old-01", Provider: "example", Contract: "gone"},
	})
	want := "*gz-01*（acme，cn-example）:red_circle: 自2026年11月30日 18:00:30（北京时间）起*无法访问*\n" +
		"   • 故障：GPU 掉卡，自2026年11月30日 18:00:30（北京时间）起\n" +
		"   • 工单 T-1（P1）\n" +
		"*ny-01* (example, us-example) :large_green_circle: up, last heard 1 minute 30 seconds ago\n" +
		"   • incident: GPU lost since 2026-11-30 05:00:30 (US Eastern Time, UTC−05:00)\n" +
		"*old-01* (example, gone) :white_circle: never heard from"
	if got != want {
		t.Errorf("status\n%s\nwant\n%s", got, want)
	}
}
