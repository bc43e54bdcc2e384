// Package interval is the arithmetic of half-open time intervals that outage
// accounting is made of: union, intersection, subtraction, clipping, and the
// removal of runs shorter than a minimum.
//
// On the path from an observation to a report row, this is the arithmetic
// between incidents and the books: the spans an incident covers, merged and
// cut.
package interval

import (
	"sort"
	"time"
)

// Interval is [Start, End).
type Interval struct {
	Start, End time.Time
}

// Duration of the interval (zero if empty).
func (i Interval) Duration() time.Duration {
	if !i.End.After(i.Start) {
		return 0
	}
	return i.End.Sub(i.Start)
}

// Empty reports whether the interval holds no instant.
func (i Interval) Empty() bool { return !i.End.After(i.Start) }

// Earliest is the earlier of two instants, b when they are the same
// instant: the one written second wins a tie, so that clipping a time to a
// bound keeps the bound's zone (time.Time is not ordered for min).
func Earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// Latest is the later of two instants, b when they are the same instant.
func Latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Set is a sorted list of disjoint, non-touching, non-empty intervals.
type Set []Interval

// Union builds a Set from any intervals (touching ones merge).
func Union(ivs ...Interval) Set {
	xs := make([]Interval, 0, len(ivs))
	for _, iv := range ivs {
		if !iv.Empty() {
			xs = append(xs, iv)
		}
	}
	sort.Slice(xs, func(a, b int) bool { return xs[a].Start.Before(xs[b].Start) })
	var out Set
	for _, iv := range xs {
		if n := len(out); n > 0 && !iv.Start.After(out[n-1].End) {
			if iv.End.After(out[n-1].End) {
				out[n-1].End = iv.End
			}
			continue
		}
		out = append(out, iv)
	}
	return out
}

// Or is the union of two sets.
func (s Set) Or(o Set) Set { return Union(append(append([]Interval{}, s...), o...)...) }

// And is the intersection of two sets.
func (s Set) And(o Set) Set {
	var out Set
	i, j := 0, 0
	for i < len(s) && j < len(o) {
		a, b := s[i], o[j]
		start, end := a.Start, a.End
		if b.Start.After(start) {
			start = b.Start
		}
		if b.End.Before(end) {
			end = b.End
		}
		if end.After(start) {
			out = append(out, Interval{start, end})
		}
		if a.End.Before(b.End) {
			i++
		} else {
			j++
		}
	}
	return out
}

// Minus is s without o.
func (s Set) Minus(o Set) Set {
	var out Set
	j := 0
	for _, a := range s {
		cur := a
		for j < len(o) && !o[j].End.After(cur.Start) {
			j++
		}
		k := j
		for k < len(o) && o[k].Start.Before(cur.End) {
			if o[k].Start.After(cur.Start) {
				out = append(out, Interval{cur.Start, o[k].Start})
			}
			if o[k].End.After(cur.Start) {
				cur.Start = o[k].End
			}
			if !cur.End.After(cur.Start) {
				break
			}
			k++
		}
		if cur.End.After(cur.Start) {
			out = append(out, cur)
		}
	}
	return out
}

// Clip is s restricted to iv.
func (s Set) Clip(iv Interval) Set { return s.And(Set{iv}) }

// Total is the summed duration.
func (s Set) Total() time.Duration {
	var d time.Duration
	for _, iv := range s {
		d += iv.Duration()
	}
	return d
}

// AtLeast keeps the runs lasting min or more.
func (s Set) AtLeast(min time.Duration) Set {
	var out Set
	for _, iv := range s {
		if iv.Duration() >= min {
			out = append(out, iv)
		}
	}
	return out
}

// Overlap is how much of iv lies in s.
func (s Set) Overlap(iv Interval) time.Duration { return s.Clip(iv).Total() }
