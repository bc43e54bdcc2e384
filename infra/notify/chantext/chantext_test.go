package chantext

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
)

// TestLongAlertsFit: an alert with hundreds of failing checks and a long
// evidence text still fits each robot's limit, keeps its title, facts and
// incident id, and says how many checks it left out.
func TestLongAlertsFit(t *testing.T) {
	a := notify.Alert{Kind: notify.AlertDegraded, Node: "gz-01", Provider: "acme", IncidentID: "gpu_degraded@20261130T100030.000Z",
		IncidentKind: "gpu_degraded", Since: time.Date(2026, 11, 30, 10, 0, 30, 0, time.UTC), Detail: strings.Repeat("*xid 79* <at id=all> ", 2000)}
	for i := range 300 {
		a.Failed = append(a.Failed, notify.FailedCheck{Name: fmt.Sprintf("gpu.xid_%d", i), Verdict: "fail", Value: strings.Repeat("_", 200)})
	}
	for _, d := range []Dialect{Feishu, DingTalk, WeCom} {
		m := Alert(d, a)
		if len(m.Body) > d.MaxBytes {
			t.Errorf("%s: %d bytes, limit %d", d.Name, len(m.Body), d.MaxBytes)
		}
		for _, want := range []string{"gz-01", "GPU hardware fault", "20261130T100030.000Z", "more"} {
			if !strings.Contains(m.Body, want) {
				t.Errorf("%s: lost %q", d.Name, want)
			}
		}
	}
}

// TestEscapeBlockDefusesLineStarts: lines of user text that would open a
// heading, list or quote do not.
func TestEscapeBlockDefusesLineStarts(t *testing.T) {
	in := "# heading\n- item\n+ item\n> quote\n12. ordered\nplain"
	for _, d := range []Dialect{Feishu, DingTalk, WeCom} {
		for _, line := range strings.Split(d.EscapeBlock(in), d.NL) {
			for _, start := range []string{"#", "- ", "+ ", ">", "12. "} {
				if strings.HasPrefix(line, start) {
					t.Errorf("%s: line %q still opens a block", d.Name, line)
				}
			}
		}
	}
}

// TestUnderscores: an '_' inside a word stays (ids read as they are); one at
// a word's edge, which could open emphasis, is made inert: in DingTalk and
// WeCom, which show a backslash escape as typed, by its full-width twin.
func TestUnderscores(t *testing.T) {
	for _, c := range []struct {
		d        Dialect
		in, want string
	}{
		{WeCom, "acme_gpu gpu_lost@x", "acme_gpu gpu_lost@x"},
		{WeCom, "_it_ and __b__", "＿it＿ and ＿＿b＿＿"},
		{DingTalk, "snake_case _lead", "snake_case ＿lead"},
		{DingTalk, `\<unknown\> ~x~ *b*`, "＼＜unknown＼＞ ～x～ ∗b∗"},
		{Feishu, "acme_gpu _it_", "acme_gpu &#95;it&#95;"},
	} {
		if got := c.d.Escape(c.in); got != c.want {
			t.Errorf("%s: Escape(%q) = %q, want %q", c.d.Name, c.in, got, c.want)
		}
	}
}

// TestPlainTextFits: the plain-text form (Slack's fallback text, the
// webhook's text, the console) of an alert with 300 failing checks and a
// long evidence full of characters an escape lengthens stays within
// TextMax bytes once escaped, keeps its title, says how many checks it
// left out and ends with the cut mark in the alert's language; a short
// alert is whole and unmarked; a ticket's long text is cut the same way.
func TestPlainTextFits(t *testing.T) {
	escape := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace
	for _, lang := range []string{"en", "zh"} {
		a := notify.Alert{Kind: notify.AlertDegraded, Node: "gz-01", Provider: "acme", IncidentID: "gpu_degraded@20261130T100030.000Z",
			IncidentKind: "gpu_degraded", Since: time.Date(2026, 11, 30, 10, 0, 30, 0, time.UTC), Lang: lang,
			Detail: strings.Repeat("<at id=all> & ", 3000)}
		for i := range 300 {
			a.Failed = append(a.Failed, notify.FailedCheck{Name: fmt.Sprintf("gpu.xid_%d", i), Verdict: "fail", Value: strings.Repeat("<", 200)})
		}
		mark := map[string]string{"en": "… (truncated)", "zh": "…（已截断）"}[lang]
		more := map[string]string{"en": "more", "zh": "另有"}[lang]
		for name, s := range map[string]string{"plain": AlertText(a), "escaped": escape(AlertTextWithin(a, TextMax, escape))} {
			if len(s) > TextMax || !strings.HasSuffix(s, mark) || !strings.Contains(s, "gz-01") || !strings.Contains(s, more) {
				t.Errorf("%s %s: %d bytes (limit %d), ends %q", lang, name, len(s), TextMax, s[max(0, len(s)-40):])
			}
		}
		short := a
		short.Failed, short.Detail = short.Failed[:1], "short"
		if s := AlertText(short); strings.Contains(s, mark) || !strings.Contains(s, "incident gpu_degraded@20261130T100030.000Z") && lang == "en" {
			t.Errorf("%s: a text that fits is cut: %q", lang, s)
		}
		m := notify.TicketMessage{Kind: notify.TicketOpened, Ticket: "T-1", Node: "gz-01", Provider: "acme", Lang: lang, Text: strings.Repeat("<&>", 5000)}
		if s := escape(TicketTextWithin(m, TextMax, escape)); len(s) > TextMax || !strings.HasSuffix(s, mark) {
			t.Errorf("%s ticket: %d bytes, ends %q", lang, len(s), s[max(0, len(s)-40):])
		}
	}
}

// TestPlainTextNamesTheKind: the console's and the webhook's text opens
// with the incident's kind, as the alert's title names it (a lost GPU is
// "[gpu_lost]", never the generic "[degraded]"); later messages with what
// they are.
func TestPlainTextNamesTheKind(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 0, 30, 0, time.UTC)
	for _, c := range []struct {
		a    notify.Alert
		want string
	}{
		{notify.Alert{Kind: notify.AlertDegraded, IncidentKind: "gpu_lost", Node: "gz-01", Since: at}, "[gpu_lost] gz-01 GPU lost"},
		{notify.Alert{Kind: notify.AlertDegraded, IncidentKind: "network_degraded", Node: "gz-01", Since: at}, "[network_degraded] gz-01 network degraded"},
		{notify.Alert{Kind: notify.AlertUnreachable, IncidentKind: "unreachable", Node: "gz-01", Since: at}, "[unreachable] gz-01 unreachable"},
		{notify.Alert{Kind: notify.AlertRecovered, IncidentKind: "gpu_lost", Node: "gz-01", Since: at, Until: at.Add(time.Minute), Duration: time.Minute}, "[recovered] gz-01 recovered: GPU lost"},
	} {
		if got := AlertText(c.a); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s/%s: %q, want it to open with %q", c.a.Kind, c.a.IncidentKind, got, c.want)
		}
	}
}
