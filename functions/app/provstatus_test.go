package app_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/provstatus/provstatustest"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
)

// statusServer serves a Statuspage incidents.json whose body and ETag the
// test changes, answering a matching If-None-Match with 304, or failing.
type statusServer struct {
	mu              sync.Mutex
	body, etag      string
	fail            bool
	full, cond, all int
}

func (s *statusServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all++
	if s.fail {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("ETag", s.etag)
	if r.Header.Get("If-None-Match") == s.etag {
		s.cond++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	s.full++
	_, _ = w.Write([]byte(s.body))
}

func (s *statusServer) set(f func(s *statusServer)) { s.mu.Lock(); f(s); s.mu.Unlock() }
func (s *statusServer) counts() (full, cond, all int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.full, s.cond, s.all
}

func TestPollStatusPages(t *testing.T) {
	doc := string(provstatustest.Document(t, "incidents.json"))
	srv := &statusServer{body: doc, etag: `"v1"`}
	hs := httptest.NewServer(srv)
	defer hs.Close()

	st := newBolt(t)
	start := time.Date(2026, 11, 30, 10, 10, 0, 0, time.UTC)
	clock := apptest.NewClock(start)
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Clock: clock, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := terms.Parse("acme.yaml", []byte(apptest.TermsYAML+"provider_status_page:\n  url: "+hs.URL+"/api/v2/incidents.json\n  format: statuspage\n  every: 5m\n  allow_private: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(app.TermsBook{"acme-std": ts[0]})
	if err != nil {
		t.Fatal(err)
	}
	poll := func(want app.StatusPollResult) {
		t.Helper()
		got, err := desk.PollStatusPages(t.Context(), clock.Now())
		if err != nil || got != want {
			t.Fatalf("at %s: PollStatusPages = %+v, %v; want %+v", clock.Now().Format(time.TimeOnly), got, err, want)
		}
	}
	state := func() store.StatusPoll {
		t.Helper()
		p, err := st.GetStatusPoll(t.Context(), "acme-std")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	// First poll: every incident stored once, the validator kept.
	poll(app.StatusPollResult{Pages: 1, Fetched: 1, Stored: 3})
	if p := state(); p.ETag != `"v1"` || !p.NextAt.Equal(start.Add(5*time.Minute)) || p.Fetches != 1 || !p.FirstSuccess.Equal(start) {
		t.Fatalf("poll state %+v", p)
	}
	// Not due yet: nothing fetched.
	clock.Advance(4 * time.Minute)
	poll(app.StatusPollResult{})
	// Due: a conditional GET answered 304, nothing written.
	clock.Advance(time.Minute)
	poll(app.StatusPollResult{Pages: 1, Fetched: 1, NotModified: 1})
	if full, cond, _ := srv.counts(); full != 1 || cond != 1 {
		t.Fatalf("server saw %d full and %d conditional fetches, want 1 and 1", full, cond)
	}
	// The page resolves the open incident: that one record is rewritten,
	// keeping when it was first seen; the unchanged two are not.
	srv.set(func(s *statusServer) {
		s.etag = `"v2"`
		s.body = strings.Replace(strings.Replace(doc, `"status": "investigating",
      "created_at"`, `"status": "resolved",
      "created_at"`, 1), `"resolved_at": null,
      "impact": "major"`, `"resolved_at": "2026-11-30T18:30:00+08:00",
      "impact": "major"`, 1)
	})
	clock.Advance(5 * time.Minute)
	poll(app.StatusPollResult{Pages: 1, Fetched: 1, Updated: 1})
	inc, err := st.GetProviderIncident(t.Context(), "acme-std", "p31zjtct2jer")
	if err != nil {
		t.Fatal(err)
	}
	if !inc.Page.Resolved || !inc.Page.End.Equal(time.Date(2026, 11, 30, 10, 30, 0, 0, time.UTC)) || inc.Version != 2 || !inc.FirstSeen.Equal(start) ||
		!inc.FetchedAt.Equal(clock.Now()) {
		t.Fatalf("resolved incident %+v", inc)
	}
	all, err := st.ListProviderIncidents(t.Context(), "", time.Time{}, time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil || len(all) != 3 {
		t.Fatalf("%d stored incidents (%v), want 3: a re-fetch must not duplicate", len(all), err)
	}

	// The page fails: backed off (10 min after one failure, 20 after two).
	srv.set(func(s *statusServer) { s.fail = true })
	clock.Advance(5 * time.Minute)
	failedAt := clock.Now()
	poll(app.StatusPollResult{Pages: 1, Failed: 1})
	if p := state(); p.Failures != 1 || !strings.Contains(p.LastErr, "HTTP 503") || !p.NextAt.Equal(failedAt.Add(10*time.Minute)) || p.ETag != `"v2"` {
		t.Fatalf("after a failure %+v", p)
	}
	clock.Advance(5 * time.Minute)
	poll(app.StatusPollResult{}) // backed off
	clock.Advance(5 * time.Minute)
	poll(app.StatusPollResult{Pages: 1, Failed: 1})
	if p := state(); p.Failures != 2 || !p.NextAt.Equal(clock.Now().Add(20*time.Minute)) {
		t.Fatalf("after two failures %+v", p)
	}
	// Back: the next due poll succeeds and the count resets.
	srv.set(func(s *statusServer) { s.fail = false })
	clock.Advance(20 * time.Minute)
	poll(app.StatusPollResult{Pages: 1, Fetched: 1, NotModified: 1})
	if p := state(); p.Failures != 0 || p.LastErr != "" || p.Fetches != 6 || p.FailedFetches != 2 {
		t.Fatalf("after recovery %+v", p)
	}

	// The export carries what the page said and the span it was read.
	var got []events.Event
	n, err := app.ExportProviderStatus(t.Context(), st, start.AddDate(0, 0, -40), start.AddDate(0, 0, 1), func(e *events.Event) error {
		if err := e.Validate(); err != nil {
			t.Errorf("exported %s: %v", e.ID, err)
		}
		got = append(got, *e)
		return nil
	})
	if err != nil || n != 4 {
		t.Fatalf("exported %d events (%v), want 3 incidents and the poll span", n, err)
	}
	var ids []string
	for _, e := range got {
		ids = append(ids, e.Type+" "+e.ID)
	}
	want := "provider_incident provider/acme-std/b0rj4q2xw8yt|provider_incident provider/acme-std/k7q0c3pp9bnd|provider_incident provider/acme-std/p31zjtct2jer|" +
		"status_page_polled polled/acme-std@20261130T105500.000Z"
	if strings.Join(ids, "|") != want {
		t.Fatalf("exported\n%s\nwant\n%s", strings.Join(ids, "|"), want)
	}
	if e := got[2]; !e.Resolved || !e.End.Equal(time.Date(2026, 11, 30, 10, 30, 0, 0, time.UTC)) || !e.ReceivedAt.Equal(start) || e.Summary != "GPU instances unreachable in cn-east-2" {
		t.Fatalf("exported incident %+v", e)
	}
	if e := got[3]; e.Count != 6 || e.Failures != 2 || !e.Start.Equal(start) {
		t.Fatalf("exported poll span %+v", e)
	}

	// The monthly job's report (store → export → engine) lists November's
	// two incidents of the page; the node was never delivered, so none is
	// "unseen" and nothing is counted.
	n1 := store.Node{ID: "n1", Provider: "acme", Contract: "acme-std", OrderedAt: start.AddDate(0, -1, 0), GPUModel: "H200", GPUCount: 8,
		HeartbeatInterval: time.Minute, PushInterval: time.Minute, Grace: time.Minute, CreatedAt: start}
	if err := st.CreateNode(t.Context(), n1); err != nil {
		t.Fatal(err)
	}
	r, _, err := desk.MonthReport(t.Context(), 2026, time.November, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), nil)
	if err != nil {
		t.Fatal(err)
	}
	ps := r.Contracts[0].ProviderStatus
	if ps == nil || len(ps.Incidents) != 2 || ps.Incidents[0].ID != "k7q0c3pp9bnd" || ps.Incidents[1].ID != "p31zjtct2jer" || !ps.Incidents[1].Resolved ||
		len(ps.Unseen) != 0 || len(ps.Acknowledged)+len(ps.Unacknowledged) != 0 || ps.Polled == nil || ps.Polled.Fetches != 6 {
		t.Fatalf("month report's provider_status %+v", ps)
	}
}

// The minute tick (the watchdog Lambda's and serve's) polls the pages that
// are due, after the node watchdog and the ticket watch.
func TestMinuteTickPollsStatusPages(t *testing.T) {
	srv := &statusServer{body: string(provstatustest.Document(t, "history.atom")), etag: `"a1"`}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	st := newBolt(t)
	clock := apptest.NewClock(time.Date(2026, 11, 30, 10, 10, 0, 0, time.UTC))
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Clock: clock, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := terms.Parse("acme.yaml", []byte(apptest.TermsYAML+"provider_status_page: {url: \""+hs.URL+"/history.atom\", format: atom, every: 10m, allow_private: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(app.TermsBook{"acme-std": ts[0]})
	if err != nil {
		t.Fatal(err)
	}
	tick := app.MinuteTick(svc, desk, nil)
	for i := 0; i < 12; i++ { // twelve minutes: fetched at 0 and 10
		if _, err := tick(t.Context()); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
	}
	if full, cond, all := srv.counts(); all != 2 || full != 1 || cond != 1 {
		t.Fatalf("server saw %d requests (%d full, %d conditional), want 2 (1, 1)", all, full, cond)
	}
	incs, err := st.ListProviderIncidents(t.Context(), "acme-std", time.Time{}, time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil || len(incs) != 3 || incs[0].Format != "atom" {
		t.Fatalf("stored %d incidents (%v), want the feed's 3", len(incs), err)
	}
}

// A page answering 302 to the metadata service had the
// redirect followed and the credentials' body came back in the poll error,
// the export and report.json. Now the redirect is refused before it is
// asked anything, and what a failed fetch leaves — the poll state, the
// log, the export's status_page_polled, the report — is a bounded reason
// holding no byte of an answer.
func TestPollRefusesTheMetadataService(t *testing.T) {
	const secret = "ASIAIOSFODNN7EXAMPLE-wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"
	doc := provstatustest.Document(t, "incidents.json")
	var mu sync.Mutex
	mode := "page"
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch mode {
		case "page":
			_, _ = w.Write(doc)
			return
		case "redirect":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/iam/security-credentials/", http.StatusFound)
			return
		}
		http.Error(w, `{"AccessKeyId":"`+secret+`"}`, http.StatusBadGateway)
	}))
	defer hs.Close()
	st := newBolt(t)
	start := time.Date(2026, 11, 30, 10, 10, 0, 0, time.UTC)
	clock := apptest.NewClock(start)
	var logs strings.Builder
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Clock: clock, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := terms.Parse("acme.yaml", []byte(apptest.TermsYAML+"provider_status_page: {url: \""+hs.URL+"/api/v2/incidents.json\", format: statuspage, every: 5m, allow_private: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(app.TermsBook{"acme-std": ts[0]})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := desk.PollStatusPages(t.Context(), clock.Now()); err != nil || res.Fetched != 1 {
		t.Fatalf("first poll: %+v %v", res, err)
	}
	mu.Lock()
	mode = "redirect"
	mu.Unlock()
	clock.Advance(time.Hour)
	if res, err := desk.PollStatusPages(t.Context(), clock.Now()); err != nil || res.Failed != 1 {
		t.Fatalf("poll: %+v %v", res, err)
	}
	p, err := st.GetStatusPoll(t.Context(), "acme-std")
	if err != nil || !strings.Contains(p.LastErr, "169.254.169.254: a cloud metadata address") {
		t.Fatalf("poll state %+v %v; want the redirect refused", p, err)
	}
	mu.Lock()
	mode = "echo"
	mu.Unlock()
	clock.Advance(time.Hour)
	if res, err := desk.PollStatusPages(t.Context(), clock.Now()); err != nil || res.Failed != 1 {
		t.Fatalf("second poll: %+v %v", res, err)
	}
	if p, _ = st.GetStatusPoll(t.Context(), "acme-std"); !strings.Contains(p.LastErr, "HTTP 502") || len([]rune(p.LastErr)) > 200 {
		t.Fatalf("poll state %+v; want the status alone", p)
	}
	var export strings.Builder
	if _, err := app.ExportProviderStatus(t.Context(), st, start.AddDate(0, 0, -1), start.AddDate(0, 0, 1), func(e *events.Event) error {
		raw, err := json.Marshal(e)
		export.Write(raw)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	n1 := store.Node{ID: "n1", Provider: "acme", Contract: "acme-std", OrderedAt: start.AddDate(0, -1, 0), GPUModel: "H200", GPUCount: 8,
		HeartbeatInterval: time.Minute, PushInterval: time.Minute, Grace: time.Minute, CreatedAt: start}
	if err := st.CreateNode(t.Context(), n1); err != nil {
		t.Fatal(err)
	}
	r, _, err := desk.MonthReport(t.Context(), 2026, time.November, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), nil)
	if err != nil {
		t.Fatal(err)
	}
	report, _ := json.Marshal(r)
	if !strings.Contains(export.String(), "HTTP 502") || !strings.Contains(string(report), "HTTP 502") {
		t.Fatalf("the failure is not shown: export %s\nreport %s", export.String(), report)
	}
	// A poll state stored before reasons were sanitised still exports none
	// of what the server said.
	legacy, err := st.GetStatusPoll(t.Context(), "acme-std")
	if err != nil {
		t.Fatal(err)
	}
	legacy.LastErr = `status page http://x/: HTTP 502 Bad Gateway: "{\"AccessKeyId\":\"` + secret + `\"}"`
	if _, err := st.PutStatusPoll(t.Context(), legacy, legacy.Version); err != nil {
		t.Fatal(err)
	}
	if _, err := app.ExportProviderStatus(t.Context(), st, start.AddDate(0, 0, -1), start.AddDate(0, 0, 1), func(e *events.Event) error {
		raw, err := json.Marshal(e)
		export.Write(raw)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for what, out := range map[string]string{"log": logs.String(), "poll state": p.LastErr, "export": export.String(), "report.json": string(report)} {
		for _, leak := range []string{"ASIAIOSFODNN7", "EXAMPLEKEY", "security-credentials"} {
			if strings.Contains(out, leak) {
				t.Errorf("the %s holds %q:\n%s", what, leak, out)
			}
		}
	}
}
