package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
)

// stoppedData is a data folder whose serve stopped on 10 November at
// 02:00 with gz-01 heard until then, and in which a second node was
// registered two days later with serve still stopped (gpusla node add
// opens the store only while serve does not run), and a ticket's answer
// recorded two hours after that; it returns the stop and that last record.
func stoppedData(t *testing.T) (data string, stop, last time.Time) {
	t.Helper()
	t.Setenv(wiring.EnvTable, "")
	data = t.TempDir()
	dir := filepath.Join(data, "terms")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cn-example.yaml"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	st, _, err := wiring.OpenData(data, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ordered := time.Date(2026, 10, 31, 9, 0, 0, 0, time.UTC)
	stop = time.Date(2026, 11, 10, 2, 0, 0, 0, time.UTC)
	added := stop.Add(48 * time.Hour)
	for _, n := range []store.Node{
		{ID: "gz-01", OrderedAt: ordered, CreatedAt: ordered},
		{ID: "gz-02", OrderedAt: added, CreatedAt: added},
	} {
		n.Provider, n.Contract, n.GPUCount, n.GPUModel = "Example Cloud (Shanghai)", "cn-example", 8, "H200"
		n.HeartbeatInterval, n.PushInterval, n.Grace = 30*time.Second, 60*time.Second, 2*time.Minute
		if err := st.CreateNode(t.Context(), n); err != nil {
			t.Fatal(err)
		}
	}
	from := ordered.Add(10 * time.Minute)
	if err := st.PutRun(t.Context(), store.HeartbeatRun{Node: "gz-01", From: from, To: stop, Count: int64(stop.Sub(from)/(30*time.Second)) + 1,
		ReceivedFrom: from.Add(time.Second), ReceivedTo: stop.Add(time.Second), MaxGap: 30 * time.Second, MaxDelay: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutBackendRun(t.Context(), store.BackendRun{ID: "serve@1", Start: ordered, LastTick: stop.Add(2 * time.Second), Stopped: true}, 0); err != nil {
		t.Fatal(err)
	}
	// And, later still, the provider's answer to a ticket recorded by hand:
	// the last record of all, which the exported log writes after the
	// nodes' records.
	answered := added.Add(2 * time.Hour)
	if err := st.CreateTicket(t.Context(), store.Ticket{ID: "T-1", Node: "gz-02", Priority: "P3", Opened: added.Add(time.Hour),
		Events: []store.TicketEvent{{Type: store.EventProviderResponded, At: answered, RecordedAt: answered}}}); err != nil {
		t.Fatal(err)
	}
	return data, stop, answered
}

// A record made with serve stopped (a node added two days after the stop)
// is what the store knows last, so the month is judged then; gz-01's
// silence since the stop is the backend's own outage, counted against no
// node — by report --data and by the report of the exported log alike —
// where before it was two days of gz-01 unreachable (no_data).
func TestReportAfterARecordMadeWithServeStopped(t *testing.T) {
	data, stop, last := stoppedData(t)
	log := filepath.Join(t.TempDir(), "month.jsonl")
	if out, err := runCLI(t, "export", "--data", data, "--month", "2026-11", "-o", log); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	for _, src := range [][]string{{"--data", data}, {"--events", log}} {
		out, err := runCLI(t, append([]string{"report", "--terms", filepath.Join(data, "terms"), "--month", "2026-11"}, src...)...)
		if err != nil {
			t.Fatalf("report %v: %v\n%.2000s", src, err, out)
		}
		var rep struct {
			AsOf  string `json:"as_of"`
			Nodes []struct {
				Node   string `json:"node"`
				Uptime struct {
					Claimable *float64 `json:"claimable_percent"`
				} `json:"uptime"`
				Outages []struct {
					Cause   string `json:"cause"`
					Start   string `json:"start"`
					End     string `json:"end"`
					Counted int64  `json:"counted_seconds"`
				} `json:"outages"`
			} `json:"nodes"`
		}
		if err := json.NewDecoder(strings.NewReader(out[strings.Index(out, "{"):])).Decode(&rep); err != nil {
			t.Fatalf("%v\n%.300s", err, out)
		}
		if rep.AsOf != last.Format(time.RFC3339) {
			t.Errorf("report %v judged as of %s, want the last record's %s", src, rep.AsOf, last.Format(time.RFC3339))
		}
		for _, n := range rep.Nodes {
			if n.Node != "gz-01" {
				continue
			}
			for _, o := range n.Outages {
				end, _ := time.Parse(time.RFC3339, o.End)
				if end.After(stop) && o.Counted > 0 {
					t.Errorf("report %v: gz-01 charged %d s (%s, %s – %s) of the time serve was stopped", src, o.Counted, o.Cause, o.Start, o.End)
				}
			}
			if n.Uptime.Claimable == nil || *n.Uptime.Claimable != 100 {
				t.Errorf("report %v: gz-01's claimable uptime %v, want 100 (heard throughout while serve ran): %+v", src, n.Uptime.Claimable, n.Outages)
			}
		}
	}
}
