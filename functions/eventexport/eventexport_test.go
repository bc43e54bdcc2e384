package eventexport

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

func TestSelect(t *testing.T) {
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		month, from, to string
		wantFrom        time.Time
		wantTo          time.Time
	}{
		// What the month's report reads (report.Window): the 8-day lookback
		// before the earliest zone's month (UTC+14), to two days after it.
		{month: "2026-03", wantFrom: utc("2026-02-20T00:00:00Z"), wantTo: utc("2026-04-03T00:00:00Z")},
		{month: "2026-12", wantFrom: utc("2026-11-22T00:00:00Z"), wantTo: utc("2027-01-03T00:00:00Z")},
		{from: "2026-03-01T08:00:00+08:00", to: "2026-03-02T00:00:00Z", wantFrom: utc("2026-03-01T00:00:00Z"), wantTo: utc("2026-03-02T00:00:00Z")},
		{from: "2026-03-01T00:00:00Z", wantFrom: utc("2026-03-01T00:00:00Z"), wantTo: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)},
		{to: "2026-03-01T00:00:00Z", wantFrom: time.Unix(0, 0), wantTo: utc("2026-03-01T00:00:00Z")},
	} {
		sel, err := Select(c.month, c.from, c.to, []string{"gz-01"})
		if err != nil {
			t.Errorf("%+v: %v", c, err)
			continue
		}
		if !sel.From.Equal(c.wantFrom) || !sel.To.Equal(c.wantTo) || len(sel.Nodes) != 1 {
			t.Errorf("%+v: [%v, %v) nodes %v", c, sel.From, sel.To, sel.Nodes)
		}
	}
	for _, c := range []struct{ month, from, to, want string }{
		{"2026-03", "2026-03-01T00:00:00Z", "", "--month and --from/--to"},
		{"March", "", "", `--month "March": want YYYY-MM`},
		{"", "yesterday", "", `--from "yesterday"`},
		{"", "", "2026-03-01", `--to "2026-03-01": want an RFC 3339 time`},
		{"", "2026-03-02T00:00:00Z", "2026-03-01T00:00:00Z", "--to must be after --from"},
		{"", "2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z", "--to must be after --from"},
	} {
		if _, err := Select(c.month, c.from, c.to, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v", c, err)
		}
	}
}

// The export goes to the file whole; a failure leaves the file as it was.
func TestToFile(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ordered := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := st.CreateNode(t.Context(), store.Node{ID: "gz-01", Provider: "p", Contract: "c", OrderedAt: ordered, GPUCount: 8, GPUModel: "H200"}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateNode(t.Context(), store.Node{ID: "gz-02", Provider: "p", Contract: "c", OrderedAt: ordered}); err != nil {
		t.Fatal(err)
	}
	sel, err := Select("2026-03", "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ev.jsonl")
	stats, err := ToFile(t.Context(), st, sel, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), `"type":"node_registered"`) || !strings.Contains(string(b), `"gz-01"`) {
		t.Fatalf("%v\n%s", err, b)
	}
	var msg bytes.Buffer
	Summary(&msg, stats)
	if want := "gpusla export: node gz-02 left out: it was registered without a GPU count"; !strings.Contains(msg.String(), want) ||
		!strings.Contains(msg.String(), "gpusla export: 1 events (1 nodes, 0 stored batches, 0 heartbeat runs)") {
		t.Fatalf("summary:\n%s", msg.String())
	}
	var stdout bytes.Buffer
	if _, err := ToFile(t.Context(), st, sel, "-", &stdout); err != nil || stdout.String() != string(b) {
		t.Fatalf("stdout export differs from the file one (%v):\n%s", err, stdout.String())
	}

	st.Close() // every read now fails
	if _, err := ToFile(t.Context(), st, sel, out, nil); err == nil || !strings.Contains(err.Error(), "write "+out) {
		t.Fatalf("export from a closed store: %v", err)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(after, b) {
		t.Fatalf("a failed export changed the file:\n%s", after)
	}
}
