// Package spool is the probe's durable outbox. Every batch is encoded, signed
// into the hash chain and written to disk before anyone tries to send it, and
// it leaves the disk only when the backend has acknowledged it. A kill -9 or a
// power cut at any instant leaves the spool either before or after each step,
// never in between: files are written to a temporary name, synced, renamed
// and the directory synced (the POSIX recipe for an atomic durable write).
//
// Step 4 of the observation pipeline (read, judge, observe, spool, push):
// the durable outbox between the daemon's observations and their delivery.
//
// Layout of the directory:
//
//	state.json              next sequence number, hash of the last batch, pending drop report
//	00000000000000000042.batch   the exact body of batch 42, as it will be signed and sent
//	pending.jsonl           observations staged (Stage) but not yet sealed into a batch (Seal)
//	rejected/…              batches the backend refused for good (kept for inspection)
//	lock                    flock held while a daemon owns the spool
//	reserve                 64 KiB of zeros, deleted to make room for state.json on a full disk
//
// # Drop reports
//
// Whatever leaves the spool unsent (the cap, a refusal, a damaged file, a
// full disk) is reported in the next batch's wire.Drop: batches counts
// them, from_seq and to_seq bound their sequence numbers, and reason names
// each cause once and ends with what they held, " — N observations
// START/END" (ISO 8601 interval, probe clock; "at T" for one instant). The
// backend stores the drop as evidence (EvidenceDrop) and the report shows
// it. Reports of dropped batches that themselves carried one are merged
// forward, so the reason stays bounded.
//
// # Disk full
//
// A write refused for want of space (ENOSPC, EDQUOT) does not stop the
// probe: batches are held in memory and sent from there, the cap counts
// them, the reserve file is released so state.json stays current (it lists
// the held batches), a restart on the full disk works and reports what the
// last run held as dropped, and once the disk has room the held batches go
// to disk. See full.go.
package spool

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gpusla/gpusla/internal/atomicfile"
	"github.com/gpusla/gpusla/probe/wire"
)

const (
	stateFile   = "state.json"
	batchExt    = ".batch"
	lockFile    = "lock"
	rejectDir   = "rejected"
	seqDigits   = 20
	dropFull    = "spool full"
	dropReject  = "rejected by backend"
	dropCorrupt = "damaged on disk"
)

// Options configure Open.
type Options struct {
	Dir      string
	MaxBytes int64  // cap on the bytes of unsent batches; oldest dropped first
	Node     string // node id written into every batch
	Probe    string // probe version written into every batch
	Now      func() time.Time
	Logger   *slog.Logger
}

// Item is one spooled batch, ready to sign and send.
type Item struct {
	Seq  uint64
	ID   string
	Body []byte
}

// state is what must survive a restart besides the batches themselves: it
// carries the chain (next seq, previous hash) across an empty spool.
type state struct {
	Node    string `json:"node"`
	NextSeq uint64 `json:"next_seq"`
	Prev    string `json:"prev"`
	// Chain is this chain's id (wire.Batch.Chain), chosen when the state is
	// created; a spool state written before chains existed has none.
	Chain string     `json:"chain,omitempty"`
	Drop  *wire.Drop `json:"drop,omitempty"` // not yet reported in a batch
	// Dropping lists the batches a drop removes; it is written before the
	// files are deleted so that a crash in between is finished on restart.
	Dropping    []uint64 `json:"dropping,omitempty"`
	ClockSkewMS int64    `json:"clock_skew_ms"`
	// PendingDone counts the observations at the head of pending.jsonl
	// already sealed into batches (a big pending file is sealed into
	// several batches, one durable step at a time).
	PendingDone int `json:"pending_done,omitempty"`
	// Sealing is written before a batch made from pending observations
	// reaches the disk: if the process dies after the batch file lands but
	// before this state moves on, recovery knows those observations are in
	// that batch and does not seal them twice.
	Sealing *sealing `json:"sealing,omitempty"`
	// Memory lists the batches held only in memory (the disk was full)
	// when the state was last saved; a restart reports them as dropped.
	Memory []uint64 `json:"memory,omitempty"`
}

type sealing struct {
	Seq  uint64 `json:"seq"`  // the batch being written
	Upto int    `json:"upto"` // PendingDone once it is written
}

type entry struct {
	seq  uint64
	size int64
}

