// Package bolt is the embedded, one-file store.Store of `gpusla serve`, on
// go.etcd.io/bbolt. Every record is JSON in a bucket per record type, keyed
// so that a cursor walks a node's records in the order the store contract
// promises. Conditional writes are read-compare-write inside one bbolt
// transaction, which is serialisable, so they are exactly as strict as
// DynamoDB's condition expressions.
//
// Writes go through a group committer (commit.go) so that many concurrent
// ingests share one fsync without waiting for a timer; a write whose
// condition fails is rerun alone and returns its error to its own caller
// only.
package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	bbolt "go.etcd.io/bbolt"
	bberrors "go.etcd.io/bbolt/errors"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/binrec"
)

var (
	bNodes     = []byte("nodes")
	bState     = []byte("state")
	bBatches   = []byte("batches")
	bIncidents = []byte("incidents")
	bRuns      = []byte("runs")
	bAlerts    = []byte("alerts")
	bEvidence  = []byte("evidence")
	bBackend   = []byte("backend")
	bMaint     = []byte("maintenance")
	allBuckets = [][]byte{bNodes, bState, bBatches, bIncidents, bRuns, bAlerts, bEvidence, bBackend, bMaint, bDigests, bReceived}
)

// Store is the bbolt-backed store.Store (and its role interfaces).
type Store struct {
	db     *bbolt.DB
	commit *groupCommit
	states stateCache
	now    func() time.Time
	store.OpCounter
}

// Open opens the store file at path, creating it (and its folder, 0700,
// because the file holds sealed node secrets) when it does not exist. An
// existing file is verified first (Verify, then bbolt's own check): a
// damaged, truncated or empty file is a *DamagedError naming the file and
// what is wrong, never a panic, a crash or an empty store.
func Open(path string) (*Store, error) { return open(path, true) }

// OpenExisting is Open for a store that must already exist: a missing
// file is an error, not a new, empty store.
func OpenExisting(path string) (*Store, error) { return open(path, false) }

func open(path string, create bool) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	switch err := verifyUnlocked(path); {
	case errors.Is(err, fs.ErrNotExist) && create:
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("store %s does not exist", path)
	case err != nil:
		return nil, err
	}
	// The freelist is rebuilt on open instead of written at every commit,
	// and kept as a map: both cut the cost of the small, frequent commits
	// that ingest makes.
	db, err := openBolt(path, &bbolt.Options{Timeout: 2 * time.Second, NoFreelistSync: true, FreelistType: bbolt.FreelistMapType})
	if err != nil {
		return nil, err
	}
	if err := check(db, path); err != nil {
		db.Close()
		return nil, err
	}
	if err := createBuckets(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: create buckets: %w", path, err)
	}
	return &Store{db: db, commit: newGroupCommit(db), now: func() time.Time { return time.Now().UTC() }}, nil
}

// createBuckets creates the buckets a store lacks (all of them in a new
// file, those a newer version added in an older one). It writes only when
// one is missing: every write transaction rewrites a meta page, and an
// open — refused later by the master key check, or by `verify`, `export`
// and the other read commands — must leave a complete store's file as it
// found it.
func createBuckets(db *bbolt.DB) error {
	var missing [][]byte
	if err := db.View(func(tx *bbolt.Tx) error {
		for _, b := range allBuckets {
			if tx.Bucket(b) == nil {
				missing = append(missing, b)
			}
		}
		return nil
	}); err != nil || len(missing) == 0 {
		return err
	}
	// A store that has batch records and no receive-day index: the
	// records from now on are indexed.
	unindexed := slices.ContainsFunc(missing, func(b []byte) bool { return bytes.Equal(b, bReceived) }) &&
		!slices.ContainsFunc(missing, func(b []byte) bool { return bytes.Equal(b, bBatches) })
	return db.Update(func(tx *bbolt.Tx) error {
		for _, b := range missing {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		if unindexed {
			return tx.Bucket(bReceived).Put(receivedSinceKey, binrec.AppendTime(nil, time.Now()))
		}
		return nil
	})
}

// OpenSnapshot opens a store file that no process uses — a backup — to
// read it, verified as Open verifies and never written: not its meta page,
// not a bucket. Only reads work on it.
func OpenSnapshot(path string) (*Store, error) {
	if err := verifyCopy(path); err != nil {
		return nil, err
	}
	db, err := openBolt(path, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return nil, err
	}
	return &Store{db: db, now: func() time.Time { return time.Now().UTC() }}, nil
}

// errLocked is a store file another process holds open: nearly always a
// `gpusla serve` on the folder, which holds it as long as it runs, so the
// message says how to go on rather than only what is wrong.
func errLocked(path string) error {
	return fmt.Errorf("open store %s: locked by another process: a `gpusla serve` on this data folder holds it while it runs; stop serve (Ctrl-C where it runs) and run this again", path)
}

// openBolt is bbolt.Open with its failures as errors: a held lock, and a
// panic inside bbolt on a file Verify let through.
func openBolt(path string, o *bbolt.Options) (db *bbolt.DB, err error) {
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, &DamagedError{Path: path, Problem: fmt.Sprintf("bbolt could not read it: %v", r)}
		}
	}()
	db, err = bbolt.Open(path, 0o600, o)
	switch {
	case errors.Is(err, bberrors.ErrTimeout):
		return nil, errLocked(path)
	case errors.Is(err, bberrors.ErrInvalid), errors.Is(err, bberrors.ErrChecksum), errors.Is(err, bberrors.ErrVersionMismatch):
		return nil, &DamagedError{Path: path, Problem: err.Error()}
	case err != nil:
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return db, nil
}

