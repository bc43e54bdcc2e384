package slackapi

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzSlackForm feeds arbitrary bodies to the Slack form parsers (the slash
// command form and its text, and the interaction payload). They run only
// after the signature check, but must still never panic and must keep
// their promises on whatever they accept.
func FuzzSlackForm(f *testing.F) {
	cmd := func(text string) []byte {
		return []byte(url.Values{"command": {"/gpusla"}, "text": {text}, "trigger_id": {"t1"}, "user_id": {"U1"},
			"response_url": {"https://hooks.slack.com/commands/T1/1/x"}}.Encode())
	}
	for _, s := range []string{"", "status", "status gz-01", "ticket open gz-01 P1 GPU lost ref=ACME-1 hardware",
		"ticket responded T-abcdefgh waiting", "ticket ref T-abcdefgh ACME-9", "ticket resolved T-abcdefgh", "report 2026-03", "ticket", "report 2026-13", "ticket open a b"} {
		f.Add(cmd(s))
	}
	f.Add([]byte(`payload=%7B%22type%22%3A%22block_actions%22%2C%22container%22%3A%7B%22message_ts%22%3A%221.2%22%7D%2C%22actions%22%3A%5B%7B%22action_id%22%3A%22gpusla_ticket_open%22%2C%22value%22%3A%22gz-01+unreachable%4020261130T100000.000Z%22%7D%5D%7D`))
	f.Add([]byte("%zz&&=;"))
	f.Fuzz(func(t *testing.T, body []byte) {
		if form, err := ParseSlashForm(body); err == nil {
			if form.Command == "" || form.TriggerID == "" || len(form.Text) > MaxTextLen {
				t.Fatalf("accepted a form that breaks its promises: %+v", form)
			}
			c, err := ParseCommand(form.Text)
			if err == nil {
				switch c.Verb {
				case "help", "status", "report":
				case "open":
					if c.Node == "" || c.Priority == "" || c.Summary == "" {
						t.Fatalf("open without node, priority or summary: %+v", c)
					}
				case "ref":
					if c.Ticket == "" || c.ProviderRef == "" {
						t.Fatalf("ref without ticket or reference: %+v", c)
					}
				case "responded", "replied", "resolved", "replaced":
					if c.Ticket == "" {
						t.Fatalf("%s without a ticket: %+v", c.Verb, c)
					}
				default:
					t.Fatalf("unknown verb %q accepted", c.Verb)
				}
			} else if err.Error() == "" {
				t.Fatal("error without a message")
			}
		}
		if c, err := ParseInteraction(body); err == nil {
			if c.Node == "" || c.IncidentID == "" || c.MessageTs == "" || strings.Contains(c.IncidentID, " ") {
				t.Fatalf("accepted a click that breaks its promises: %+v", c)
			}
		}
	})
}