// Spool is safe for concurrent use: collectors append while the sender reads
// and acknowledges.
type Spool struct {
	dir   string
	max   int64
	probe string
	now   func() time.Time
	log   *slog.Logger
	lock  *os.File

	mu    sync.Mutex
	st    state
	items []entry // ascending seq
	bytes int64
	ready chan struct{}
	// inflight is the batch Oldest last handed out and not yet acked; the
	// cap does not drop it, so a drop report never names a batch the
	// backend received.
	inflight uint64

	// staged mirrors pending.jsonl (the first st.PendingDone of them are
	// already in batches); pending is its append handle, nil when absent.
	staged      []wire.Observation
	pending     *os.File
	pendingSize int64

	// mem holds the batches the disk had no room for (full.go); full is
	// the error that put them there, nil while the disk takes writes.
	mem      map[uint64][]byte
	full     error
	started  bool // lostAtStart ran: state.Memory is this run's
	reserved bool // the reserve file is there
}

// Open opens (creating if needed) the spool in opt.Dir, takes its lock, and
// repairs whatever a crash left: temporary files are removed, a batch written
// after the last state update is taken into the chain, and files a recorded
// drop names are deleted.
func Open(opt Options) (*Spool, error) {
	if !wire.ValidNodeID(opt.Node) {
		return nil, fmt.Errorf("spool: node id %q is not valid", opt.Node)
	}
	if opt.MaxBytes <= 0 {
		return nil, fmt.Errorf("spool: max bytes must be positive, got %d", opt.MaxBytes)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if err := os.MkdirAll(opt.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("spool: create %s: %w", opt.Dir, err)
	}
	lf, err := os.OpenFile(filepath.Join(opt.Dir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("spool: open lock: %w", err)
	}
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lf.Close()
		return nil, fmt.Errorf("spool: %s is in use by another gpuprobe (lock: %w)", opt.Dir, err)
	}
	s := &Spool{dir: opt.Dir, max: opt.MaxBytes, probe: opt.Probe, now: opt.Now, log: opt.Logger,
		lock: lf, ready: make(chan struct{}, 1)}
	if err := s.recover(opt.Node); err != nil {
		lf.Close()
		return nil, err
	}
	s.lostAtStart()
	s.ensureReserve()
	// Observations staged before a crash or stop are sealed first, so they
	// go out ahead of anything this run observes.
	if err := s.recoverPending(); err != nil {
		lf.Close()
		return nil, err
	}
	if len(s.items) > 0 {
		s.signal()
	}
	return s, nil
}

func (s *Spool) recover(node string) error {
	// A fresh state starts a new chain at seq 1 with a new id, so the
	// backend tells a probe that lost its state from a replay.
	st := state{Node: node, NextSeq: 1, Chain: randHex(8)}
	raw, err := os.ReadFile(filepath.Join(s.dir, stateFile))
	switch {
	case err == nil:
		st.Chain = "" // an existing state keeps its chain (none if written before chains existed)
		if err := json.Unmarshal(raw, &st); err != nil {
			return fmt.Errorf("spool: %s is corrupt: %w", filepath.Join(s.dir, stateFile), err)
		}
		if st.Node != node {
			return fmt.Errorf("spool: %s holds the chain of node %q, not %q; use another spool dir", s.dir, st.Node, node)
		}
		if st.NextSeq == 0 {
			return fmt.Errorf("spool: %s: next_seq is 0", filepath.Join(s.dir, stateFile))
		}
	case errors.Is(err, os.ErrNotExist):
	default:
		return fmt.Errorf("spool: read state: %w", err)
	}
	des, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("spool: list %s: %w", s.dir, err)
	}
	dropping := make(map[uint64]bool, len(st.Dropping))
	for _, seq := range st.Dropping {
		dropping[seq] = true
	}
	for _, de := range des {
		name := de.Name()
		if atomicfile.IsTemp(name) {
			// A write that never reached its rename: the step it belonged
			// to did not happen, so the file is garbage.
			if err := os.Remove(filepath.Join(s.dir, name)); err != nil {
				return fmt.Errorf("spool: remove leftover %s: %w", name, err)
			}
			continue
		}
		seq, ok := parseName(name)
		if !ok {
			continue
		}
		info, err := de.Info()
		if err != nil {
			return fmt.Errorf("spool: stat %s: %w", name, err)
		}
		if dropping[seq] {
			// The drop was recorded but the process died before deleting.
			if err := os.Remove(filepath.Join(s.dir, name)); err != nil {
				return fmt.Errorf("spool: remove dropped %s: %w", name, err)
			}
			continue
		}
		s.items = append(s.items, entry{seq: seq, size: info.Size()})
		s.bytes += info.Size()
	}
	sort.Slice(s.items, func(i, j int) bool { return s.items[i].seq < s.items[j].seq })
	if n := len(s.items); n > 0 && s.items[n-1].seq >= st.NextSeq {
		// The newest batch reached the disk but the state update after it
		// did not: the batch is the truth, adopt it into the chain.
		last := s.items[n-1].seq
		body, err := os.ReadFile(s.path(last))
		if err != nil {
			return fmt.Errorf("spool: read batch %d: %w", last, err)
		}
		b, err := wire.Decode(body)
		if err != nil || b.Seq != last || b.Node != node {
			// Not something we wrote whole, and not yet in the chain: set
			// it aside rather than refuse to start and stop watching.
			s.log.Error("spool: newest batch file is damaged; moved to rejected/", "file", s.path(last), "err", err)
			if err := s.setAside(last); err != nil {
				return err
			}
			s.items = s.items[:n-1]
			s.bytes -= int64(len(body))
			s.st = st
			return syncDir(s.dir)
		}
		st.NextSeq = last + 1
		st.Prev = wire.BodyHash(body)
		st.Chain = b.Chain // the chain the batches on disk belong to
		if b.Dropped != nil {
			st.Drop = nil // it was reported in that batch
		}
		st.Dropping = nil
		if st.Sealing != nil && st.Sealing.Seq == last {
			st.PendingDone = st.Sealing.Upto
		}
		st.Sealing = nil
		s.st = st
		if err := s.saveState(); err != nil {
			return err
		}
	}
	s.st = st
	if err := syncDir(s.dir); err != nil {
		return err
	}
	return nil
}

