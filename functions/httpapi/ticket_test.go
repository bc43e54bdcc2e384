package httpapi_test

import (
	"encoding/json"
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
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

type ticketEnv struct {
	t     *testing.T
	api   *httpapi.API
	clock *apptest.Clock
	notif *apptest.Notifier
	token string
	store *bolt.Store
}

func newTicketEnv(t *testing.T, start time.Time) *ticketEnv {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := apptest.NewClock(start)
	st.SetClock(clock.Now)
	notif := &apptest.Notifier{}
	log := slog.New(slog.DiscardHandler)
	svc, err := app.New(app.Config{Store: st, Notifier: notif, Box: apptest.Box(t), Clock: clock, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	book, err := wiring.LoadTerms("../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateNode(t.Context(), store.Node{ID: "gz-01", Provider: "acme", Contract: "cn-example", OrderedAt: start.Add(-30 * 24 * time.Hour),
		GPUCount: 8, HeartbeatInterval: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	_, token, err := app.CreateAPIKey(t.Context(), st, "test", []string{"tickets"}, start)
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(svc, log)
	httpapi.RegisterTickets(api.Mux(), desk, log)
	return &ticketEnv{t: t, api: api, clock: clock, notif: notif, token: token, store: st}
}

func (e *ticketEnv) call(method, path, body, token string, hdr ...string) (int, map[string]any) {
	e.t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	e.api.ServeHTTP(w, r)
	var out map[string]any
	if strings.HasPrefix(strings.TrimSpace(w.Body.String()), "{") {
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			e.t.Fatalf("%s %s: answer is not JSON: %s", method, path, w.Body)
		}
	}
	return w.Code, out
}

func TestTicketAPIAuth(t *testing.T) {
	e := newTicketEnv(t, time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC))
	body := `{"node":"gz-01","priority":"P1"}`
	revokedKey, revoked, _ := app.CreateAPIKey(t.Context(), e.store, "old", []string{"tickets"}, e.clock.Now())
	if _, err := app.RevokeAPIKey(t.Context(), e.store, revokedKey.ID, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	// The key's id with another secret: its last character changed (to
	// another of the same alphabet, so the token is well formed; always a
	// different one, or the "wrong" secret is the right one once in a
	// thousand runs).
	last := e.token[len(e.token)-1]
	other := byte('a')
	if last == 'a' {
		other = 'b'
	}
	wrong := e.token[:len(e.token)-1] + string(other)
	for name, tok := range map[string]string{"none": "", "garbage": "hello", "wrong secret": wrong, "revoked": revoked} {
		if code, out := e.call("POST", httpapi.PathTickets, body, tok); code != http.StatusUnauthorized || strings.Contains(out["error"].(string), "revoked") {
			t.Errorf("%s key: %d %v, want 401 without the reason", name, code, out)
		}
	}
	if code, _ := e.call("GET", httpapi.PathTickets, "", ""); code != http.StatusUnauthorized {
		t.Errorf("list without a key: %d", code)
	}
	if l, _ := e.store.ListTickets(t.Context(), false); len(l) != 0 {
		t.Fatalf("refused requests opened %d tickets", len(l))
	}
}

// TestTicketAPIFlow: open a ticket off-hours in Shanghai, record the late
// answer, the customer's reply and the resolution, each with its time, and
// read the timing back.
func TestTicketAPIFlow(t *testing.T) {
	// Friday 2026-03-13 23:50 CST: off-hours, P1 answer due in 30 minutes.
	opened := time.Date(2026, 3, 13, 15, 50, 0, 0, time.UTC)
	e := newTicketEnv(t, opened.Add(2*time.Hour))
	code, tk := e.call("POST", httpapi.PathTickets, `{"node":"gz-01","priority":"P1","category":"hardware","provider_ref":"ACME-77",
		"summary":"GPU 3 fell off the bus","opened_at":"2026-03-13T15:50:00Z"}`, e.token, "Idempotency-Key", "open-1")
	if code != http.StatusCreated {
		t.Fatalf("open: %d %v", code, tk)
	}
	id := tk["id"].(string)
	timing := tk["timing"].(map[string]any)
	resp := timing["response"].(map[string]any)
	if timing["off_hours"] != true || timing["timezone"] != "Asia/Shanghai" || resp["deadline"] != "2026-03-13T16:20:00Z" || resp["status"] != "breached" {
		t.Fatalf("timing: %v", timing)
	}
	if len(e.notif.TicketsSent()) != 1 || e.notif.TicketsSent()[0].Kind != notify.TicketOpened {
		t.Fatalf("opened message not sent: %+v", e.notif.TicketsSent())
	}
	// The same idempotency key again: the same ticket, 200.
	code, again := e.call("POST", httpapi.PathTickets, `{"node":"gz-01","priority":"P1"}`, e.token, "Idempotency-Key", "open-1")
	if code != http.StatusOK || again["id"] != id {
		t.Fatalf("repeat open: %d %v", code, again)
	}

	events := httpapi.PathTickets + "/" + id + "/events"
	code, out := e.call("POST", events, `{"type":"provider_responded","at":"2026-03-13T16:35:00Z","awaiting_customer":true,"idempotency_key":"r1"}`, e.token)
	evs := out["events"].([]any)
	last := evs[len(evs)-1].(map[string]any)
	if code != http.StatusCreated || last["completed_target"] != "response" || last["late_seconds"] != float64(15*60) {
		t.Fatalf("late response: %d %v", code, last)
	}
	if code, out = e.call("POST", events, `{"type":"provider_responded","at":"2026-03-13T16:35:00Z","idempotency_key":"r1"}`, e.token); code != http.StatusOK || len(out["events"].([]any)) != 1 {
		t.Fatalf("retried event: %d %v", code, out)
	}
	e.call("POST", events, `{"type":"customer_replied","at":"2026-03-13T17:35:00Z"}`, e.token)
	code, out = e.call("POST", events, `{"type":"resolved"}`, e.token) // default: now (17:50)
	if code != http.StatusCreated {
		t.Fatalf("resolved: %d %v", code, out)
	}
	res := out["timing"].(map[string]any)["resolution"].(map[string]any)
	// 4h wall clock, paused 1h while the provider waited for us: met at 2h-1h.
	if res["status"] != "met" || res["paused_seconds"] != float64(3600) || res["elapsed_seconds"] != float64(3600) {
		t.Fatalf("resolution: %v", res)
	}
	if code, out = e.call("PATCH", httpapi.PathTickets+"/"+id, `{"provider_ref":"ACME-78"}`, e.token); code != 200 || out["provider_ref"] != "ACME-78" || out["summary"] != "GPU 3 fell off the bus" {
		t.Fatalf("patch: %d %v", code, out)
	}
	if code, out = e.call("PATCH", httpapi.PathTickets+"/"+id, `{"priority":"P3"}`, e.token); code != 400 || out["field"] != "priority" {
		t.Fatalf("patching the priority: %d %v, want 400 (not editable)", code, out)
	}
	if code, out = e.call("GET", httpapi.PathTickets+"/"+id, "", e.token); code != 200 || out["id"] != id || out["open"] != true {
		t.Fatalf("get: %d %v (hardware not yet replaced: still open)", code, out)
	}
	r := httptest.NewRequest("GET", httpapi.PathTickets+"?open=true", nil)
	r.Header.Set("Authorization", "Bearer "+e.token)
	w := httptest.NewRecorder()
	e.api.ServeHTTP(w, r)
	var list []map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil || len(list) != 1 {
		t.Fatalf("open list: %s", w.Body)
	}
}

func TestTicketAPIBadInput(t *testing.T) {
	e := newTicketEnv(t, time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC))
	_, tk := e.call("POST", httpapi.PathTickets, `{"node":"gz-01","priority":"P1"}`, e.token)
	id := tk["id"].(string)
	for _, c := range []struct {
		path, body string
		code       int
		field      string
	}{
		{httpapi.PathTickets, `{"node":"gz-01","priority":"P7"}`, 400, "priority"},
		{httpapi.PathTickets, `{"node":"gz-02","priority":"P1"}`, 400, "node"},
		{httpapi.PathTickets, `{"node":"gz-01","priority":"P1","prio":"x"}`, 400, "prio"},
		{httpapi.PathTickets, `{"node":"gz-01","priority":1}`, 400, "priority"},
		{httpapi.PathTickets, `{"node":"gz-01","priority":"P1","opened_at":"yesterday"}`, 400, "body"},
		{httpapi.PathTickets, `[]`, 400, "body"},
		{httpapi.PathTickets, `{"node":"gz-01","priority":"P1"} {}`, 400, "body"},
		{httpapi.PathTickets + "/" + id + "/events", `{"type":"escalated"}`, 400, "type"},
		{httpapi.PathTickets + "/" + id + "/events", `{"type":"resolved","at":"2026-03-09T00:00:00Z"}`, 400, "at"},
		{httpapi.PathTickets + "/T-zzzzzzzz/events", `{"type":"resolved"}`, 404, "id"},
		{httpapi.PathTickets + "/nonsense/events", `{"type":"resolved"}`, 404, "id"},
		{httpapi.PathTickets, `{"summary":"` + strings.Repeat("x", httpapi.MaxTicketBody) + `"}`, 413, ""},
		// Text that is not text is refused naming its field, not stored
		// with U+FFFD in its place (as on the ingest API).
		{httpapi.PathTickets, "{\"node\":\"gz-01\",\"priority\":\"P1\",\"summary\":\"fan \xff dead\"}", 400, "summary"},
		{httpapi.PathTickets, `{"node":"gz-01","priority":"P1","provider_ref":"R-\udc00"}`, 400, "provider_ref"},
		{httpapi.PathTickets + "/" + id + "/events", "{\"type\":\"provider_responded\",\"idempotency_key\":\"k\xc0\xaf\"}", 400, "idempotency_key"},
	} {
		code, out := e.call("POST", c.path, c.body, e.token)
		if code != c.code || (c.field != "" && out["field"] != c.field) {
			t.Errorf("POST %s %.60s: %d %v, want %d naming %q", c.path, c.body, code, out, c.code, c.field)
		}
	}
	if l, _ := e.store.ListTickets(t.Context(), false); len(l) != 1 || len(l[0].Events) != 0 {
		t.Fatalf("refused requests stored something: %d tickets, %+v", len(l), l)
	}
	e.call("POST", httpapi.PathTickets+"/"+id+"/events", `{"type":"resolved"}`, e.token)
	if code, out := e.call("POST", httpapi.PathTickets+"/"+id+"/events", `{"type":"resolved"}`, e.token); code != http.StatusConflict {
		t.Errorf("resolve twice: %d %v, want 409", code, out)
	}
}

// Ticket times are bounded: opened_at in year 0001 is
// refused, and the zero instant written out is refused, not taken for now.
func TestTicketAPITimesBounded(t *testing.T) {
	e := newTicketEnv(t, time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC))
	for body, field := range map[string]string{
		`{"node":"gz-01","priority":"P1","opened_at":"0001-01-01T00:00:01Z"}`: "at",
		`{"node":"gz-01","priority":"P1","opened_at":"0001-01-01T00:00:00Z"}`: "opened_at",
	} {
		code, out := e.call("POST", httpapi.PathTickets, body, e.token)
		if code != http.StatusBadRequest || out["field"] != field {
			t.Errorf("%s: %d %v, want 400 naming %s", body, code, out, field)
		}
	}
	if l, _ := e.store.ListTickets(t.Context(), false); len(l) != 0 {
		t.Fatalf("refused requests opened %d tickets", len(l))
	}
	if code, out := e.call("POST", httpapi.PathTickets, `{"node":"gz-01","priority":"P1"}`, e.token); code != http.StatusCreated && code != http.StatusOK {
		t.Fatalf("no opened_at (now): %d %v", code, out)
	}
}
