package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// booksEnv is a service under acme-std with a 72 h maintenance notice and
// a late-response penalty of 5 %, three nodes ordered at t0 − 1 h, each
// heard at t0 (10:00 UTC, a Monday in business hours) and again at 11:00
// after an hour's silence the watchdog ticked through: one unreachable
// incident each. The clock then stands at 12:00, when the administrators
// act. Tickets are served too.
type booksEnv struct {
	*env
	desk  *app.TicketDesk
	admin string
	tix   string
}

func newBooksEnv(t *testing.T) *booksEnv {
	t.Helper()
	src := strings.Replace(apptest.TermsYAML, "claim:", "maintenance:\n  notice: 72h\nclaim:", 1)
	src = strings.Replace(src, "    P2: {business_hours: 1h, clock: wall}\n", "    P2: {business_hours: 1h, clock: wall}\n  late_response_penalty: 5\n", 1)
	ts, err := terms.Parse("acme-std.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	book := app.TermsBook{ts[0].Contract: ts[0]}
	e := newEnvWith(t, book)
	c := apptest.AddNode(t, e.svc, "node-c")
	desk, err := e.svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	httpapi.RegisterTickets(e.api.Mux(), desk, nil)
	ctx := t.Context()
	if _, err := e.svc.BackendStart(ctx); err != nil {
		t.Fatal(err)
	}
	push := func() {
		now := e.clock.Now()
		for _, p := range []*apptest.Probe{e.a, e.b, c} {
			_, body := p.Batch(now, apptest.Heartbeats(now, 30*time.Second, 2)...)
			if _, err := e.svc.Ingest(ctx, p.Request(now, body)); err != nil {
				t.Fatalf("ingest %s at %s: %v", p.Node, now, err)
			}
		}
	}
	push()
	for e.clock.Now().Before(t0.Add(time.Hour)) {
		e.clock.Advance(time.Minute)
		if _, err := e.svc.Watchdog(ctx); err != nil {
			t.Fatal(err)
		}
	}
	push()
	e.clock.Set(t0.Add(2 * time.Hour))
	return &booksEnv{env: e, desk: desk, admin: e.key(t, "admin"), tix: e.key(t, "tickets")}
}

// incident is the node's one unreachable incident as GET /v1/incidents
// judges it now.
func (e *booksEnv) incident(t *testing.T, node string) app.JudgedIncident {
	t.Helper()
	w := get(e.api, httpapi.PathIncidents+"?node="+node, e.admin)
	var js []app.JudgedIncident
	if err := json.Unmarshal(w.Body.Bytes(), &js); w.Code != 200 || err != nil || len(js) != 1 {
		t.Fatalf("GET /v1/incidents?node=%s: %d %s", node, w.Code, w.Body)
	}
	return js[0]
}

// export is the backend's event log for the month, as `gpusla export` and
// the report job write it.
func (e *booksEnv) export(t *testing.T) []events.Event {
	t.Helper()
	var buf bytes.Buffer
	w := events.NewWriter(&buf)
	if err := e.desk.MonthExport(2026, time.November)(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var out []events.Event
	if _, err := events.ReadLog("export", &buf, func(ev *events.Event) error { out = append(out, *ev); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// rfc is t0 + d in RFC 3339.
func rfc(d time.Duration) string { return t0.Add(d).Format(time.RFC3339) }

// records are the export's administrative events by type and node.
func (e *booksEnv) records(t *testing.T) map[string]events.Event {
	t.Helper()
	recs := map[string]events.Event{}
	for _, ev := range e.export(t) {
		switch ev.Type {
		case events.TypeMaintenance, events.TypeNodeReleased, events.TypeTicketOpened, events.TypeProviderResponded:
			recs[ev.Type+" "+ev.Node] = ev
		}
	}
	return recs
}

// retro is the month's report as of 12:05 and its retroactive records by
// kind and node.
func (e *booksEnv) retro(t *testing.T) (*report.Report, map[string]report.Retro) {
	t.Helper()
	r, _, err := e.desk.MonthReport(t.Context(), 2026, time.November, t0.Add(2*time.Hour+5*time.Minute), nil)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]report.Retro{}
	for _, x := range r.Retroactive.Records {
		named[x.Kind+" "+x.Node] = x
	}
	return r, named
}

// recorded says whether ev was exported as recorded at 12:00 by an API key.
func recorded(ev events.Event) bool {
	return ev.RecordedAt.Equal(t0.Add(2*time.Hour)) && strings.HasPrefix(ev.RecordedBy, "api:")
}

// At 12:00 an admin key records a notice for 09:30–11:30
// "announced" five days ago, after node-a's outage began. The outage
// still counts, live and in the report; the answer, the export and the
// report show when and by which key it was recorded, and the report names
// it as retroactive, not honoured. The same notice on node-b with an
// override takes the outage out, and is named with the override.
func TestBackdatedMaintenanceTakesNothingOut(t *testing.T) {
	e := newBooksEnv(t)
	before := e.incident(t, "node-a")
	if !before.Counted || before.CountedSeconds < 50*60 {
		t.Fatalf("node-a's hour of silence: %+v, want a counted outage", before)
	}
	body := `{"node":"node-a","start":"` + rfc(-30*time.Minute) + `","end":"` + rfc(90*time.Minute) + `","announced_at":"` + rfc(-5*24*time.Hour) + `","summary":"switch"}`
	w := call(e.api, http.MethodPost, httpapi.PathMaintenance, body, e.admin)
	var mv httpapi.MaintenanceView
	if err := json.Unmarshal(w.Body.Bytes(), &mv); w.Code != 200 || err != nil || !mv.RecordedAt.Equal(t0.Add(2*time.Hour)) ||
		!strings.HasPrefix(mv.RecordedBy, "api:") || !mv.RecordedLate {
		t.Fatalf("maintenance recorded late: %d %s; want its recording time, key and lateness shown", w.Code, w.Body)
	}
	if after := e.incident(t, "node-a"); !after.Counted || after.CountedSeconds != before.CountedSeconds {
		t.Fatalf("after a backdated notice the outage is %+v; want it still counted, %d s", after, before.CountedSeconds)
	}
	body = `{"node":"node-b","start":"` + rfc(-30*time.Minute) + `","end":"` + rfc(90*time.Minute) + `","announced_at":"` + rfc(-5*24*time.Hour) +
		`","override":"the provider's e-mail MX-1 reached us only today"}`
	if w := call(e.api, http.MethodPost, httpapi.PathMaintenance, body, e.admin); w.Code != 200 {
		t.Fatalf("maintenance with an override: %d %s", w.Code, w.Body)
	}
	if b := e.incident(t, "node-b"); b.Counted {
		t.Fatalf("node-b's outage inside an overridden notice: %+v, want it taken out", b)
	}
	recs := e.records(t)
	if a, b := recs["maintenance node-a"], recs["maintenance node-b"]; !recorded(a) || !recorded(b) || b.Override == "" {
		t.Errorf("export: %+v and %+v; want both recorded at 12:00 by the key, node-b's with its override", a, b)
	}
	r, named := e.retro(t)
	// At stake: the counted outage inside the window 09:30–11:30 — the
	// hour of silence and the silence since 11:00 (no heartbeat up to
	// as_of), each counted in full.
	var inside time.Duration
	for _, n := range r.Nodes {
		for _, o := range n.Outages {
			if n.Node == "node-a" && o.Counted && o.CountedSeconds == o.Seconds {
				inside += overlap(o.Start, o.End, t0.Add(-30*time.Minute), t0.Add(90*time.Minute))
			}
		}
	}
	if x := named["maintenance node-a"]; x.Honoured || inside < 50*time.Minute || x.AtStakeSeconds != int64(inside/time.Second) || x.LateSeconds != 9000 {
		t.Errorf("report: node-a's notice %+v, counted outage inside it %s; want it named, recorded 2 h 30 min after its start, not honoured, that outage at stake", x, inside)
	}
	if x := named["maintenance node-b"]; !x.Honoured || x.Override == "" {
		t.Errorf("report: node-b's notice %+v; want it named, honoured on its override", x)
	}
}

// overlap is how much of [start, end) (RFC 3339) lies in [from, to).
func overlap(start, end string, from, to time.Time) time.Duration {
	s, _ := time.Parse(time.RFC3339, start)
	e, _ := time.Parse(time.RFC3339, end)
	if s.Before(from) {
		s = from
	}
	if e.After(to) {
		e = to
	}
	return max(e.Sub(s), 0)
}

// A release of node-c at 09:30, before its counted
// outage, is refused naming the outage; with an override it stands, its
// record shown in the answer and the export, and the report names it.
func TestReleaseBeforeCountedOutage(t *testing.T) {
	e := newBooksEnv(t)
	release := strings.Replace(httpapi.PathNodeRelease, "{id}", "node-c", 1)
	w := call(e.api, http.MethodPost, release, `{"at":"`+rfc(-30*time.Minute)+`"}`, e.admin)
	if we := decodeErr(t, w); w.Code != 400 || we.Field != "at" || !strings.Contains(we.Error, "of counted outage (unreachable from") ||
		!strings.Contains(we.Error, "needs an override") {
		t.Fatalf("a release before counted outage: %d %+v; want it refused, naming the outage and the override", w.Code, we)
	}
	if v := nodeViews(t, e.env, e.admin)["node-c"]; !v.ReleasedAt.IsZero() {
		t.Fatalf("a refused release was stored: %+v", v)
	}
	w = call(e.api, http.MethodPost, release, `{"at":"`+rfc(-30*time.Minute)+`","override":"handed back on the phone at 09:30, provider ref R-5"}`, e.admin)
	var nv httpapi.NodeView
	if err := json.Unmarshal(w.Body.Bytes(), &nv); w.Code != 200 || err != nil || !nv.ReleaseRecordedAt.Equal(t0.Add(2*time.Hour)) ||
		!strings.HasPrefix(nv.ReleaseRecordedBy, "api:") || nv.ReleaseOverride == "" {
		t.Fatalf("the release with an override: %d %s; want its record shown", w.Code, w.Body)
	}
	if ev := e.records(t)["node_released node-c"]; !recorded(ev) || ev.Override == "" {
		t.Errorf("export: %+v; want the release recorded at 12:00 by the key, with its override", ev)
	}
	_, named := e.retro(t)
	if x := named["node_released node-c"]; x.LateSeconds != 9000 || x.Override == "" || !x.Honoured { // 09:30 to 12:00
		t.Errorf("report: node-c's release %+v; want it named, 2 h 30 min before its recording, with the override", x)
	}
}

// Contract-wide maintenance from year 0001 to 9999 is
// refused naming the field and both values, as is a window further back
// than two months or more than a year ahead.
func TestMaintenanceWindowBounds(t *testing.T) {
	e := newBooksEnv(t)
	for _, c := range []struct{ body, field, msg string }{
		{`{"contract":"acme-std","start":"0001-01-01T00:00:01Z","end":"9999-12-31T23:59:59Z","announced_at":"0001-01-01T00:00:01Z"}`, "end",
			"9999-12-31T23:59:59Z is more than 168h0m0s after the start 0001-01-01T00:00:01Z"},
		{`{"contract":"acme-std","start":"2026-09-01T00:00:00Z","end":"2026-09-01T02:00:00Z","announced_at":"2026-08-01T00:00:00Z"}`, "start",
			"2026-09-01T00:00:00Z is more than 1488h0m0s before now"},
		{`{"contract":"acme-std","start":"2028-01-01T00:00:00Z","end":"2028-01-01T02:00:00Z"}`, "start", "is more than 8784h0m0s after now"},
		{`{"contract":"acme-std","start":"2026-12-10T00:00:00Z","end":"2026-12-10T02:00:00Z","announced_at":"2025-01-01T00:00:00Z"}`, "announced_at",
			"2025-01-01T00:00:00Z is more than 8784h0m0s before the start"},
	} {
		w := call(e.api, http.MethodPost, httpapi.PathMaintenance, c.body, e.admin)
		if we := decodeErr(t, w); w.Code != 400 || we.Field != c.field || !strings.Contains(we.Error, c.msg) {
			t.Errorf("%s: %d %+v; want 400 on %s naming %q", c.body, w.Code, we, c.field, c.msg)
		}
	}
	w := get(e.api, httpapi.PathMaintenance+"?from=0001-01-01T00:00:01Z&to=9999-12-31T00:00:00Z", e.admin)
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != "[]" {
		t.Fatalf("a refused notice was stored: %d %s", w.Code, w.Body)
	}
}

// A tickets key opens a ticket dated two hours back, then
// records the answer now. Due 10:15 (15 min in business hours), answered
// 12:00: 1 h 45 min = 6 300 s late, as claimed — the provider's own ticket
// system holds the true opening — but the answer shows the recording, the
// export carries it, and the report names the opening as retroactive.
func TestBackdatedTicketNamed(t *testing.T) {
	e := newBooksEnv(t)
	st, tk := e.ticketCall(t, http.MethodPost, httpapi.PathTickets, `{"node":"node-a","priority":"P1","opened_at":"`+rfc(0)+`"}`)
	if st != 201 || !tk.RecordedAt.Equal(t0.Add(2*time.Hour)) || !tk.RecordedLate || !strings.HasPrefix(tk.OpenedBy, "api:") {
		t.Fatalf("a ticket opened two hours back: %d %+v; want its recording shown and flagged", st, tk)
	}
	st, tk = e.ticketCall(t, http.MethodPost, strings.Replace(httpapi.PathTicketEvents, "{id}", tk.ID, 1), `{"type":"responded"}`)
	if st != 201 || len(tk.Events) != 1 || tk.Events[0].LateSeconds != 6300 || tk.Events[0].RecordedLate {
		t.Fatalf("the answer: %d %+v; want 6300 s late, recorded on time", st, tk.Events)
	}
	recs := e.records(t)
	if o, a := recs["ticket_opened node-a"], recs["ticket_provider_responded "]; !recorded(o) || !recorded(a) {
		t.Errorf("export: %+v and %+v; want both recorded at 12:00 by the key", o, a)
	}
	_, named := e.retro(t)
	if x := named["ticket_opened node-a"]; x.LateSeconds != 7200 || !strings.HasPrefix(x.RecordedBy, "api:") || x.Ticket != tk.ID {
		t.Errorf("report: the ticket %+v; want its opening named, 2 h before its recording", x)
	}
	if _, ok := named["ticket_provider_responded node-a"]; ok {
		t.Error("report: an answer recorded when given is named as retroactive")
	}
}

// ticketCall sends a tickets-key request and decodes the ticket answered.
func (e *booksEnv) ticketCall(t *testing.T, method, path, body string) (int, httpapi.TicketView) {
	t.Helper()
	w := call(e.api, method, path, body, e.tix)
	var v httpapi.TicketView
	if w.Code < 300 {
		if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, w.Body)
		}
	}
	return w.Code, v
}