// Close releases the lock. Everything written is already durable.
func (s *Spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return nil
	}
	if s.pending != nil {
		s.pending.Close()
		s.pending = nil
	}
	err := s.lock.Close()
	s.lock = nil
	return err
}

// Ready is signalled (without blocking) whenever a batch is appended; the
// sender waits on it when the spool is empty.
func (s *Spool) Ready() <-chan struct{} { return s.ready }

func (s *Spool) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// SetClockSkew records the latest measured clock skew (probe minus backend);
// the next batch created carries it.
func (s *Spool) SetClockSkew(ms int64) {
	s.mu.Lock()
	s.st.ClockSkewMS = ms
	s.mu.Unlock()
}

// Stats says how much is waiting.
func (s *Spool) Stats() (batches int, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.items), s.bytes
}

// Append turns observations into one or more batches (split to respect the
// wire limits; each check's text clipped to the wire's bounds), writes each
// durably and links it into the chain. It returns the sequence numbers
// created.
func (s *Spool) Append(obs []wire.Observation) ([]uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return nil, errors.New("spool: closed")
	}
	for i := range obs {
		for j := range obs[i].Checks {
			wire.ClipCheck(&obs[i].Checks[j])
		}
	}
	var seqs []uint64
	for len(obs) > 0 {
		b, body, n, err := s.encodeNext(obs)
		if err != nil {
			return seqs, err
		}
		if err := s.writeBatch(b, body); err != nil {
			return seqs, err
		}
		seqs = append(seqs, b.Seq)
		obs = obs[n:]
	}
	if err := s.enforceCap(); err != nil {
		return seqs, err
	}
	s.signal()
	return seqs, nil
}

// encodeNext encodes the next batch from the head of obs, as many
// observations as fit the wire limits; n is how many it took.
func (s *Spool) encodeNext(obs []wire.Observation) (b *wire.Batch, body []byte, n int, err error) {
	n = min(len(obs), wire.MaxObservations)
	for {
		b = s.newBatch(obs[:n])
		body, err = wire.Encode(b)
		if err == nil {
			return b, body, n, nil
		}
		if n == 1 || !strings.Contains(err.Error(), "byte limit") && !wire.TooManyChecks(err) {
			return nil, nil, 0, fmt.Errorf("spool: %w", err)
		}
		n /= 2
	}
}

func (s *Spool) newBatch(obs []wire.Observation) *wire.Batch {
	return &wire.Batch{
		V:            wire.Version,
		ID:           fmt.Sprintf("%s-%d-%s", s.st.Node, s.st.NextSeq, randHex(8)),
		Node:         s.st.Node,
		Probe:        s.probe,
		Seq:          s.st.NextSeq,
		Prev:         s.st.Prev,
		Chain:        s.st.Chain,
		CreatedAt:    s.now().UTC(),
		ClockSkewMS:  s.st.ClockSkewMS,
		Dropped:      s.st.Drop,
		Observations: obs,
	}
}

