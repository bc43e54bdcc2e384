package httpapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/refusal"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/probe/wire"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// testStore is a store whose clock the test sets: bolt, or DynamoDB on
// dynalite.
type testStore interface {
	store.Store
	store.TicketStore
	SetClock(now func() time.Time)
}

type env struct {
	store testStore
	svc   *app.Service
	api   *httpapi.API
	clock *apptest.Clock
	a, b  *apptest.Probe
}

func newEnv(t testing.TB) *env { return newEnvWith(t, nil) }

// newEnvWith is newEnv with the service's terms book.
func newEnvWith(t testing.TB, book app.TermsBook) *env {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newEnvOn(t, book, st)
}

// newEnvOn is newEnvWith on the given store.
func newEnvOn(t testing.TB, book app.TermsBook, st testStore) *env {
	clock := apptest.NewClock(t0)
	st.SetClock(clock.Now)
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Clock: clock, Terms: book,
		Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{store: st, svc: svc, api: httpapi.New(svc, nil), clock: clock}
	e.a = apptest.AddNode(t, svc, "node-a")
	e.b = apptest.AddNode(t, svc, "node-b")
	return e
}

func (e *env) post(r app.IngestRequest) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, httpapi.PathBatches, bytes.NewReader(r.Body))
	if r.Node != "" {
		req.Header.Set(wire.HeaderNode, r.Node)
	}
	if r.Timestamp != "" {
		req.Header.Set(wire.HeaderTimestamp, r.Timestamp)
	}
	if r.Signature != "" {
		req.Header.Set(wire.HeaderSignature, r.Signature)
	}
	w := httptest.NewRecorder()
	e.api.ServeHTTP(w, req)
	return w
}

func decodeErr(t *testing.T, w *httptest.ResponseRecorder) wire.Error {
	t.Helper()
	var we wire.Error
	if err := json.Unmarshal(w.Body.Bytes(), &we); err != nil {
		t.Fatalf("error body %q is not a wire.Error: %v", w.Body.String(), err)
	}
	return we
}

// signRaw signs arbitrary bytes with a node's secret (for schema errors).
func signRaw(p *apptest.Probe, at time.Time, body []byte) app.IngestRequest {
	return p.Request(at, body)
}

