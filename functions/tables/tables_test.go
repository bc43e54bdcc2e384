package tables

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/incident"
)

func openBolt(t *testing.T) *bolt.Store {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// rows splits a table into its lines' fields.
func rows(out string) [][]string {
	var r [][]string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		r = append(r, strings.Fields(l))
	}
	return r
}

// A node that never pushed says so ("no heartbeat yet", not "unreachable
// false"); one that did shows its last sequence number, receive time and
// whether it is unreachable; a released one when it was released.
func TestNodes(t *testing.T) {
	st := openBolt(t)
	ctx := t.Context()
	for _, n := range []store.Node{{ID: "gz-02", Provider: "acme", Contract: "c2", GPUCount: 4}, {ID: "gz-01", Provider: "acme", Contract: "c1", GPUCount: 8}} {
		if err := st.CreateNode(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 3, 1, 1, 2, 3, 0, time.UTC)
	if _, err := st.PutState(ctx, store.NodeState{Node: "gz-02", LastSeq: 17, LastReceivedAt: at,
		Eval: incident.State{Unreachable: &incident.Gap{}}}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ReleaseNode(ctx, "gz-02", store.Release{At: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Nodes(ctx, &out, st); err != nil {
		t.Fatal(err)
	}
	got := rows(out.String())
	want := [][]string{
		{"NODE", "PROVIDER", "CONTRACT", "GPUS", "LAST", "SEQ", "LAST", "RECEIVED", "STATE", "RELEASED", "AT"},
		{"gz-01", "acme", "c1", "8", "-", "-", "no", "heartbeat", "yet", "-"},
		{"gz-02", "acme", "c2", "4", "17", "2026-03-01T01:02:03Z", "unreachable", "2026-03-01T02:02:03Z"},
	}
	if len(got) != len(want) {
		t.Fatalf("table:\n%s", out.String())
	}
	for i := range want {
		if strings.Join(got[i], " ") != strings.Join(want[i], " ") {
			t.Errorf("row %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// brokenState is the real store whose state reads fail with something
// other than "not found", as a DynamoDB throttle would.
type brokenState struct{ *bolt.Store }

func (brokenState) GetState(context.Context, string) (store.NodeState, error) {
	return store.NodeState{}, errors.New("throttled")
}

// A failed state read stops the table: the node must not show as never
// heard of.
func TestNodesStateError(t *testing.T) {
	st := openBolt(t)
	if err := st.CreateNode(t.Context(), store.Node{ID: "gz-01", Provider: "acme", Contract: "c1", GPUCount: 8}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Nodes(t.Context(), &out, brokenState{st}); err == nil || !strings.Contains(err.Error(), "node gz-01: throttled") {
		t.Fatalf("got %v, want the node and the failure named", err)
	}
}

func TestAPIKeys(t *testing.T) {
	created := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	err := APIKeys(&out, []store.APIKey{
		{ID: "k1", Name: "ops", Hash: "secret-hash", CreatedAt: created},
		{ID: "k2", Name: "ci", Hash: "secret-hash", Scopes: []string{"read", "tickets"}, CreatedAt: created, RevokedAt: created.Add(time.Hour)},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := rows(out.String())
	if len(got) != 3 || strings.Join(got[1], " ") != "k1 ops tickets (from before scopes) 2026-03-01T00:00:00Z -" ||
		strings.Join(got[2], " ") != "k2 ci read,tickets 2026-03-01T00:00:00Z 2026-03-01T01:00:00Z" || strings.Contains(out.String(), "secret-hash") {
		t.Fatalf("table:\n%s", out.String())
	}
}

// Tickets are timed by the real desk on the example contract: a P1 opened
// an hour ago with no response is breached; a ticket on a contract not
// loaded keeps its row with the reason.
func TestTickets(t *testing.T) {
	st := openBolt(t)
	ctx := t.Context()
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	book, err := wiring.LoadTerms("../../testdata/terms")
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateNode(ctx, store.Node{ID: "gz-01", Provider: "acme", Contract: "cn-example", GPUCount: 8}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	tk, _, err := desk.Open(ctx, app.OpenRequest{Node: "gz-01", Priority: "P1", At: now.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	lost := store.Ticket{ID: "T-lost", Node: "gz-09", Contract: "gone", Priority: "P2", Opened: now}
	var out bytes.Buffer
	if err := Tickets(&out, desk, []store.Ticket{tk, lost}, now); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "TICKET") || !strings.HasPrefix(lines[1], tk.ID) ||
		!strings.Contains(lines[1], "BREACHED") || !strings.Contains(lines[2], `T-lost`) || !strings.Contains(lines[2], `contract "gone" is not loaded`) {
		t.Fatalf("table:\n%s", out.String())
	}
}

// TestClaimsWindowFlags: tencent-cvm's March 2026 claim opens on 9 April
// 00:00 Beijing ("第五（5）个工作日后"). A draft before then is flagged with the
// day it opens, in the contract's zone; one sent a second before the
// opening is flagged SENT-BEFORE-WINDOW-OPENED; one sent at it, neither.
func TestClaimsWindowFlags(t *testing.T) {
	opens := time.Date(2026, 4, 8, 16, 0, 0, 0, time.UTC)
	c := claims.Claim{ID: "tencent-cvm/2026-03", Provider: "Tencent Cloud", Month: "2026-03", Amount: 1488000, Currency: "CNY",
		Deadline: time.Date(2026, 5, 30, 16, 0, 0, 0, time.UTC), Opens: opens, TimeZone: "Asia/Shanghai"}
	row := func(c claims.Claim, now time.Time) string {
		var b strings.Builder
		if err := Claims(&b, []ClaimRow{{Claim: c, Status: c.StatusAt(claims.Deadlines{}, now)}}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if out := row(c, opens.Add(-time.Second)); !strings.Contains(out, " opens-2026-04-09\n") {
		t.Errorf("a draft before the opening:\n%s", out)
	}
	if out := row(c, opens); strings.Contains(out, "opens-") || !strings.HasSuffix(out, " -\n") {
		t.Errorf("a draft at the opening:\n%s", out)
	}
	for _, at := range []time.Time{opens.Add(-time.Second), opens} {
		sent := c
		sent.Sent = &claims.Sent{At: at, Via: "ticket"}
		if out := row(sent, opens.Add(time.Hour)); strings.Contains(out, "SENT-BEFORE-WINDOW-OPENED") != at.Before(opens) {
			t.Errorf("sent at %s:\n%s", at.Format(time.RFC3339), out)
		}
	}
}