// writeBatch makes the batch durable first, then moves the chain forward.
// A crash between the two is repaired by recover.
func (s *Spool) writeBatch(b *wire.Batch, body []byte) error {
	if s.stillFull() {
		s.hold(b.Seq, body, s.full)
	} else if err := writeFileAtomic(s.dir, filepath.Base(s.path(b.Seq)), body); err != nil {
		if !diskFull(err) {
			return fmt.Errorf("spool: write batch %d: %w", b.Seq, err)
		}
		s.hold(b.Seq, body, err)
	} else if len(s.mem) > 0 || s.full != nil || !s.reserved {
		s.roomAgain()
	}
	s.items = append(s.items, entry{seq: b.Seq, size: int64(len(body))})
	s.bytes += int64(len(body))
	s.st.NextSeq = b.Seq + 1
	s.st.Prev = wire.BodyHash(body)
	s.st.Drop = nil
	s.st.Dropping = nil
	if s.st.Sealing != nil && s.st.Sealing.Seq == b.Seq {
		s.st.PendingDone = s.st.Sealing.Upto
	}
	s.st.Sealing = nil
	return s.saveState()
}

// enforceCap drops the oldest batches while the spool is over its cap. The
// newest batch is always kept. The drop is recorded durably before any file
// is deleted so that it is reported even if we crash halfway.
func (s *Spool) enforceCap() error {
	var victims []entry
	total := s.bytes
	for i := 0; i < len(s.items)-1 && total > s.max; i++ {
		if s.items[i].seq == s.inflight {
			continue // being sent right now: the backend may already hold it
		}
		victims = append(victims, s.items[i])
		total -= s.items[i].size
	}
	if len(victims) == 0 {
		return nil
	}
	s.log.Warn("spool full, dropping oldest batches", "dir", s.dir, "max_bytes", s.max,
		"from_seq", victims[0].seq, "to_seq", victims[len(victims)-1].seq, "batches", len(victims))
	return s.drop(victims, fmt.Sprintf("%s (max_bytes %d)", dropFull, s.max), false)
}

func (s *Spool) drop(victims []entry, reason string, keep bool) error {
	var bodies [][]byte
	this := &wire.Drop{FromSeq: victims[0].seq, ToSeq: victims[0].seq}
	for _, v := range victims {
		this.Batches++
		this.FromSeq = min(this.FromSeq, v.seq)
		this.ToSeq = max(this.ToSeq, v.seq)
		if body, err := s.readBody(v.seq); err == nil {
			bodies = append(bodies, body)
		}
	}
	// Seqs alone do not say what was lost: the report names how many
	// observations and which interval, for the report's evidence.
	if s.full != nil {
		reason += " (spool disk full)"
	}
	this.Reason = joinReason(reason, span(bodies))
	d := mergeDrop(s.st.Drop, this)
	for _, v := range victims {
		// A victim that carried an earlier drop report takes the report
		// with it unless we carry it forward.
		if carried := s.readDrop(v.seq); carried != nil {
			d = mergeDrop(d, carried)
		}
	}
	s.st.Drop = d
	s.st.Dropping = s.st.Dropping[:0:0]
	for _, v := range victims {
		s.st.Dropping = append(s.st.Dropping, v.seq)
	}
	if err := s.saveState(); err != nil {
		return err
	}
	gone := make(map[uint64]bool, len(victims))
	for _, v := range victims {
		gone[v.seq] = true
		if _, held := s.mem[v.seq]; held {
			delete(s.mem, v.seq) // never on disk: nothing to delete or set aside
			continue
		}
		var err error
		if keep {
			err = s.setAside(v.seq)
		} else {
			err = os.Remove(s.path(v.seq))
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("spool: drop batch %d: %w", v.seq, err)
		}
	}
	kept := s.items[:0]
	for _, it := range s.items {
		if gone[it.seq] {
			s.bytes -= it.size
			continue
		}
		kept = append(kept, it)
	}
	s.items = kept
	return syncDir(s.dir)
}

// setAside moves a batch file into rejected/, kept for inspection.
func (s *Spool) setAside(seq uint64) error {
	if err := os.MkdirAll(filepath.Join(s.dir, rejectDir), 0o700); err != nil {
		return err
	}
	return os.Rename(s.path(seq), filepath.Join(s.dir, rejectDir, filepath.Base(s.path(seq))))
}

