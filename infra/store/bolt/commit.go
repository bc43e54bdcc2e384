package bolt

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// errClosed is what a write gets after Close.
var errClosed = errors.New("store is closed")

// maxGroup caps how many writes share one transaction, so that one commit's
// dirty pages (and the time its callers wait) stay bounded.
const maxGroup = 1000

// Under concurrent load the committer lingers to fill a group: it keeps
// taking writes while each arrives within lingerGap of the last, for at most
// lingerMax. Every commit costs the same CPU (page writes, two fsyncs) and
// under load that cost, not the disk, is what bounds throughput: with 256
// clients lingering raised it from about 6,800 to 7,300–8,700 batches/s, and
// with 64 clients it did not lower it (docs/BENCHMARKS.md). A write that
// finds no other write queued is committed at once.
const (
	lingerMax = time.Millisecond
	lingerGap = 200 * time.Microsecond
)

// groupCommit runs the small conditional writes of many goroutines in shared
// bbolt transactions, one fsync each, without waiting for a timer.
//
// bbolt's own DB.Batch starts a batch on the first write and commits it when
// a 10 ms timer fires (or at 1,000 writes). Under a load of tens of
// concurrent ingests every write then waits for the timer as well as the
// fsync, and throughput is bounded by clients/10 ms. Here one goroutine
// commits whatever is queued as soon as the previous commit is done: alone,
// a write waits for one commit; under load the group holds whatever arrived
// during the last commit plus what keeps arriving for up to lingerMax, so
// the commit rate follows the disk and the load, not a constant.
//
// Callers' functions may run more than once (as with DB.Batch): when one of
// them returns an error the transaction is rolled back, that function is
// rerun in a transaction of its own so the error it returns is its own, and
// the others are retried together.
type groupCommit struct {
	db   *bbolt.DB
	reqs chan *commitReq
	// mu orders sends against Close: senders hold it shared, Close holds it
	// exclusively to set closed and close reqs.
	mu     sync.RWMutex
	closed bool
	done   chan struct{}
	// commits counts transactions committed (tests read it).
	commits atomic.Int64
}

type commitReq struct {
	fn  func(*bbolt.Tx) error
	err chan error
}

func newGroupCommit(db *bbolt.DB) *groupCommit {
	g := &groupCommit{db: db, reqs: make(chan *commitReq, maxGroup), done: make(chan struct{})}
	go g.loop()
	return g
}

// do runs fn in a write transaction shared with other callers and returns
// once that transaction is durable (or fn's own error).
func (g *groupCommit) do(fn func(*bbolt.Tx) error) error {
	r := &commitReq{fn: fn, err: make(chan error, 1)}
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		return errClosed
	}
	g.reqs <- r
	g.mu.RUnlock()
	return <-r.err
}

// close lets queued writes finish, then stops the loop.
func (g *groupCommit) close() {
	g.mu.Lock()
	if !g.closed {
		g.closed = true
		close(g.reqs)
	}
	g.mu.Unlock()
	<-g.done
}

func (g *groupCommit) loop() {
	defer close(g.done)
	group := make([]*commitReq, 0, maxGroup)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for r := range g.reqs {
		group = append(group[:0], r)
		open := g.drain(&group)
		if open && len(group) >= 2 {
			// Others are writing too: gather more while they keep coming.
			deadline := time.Now().Add(lingerMax)
		linger:
			for len(group) < maxGroup {
				wait := min(lingerGap, time.Until(deadline))
				if wait <= 0 {
					break
				}
				timer.Reset(wait)
				select {
				case r, ok := <-g.reqs:
					timer.Stop()
					if !ok {
						break linger
					}
					group = append(group, r)
					if !g.drain(&group) {
						break linger
					}
				case <-timer.C:
					break linger
				}
			}
		}
		g.run(group)
		clear(group) // let finished requests be collected
	}
}

// drain adds whatever is queued to group; false once reqs is closed.
func (g *groupCommit) drain(group *[]*commitReq) bool {
	for len(*group) < maxGroup {
		select {
		case r, ok := <-g.reqs:
			if !ok {
				return false
			}
			*group = append(*group, r)
		default:
			return true
		}
	}
	return true
}

// run commits group, isolating any function that fails.
func (g *groupCommit) run(group []*commitReq) {
	for len(group) > 0 {
		failed := -1
		err := g.db.Update(func(tx *bbolt.Tx) error {
			for i, r := range group {
				if err := call(r.fn, tx); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if failed < 0 {
			if err == nil {
				g.commits.Add(1)
			}
			for _, r := range group {
				r.err <- err // nil, or the commit's own error for everyone
			}
			return
		}
		// Rolled back: nothing of the others was written. The failing
		// function alone gets its true result (it may even succeed when it
		// only clashed with a write earlier in the group).
		r := group[failed]
		r.err <- g.db.Update(func(tx *bbolt.Tx) error { return call(r.fn, tx) })
		group = slices.Delete(group, failed, failed+1)
	}
}

// call runs fn, turning a panic into that caller's error instead of killing
// the loop every writer depends on.
func call(fn func(*bbolt.Tx) error, tx *bbolt.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store write panicked: %v", p)
		}
	}()
	return fn(tx)
}
