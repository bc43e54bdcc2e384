package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

// TestServeTicketRoutes: what `gpusla serve` wires — the ticket API on the
// same mux as ingest, the Slack endpoints only with a signing secret, terms
// from <data>/terms — answers like the Lambda would.
func TestServeTicketRoutes(t *testing.T) {
	data := t.TempDir()
	if err := os.MkdirAll(filepath.Join(data, "terms"), 0o700); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "terms", "cn.yaml"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envTerms, "")
	st, err := bolt.Open(filepath.Join(data, "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log := slog.New(slog.DiscardHandler)
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateNode(t.Context(), store.Node{ID: "gz-01", Provider: "acme", Contract: "cn-example", GPUCount: 8, OrderedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	_, token, err := app.CreateAPIKey(t.Context(), st, "test", time.Now())
	if err != nil {
		t.Fatal(err)
	}

	for _, secret := range []string{"", "s3cret"} {
		t.Setenv(envSlackSigningSecret, secret)
		api := httpapi.New(svc, log)
		td, err := setupTickets(svc, api, data, log)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(api)
		req, _ := http.NewRequest("POST", srv.URL+httpapi.PathTickets, bytes.NewBufferString(`{"node":"gz-01","priority":"P2","provider_ref":"X-1"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var v httpapi.TicketView
		_ = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated || v.Timing == nil || v.Timing.TimeZone != "Asia/Shanghai" {
			t.Fatalf("open through serve's mux: %d %+v", resp.StatusCode, v)
		}
		sresp, err := http.Post(srv.URL+"/slack/commands", "application/x-www-form-urlencoded", strings.NewReader("command=%2Fgpusla"))
		if err != nil {
			t.Fatal(err)
		}
		sresp.Body.Close()
		want := http.StatusNotFound // not served without a signing secret
		if secret != "" {
			want = http.StatusUnauthorized // served, and unsigned requests are refused
		}
		if sresp.StatusCode != want {
			t.Fatalf("slack endpoint with secret %q: %d, want %d", secret, sresp.StatusCode, want)
		}
		td.watch(t.Context())
		td.close()
		srv.Close()
	}
}

// runTicketCLI executes the gpusla root command with args and returns its stdout.
func runTicketCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// TestAPIKeyAndTicketCommands: `gpusla apikey create|list|revoke` and
// `gpusla ticket list` on a data folder: the token is printed once and
// works until revoked; the list shows each ticket's clock.
func TestAPIKeyAndTicketCommands(t *testing.T) {
	t.Setenv(envServeTable, "")
	data := t.TempDir()
	if _, err := runTicketCLI(t, "apikey", "list", "--data", data); err == nil || !strings.Contains(err.Error(), "has no store") {
		t.Fatalf("list on an empty folder: %v", err)
	}
	token, err := runTicketCLI(t, "apikey", "create", "--data", data, "--name", "ops laptop")
	if err != nil {
		t.Fatal(err)
	}
	token = strings.TrimSpace(token)
	id, _, err := app.ParseAPIKey(token)
	if err != nil {
		t.Fatalf("printed token %q: %v", token, err)
	}
	out, err := runTicketCLI(t, "apikey", "list", "--data", data)
	if err != nil || !strings.Contains(out, id) || !strings.Contains(out, "ops laptop") || strings.Contains(out, token[13:]) {
		t.Fatalf("list: %v\n%s", err, out)
	}

	// A ticket on a node of the example contract, then the list.
	st, box, err := openData(data, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.AuthenticateAPIKey(t.Context(), st, token); err != nil {
		t.Fatalf("fresh token: %v", err)
	}
	svc, _ := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: box, Log: slog.New(slog.DiscardHandler)})
	book, _ := app.LoadTerms("../../../testdata/terms")
	desk, _ := svc.Tickets(book)
	if err := st.CreateNode(t.Context(), store.Node{ID: "gz-01", Provider: "acme", Contract: "cn-example", GPUCount: 8}); err != nil {
		t.Fatal(err)
	}
	tk, _, err := desk.Open(t.Context(), app.OpenRequest{Node: "gz-01", Priority: "P1", At: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	t.Setenv(envTerms, "../../../testdata/terms")
	out, err = runTicketCLI(t, "ticket", "list", "--data", data, "--open")
	if err != nil || !strings.Contains(out, tk.ID) || !strings.Contains(out, "BREACHED") {
		t.Fatalf("ticket list: %v\n%s", err, out)
	}

	if out, err := runTicketCLI(t, "apikey", "revoke", "--data", data, id); err != nil || !strings.Contains(out, "revoked "+id) {
		t.Fatalf("revoke: %v %s", err, out)
	}
	st, _, _ = openData(data, false)
	defer st.Close()
	if _, err := app.AuthenticateAPIKey(t.Context(), st, token); err == nil {
		t.Fatal("a revoked token still authenticates")
	}
}
