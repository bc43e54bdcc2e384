package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
)

// gpusla export writes the tickets too (as the backend's own month report
// reads them); --node keeps only that node's tickets, with their later
// events. Found by functions/e2e: the offline report had lost every
// late-response penalty.
func TestExportIncludesTickets(t *testing.T) {
	dir := t.TempDir()
	st, _, err := wiring.OpenData(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	opened := time.Date(2026, 11, 3, 2, 0, 0, 0, time.UTC)
	for _, n := range []string{"gz-01", "gz-02"} {
		if err := st.CreateNode(t.Context(), store.Node{ID: n, Provider: "p", Contract: "cn-example", OrderedAt: opened.Add(-time.Hour), GPUCount: 8, GPUModel: "H200"}); err != nil {
			t.Fatal(err)
		}
		tk := store.Ticket{ID: "T-" + strings.ReplaceAll(n, "-", ""), Node: n, Priority: "P1", Opened: opened,
			Events: []store.TicketEvent{{Type: store.EventProviderResponded, At: opened.Add(time.Hour), RecordedAt: opened.Add(time.Hour)}}}
		if err := st.CreateTicket(t.Context(), tk); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	export := func(args ...string) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), "ev.jsonl")
		root := newRoot()
		var msgs bytes.Buffer
		root.SetOut(&msgs)
		root.SetErr(&msgs)
		root.SetArgs(append([]string{"export", "--data", dir, "--month", "2026-11", "-o", out}, args...))
		if err := root.Execute(); err != nil {
			t.Fatalf("export %v: %v\n%s", args, err, msgs.String())
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	all := export()
	for _, want := range []string{`"type":"ticket_opened","id":"T-gz01/opened"`, `"type":"ticket_opened","id":"T-gz02/opened"`, `"ticket":"T-gz02"`} {
		if !strings.Contains(all, want) {
			t.Errorf("export lacks %s:\n%s", want, all)
		}
	}
	one := export("--node", "gz-01")
	if !strings.Contains(one, `"T-gz01/opened"`) || !strings.Contains(one, `"T-gz01/1/`) || strings.Contains(one, "T-gz02") {
		t.Errorf("export --node gz-01 should hold T-gz01 with its response and nothing of T-gz02:\n%s", one)
	}
}
