package spool

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
)

// FuzzOpenDamagedSpool writes arbitrary bytes where the state file and the
// newest batch live (a disk that lied, a hand edit): Open must refuse with
// an error or come up consistent (next append continues the chain), and
// never panic.
func FuzzOpenDamagedSpool(f *testing.F) {
	f.Add([]byte(`{"node":"node-1","next_seq":3,"prev":""}`), []byte(`{"v":1}`))
	f.Add([]byte(`{"node":"node-1","next_seq":1,"dropping":[1,2]}`), []byte{})
	f.Add([]byte(`not json`), []byte(`{"v":1,"id":"x","node":"node-1","seq":2,"created_at":"2026-11-30T10:00:00Z","observations":[]}`))
	f.Fuzz(func(t *testing.T, state, batch []byte) {
		dir := t.TempDir()
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		s, err := Open(Options{Dir: dir, MaxBytes: 1 << 20, Node: "node-1", Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		s.Append([]wire.Observation{{At: time.Now().UTC(), Kind: wire.KindHeartbeat}})
		s.Close()
		os.WriteFile(filepath.Join(dir, stateFile), state, 0o600)
		os.WriteFile(filepath.Join(dir, "00000000000000000002.batch"), batch, 0o600)
		s, err = Open(Options{Dir: dir, MaxBytes: 1 << 20, Node: "node-1", Logger: quiet})
		if err != nil {
			return // refused with a reason: fine
		}
		defer s.Close()
		seqs, err := s.Append([]wire.Observation{{At: time.Now().UTC(), Kind: wire.KindHeartbeat}})
		if err != nil {
			return
		}
		body, err := os.ReadFile(s.path(seqs[0]))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := wire.Decode(body); err != nil {
			t.Fatalf("appended batch does not decode: %v", err)
		}
	})
}
