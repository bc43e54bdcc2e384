package refusal

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestFloodWritesOneLinePerReason: 11 000 refusals for two reasons within
// one interval write two lines, count all 11 000, and the next refusal of
// a reason after the interval says how many were left out.
func TestFloodWritesOneLinePerReason(t *testing.T) {
	var buf bytes.Buffer
	l := New("test-flood", slog.New(slog.NewTextHandler(&buf, nil)), time.Minute)
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	l.SetClock(func() time.Time { return now })
	ctx := context.Background()
	for i := range 11000 {
		reason := "signature does not match"
		if i%2 == 1 {
			reason = "field observations[" + string(rune('0'+i%10)) + "].kind"
		}
		l.Refused(ctx, reason, 401, "remote", "127.0.0.1:1")
		now = now.Add(time.Millisecond) // 11 s in all: inside one interval
	}
	if n := strings.Count(buf.String(), "\n"); n != 2 {
		t.Fatalf("%d log lines for 11 000 refusals of 2 reasons, want 2:\n%s", n, buf.String())
	}
	sig := testutil.ToFloat64(Refused.WithLabelValues("test-flood", "signature does not match", "401"))
	field := testutil.ToFloat64(Refused.WithLabelValues("test-flood", "field observations[].kind", "401"))
	if sig != 5500 || field != 5500 {
		t.Fatalf("counted %v and %v, want 5500 each (indices folded into one reason)", sig, field)
	}
	buf.Reset()
	now = now.Add(time.Minute)
	l.Refused(ctx, "signature does not match", 401)
	if s := buf.String(); !strings.Contains(s, "more_since_last_line=5499") || !strings.Contains(s, "surface=test-flood") {
		t.Fatalf("line after the interval: %s", s)
	}
}
