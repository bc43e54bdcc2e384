package spool

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
)

// A full disk must not stop the watchdog: the renter's job filling the
// node's disk is exactly when the provider's SLA still needs evidence. So
// when the disk refuses a write for want of space, the spool keeps going
// from memory (see the package doc, "Disk full"):
//
//   - a batch it cannot write is held in memory (Spool.mem) and sent from
//     there like any other; the chain (seq, prev) moves on in memory;
//   - the cap (MaxBytes) counts held batches too, and drops the oldest
//     with a drop report that names the seqs, how many observations they
//     held and the interval they covered;
//   - state.json is kept current with the help of a small reserve file,
//     deleted at the first full-disk error so that the chain and the list
//     of batches held in memory still reach the disk; a restart then
//     reports those held batches as dropped instead of reusing their seqs;
//   - the first write that succeeds again moves held batches to disk.
const (
	reserveFile  = "reserve"
	reserveBytes = 64 << 10
	dropMemory   = "held in memory only (spool disk full) when the probe stopped; some may have been delivered"
)

// diskFull reports whether err means the file system has no room (or no
// quota) left: the one write failure the spool rides out in memory.
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// Full returns how many batches the spool holds in memory and the
// full-disk error that put them there; 0 and nil when the disk takes writes.
func (s *Spool) Full() (held int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.mem), s.full
}

// hold keeps a batch the disk had no room for in memory.
func (s *Spool) hold(seq uint64, body []byte, err error) {
	if s.mem == nil {
		s.mem = map[uint64][]byte{}
	}
	s.mem[seq] = body
	s.noRoom(err)
}

// noRoom records that the disk refused a write for want of space.
func (s *Spool) noRoom(err error) {
	if s.full == nil {
		s.log.Error("spool: disk full; keeping batches in memory and sending them from there until it has room",
			"dir", s.dir, "err", err)
	}
	s.full = err
}

// stillFull says whether a batch should skip the disk: while the spool
// rides out a full disk, a batch goes to disk again only once there is
// room for it and the reserve twice over, so the space the released
// reserve freed keeps the state file current instead of taking the next
// batch.
func (s *Spool) stillFull() bool {
	if s.full == nil {
		return false
	}
	return !s.roomy()
}

// roomy says whether the spool's file system has room for the reserve
// twice over.
func (s *Spool) roomy() bool {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(s.dir, &fs); err != nil {
		return false
	}
	return int64(fs.Bavail)*fs.Bsize >= 2*reserveBytes
}

// roomAgain is called after a batch reached the disk: the reserve is made
// again, then held batches go to disk (oldest first, stopping at the first
// that does not fit).
func (s *Spool) roomAgain() {
	if !s.reserved && s.roomy() {
		s.ensureReserve()
	}
	for _, seq := range slices.Sorted(maps.Keys(s.mem)) {
		if err := writeFileAtomic(s.dir, filepath.Base(s.path(seq)), s.mem[seq]); err != nil {
			if !diskFull(err) {
				s.log.Error("spool: cannot move a batch held in memory to disk", "seq", seq, "err", err)
			}
			return
		}
		delete(s.mem, seq)
	}
	if s.full != nil {
		s.log.Info("spool: disk has room again; batches held in memory are on disk", "dir", s.dir)
		s.full = nil
	}
}

// ensureReserve writes the reserve file if it is missing; on a disk with
// no room for it the spool runs without one.
func (s *Spool) ensureReserve() {
	path := filepath.Join(s.dir, reserveFile)
	if _, err := os.Stat(path); err == nil {
		s.reserved = true
		return
	}
	if err := writeFileAtomic(s.dir, reserveFile, make([]byte, reserveBytes)); err != nil {
		s.log.Warn("spool: no room for the reserve file; state may not be saved if the disk fills", "err", err)
		return
	}
	s.reserved = true
}

// releaseReserve deletes the reserve file, reporting whether there was one
// to free.
func (s *Spool) releaseReserve() bool {
	err := os.Remove(filepath.Join(s.dir, reserveFile))
	s.reserved = false
	if err == nil {
		s.log.Warn("spool: disk full; released the reserve file to keep the state current", "dir", s.dir)
		_ = syncDir(s.dir)
	}
	return err == nil
}

// readBody returns the exact body of a spooled batch, from memory or disk.
func (s *Spool) readBody(seq uint64) ([]byte, error) {
	if body, ok := s.mem[seq]; ok {
		return body, nil
	}
	return os.ReadFile(s.path(seq))
}