func TestIngestRejects(t *testing.T) {
	e := newEnv(t)
	_, good := e.a.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
	valid := e.a.Request(t0, good)
	big := bytes.Repeat([]byte(" "), wire.MaxBodyBytes+1)
	cases := []struct {
		name   string
		req    app.IngestRequest
		status int
		field  string
		msg    string
	}{
		{"no headers", app.IngestRequest{Body: good}, 401, "", "missing signature"},
		{"no signature", app.IngestRequest{Node: "node-a", Timestamp: valid.Timestamp, Body: good}, 401, "", "missing signature"},
		{"wrong signature", app.IngestRequest{Node: "node-a", Timestamp: valid.Timestamp, Signature: "v1=" + strings.Repeat("ab", 32), Body: good}, 401, "", "does not match"},
		{"signature of a changed body", app.IngestRequest{Node: "node-a", Timestamp: valid.Timestamp, Signature: valid.Signature, Body: append([]byte(nil), append(good[:len(good)-1:len(good)-1], ' ', '}')...)}, 401, "", "does not match"},
		{"old timestamp", e.a.Request(t0.Add(-wire.TimestampWindow-time.Second), good), 401, "", "outside the allowed window"},
		{"future timestamp", e.a.Request(t0.Add(wire.TimestampWindow+time.Second), good), 401, "", "outside the allowed window"},
		{"another node's secret", func() app.IngestRequest { r := e.b.Request(t0, good); r.Node = "node-a"; return r }(), 401, "", "does not match"},
		{"unknown node", func() app.IngestRequest { r := e.a.Request(t0, good); r.Node = "node-z"; return r }(), 401, "", "unknown node"},
		{"body of another node", e.b.Request(t0, good), 400, "node", "does not match the signing node"},
		{"too large", e.a.Request(t0, big), 413, "", "over the limit"},
		{"not json", signRaw(e.a, t0, []byte("{nope")), 400, "body", ""},
		{"wrong type", signRaw(e.a, t0, []byte(`{"v":1,"id":"x","node":"node-a","seq":"one"}`)), 400, "seq", "wrong type"},
		{"bad observation kind", signRaw(e.a, t0, []byte(`{"v":1,"id":"x","node":"node-a","probe":"t","seq":1,"created_at":"2026-11-30T10:00:00Z","observations":[{"at":"2026-11-30T10:00:00Z","kind":"nap"}]}`)), 400, "observations[0].kind", "neither"},
		{"bad check category", signRaw(e.a, t0, []byte(`{"v":1,"id":"x","node":"node-a","probe":"t","seq":1,"created_at":"2026-11-30T10:00:00Z","observations":[{"at":"2026-11-30T10:00:00Z","kind":"check","checks":[{"name":"c","category":"vibes","verdict":"pass"}]}]}`)), 400, "observations[0].checks[0].category", "unknown category"},
		{"check value not UTF-8", signRaw(e.a, t0, []byte("{\"v\":1,\"id\":\"x\",\"node\":\"node-a\",\"probe\":\"t\",\"seq\":1,\"created_at\":\"2026-11-30T10:00:00Z\",\"observations\":[{\"at\":\"2026-11-30T10:00:00Z\",\"kind\":\"check\",\"checks\":[{\"name\":\"c\",\"category\":\"host\",\"verdict\":\"fail\",\"value\":\"8\xff GPUs\"}]}]}")), 400, "observations[0].checks[0].value", "not valid UTF-8"},
		{"lone surrogate in the id", signRaw(e.a, t0, []byte(`{"v":1,"id":"x\udc00","node":"node-a","probe":"t","seq":1,"created_at":"2026-11-30T10:00:00Z","observations":[]}`)), 400, "id", "surrogate"},
		{"missing created_at", signRaw(e.a, t0, []byte(`{"v":1,"id":"x","node":"node-a","probe":"t","seq":1,"observations":[]}`)), 400, "created_at", "missing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := e.store.Ops().Total("/write")
			w := e.post(tc.req)
			if w.Code != tc.status {
				t.Fatalf("status %d (%s), want %d", w.Code, w.Body.String(), tc.status)
			}
			we := decodeErr(t, w)
			if we.Field != tc.field || !strings.Contains(we.Error, tc.msg) {
				t.Fatalf("error %+v, want field %q and message containing %q", we, tc.field, tc.msg)
			}
			if n := e.store.Ops().Total("/write") - before; n != 0 {
				t.Fatalf("a rejected request made %d store writes; nothing may be stored", n)
			}
		})
	}
	for _, id := range []string{"node-a", "node-b"} {
		if _, err := e.store.GetState(t.Context(), id); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("state of %s exists after only rejects: %v", id, err)
		}
	}
	// And the valid batch is accepted after all that.
	if w := e.post(valid); w.Code != 200 {
		t.Fatalf("valid batch: %d %s", w.Code, w.Body.String())
	}
}

// TestUnknownNodeLooksLikeWrongSignature: whatever else is wrong with the
// request (fresh or stale timestamp, a well-formed or malformed node id), an
// unknown node gets byte for byte the answer a known node with a wrong
// signature gets, so the answers do not tell which node ids exist.
func TestUnknownNodeLooksLikeWrongSignature(t *testing.T) {
	e := newEnv(t)
	_, body := e.a.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
	forged := func(node string, at time.Time) app.IngestRequest {
		r := e.b.Request(at, body) // signed, but with another node's secret
		r.Node = node
		return r
	}
	for _, at := range []time.Time{t0, t0.Add(-wire.TimestampWindow - time.Second)} {
		known := e.post(forged("node-a", at))
		for _, unknown := range []string{"node-z", "no such node!", strings.Repeat("n", 65)} {
			w := e.post(forged(unknown, at))
			if w.Code != known.Code || w.Body.String() != known.Body.String() || w.Header().Get("Content-Type") != known.Header().Get("Content-Type") {
				t.Errorf("signed at %s: unknown node %q answered %d %q; known node with a wrong signature %d %q",
					at.Format(time.TimeOnly), unknown, w.Code, w.Body.String(), known.Code, known.Body.String())
			}
		}
		if known.Code != 401 {
			t.Errorf("known node, wrong signature: %d, want 401", known.Code)
		}
	}
}

