package report

import "sort"

// span is a run of observation instants (Unix nanoseconds) in which no two
// neighbours are further apart than the coverage's tolerance.
type span struct{ first, last int64 }

// coverage is the set of instants a node was seen at, kept as spans: a month
// of minute heartbeats with no gap is one span, so memory grows with the
// gaps, not with the heartbeats. Adding in time order is O(1); late
// (out-of-order) instants are inserted and may merge neighbours. Repeated
// instants change nothing, which is why duplicate observations need no id
// bookkeeping.
type coverage struct {
	tol   int64
	spans []span
}

func (c *coverage) add(t int64) {
	n := len(c.spans)
	if n > 0 {
		l := &c.spans[n-1]
		if t >= l.first {
			if t <= l.last {
				return
			}
			if t-l.last <= c.tol {
				l.last = t
				return
			}
			c.spans = append(c.spans, span{t, t})
			return
		}
	}
	// Out of order: find the first span ending at or after t - tol.
	i := sort.Search(n, func(i int) bool { return c.spans[i].last >= t-c.tol })
	if i == n {
		c.spans = append(c.spans, span{t, t})
		return
	}
	s := &c.spans[i]
	if t < s.first-c.tol {
		c.spans = append(c.spans, span{})
		copy(c.spans[i+1:], c.spans[i:])
		c.spans[i] = span{t, t}
		return
	}
	if t < s.first {
		s.first = t
	}
	if t > s.last {
		s.last = t
	}
	// Merge following spans now within reach.
	j := i + 1
	for j < len(c.spans) && c.spans[j].first-s.last <= c.tol {
		if c.spans[j].last > s.last {
			s.last = c.spans[j].last
		}
		j++
	}
	if j > i+1 {
		c.spans = append(c.spans[:i+1], c.spans[j:]...)
	}
}

// addSpan adds every instant of [first, last]: a heartbeat run whose
// heartbeats are no further apart than the tolerance covers what each of its
// heartbeats added one by one would, so adding it is the same as adding them.
// Like add, it is idempotent and merges neighbours now within reach.
func (c *coverage) addSpan(first, last int64) {
	if first == last {
		c.add(first)
		return
	}
	n := len(c.spans)
	i := sort.Search(n, func(i int) bool { return c.spans[i].last >= first-c.tol })
	if i == n {
		c.spans = append(c.spans, span{first, last})
		return
	}
	s := &c.spans[i]
	if last < s.first-c.tol {
		c.spans = append(c.spans, span{})
		copy(c.spans[i+1:], c.spans[i:])
		c.spans[i] = span{first, last}
		return
	}
	s.first = min(s.first, first)
	s.last = max(s.last, last)
	j := i + 1
	for j < len(c.spans) && c.spans[j].first-s.last <= c.tol {
		s.last = max(s.last, c.spans[j].last)
		j++
	}
	if j > i+1 {
		c.spans = append(c.spans[:i+1], c.spans[j:]...)
	}
}
