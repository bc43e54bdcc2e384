package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
)

// hostile is text a probe or a user could supply: a channel ping, a user
// mention, a disguised link, and an ampersand that must not start an entity.
const hostile = "<!channel> <@U0BOSS> <https://evil.example|invoice> fish & chips"

// controls are the sequences Slack would act on had hostile gone out raw.
var controls = []string{"<!channel>", "<@U0BOSS>", "<https://evil.example|invoice>"}

// texts returns every string inside a JSON-able value (blocks, payloads)
// that Slack renders: a button's value is data handed back to us on a
// click, never shown, so it is left out (and must stay unescaped).
func texts(t *testing.T, v any) []string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				if k != "value" {
					walk(e)
				}
			}
		}
	}
	walk(generic)
	return out
}

// inert fails if any string carries one of hostile's control sequences,
// and unless the escaped form of hostile shows up where it was put in.
func inert(t *testing.T, what string, strs []string, minEscaped int) {
	t.Helper()
	escaped := 0
	for _, s := range strs {
		for _, c := range controls {
			if strings.Contains(s, c) {
				t.Errorf("%s: %q reaches Slack raw in %q", what, c, s)
			}
		}
		if strings.Contains(s, "&amp; chips") && strings.Contains(s, "&lt;!channel&gt;") {
			escaped++
		}
		if strings.Contains(s, "&amp;amp;") || strings.Contains(s, "&amp;lt;") {
			t.Errorf("%s: escaped twice: %q", what, s)
		}
	}
	if escaped < minEscaped {
		t.Errorf("%s: hostile text shows escaped in %d strings, want at least %d:\n%q", what, escaped, minEscaped, strs)
	}
}

func hostileAlert(kind notify.AlertKind) notify.Alert {
	gpu := 0
	return notify.Alert{Kind: kind, Node: hostile, Provider: hostile, IncidentID: hostile, IncidentKind: hostile, Since: t0, Until: t0,
		Cause: hostile, Detail: hostile,
		Failed: []notify.FailedCheck{{Name: hostile, Category: "gpu_degraded", Verdict: "fail", Value: hostile, Criterion: hostile, Detail: hostile, GPU: &gpu}}}
}

func hostileTicket() notify.TicketMessage {
	return notify.TicketMessage{Kind: notify.TicketOpened, Ticket: hostile, Node: hostile, Provider: hostile, Opened: t0,
		Text: `Ticket T-1 opened for gz-01: P1. Provider ref ` + hostile + `. "` + hostile + `".`}
}

// TestBuildersEscapeSuppliedText: every block builder escapes what users
// and probes supplied, in every field, while keeping its own markup (the
// localised date is a control sequence of ours and stays one).
func TestBuildersEscapeSuppliedText(t *testing.T) {
	for _, k := range []notify.AlertKind{notify.AlertUnreachable, notify.AlertDegraded, notify.AlertRecovered, notify.AlertReclassified} {
		b := Blocks(hostileAlert(k))
		strs := texts(t, b)
		inert(t, "Blocks("+string(k)+")", strs, 4) // node, provider, failed line, detail (at least)
		if !strings.Contains(strings.Join(strs, "\n"), "<!date^") {
			t.Errorf("Blocks(%s) lost its own date markup", k)
		}
	}
	inert(t, "TicketBlocks", texts(t, TicketBlocks(hostileTicket())), 3)
}

// hostileNotice is a notice whose every span carries supplied text.
func hostileNotice(pdf []byte) notify.Notice {
	n := notify.Notice{Kind: notify.NoticeClaimReminder, Title: "Claim deadline " + hostile,
		Lines: []notify.Line{{{Text: "contract "}, {Text: hostile, Strong: true}}, {{Text: "files "}, {Text: "<!here>" + hostile, Code: true}}}}
	if pdf != nil {
		n.File = &notify.File{Name: "r.pdf", Title: "r", Data: pdf}
	}
	return n
}