func TestIngestStoresDedupesAndRefusesReplay(t *testing.T) {
	e := newEnv(t)
	_, body := e.a.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
	first := e.a.Request(t0, body)
	w := e.post(first)
	var ack wire.Ack
	if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &ack) != nil || ack.Status != wire.AckStored || ack.ID != "node-a-b1" {
		t.Fatalf("first post: %d %s", w.Code, w.Body.String())
	}
	// A heartbeat-only batch costs exactly one conditional write.
	if n := e.store.Ops().Total("/write"); n != 3 { // 2 node registrations + 1 state write
		t.Fatalf("store writes after one heartbeat batch = %d, want 3 (%v)", n, e.store.Ops())
	}
	// The identical signed request again is a replay: 401.
	w = e.post(first)
	if w.Code != 401 || !strings.Contains(decodeErr(t, w).Error, "replay") {
		t.Fatalf("replay: %d %s", w.Code, w.Body.String())
	}
	// So is the same request with its signature's hex in upper or mixed
	// case: it verifies alike, so it must be remembered alike.
	for _, spell := range []func(string) string{strings.ToUpper, upperFirstLetter} {
		again := first
		again.Signature = "v1=" + spell(strings.TrimPrefix(first.Signature, "v1="))
		before := e.store.Ops().Total("/write")
		w = e.post(again)
		if w.Code != 401 || !strings.Contains(decodeErr(t, w).Error, "replay") {
			t.Fatalf("replay as %s: %d %s", again.Signature, w.Code, w.Body.String())
		}
		if n := e.store.Ops().Total("/write") - before; n != 0 {
			t.Fatalf("a re-spelt replay made %d writes", n)
		}
	}
	// The probe's retry (re-signed later) is a duplicate: 200, nothing written.
	e.clock.Advance(2 * time.Second)
	before := e.store.Ops().Total("/write")
	w = e.post(e.a.Request(e.clock.Now(), body))
	if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &ack) != nil || ack.Status != wire.AckDuplicate {
		t.Fatalf("retry: %d %s", w.Code, w.Body.String())
	}
	if n := e.store.Ops().Total("/write") - before; n != 0 {
		t.Fatalf("duplicate made %d writes", n)
	}
	st, err := e.store.GetState(t.Context(), "node-a")
	if err != nil || st.LastSeq != 1 || st.LastHash != wire.BodyHash(body) || st.Run.Count != 2 {
		t.Fatalf("state after one batch: %+v, %v", st, err)
	}
}

// upperFirstLetter upper-cases the first hex letter only (a mixed-case spelling).
func upperFirstLetter(h string) string {
	if i := strings.IndexAny(h, "abcdef"); i >= 0 {
		return h[:i] + strings.ToUpper(h[i:i+1]) + h[i+1:]
	}
	return h
}

func TestChainBreakIsEvidenceNotReject(t *testing.T) {
	e := newEnv(t)
	_, b1 := e.a.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
	if w := e.post(e.a.Request(t0, b1)); w.Code != 200 {
		t.Fatal(w.Body.String())
	}
	e.a.Prev = strings.Repeat("0", 64) // a forged or lost link
	e.clock.Advance(time.Minute)
	_, b2 := e.a.Batch(e.clock.Now(), apptest.Heartbeats(e.clock.Now(), 30*time.Second, 2)...)
	if w := e.post(e.a.Request(e.clock.Now(), b2)); w.Code != 200 {
		t.Fatalf("chain break rejected: %d %s", w.Code, w.Body.String())
	}
	ev, err := e.store.ListEvidence(t.Context(), "node-a", t0, t0.Add(time.Hour))
	if err != nil || len(ev) != 1 || ev[0].Kind != store.EvidenceChainBreak || ev[0].Seq != 2 {
		t.Fatalf("evidence = %+v, %v; want one chain break at seq 2", ev, err)
	}
	if _, err := e.store.GetBatch(t.Context(), "node-a", 2); err != nil {
		t.Fatalf("batch with a chain break not kept as evidence: %v", err)
	}
}

