package spool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpusla/gpusla/probe/wire"
)

// pendingFile holds staged observations, one JSON object a line. Appending
// a line and fsyncing it is the cheapest durable step there is, so the
// probe can observe every 30 s yet push (one request, one backend write)
// only once a minute without an observation ever living only in memory.
const pendingFile = "pending.jsonl"

// Stage appends observations to the pending file and syncs it; once it
// returns they survive kill -9 and are sent with the next Seal (or sealed
// when the spool is next opened). Each observation is validated here, so
// one that the wire format refuses cannot block the pending file later.
func (s *Spool) Stage(obs []wire.Observation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return errors.New("spool: closed")
	}
	var buf bytes.Buffer
	for i := range obs {
		if _, err := wire.Encode(s.newBatch(obs[i : i+1])); err != nil {
			return fmt.Errorf("spool: stage observation %d: %w", i, err)
		}
		line, err := json.Marshal(obs[i])
		if err != nil {
			return fmt.Errorf("spool: stage observation %d: %w", i, err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if buf.Len() == 0 {
		return nil
	}
	if s.pending == nil {
		f, err := os.OpenFile(filepath.Join(s.dir, pendingFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("spool: open pending file: %w", err)
		}
		// The new name must be durable too, not just the bytes in it.
		if err := syncDir(s.dir); err != nil {
			f.Close()
			return err
		}
		s.pending = f
	}
	if _, err := s.pending.Write(buf.Bytes()); err != nil {
		// Cut a partial line off, so later lines do not follow garbage.
		_ = s.pending.Truncate(s.pendingSize)
		return fmt.Errorf("spool: write pending file: %w", err)
	}
	if err := s.pending.Sync(); err != nil {
		_ = s.pending.Truncate(s.pendingSize)
		return fmt.Errorf("spool: sync pending file: %w", err)
	}
	s.pendingSize += int64(buf.Len())
	s.staged = append(s.staged, obs...)
	return nil
}

// Staged says how many observations wait in the pending file.
func (s *Spool) Staged() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.staged) - s.st.PendingDone
}

// Seal turns the staged observations into batches (usually one), each
// written durably and linked into the chain like Append's, then removes
// the pending file. It returns the sequence numbers created (none when
// nothing was staged).
func (s *Spool) Seal() ([]uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return nil, errors.New("spool: closed")
	}
	if len(s.staged) == 0 && s.pending == nil {
		return nil, nil // nothing staged: no file to remove, no state to write
	}
	return s.sealLocked()
}

func (s *Spool) sealLocked() ([]uint64, error) {
	var seqs []uint64
	for s.st.PendingDone < len(s.staged) {
		b, body, n, err := s.encodeNext(s.staged[s.st.PendingDone:])
		if err != nil {
			return seqs, err
		}
		// Say which batch is being made before it exists: see state.Sealing.
		s.st.Sealing = &sealing{Seq: b.Seq, Upto: s.st.PendingDone + n}
		if err := s.saveState(); err != nil {
			s.st.Sealing = nil
			return seqs, err
		}
		if err := s.writeBatch(b, body); err != nil {
			return seqs, err
		}
		seqs = append(seqs, b.Seq)
	}
	if err := s.clearPending(); err != nil {
		return seqs, err
	}
	if len(seqs) > 0 {
		if err := s.enforceCap(); err != nil {
			return seqs, err
		}
		s.signal()
	}
	return seqs, nil
}

// clearPending removes the fully sealed pending file. The file goes first
// and the count after: a crash in between leaves a count without a file,
// which recovery ignores, whereas the other order could seal the file's
// observations a second time.
func (s *Spool) clearPending() error {
	if s.pending != nil {
		s.pending.Close()
		s.pending = nil
	}
	if err := os.Remove(filepath.Join(s.dir, pendingFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("spool: remove sealed pending file: %w", err)
	}
	if err := syncDir(s.dir); err != nil {
		return err
	}
	s.staged, s.pendingSize = nil, 0
	if s.st.PendingDone == 0 && s.st.Sealing == nil {
		return nil
	}
	s.st.PendingDone, s.st.Sealing = 0, nil
	return s.saveState()
}

// recoverPending reads what a previous run staged and seals it.
func (s *Spool) recoverPending() error {
	// A Sealing mark still here means its batch never reached the disk
	// (recover adopts one that did): those observations are not sealed.
	s.st.Sealing = nil
	path := filepath.Join(s.dir, pendingFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s.clearPending()
	}
	if err != nil {
		return fmt.Errorf("spool: read pending file: %w", err)
	}
	// A line without its newline is a write that never returned: nobody
	// was promised it, and it is dropped.
	if i := bytes.LastIndexByte(raw, '\n'); i+1 < len(raw) {
		s.log.Warn("spool: pending file ends in a torn line; dropping it", "file", path, "bytes", len(raw)-i-1)
		raw = raw[:i+1]
	}
	var obs []wire.Observation
	for n, line := range bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var o wire.Observation
		err := json.Unmarshal(line, &o)
		if err == nil {
			// Stage validated it; one that no longer passes was damaged on
			// disk and would otherwise keep every start from sealing.
			_, err = wire.Encode(s.newBatch([]wire.Observation{o}))
		}
		if err != nil {
			s.log.Error("spool: pending file line is damaged; skipped", "file", path, "line", n+1, "err", err)
			continue
		}
		obs = append(obs, o)
	}
	if s.st.PendingDone > len(obs) {
		// Cannot happen with files this code wrote; sending some twice
		// beats losing any.
		s.log.Error("spool: pending file is shorter than its sealed count; sealing all of it",
			"file", path, "observations", len(obs), "sealed", s.st.PendingDone)
		s.st.PendingDone = 0
	}
	s.staged = obs
	if n := len(obs) - s.st.PendingDone; n > 0 {
		s.log.Info("spool: sealing observations staged before the last stop", "observations", n)
	}
	_, err = s.sealLocked()
	return err
}