// TestPostsEscapeSuppliedText: what the notifier sends — fallback text and
// blocks of alerts and ticket messages, by bot and by webhook; report
// comments; reminders — carries no live control sequence from supplied text.
func TestPostsEscapeSuppliedText(t *testing.T) {
	ctx := context.Background()
	t.Run("bot", func(t *testing.T) {
		n, rec, _ := newBot(t)
		if _, err := n.Notify(ctx, hostileAlert(notify.AlertDegraded)); err != nil {
			t.Fatal(err)
		}
		if _, err := n.NotifyTicket(ctx, hostileTicket()); err != nil {
			t.Fatal(err)
		}
		if err := n.PostNotice(ctx, hostileNotice(nil)); err != nil {
			t.Fatal(err)
		}
		if len(rec.posts) != 3 {
			t.Fatalf("%d posts, want 3", len(rec.posts))
		}
		for i, p := range rec.posts {
			var blocks any
			if b := p.Get("blocks"); b != "" {
				if err := json.Unmarshal([]byte(b), &blocks); err != nil {
					t.Fatal(err)
				}
			}
			inert(t, fmt.Sprintf("bot post %d", i), append(texts(t, blocks), p.Get("text")), 1)
		}
		if !strings.Contains(rec.posts[2].Get("text"), "*&lt;!channel&gt;") || !strings.Contains(rec.posts[2].Get("text"), "`&lt;!here&gt;") {
			t.Errorf("reminder markup lost: %q", rec.posts[2].Get("text"))
		}
	})
	t.Run("webhook", func(t *testing.T) {
		n, wh := newWebhook(t, 0)
		if _, err := n.Notify(ctx, hostileAlert(notify.AlertUnreachable)); err != nil {
			t.Fatal(err)
		}
		if _, err := n.NotifyTicket(ctx, hostileTicket()); err != nil {
			t.Fatal(err)
		}
		if err := n.PostNotice(ctx, hostileNotice([]byte("%PDF"))); err != nil {
			t.Fatal(err)
		}
		if err := n.PostNotice(ctx, notify.Notice{Title: hostile}); err != nil {
			t.Fatal(err)
		}
		got := wh.got()
		if len(got) != 4 {
			t.Fatalf("%d webhook posts, want 4", len(got))
		}
		for _, m := range got {
			inert(t, "webhook post", texts(t, m), 1)
		}
	})
	t.Run("report upload", func(t *testing.T) {
		n, up := newUploadBot(t, "C-REPORTS")
		if err := n.PostNotice(ctx, hostileNotice([]byte("%PDF"))); err != nil {
			t.Fatal(err)
		}
		_, complete := up.got()
		inert(t, "report comment", []string{complete.Get("initial_comment")}, 1)
	})
}

// TestFallbackTextBounded: an alert whose batch repeated a failing check
// 5,000 times (a spool draining), each value full of characters Slack's
// escaping lengthens, and a ticket with a long text, reach Slack with a
// fallback text of at most chantext.TextMax characters, still inert, cut
// with the mark; the blocks stay within Slack's section limit. Before, the
// fallback carried every line: over a megabyte.
func TestFallbackTextBounded(t *testing.T) {
	n, rec, _ := newBot(t)
	a := hostileAlert(notify.AlertDegraded)
	for range 5000 {
		a.Failed = append(a.Failed, a.Failed[0])
	}
	if _, err := n.Notify(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	m := hostileTicket()
	m.Text = strings.Repeat(hostile, 500)
	if _, err := n.NotifyTicket(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	for i, p := range rec.posts {
		text := p.Get("text")
		if n := utf8.RuneCountInString(text); n > chantext.TextMax || !strings.HasSuffix(text, "… (truncated)") {
			t.Errorf("post %d: fallback of %d characters, ends %q", i, n, text[max(0, len(text)-40):])
		}
		inert(t, fmt.Sprintf("post %d", i), []string{text}, 1)
		if len(p.Get("blocks")) > 50_000 {
			t.Errorf("post %d: %d bytes of blocks", i, len(p.Get("blocks")))
		}
	}
}
