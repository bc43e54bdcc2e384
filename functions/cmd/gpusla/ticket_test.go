package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
)

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
	t.Setenv(wiring.EnvTable, "")
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
	st, box, err := wiring.OpenData(data, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.AuthenticateAPIKey(t.Context(), st, token); err != nil {
		t.Fatalf("fresh token: %v", err)
	}
	svc, _ := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: box, Log: slog.New(slog.DiscardHandler)})
	book, _ := wiring.LoadTerms("../../../testdata/terms")
	desk, _ := svc.Tickets(book)
	if err := st.CreateNode(t.Context(), store.Node{ID: "gz-01", Provider: "acme", Contract: "cn-example", GPUCount: 8}); err != nil {
		t.Fatal(err)
	}
	tk, _, err := desk.Open(t.Context(), app.OpenRequest{Node: "gz-01", Priority: "P1", At: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	t.Setenv(wiring.EnvTerms, "../../../testdata/terms")
	out, err = runTicketCLI(t, "ticket", "list", "--data", data, "--open")
	if err != nil || !strings.Contains(out, tk.ID) || !strings.Contains(out, "BREACHED") {
		t.Fatalf("ticket list: %v\n%s", err, out)
	}

	if out, err := runTicketCLI(t, "apikey", "revoke", "--data", data, id); err != nil || !strings.Contains(out, "revoked "+id) {
		t.Fatalf("revoke: %v %s", err, out)
	}
	st, _, _ = wiring.OpenData(data, false)
	defer st.Close()
	if _, err := app.AuthenticateAPIKey(t.Context(), st, token); err == nil {
		t.Fatal("a revoked token still authenticates")
	}
}
