package webhook_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/webhook"
)

// TestEventIDLeavesTheLinkOut: two deliveries of one alert, each with its
// own freshly signed replacement link, are one event (the same
// X-Gpusla-Event) while their bodies carry each its link; another alert is
// another event.
func TestEventIDLeavesTheLinkOut(t *testing.T) {
	var mu sync.Mutex
	var ids, bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		ids, bodies = append(ids, r.Header.Get(webhook.HeaderEvent)), append(bodies, string(b))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	n, err := webhook.New(webhook.Config{URL: srv.URL, Secret: strings.Repeat("s", 16)})
	if err != nil {
		t.Fatal(err)
	}
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
	if ids[0] != ids[1] || ids[0] == ids[2] || len(ids[0]) != 32 {
		t.Fatalf("event ids %v: want the first two equal, the third different", ids)
	}
	if !strings.Contains(bodies[0], `exp=1`) || !strings.Contains(bodies[1], `exp=2`) {
		t.Fatalf("bodies do not carry their links:\n%s\n%s", bodies[0], bodies[1])
	}
}
