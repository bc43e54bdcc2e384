package events

import (
	"strings"
	"testing"
	"time"
)

// TestLastKnown: a log's last known instant is its latest receipt or
// recording, whatever instant an event claims: a notice recorded late
// counts from its recording, a run from its last heartbeat's receipt, the
// backend's own outage from its end; an old log without receipt times
// from when its events happened.
func TestLastKnown(t *testing.T) {
	for _, c := range []struct{ log, want string }{
		{`{"type":"node_registered","id":"r","node":"n","contract":"c","ordered_at":"2026-03-01T00:00:00Z","hardware":{"gpu_model":"H200","gpu_count":8}}
{"type":"heartbeat_run","id":"h","node":"n","at":"2026-03-01T01:00:00Z","received_at":"2026-03-01T01:00:01Z","last_at":"2026-03-03T00:00:00Z","last_received_at":"2026-03-03T00:00:02Z","count":2821,"heartbeat_interval_s":60,"max_gap_ms":60000,"max_delay_ms":2000}
{"type":"maintenance","id":"m","node":"n","start":"2026-03-02T00:00:00Z","end":"2026-03-02T02:00:00Z","announced_at":"2026-02-20T00:00:00Z","recorded_at":"2026-03-04T09:00:00Z"}
`, "2026-03-04T09:00:00Z"},
		{`{"type":"backend_outage","id":"b","start":"2026-03-05T00:00:00Z","end":"2026-03-05T03:00:00Z"}
{"type":"node_registered","id":"r","node":"n","contract":"c","ordered_at":"2026-03-01T00:00:00Z","hardware":{"gpu_model":"H200","gpu_count":8}}
`, "2026-03-05T03:00:00Z"},
		{``, "0001-01-01T00:00:00Z"},
	} {
		got, err := LastKnown("events.jsonl", strings.NewReader(c.log))
		if err != nil {
			t.Fatal(err)
		}
		if got.UTC().Format(time.RFC3339) != c.want {
			t.Errorf("last known %s, want %s\n%s", got.UTC().Format(time.RFC3339), c.want, c.log)
		}
	}
	if _, err := LastKnown("events.jsonl", strings.NewReader("{oops\n")); err == nil || !strings.Contains(err.Error(), "events.jsonl:1") {
		t.Errorf("a malformed line: %v", err)
	}
}
