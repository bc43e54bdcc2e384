package logtext

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
	"time"
)

// TestDurationsAsText: a JSON log line says "retry_in":"602ms", in a group
// too, where the plain JSON handler writes 602000000; other values keep
// their JSON types.
func TestDurationsAsText(t *testing.T) {
	var b bytes.Buffer
	JSON(&b, slog.LevelInfo).Warn("delivery failed", "retry_in", 602*time.Millisecond, "attempt", 3,
		slog.Group("backoff", "max", 5*time.Minute))
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, b.String())
	}
	if got["retry_in"] != "602ms" || got["attempt"] != float64(3) {
		t.Errorf("retry_in %v attempt %v: %s", got["retry_in"], got["attempt"], b.String())
	}
	if g, _ := got["backoff"].(map[string]any); g["max"] != "5m0s" {
		t.Errorf("a duration in a group: %s", b.String())
	}
	b.Reset()
	JSON(&b, slog.LevelWarn).Info("quiet")
	if b.Len() != 0 {
		t.Errorf("below the level: %s", b.String())
	}
}