// check runs bbolt's consistency check (key order, page accounting) on an
// open store; Verify has made sure every page it reads is inside the file.
func check(db *bbolt.DB, path string) error {
	var errs []error
	err := db.View(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("check store %s: %w", path, err)
	}
	if len(errs) > 0 {
		problem := errs[0].Error()
		if len(errs) > 1 {
			problem += fmt.Sprintf(" (and %d more problems)", len(errs)-1)
		}
		return &DamagedError{Path: path, Problem: problem}
	}
	return nil
}

// SetClock replaces the clock used to hide expired batches (tests).
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// SetNoSync turns off the fsync of every commit: for replays of a log
// into a throwaway store (tests), where a crash loses nothing of value.
// Never for a store that holds the books.
func (s *Store) SetNoSync(v bool) { s.db.NoSync = v }

// Close waits for queued writes, then closes the file.
func (s *Store) Close() error {
	if s.commit != nil {
		s.commit.close()
	}
	return s.db.Close()
}

// key joins parts with a 0 byte, which ids never contain.
func key(parts ...string) []byte {
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(p)
	}
	return b.Bytes()
}

// seqKey sorts numerically: node, 0, big-endian seq.
func seqKey(node string, seq uint64) []byte {
	k := append([]byte(node), 0)
	return binary.BigEndian.AppendUint64(k, seq)
}

func timeKey(t time.Time) string { return t.UTC().Format("20060102T150405.000000000Z") }

func (s *Store) get(method string, bucket, k []byte, v any) error {
	s.Add(method, store.OpRead, 1)
	return s.db.View(func(tx *bbolt.Tx) error {
		raw := tx.Bucket(bucket).Get(k)
		if raw == nil {
			return store.ErrNotFound
		}
		return json.Unmarshal(raw, v)
	})
}

// putIfAbsent writes v at k unless k exists.
func (s *Store) putIfAbsent(method string, bucket, k []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: encode: %w", method, err)
	}
	return s.putRawIfAbsent(method, bucket, k, raw)
}

// putRawIfAbsent writes raw at k unless k exists.
func (s *Store) putRawIfAbsent(method string, bucket, k, raw []byte) error {
	s.Add(method, store.OpWrite, 1)
	err := s.commit.do(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucket)
		if b.Get(k) != nil {
			return store.ErrExists
		}
		return b.Put(k, raw)
	})
	if errors.Is(err, store.ErrExists) {
		s.Add(method, store.OpCondFailure, 1)
	}
	return err
}