// lostAtStart reports, as a drop, the batches a previous run held in
// memory when it stopped: they are gone, and their seqs are not reused.
func (s *Spool) lostAtStart() {
	s.started = true
	if len(s.st.Memory) == 0 {
		return
	}
	onDisk := map[uint64]bool{}
	for _, it := range s.items {
		onDisk[it.seq] = true
	}
	var lost []uint64
	for _, seq := range s.st.Memory {
		if !onDisk[seq] {
			lost = append(lost, seq)
		}
	}
	s.st.Memory = nil
	if len(lost) > 0 {
		s.log.Warn("spool: batches held in memory by the last run are lost; reporting them as dropped",
			"batches", len(lost), "from_seq", lost[0], "to_seq", lost[len(lost)-1])
		s.st.Drop = mergeDrop(s.st.Drop, &wire.Drop{Batches: len(lost), FromSeq: lost[0], ToSeq: lost[len(lost)-1], Reason: dropMemory})
	}
}

// mergeDrop adds drop report b to a (either may be nil) into a new one.
// The reason stays bounded however many drops merge: each distinct cause
// once, then one observation span covering them all.
func mergeDrop(a, b *wire.Drop) *wire.Drop {
	if a == nil {
		c := *b
		return &c
	}
	baseA, spA := splitReason(a.Reason)
	baseB, spB := splitReason(b.Reason)
	for _, part := range strings.Split(baseB, "; ") {
		if part != "" && !slices.Contains(strings.Split(baseA, "; "), part) {
			if baseA != "" {
				baseA += "; "
			}
			baseA += part
		}
	}
	return &wire.Drop{Batches: a.Batches + b.Batches, FromSeq: min(a.FromSeq, b.FromSeq), ToSeq: max(a.ToSeq, b.ToSeq),
		Reason: joinReason(baseA, spA.merge(spB))}
}

// obsSpan is what dropped batches held: how many observations and the
// interval (probe clock, UTC) they covered.
type obsSpan struct {
	n           int
	first, last time.Time
}

func (a obsSpan) merge(b obsSpan) obsSpan {
	switch {
	case a.n == 0:
		return b
	case b.n == 0:
		return a
	}
	if b.first.Before(a.first) {
		a.first = b.first
	}
	if b.last.After(a.last) {
		a.last = b.last
	}
	a.n += b.n
	return a
}

// spanSep introduces the span at the end of a drop reason.
const spanSep = " — "

func joinReason(base string, sp obsSpan) string {
	switch {
	case sp.n == 0:
		return base
	case sp.first.Equal(sp.last):
		return fmt.Sprintf("%s%s%d observations at %s", base, spanSep, sp.n, sp.first.UTC().Format(time.RFC3339))
	}
	// An ISO 8601 interval, start/end: short, since it rides in a batch.
	return fmt.Sprintf("%s%s%d observations %s/%s", base, spanSep, sp.n,
		sp.first.UTC().Format(time.RFC3339), sp.last.UTC().Format(time.RFC3339))
}

// splitReason undoes joinReason; a reason without a span (an older
// probe's) is all base.
func splitReason(r string) (string, obsSpan) {
	i := strings.LastIndex(r, spanSep)
	if i < 0 {
		return r, obsSpan{}
	}
	var sp obsSpan
	var when string
	if n, err := fmt.Sscanf(r[i+len(spanSep):], "%d observations at %s", &sp.n, &when); n != 2 || err != nil {
		if n, err := fmt.Sscanf(r[i+len(spanSep):], "%d observations %s", &sp.n, &when); n != 2 || err != nil {
			return r, obsSpan{}
		}
	}
	first, last, ok := strings.Cut(when, "/")
	if !ok {
		last = first
	}
	var err1, err2 error
	sp.first, err1 = time.Parse(time.RFC3339, first)
	sp.last, err2 = time.Parse(time.RFC3339, last)
	if err1 != nil || err2 != nil || sp.n <= 0 {
		return r, obsSpan{}
	}
	return r[:i], sp
}

// span measures the observations in batch bodies.
func span(bodies [][]byte) obsSpan {
	var sp obsSpan
	for _, body := range bodies {
		b, err := wire.Decode(body)
		if err != nil {
			continue
		}
		for _, o := range b.Observations {
			sp = sp.merge(obsSpan{n: 1, first: o.At, last: o.At})
		}
	}
	return sp
}
