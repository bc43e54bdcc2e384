package bolt

import (
	"sync"

	"github.com/gpusla/gpusla/infra/store"
)

// stateCache keeps the newest committed NodeState of every node in memory.
// Ingest reads a node's state on every push, and decoding its JSON was the
// largest single cost of an ingest. The file is locked to this process, so
// what was committed last is what the file holds: the cache cannot go stale
// except through a race between two writers' updates, which the version
// check below settles (a write only replaces an older version), and a
// refused write drops the entry so the next read goes to the file.
//
// It stores and returns clones, so callers may change what they get. A few
// KB per node: a fleet of thousands of nodes costs a few MB.
type stateCache struct {
	mu sync.Mutex
	m  map[string]store.NodeState
}

func (c *stateCache) get(node string) (store.NodeState, bool) {
	c.mu.Lock()
	st, ok := c.m[node]
	c.mu.Unlock()
	if !ok {
		return store.NodeState{}, false
	}
	return st.Clone(), true
}

// put records st (committed, or just read from the file) unless a newer
// version is already there.
func (c *stateCache) put(st store.NodeState) {
	st = st.Clone()
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[st.Node]; ok && old.Version >= st.Version {
		return
	}
	if c.m == nil {
		c.m = make(map[string]store.NodeState)
	}
	c.m[st.Node] = st
}

func (c *stateCache) forget(node string) {
	c.mu.Lock()
	delete(c.m, node)
	c.mu.Unlock()
}
