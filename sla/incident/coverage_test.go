package incident

import (
	"math/rand"
	"sort"
	"testing"
)

// Adding instants in any order gives the spans of the sorted instants.
func TestCoverageOrderIndependent(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for round := 0; round < 500; round++ {
		var pts []int64
		for i := 0; i < 1+r.Intn(60); i++ {
			pts = append(pts, int64(r.Intn(400)))
		}
		const tol = 10
		var want []Span
		sorted := append([]int64(nil), pts...)
		sort.Slice(sorted, func(a, b int) bool { return sorted[a] < sorted[b] })
		for _, p := range sorted {
			if n := len(want); n > 0 && p-want[n-1].Last <= tol {
				want[n-1].Last = p
			} else {
				want = append(want, Span{p, p})
			}
		}
		r.Shuffle(len(pts), func(a, b int) { pts[a], pts[b] = pts[b], pts[a] })
		c := Coverage{Tol: tol}
		for _, p := range pts {
			c.Add(p)
			c.Add(p) // duplicates change nothing
		}
		if len(c.Spans) != len(want) {
			t.Fatalf("points %v: got %v want %v", pts, c.Spans, want)
		}
		for i := range want {
			if c.Spans[i] != want[i] {
				t.Fatalf("points %v: got %v want %v", pts, c.Spans, want)
			}
		}
	}
}

// Adding runs of instants as spans, mixed with single instants, in any
// order, gives the spans of all the instants added one by one — when
// consecutive instants in a run are within the tolerance, as a heartbeat run
// promises.
func TestCoverageSpanEqualsItsInstants(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	const tol = 10
	for round := 0; round < 500; round++ {
		type item struct{ first, last int64 }
		var items []item
		var pts []int64
		for i := 0; i < 1+r.Intn(30); i++ {
			p := int64(r.Intn(600))
			if r.Intn(2) == 0 {
				items = append(items, item{p, p})
				pts = append(pts, p)
				continue
			}
			q := p
			pts = append(pts, p)
			for k := 0; k < r.Intn(8); k++ {
				q += int64(1 + r.Intn(tol))
				pts = append(pts, q)
			}
			items = append(items, item{p, q})
		}
		want := Coverage{Tol: tol}
		sort.Slice(pts, func(a, b int) bool { return pts[a] < pts[b] })
		for _, p := range pts {
			want.Add(p)
		}
		r.Shuffle(len(items), func(a, b int) { items[a], items[b] = items[b], items[a] })
		got := Coverage{Tol: tol}
		for _, it := range items {
			got.AddSpan(it.first, it.last)
			got.AddSpan(it.first, it.last) // repeats change nothing
		}
		if len(got.Spans) != len(want.Spans) {
			t.Fatalf("items %v: got %v want %v", items, got.Spans, want.Spans)
		}
		for i := range want.Spans {
			if got.Spans[i] != want.Spans[i] {
				t.Fatalf("items %v: got %v want %v", items, got.Spans, want.Spans)
			}
		}
	}
}