// putVersioned writes raw at k if the stored record's version is prev (0:
// absent). missing is the error when prev > 0 and nothing is stored.
func (s *Store) putVersioned(method string, bucket, k []byte, raw []byte, prev int64, missing error) error {
	s.Add(method, store.OpWrite, 1)
	err := s.commit.do(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucket)
		old := b.Get(k)
		switch {
		case old == nil && prev != 0:
			return missing
		case old != nil && prev == 0:
			return store.ErrConflict
		case old != nil:
			v, err := storedVersion(old, fastVersion[string(bucket)])
			if err != nil {
				return err
			}
			if v != prev {
				return store.ErrConflict
			}
		}
		return b.Put(k, raw)
	})
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
		s.Add(method, store.OpCondFailure, 1)
	}
	return err
}

// fastVersion lists the buckets whose records (NodeState, Incident,
// AlertRecord, BackendRun) have "version" before any nested object, so the
// first `"version":` in their JSON is the top-level field (no string before
// it can hold an unescaped quote). Others are decoded in full.
var fastVersion = map[string]bool{string(bState): true, string(bIncidents): true, string(bAlerts): true, string(bBackend): true}

// storedVersion reads the top-level "version" of a stored record; with fast
// it avoids decoding all of it (ingest's hot path).
func storedVersion(raw []byte, fast bool) (int64, error) {
	const tag = `"version":`
	if i := bytes.Index(raw, []byte(tag)); fast && i >= 0 {
		j := i + len(tag)
		k := j
		for k < len(raw) && raw[k] >= '0' && raw[k] <= '9' {
			k++
		}
		if k > j && k-j < 19 && k < len(raw) && (raw[k] == ',' || raw[k] == '}') {
			v, err := strconv.ParseInt(string(raw[j:k]), 10, 64)
			if err == nil {
				return v, nil
			}
		}
	}
	var v struct {
		Version int64 `json:"version"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, fmt.Errorf("decode stored record: %w", err)
	}
	return v.Version, nil
}

// scan calls fn for every record in bucket whose key starts with prefix,
// from the key start (or the prefix when start is nil), until fn says stop.
func (s *Store) scan(method string, bucket, prefix, start []byte, fn func(k, v []byte) (more bool, err error)) error {
	s.Add(method, store.OpQuery, 1)
	return s.db.View(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucket).Cursor()
		if start == nil {
			start = prefix
		}
		for k, v := c.Seek(start); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			more, err := fn(k, v)
			if err != nil || !more {
				return err
			}
		}
		return nil
	})
}

// ---- nodes

func (s *Store) CreateNode(_ context.Context, n store.Node) error {
	return wrap("create node "+n.ID, s.putIfAbsent("CreateNode", bNodes, []byte(n.ID), n))
}

func (s *Store) GetNode(_ context.Context, id string) (store.Node, error) {
	var n store.Node
	return n, wrap("get node "+id, s.get("GetNode", bNodes, []byte(id), &n))
}

func (s *Store) ListNodes(_ context.Context) ([]store.Node, error) {
	var out []store.Node
	err := s.scan("ListNodes", bNodes, nil, nil, func(_, v []byte) (bool, error) {
		var n store.Node
		if err := json.Unmarshal(v, &n); err != nil {
			return false, err
		}
		out = append(out, n)
		return true, nil
	})
	return out, wrap("list nodes", err)
}

// ReleaseNode sets the node's ReleasedAt in one read-compare-write
// transaction: the node record is otherwise written once, so the only
// condition is that no other release came first.
func (s *Store) ReleaseNode(_ context.Context, id string, rel store.Release) (store.Node, error) {
	at := rel.At
	var n store.Node
	s.Add("ReleaseNode", store.OpWrite, 1)
	err := s.commit.do(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bNodes)
		raw := b.Get([]byte(id))
		if raw == nil {
			return store.ErrNotFound
		}
		n = store.Node{}
		if err := json.Unmarshal(raw, &n); err != nil {
			return fmt.Errorf("decode node: %w", err)
		}
		switch {
		case n.ReleasedAt.Equal(at):
			return nil
		case !n.ReleasedAt.IsZero():
			return store.ErrConflict
		}
		n = n.WithRelease(rel)
		out, err := json.Marshal(n)
		if err != nil {
			return fmt.Errorf("encode node: %w", err)
		}
		return b.Put([]byte(id), out)
	})
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
		s.Add("ReleaseNode", store.OpCondFailure, 1)
	}
	return n, wrap("release node "+id, err)
}

// ---- maintenance

func (s *Store) PutMaintenance(_ context.Context, m store.Maintenance) error {
	return wrap("put maintenance "+m.ID, s.putIfAbsent("PutMaintenance", bMaint, key(timeKey(m.Start), m.ID), m))
}

// ListMaintenance reads every notice: they are a handful a month, and one
// announced long ahead may start after from yet have been entered before.
func (s *Store) ListMaintenance(_ context.Context, from, to time.Time) ([]store.Maintenance, error) {
	var out []store.Maintenance
	err := s.scan("ListMaintenance", bMaint, nil, nil, func(_, v []byte) (bool, error) {
		var m store.Maintenance
		if err := json.Unmarshal(v, &m); err != nil {
			return false, err
		}
		if m.Start.Before(to) && m.End.After(from) {
			out = append(out, m)
		}
		return true, nil
	})
	return out, wrap("list maintenance", err)
}

// ---- state

func (s *Store) GetState(_ context.Context, node string) (store.NodeState, error) {
	if st, ok := s.states.get(node); ok {
		s.Add("GetState", store.OpRead, 1)
		return st, nil
	}
	var st store.NodeState
	if err := s.get("GetState", bState, []byte(node), &st); err != nil {
		return st, wrap("get state of "+node, err)
	}
	s.states.put(st)
	return st, nil
}

func (s *Store) PutState(_ context.Context, st store.NodeState, prev int64) (int64, error) {
	st.Version = prev + 1
	raw, err := json.Marshal(st)
	if err != nil {
		return 0, fmt.Errorf("put state of %s: %w", st.Node, err)
	}
	if err := s.putVersioned("PutState", bState, []byte(st.Node), raw, prev, store.ErrConflict); err != nil {
		// Whatever the cache holds, the file is the truth: read it next time.
		s.states.forget(st.Node)
		return 0, fmt.Errorf("put state of %s: %w", st.Node, err)
	}
	s.states.put(st)
	return st.Version, nil
}

// ---- batches

// PutBatch stores b, and voids the digest of its receive day in the same
// transaction if that day is over (store.Digests).
func (s *Store) PutBatch(_ context.Context, b store.BatchRecord) error {
	raw, k, now := encodeBatch(&b), seqKey(b.Node, b.Seq), s.now()
	s.Add("PutBatch", store.OpWrite, 1)
	err := s.commit.do(func(tx *bbolt.Tx) error {
		bk := tx.Bucket(bBatches)
		if bk.Get(k) != nil {
			return store.ErrExists
		}
		if err := bk.Put(k, raw); err != nil {
			return err
		}
		if err := tx.Bucket(bReceived).Put(receivedKey(b.Node, b.ReceivedAt, b.Seq), nil); err != nil {
			return err
		}
		return s.voidDigest(tx, &b, now)
	})
	if errors.Is(err, store.ErrExists) {
		s.Add("PutBatch", store.OpCondFailure, 1)
	}
	return wrap(fmt.Sprintf("put batch %s/%d", b.Node, b.Seq), err)
}

// PutBatches stores many batch records in one transaction: a bulk load
// (the fleet simulation's months) writes a node's month in a few commits
// instead of one each. Each record is held to what PutBatch holds it to;
// if any is stored already (or given twice) none is written and the error
// is store.ErrExists naming it.
func (s *Store) PutBatches(_ context.Context, bs []store.BatchRecord) error {
	raws := make([][]byte, len(bs))
	for i := range bs {
		raws[i] = encodeBatch(&bs[i])
	}
	s.Add("PutBatches", store.OpWrite, int64(len(bs)))
	now := s.now()
	return wrap("put batches", s.commit.do(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bBatches)
		// A node's records come in sequence order, each after the last:
		// pages split full, not half full (bbolt's default for inserts
		// anywhere), or a bulk-loaded store is twice its size.
		b.FillPercent = 0.9
		for i := range bs {
			k := seqKey(bs[i].Node, bs[i].Seq)
			if b.Get(k) != nil {
				return fmt.Errorf("batch %s/%d: %w", bs[i].Node, bs[i].Seq, store.ErrExists)
			}
			if err := b.Put(k, raws[i]); err != nil {
				return err
			}
			if err := tx.Bucket(bReceived).Put(receivedKey(bs[i].Node, bs[i].ReceivedAt, bs[i].Seq), nil); err != nil {
				return err
			}
			if err := s.voidDigest(tx, &bs[i], now); err != nil {
				return err
			}
		}
		return nil
	}))
}

func (s *Store) GetBatch(_ context.Context, node string, seq uint64) (store.BatchRecord, error) {
	var b store.BatchRecord
	s.Add("GetBatch", store.OpRead, 1)
	err := s.db.View(func(tx *bbolt.Tx) error {
		raw := tx.Bucket(bBatches).Get(seqKey(node, seq))
		if raw == nil {
			return store.ErrNotFound
		}
		return decodeBatch(raw, &b)
	})
	if err == nil && !b.ExpiresAt.IsZero() && !s.now().Before(b.ExpiresAt) {
		err = store.ErrNotFound
	}
	return b, wrap(fmt.Sprintf("get batch %s/%d", node, seq), err)
}

func (s *Store) ListBatches(_ context.Context, node string, fromSeq, toSeq uint64) ([]store.BatchRecord, error) {
	var out []store.BatchRecord
	now := s.now()
	err := s.scan("ListBatches", bBatches, append([]byte(node), 0), seqKey(node, fromSeq), func(k, v []byte) (bool, error) {
		if binary.BigEndian.Uint64(k[len(k)-8:]) > toSeq {
			return false, nil
		}
		var b store.BatchRecord
		if err := decodeBatch(v, &b); err != nil {
			return false, err
		}
		if b.ExpiresAt.IsZero() || now.Before(b.ExpiresAt) {
			out = append(out, b)
		}
		return true, nil
	})
	return out, wrap("list batches of "+node, err)
}

// Sweep deletes batches whose expiry has passed — what DynamoDB's TTL does
// for the other store. It returns how many it deleted.
func (s *Store) Sweep(now time.Time) (int, error) {
	n := 0
	err := s.db.Update(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bBatches).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var b store.BatchRecord
			if err := decodeBatch(v, &b); err != nil {
				return err
			}
			if !b.ExpiresAt.IsZero() && !now.Before(b.ExpiresAt) {
				if err := c.Delete(); err != nil {
					return err
				}
				if err := tx.Bucket(bReceived).Delete(receivedKey(b.Node, b.ReceivedAt, b.Seq)); err != nil {
					return err
				}
				n++
			}
		}
		return nil
	})
	return n, wrap("sweep expired batches", err)
}

// ---- incidents

func (s *Store) CreateIncident(_ context.Context, inc store.Incident) error {
	inc.Version = 1
	return wrap("create incident "+inc.Node+"/"+inc.ID, s.putIfAbsent("CreateIncident", bIncidents, key(inc.Node, inc.ID), inc))
}

func (s *Store) GetIncident(_ context.Context, node, id string) (store.Incident, error) {
	var inc store.Incident
	return inc, wrap("get incident "+node+"/"+id, s.get("GetIncident", bIncidents, key(node, id), &inc))
}

func (s *Store) UpdateIncident(_ context.Context, inc store.Incident, prev int64) error {
	inc.Version = prev + 1
	raw, err := json.Marshal(inc)
	if err == nil {
		err = s.putVersioned("UpdateIncident", bIncidents, key(inc.Node, inc.ID), raw, prev, store.ErrNotFound)
	}
	return wrap("update incident "+inc.Node+"/"+inc.ID, err)
}

func (s *Store) ListIncidents(_ context.Context, node string, from, to time.Time) ([]store.Incident, error) {
	var prefix []byte
	if node != "" {
		prefix = append([]byte(node), 0)
	}
	var out []store.Incident
	err := s.scan("ListIncidents", bIncidents, prefix, nil, func(_, v []byte) (bool, error) {
		var inc store.Incident
		if err := json.Unmarshal(v, &inc); err != nil {
			return false, err
		}
		if inc.Start.Before(to) && (inc.Open() || inc.End.After(from)) {
			out = append(out, inc)
		}
		return true, nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out, wrap("list incidents", err)
}

// ---- heartbeat runs

func (s *Store) PutRun(_ context.Context, r store.HeartbeatRun) error {
	return wrap("put run of "+r.Node, s.putIfAbsent("PutRun", bRuns, key(r.Node, timeKey(r.From)), r))
}

func (s *Store) ListRuns(_ context.Context, node string, from, to time.Time) ([]store.HeartbeatRun, error) {
	var out []store.HeartbeatRun
	err := s.scan("ListRuns", bRuns, append([]byte(node), 0), nil, func(_, v []byte) (bool, error) {
		var r store.HeartbeatRun
		if err := json.Unmarshal(v, &r); err != nil {
			return false, err
		}
		if !r.From.Before(to) {
			return false, nil
		}
		if r.To.After(from) || r.To.Equal(from) && r.From.Equal(from) {
			out = append(out, r)
		}
		return true, nil
	})
	return out, wrap("list runs of "+node, err)
}

// ---- alerts

// alertKey is (node, incident, kind) and, for a named channel, the channel.
func alertKey(node, inc string, kind notify.AlertKind, channel string) []byte {
	if channel == "" {
		return key(node, inc, string(kind))
	}
	return key(node, inc, string(kind), channel)
}

func (s *Store) CreateAlert(_ context.Context, a store.AlertRecord) error {
	a.Version = 1
	return wrap("create alert", s.putIfAbsent("CreateAlert", bAlerts, alertKey(a.Node, a.IncidentID, a.Kind, a.Channel), a))
}

func (s *Store) GetAlert(_ context.Context, node, incidentID string, kind notify.AlertKind, channel string) (store.AlertRecord, error) {
	var a store.AlertRecord
	return a, wrap("get alert", s.get("GetAlert", bAlerts, alertKey(node, incidentID, kind, channel), &a))
}

func (s *Store) UpdateAlert(_ context.Context, a store.AlertRecord, prev int64) error {
	a.Version = prev + 1
	raw, err := json.Marshal(a)
	if err == nil {
		err = s.putVersioned("UpdateAlert", bAlerts, alertKey(a.Node, a.IncidentID, a.Kind, a.Channel), raw, prev, store.ErrNotFound)
	}
	return wrap("update alert", err)
}

func (s *Store) ListPendingAlerts(_ context.Context) ([]store.AlertRecord, error) {
	var out []store.AlertRecord
	err := s.scan("ListPendingAlerts", bAlerts, nil, nil, func(_, v []byte) (bool, error) {
		var a store.AlertRecord
		if err := json.Unmarshal(v, &a); err != nil {
			return false, err
		}
		if a.SentAt.IsZero() {
			out = append(out, a)
		}
		return true, nil
	})
	return out, wrap("list pending alerts", err)
}

// ---- evidence

func (s *Store) PutEvidence(_ context.Context, e store.Evidence) error {
	return wrap("put evidence", s.putIfAbsent("PutEvidence", bEvidence, key(e.Node, e.Key()), e))
}

func (s *Store) ListEvidence(_ context.Context, node string, from, to time.Time) ([]store.Evidence, error) {
	var out []store.Evidence
	err := s.scan("ListEvidence", bEvidence, append([]byte(node), 0), nil, func(_, v []byte) (bool, error) {
		var e store.Evidence
		if err := json.Unmarshal(v, &e); err != nil {
			return false, err
		}
		if !e.At.Before(to) {
			return false, nil
		}
		if !e.At.Before(from) {
			out = append(out, e)
		}
		return true, nil
	})
	return out, wrap("list evidence of "+node, err)
}

// ---- backend liveness

func (s *Store) PutBackendRun(_ context.Context, r store.BackendRun, prev int64) (int64, error) {
	r.Version = prev + 1
	raw, err := json.Marshal(r)
	if err == nil {
		err = s.putVersioned("PutBackendRun", bBackend, []byte(r.ID), raw, prev, store.ErrConflict)
	}
	if err != nil {
		return 0, wrap("put backend run "+r.ID, err)
	}
	return r.Version, nil
}

func (s *Store) ListBackendRuns(_ context.Context, from, to time.Time) ([]store.BackendRun, error) {
	var out []store.BackendRun
	err := s.scan("ListBackendRuns", bBackend, nil, nil, func(_, v []byte) (bool, error) {
		var r store.BackendRun
		if err := json.Unmarshal(v, &r); err != nil {
			return false, err
		}
		if r.Start.Before(to) && !r.LastTick.Before(from) {
			out = append(out, r)
		}
		return true, nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out, wrap("list backend runs", err)
}

func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

var _ store.Store = (*Store)(nil)
