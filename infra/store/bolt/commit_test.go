package bolt

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/waitfor"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Writes queued while a commit runs go out together in the next one, with
// no timer: one held-up write plus 199 queued behind it make two commits.
func TestGroupCommitGroupsQueuedWrites(t *testing.T) {
	s := openTemp(t)
	started, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	defer unblock() // a failing test must not leave Close waiting on the held commit
	first := make(chan error, 1)
	go func() {
		var once sync.Once
		first <- s.commit.do(func(tx *bbolt.Tx) error {
			once.Do(func() { close(started) })
			<-release
			return tx.Bucket(bNodes).Put([]byte("first"), []byte("{}"))
		})
	}()
	<-started // the commit loop is inside the first transaction
	const queued = 199
	var wg sync.WaitGroup
	errs := make(chan error, queued)
	for i := range queued {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- s.putIfAbsent("T", bNodes, fmt.Appendf(nil, "k%03d", i), i)
		}()
	}
	waitfor.True(t, fmt.Sprintf("%d writes queued", queued), func() bool { return len(s.commit.reqs) >= queued })
	before := s.commit.commits.Load()
	unblock()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if n := s.commit.commits.Load() - before; n != 2 {
		t.Fatalf("%d commits for 1 + %d writes, want 2", n, queued)
	}
	n := 0
	_ = s.db.View(func(tx *bbolt.Tx) error { n = tx.Bucket(bNodes).Stats().KeyN; return nil })
	if n != queued+1 {
		t.Fatalf("%d records stored, want %d", n, queued+1)
	}
}

// A write whose condition fails, or that panics, gets its own error; the
// others in its group are still committed.
func TestGroupCommitIsolatesFailures(t *testing.T) {
	s := openTemp(t)
	const n = 50
	var wg sync.WaitGroup
	var mu sync.Mutex
	var dupOK, dupExists, uniqueOK, panics int
	for i := range n {
		wg.Add(3)
		go func() {
			defer wg.Done()
			err := s.putIfAbsent("T", bNodes, []byte("dup"), i)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				dupOK++
			case errors.Is(err, store.ErrExists):
				dupExists++
			default:
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			if err := s.putIfAbsent("T", bNodes, fmt.Appendf(nil, "u%02d", i), i); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			uniqueOK++
			mu.Unlock()
		}()
		go func() {
			defer wg.Done()
			err := s.commit.do(func(tx *bbolt.Tx) error {
				_ = tx.Bucket(bNodes).Put(fmt.Appendf(nil, "p%02d", i), []byte("{}"))
				panic("boom")
			})
			if err == nil || err.Error() != "store write panicked: boom" {
				t.Errorf("panicking write returned %v", err)
				return
			}
			mu.Lock()
			panics++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if dupOK != 1 || dupExists != n-1 || uniqueOK != n || panics != n {
		t.Fatalf("dup: %d ok %d exists; unique ok %d; panics %d", dupOK, dupExists, uniqueOK, panics)
	}
	keys := 0
	_ = s.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bNodes).ForEach(func(k, _ []byte) error {
			if k[0] == 'p' {
				t.Errorf("write of a panicking function was committed: %s", k)
			}
			keys++
			return nil
		})
	})
	if keys != n+1 {
		t.Fatalf("%d records, want %d", keys, n+1)
	}
}

func TestWriteAfterClose(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.putIfAbsent("T", bNodes, []byte("k"), 1); !errors.Is(err, errClosed) {
		t.Fatalf("write after Close = %v, want %v", err, errClosed)
	}
}

// The in-memory state is only a copy of the file: a stale entry (from a
// reader that lost a race) is dropped by the conflict it causes, the next
// read returns the file's state, and a reopened store reads the file.
func TestStateCacheFollowsTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gpusla.db")
	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	st := store.NodeState{Node: "n", LastSeq: 1}
	if _, err := s.PutState(ctx, st, 0); err != nil {
		t.Fatal(err)
	}
	st.LastSeq = 2
	if _, err := s.PutState(ctx, st, 1); err != nil {
		t.Fatal(err)
	}
	s.states.mu.Lock()
	s.states.m["n"] = store.NodeState{Node: "n", Version: 1, LastSeq: 1} // stale
	s.states.mu.Unlock()
	stale, _ := s.GetState(ctx, "n")
	if _, err := s.PutState(ctx, stale, stale.Version); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("PutState on a stale read = %v, want conflict", err)
	}
	got, err := s.GetState(ctx, "n")
	if err != nil || got.Version != 2 || got.LastSeq != 2 {
		t.Fatalf("after the conflict GetState = %+v, %v; want version 2", got, err)
	}
	// An older version never replaces a newer one.
	s.states.put(store.NodeState{Node: "n", Version: 1})
	if got, _ := s.GetState(ctx, "n"); got.Version != 2 {
		t.Fatalf("older version replaced the cached one: %+v", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.GetState(ctx, "n"); err != nil || got.Version != 2 || got.LastSeq != 2 {
		t.Fatalf("after reopen GetState = %+v, %v", got, err)
	}
}