// readDrop returns the drop report a spooled batch carries, if any.
func (s *Spool) readDrop(seq uint64) *wire.Drop {
	body, err := s.readBody(seq)
	if err != nil {
		return nil
	}
	var head struct {
		Dropped *wire.Drop `json:"dropped"`
	}
	if json.Unmarshal(body, &head) != nil {
		return nil
	}
	return head.Dropped
}

// Oldest returns the oldest unacknowledged batch; ok is false when the spool
// is empty.
func (s *Spool) Oldest() (it Item, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.items) == 0 {
		return Item{}, false, nil
	}
	for len(s.items) > 0 {
		seq := s.items[0].seq
		body, err := s.readBody(seq)
		if err != nil {
			return Item{}, false, fmt.Errorf("spool: read batch %d: %w", seq, err)
		}
		var head struct {
			ID  string `json:"id"`
			Seq uint64 `json:"seq"`
		}
		if err := json.Unmarshal(body, &head); err != nil || head.ID == "" || head.Seq != seq {
			// A damaged file would block the queue forever: set it aside
			// and report it as dropped.
			s.log.Error("spool: batch file is damaged; moved to rejected/", "file", s.path(seq))
			if err := s.drop([]entry{s.items[0]}, dropCorrupt, true); err != nil {
				return Item{}, false, err
			}
			continue
		}
		s.inflight = seq
		return Item{Seq: seq, ID: head.ID, Body: body}, true, nil
	}
	return Item{}, false, nil
}

// Ack deletes a batch the backend acknowledged. Acking a batch that is no
// longer there (dropped meanwhile) is not an error.
func (s *Spool) Ack(seq uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, it := range s.items {
		if it.seq != seq {
			continue
		}
		if _, held := s.mem[seq]; held {
			delete(s.mem, seq)
			s.items = append(s.items[:i], s.items[i+1:]...)
			s.bytes -= it.size
			return nil
		}
		if err := os.Remove(s.path(seq)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("spool: delete acknowledged batch %d: %w", seq, err)
		}
		s.items = append(s.items[:i], s.items[i+1:]...)
		s.bytes -= it.size
		// If this sync is lost to a crash the batch comes back and is sent
		// again; the backend deduplicates it by id.
		return syncDir(s.dir)
	}
	return nil
}

// Reject moves a batch the backend refused for good (schema, size) out of
// the queue into rejected/, so it cannot block everything behind it, and
// reports it in the next batch's drop record.
func (s *Spool) Reject(seq uint64, why string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, it := range s.items {
		if it.seq == seq {
			return s.drop([]entry{it}, dropReject+": "+why, true)
		}
	}
	return nil
}

// PendingDrop returns the drop not yet reported in a batch, if any.
func (s *Spool) PendingDrop() *wire.Drop {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Drop == nil {
		return nil
	}
	d := *s.st.Drop
	return &d
}

// saveState writes the state durably. On a full disk it frees the reserve
// and tries once more; if that fails too the state lives on in memory and
// the next save tries again (full.go), rather than stop the probe.
func (s *Spool) saveState() error {
	if s.started {
		// Until lostAtStart has read it, the list is the last run's.
		s.st.Memory = slices.Sorted(maps.Keys(s.mem))
	}
	raw, err := json.Marshal(s.st)
	if err != nil {
		return fmt.Errorf("spool: encode state: %w", err)
	}
	err = writeFileAtomic(s.dir, stateFile, raw)
	if err != nil && diskFull(err) && s.releaseReserve() {
		err = writeFileAtomic(s.dir, stateFile, raw)
	}
	switch {
	case err == nil:
		return nil
	case diskFull(err):
		s.noRoom(err)
		return nil
	default:
		return fmt.Errorf("spool: write state: %w", err)
	}
}

func (s *Spool) path(seq uint64) string {
	return filepath.Join(s.dir, fmt.Sprintf("%0*d%s", seqDigits, seq, batchExt))
}

func parseName(name string) (uint64, bool) {
	num, ok := strings.CutSuffix(name, batchExt)
	if !ok || len(num) != seqDigits {
		return 0, false
	}
	seq, err := strconv.ParseUint(num, 10, 64)
	return seq, err == nil && seq > 0
}

// writeFileAtomic writes data under name in dir so that after a crash the
// file is either absent/old or complete (internal/atomicfile).
func writeFileAtomic(dir, name string, data []byte) error {
	return atomicfile.WriteFile(filepath.Join(dir, name), data, 0o600)
}

// syncDir makes a create, rename or remove in the spool's folder durable.
func syncDir(dir string) error {
	if err := atomicfile.SyncDir(dir); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on Linux (Go ≥ 1.24)
	return hex.EncodeToString(b)
}
