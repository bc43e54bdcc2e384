package incident

import "sort"

// Span is a run of observation instants (Unix nanoseconds) in which no two
// neighbours are further apart than the coverage's tolerance.
type Span struct {
	First int64 `json:"f"`
	Last  int64 `json:"l"`
}

// Coverage is the set of instants a node was seen at, kept as spans: a month
// of minute heartbeats with no gap is one span, so memory grows with the
// gaps, not with the heartbeats. Adding in time order is O(1); late
// (out-of-order) instants are inserted and may merge neighbours. Repeated
// instants change nothing, which is why duplicate observations need no id
// bookkeeping.
type Coverage struct {
	Tol   int64  `json:"tol"`
	Spans []Span `json:"spans,omitempty"`
}

// Add records the instant t.
func (c *Coverage) Add(t int64) {
	n := len(c.Spans)
	if n > 0 {
		l := &c.Spans[n-1]
		if t >= l.First {
			if t <= l.Last {
				return
			}
			if t-l.Last <= c.Tol {
				l.Last = t
				return
			}
			c.Spans = append(c.Spans, Span{t, t})
			return
		}
	}
	// Out of order.
	c.insert(t, t)
}

// AddSpan adds every instant of [first, last]: a heartbeat run whose
// heartbeats are no further apart than the tolerance covers what each of its
// heartbeats added one by one would, so adding it is the same as adding them.
// Like Add, it is idempotent and merges neighbours now within reach.
func (c *Coverage) AddSpan(first, last int64) {
	if first == last {
		c.Add(first) // its in-order fast path
		return
	}
	c.insert(first, last)
}

// insert adds [first, last] wherever it falls: into the first span ending
// within reach of it, or as a span of its own, then merges the spans that
// follow and are now within reach.
func (c *Coverage) insert(first, last int64) {
	n := len(c.Spans)
	i := sort.Search(n, func(i int) bool { return c.Spans[i].Last >= first-c.Tol })
	if i == n {
		c.Spans = append(c.Spans, Span{first, last})
		return
	}
	s := &c.Spans[i]
	if last < s.First-c.Tol {
		c.Spans = append(c.Spans, Span{})
		copy(c.Spans[i+1:], c.Spans[i:])
		c.Spans[i] = Span{first, last}
		return
	}
	s.First = min(s.First, first)
	s.Last = max(s.Last, last)
	j := i + 1
	for j < len(c.Spans) && c.Spans[j].First-s.Last <= c.Tol {
		s.Last = max(s.Last, c.Spans[j].Last)
		j++
	}
	if j > i+1 {
		c.Spans = append(c.Spans[:i+1], c.Spans[j:]...)
	}
}
