package spool

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
)

// BenchmarkHeartbeatRoundTrip is the spool's share of one heartbeat: the
// durable append (batch file and chain state, each temp+fsync+rename+dir
// fsync) and, after the ack, the read and the delete.
func BenchmarkHeartbeatRoundTrip(b *testing.B) {
	s, err := Open(Options{Dir: b.TempDir(), MaxBytes: 1 << 30, Node: "bench", Probe: "bench",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	obs := []wire.Observation{{At: time.Now().UTC(), Kind: wire.KindHeartbeat}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Append(obs); err != nil {
			b.Fatal(err)
		}
		it, ok, err := s.Oldest()
		if err != nil || !ok {
			b.Fatal(err)
		}
		if err := s.Ack(it.Seq); err != nil {
			b.Fatal(err)
		}
	}
}