// key creates an API key with scopes and returns its token.
func (e *env) key(t *testing.T, scopes ...string) string {
	t.Helper()
	_, token, err := app.CreateAPIKey(t.Context(), e.store, "test", scopes, t0)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// get is GET path with token as the bearer ("" for none).
func get(h http.Handler, path, token string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestHealthAndViews(t *testing.T) {
	e := newEnv(t)
	_, body := e.a.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
	e.post(e.a.Request(t0, body))
	read := e.key(t, "read")
	for _, path := range []string{httpapi.PathHealth, httpapi.PathNodes, httpapi.PathIncidents + "?node=node-a"} {
		w := get(e.api, path, read)
		if w.Code != 200 {
			t.Fatalf("GET %s: %d %s", path, w.Code, w.Body.String())
		}
		if strings.Contains(w.Body.String(), "secret") {
			t.Fatalf("GET %s shows a secret: %s", path, w.Body.String())
		}
	}
	w := get(e.api, httpapi.PathIncidents+"?from=yesterday", read)
	if w.Code != 400 || decodeErr(t, w).Field != "from" {
		t.Fatalf("bad from: %d %s", w.Code, w.Body.String())
	}
}

// Every read view needs an API key with the read scope (or admin): none or
// a bad one is 401, a good one without the scope 403 naming it, and no
// refused answer carries any of the fleet's data. Health stays open.
func TestReadViewsNeedAKeyWithTheReadScope(t *testing.T) {
	e := newEnv(t)
	_, body := e.a.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
	if w := e.post(e.a.Request(t0, body)); w.Code != 200 {
		t.Fatalf("ingest: %d %s", w.Code, w.Body)
	}
	read, admin, both := e.key(t, "read"), e.key(t, "admin"), e.key(t, "read", "tickets")
	ticketsOnly := e.key(t, "tickets")
	legacy := e.key(t, "read")
	// A key stored before scopes existed: the ticket API alone.
	id, _, _ := app.ParseAPIKey(legacy)
	k, _ := e.store.GetAPIKey(t.Context(), id)
	k.Scopes = nil
	if err := e.store.UpdateAPIKey(t.Context(), k, k.Version); err != nil {
		t.Fatal(err)
	}
	revokedTok := e.key(t, "read")
	rid, _, _ := app.ParseAPIKey(revokedTok)
	if _, err := app.RevokeAPIKey(t.Context(), e.store, rid, t0); err != nil {
		t.Fatal(err)
	}
	flip := []byte(read)
	flip[len(flip)-1] ^= 1
	for _, path := range []string{httpapi.PathNodes, httpapi.PathIncidents + "?node=node-a"} {
		for _, c := range []struct {
			name, token string
			status      int
		}{
			{"no key", "", 401}, {"garbage", "hello", 401}, {"wrong secret", string(flip), 401}, {"revoked", revokedTok, 401},
			{"tickets scope only", ticketsOnly, 403}, {"key from before scopes", legacy, 403},
			{"read", read, 200}, {"read and tickets", both, 200}, {"admin", admin, 200},
		} {
			w := get(e.api, path, c.token)
			if w.Code != c.status {
				t.Errorf("GET %s with %s: %d %s, want %d", path, c.name, w.Code, w.Body, c.status)
				continue
			}
			if c.status == 200 {
				continue
			}
			we := decodeErr(t, w)
			if strings.Contains(w.Body.String(), "node-a") || strings.Contains(w.Body.String(), "revoked") || w.Header().Get("WWW-Authenticate") == "" {
				t.Errorf("GET %s with %s: refusal says too much or lacks WWW-Authenticate: %s", path, c.name, w.Body)
			}
			if c.status == 403 && (we.Field != "scope" || !strings.Contains(we.Error, `"read"`)) {
				t.Errorf("GET %s with %s: 403 %+v does not name the read scope", path, c.name, we)
			}
		}
	}
	if w := get(e.api, httpapi.PathHealth, ""); w.Code != 200 {
		t.Errorf("health without a key: %d", w.Code)
	}
}

// The probes' API (the ingest Lambda) serves ingest and health alone:
// every read view, with or without a key, is 404.
func TestIngestAPIServesIngestAlone(t *testing.T) {
	e := newEnv(t)
	ing := httpapi.NewIngest(e.svc, nil)
	admin := e.key(t, "admin")
	for _, path := range []string{httpapi.PathNodes, httpapi.PathIncidents, httpapi.PathTickets, "/metrics", "/status"} {
		for _, tok := range []string{"", admin} {
			if w := get(ing, path, tok); w.Code != 404 {
				t.Errorf("ingest API: GET %s (key %v): %d %s, want 404", path, tok != "", w.Code, w.Body)
			}
		}
	}
	if w := get(ing, httpapi.PathHealth, ""); w.Code != 200 {
		t.Errorf("ingest API health: %d", w.Code)
	}
	_, body := e.a.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
	req := e.a.Request(t0, body)
	r := httptest.NewRequest(http.MethodPost, httpapi.PathBatches, bytes.NewReader(req.Body))
	r.Header.Set(wire.HeaderNode, req.Node)
	r.Header.Set(wire.HeaderTimestamp, req.Timestamp)
	r.Header.Set(wire.HeaderSignature, req.Signature)
	w := httptest.NewRecorder()
	ing.ServeHTTP(w, r)
	if w.Code != 200 {
		t.Fatalf("ingest API: POST %s: %d %s", httpapi.PathBatches, w.Code, w.Body)
	}
}

// A body with no Content-Length (chunked) is cut at the limit by
// http.MaxBytesReader: still 413, nothing stored.
func TestIngestTooLargeWithoutContentLength(t *testing.T) {
	e := newEnv(t)
	big := bytes.Repeat([]byte("x"), wire.MaxBodyBytes+10)
	r := e.a.Request(t0, big)
	req := httptest.NewRequest(http.MethodPost, httpapi.PathBatches, io.MultiReader(bytes.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set(wire.HeaderNode, r.Node)
	req.Header.Set(wire.HeaderTimestamp, r.Timestamp)
	req.Header.Set(wire.HeaderSignature, r.Signature)
	before := e.store.Ops().Total("/write")
	w := httptest.NewRecorder()
	e.api.ServeHTTP(w, req)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d: %s", w.Code, w.Body.String())
	}
	if n := e.store.Ops().Total("/write") - before; n != 0 {
		t.Fatalf("%d writes", n)
	}
}

// TestRefusalFloodIsCountedNotLogged: a flood of forged batches writes one
// log line per reason, while every refusal is counted for /metrics.
func TestRefusalFloodIsCountedNotLogged(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := apptest.NewClock(t0)
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Clock: clock, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	p := apptest.AddNode(t, svc, "node-a")
	api := httpapi.New(svc, log)
	api.Refusals().SetClock(clock.Now)
	_, body := p.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
	reason := app.ErrUnknownNode.Error()
	before := testutil.ToFloat64(refusal.Refused.WithLabelValues("ingest", reason, "401"))
	const flood = 2000
	for i := range flood {
		r := p.Request(t0, body)
		r.Signature = "v1=" + strings.Repeat(fmt.Sprintf("%02x", i%256), 32) // forged
		req := httptest.NewRequest(http.MethodPost, httpapi.PathBatches, bytes.NewReader(r.Body))
		req.Header.Set(wire.HeaderNode, []string{"node-a", "node-zz"}[i%2]) // known and unknown: one reason
		req.Header.Set(wire.HeaderTimestamp, r.Timestamp)
		req.Header.Set(wire.HeaderSignature, r.Signature)
		w := httptest.NewRecorder()
		api.ServeHTTP(w, req)
		if w.Code != 401 {
			t.Fatalf("forged batch %d: %d", i, w.Code)
		}
	}
	if n := strings.Count(logs.String(), "request refused"); n != 1 {
		t.Fatalf("%d log lines for %d refusals of one reason, want 1:\n%.2000s", n, flood, logs.String())
	}
	if got := testutil.ToFloat64(refusal.Refused.WithLabelValues("ingest", reason, "401")) - before; got != flood {
		t.Fatalf("counted %v refusals, want %d", got, flood)
	}
}
