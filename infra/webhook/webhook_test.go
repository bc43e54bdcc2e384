package webhook_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/webhook"
)

// receiver is a webhook notifier posting to a local receiver, and what the
// receiver got: each post's event id and body.
func receiver(t *testing.T) (*webhook.Notifier, func() (ids, bodies []string)) {
	var mu sync.Mutex
	var ids, bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		ids, bodies = append(ids, r.Header.Get(webhook.HeaderEvent)), append(bodies, string(b))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	n, err := webhook.New(webhook.Config{URL: srv.URL, Secret: strings.Repeat("s", 16)})
	if err != nil {
		t.Fatal(err)
	}
	return n, func() ([]string, []string) { mu.Lock(); defer mu.Unlock(); return ids, bodies }
}

// TestEventIDLeavesTheLinkOut: two deliveries of one alert, each with its
// own freshly signed replacement link, are one event (the same
// X-Gpusla-Event) while their bodies carry each its link; another alert is
// another event.
func TestEventIDLeavesTheLinkOut(t *testing.T) {
	n, got := receiver(t)
	a := notify.Alert{Kind: notify.AlertDegraded, Node: "gz-01", IncidentID: "gpu_lost@20261130T100030.000Z", IncidentKind: "gpu_lost",
		Since: time.Date(2026, 11, 30, 10, 0, 30, 0, time.UTC)}
	for _, link := range []string{"https://x.example/v1/actions/replacement?exp=1", "https://x.example/v1/actions/replacement?exp=2"} {
		a.ReplacementURL = link
		if _, err := n.Notify(t.Context(), a); err != nil {
			t.Fatal(err)
		}
	}
	other := a
	other.IncidentID = "gpu_lost@20261130T100031.000Z"
	if _, err := n.Notify(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	ids, bodies := got()
	if ids[0] != ids[1] || ids[0] == ids[2] || len(ids[0]) != 32 {
		t.Fatalf("event ids %v: want the first two equal, the third different", ids)
	}
	if !strings.Contains(bodies[0], `exp=1`) || !strings.Contains(bodies[1], `exp=2`) {
		t.Fatalf("bodies do not carry their links:\n%s\n%s", bodies[0], bodies[1])
	}
}

// TestPayloadBounded: an alert whose batch repeated a failing check 5,000
// times with long evidence, and a ticket with a long text, are posted as
// bodies of a few dozen kilobytes: the first MaxFailed checks and the count
// of the rest, the evidence and the ticket's text cut to MaxDetail
// characters, the text within chantext.TextMax. Before, the body carried
// every check: megabytes.
func TestPayloadBounded(t *testing.T) {
	n, got := receiver(t)
	a := notify.Alert{Kind: notify.AlertDegraded, Node: "gz-01", IncidentID: "gpu_lost@20261130T100030.000Z", IncidentKind: "gpu_lost",
		Since: time.Date(2026, 11, 30, 10, 0, 30, 0, time.UTC), Detail: strings.Repeat("evidence ", 5000)}
	for range 5000 {
		a.Failed = append(a.Failed, notify.FailedCheck{Name: "gpu.burn.fp32.errors", Verdict: "fail", Value: strings.Repeat("v", 256),
			Detail: strings.Repeat("d", 2048)})
	}
	if _, err := n.Notify(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	if _, err := n.NotifyTicket(t.Context(), notify.TicketMessage{Kind: notify.TicketOpened, Ticket: "T-1", Node: "gz-01",
		Text: strings.Repeat("x", 100_000)}); err != nil {
		t.Fatal(err)
	}
	_, bodies := got()
	var p webhook.Payload
	if err := json.Unmarshal([]byte(bodies[0]), &p); err != nil {
		t.Fatal(err)
	}
	if len(bodies[0]) > 64<<10 || len(p.Alert.Failed) != webhook.MaxFailed || p.FailedNotListed != 5000-webhook.MaxFailed ||
		utf8.RuneCountInString(p.Alert.Detail) != webhook.MaxDetail || len(p.Text) > chantext.TextMax {
		t.Errorf("alert body %d bytes: %d failed listed, %d not, detail %d characters, text %d bytes",
			len(bodies[0]), len(p.Alert.Failed), p.FailedNotListed, utf8.RuneCountInString(p.Alert.Detail), len(p.Text))
	}
	if err := json.Unmarshal([]byte(bodies[1]), &p); err != nil {
		t.Fatal(err)
	}
	if len(bodies[1]) > 16<<10 || utf8.RuneCountInString(p.Ticket.Text) != webhook.MaxDetail {
		t.Errorf("ticket body %d bytes, text %d characters", len(bodies[1]), utf8.RuneCountInString(p.Ticket.Text))
	}
}
