package report

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
		var want []span
		sorted := append([]int64(nil), pts...)
		sort.Slice(sorted, func(a, b int) bool { return sorted[a] < sorted[b] })
		for _, p := range sorted {
			if n := len(want); n > 0 && p-want[n-1].last <= tol {
				want[n-1].last = p
			} else {
				want = append(want, span{p, p})
			}
		}
		r.Shuffle(len(pts), func(a, b int) { pts[a], pts[b] = pts[b], pts[a] })
		c := coverage{tol: tol}
		for _, p := range pts {
			c.add(p)
			c.add(p) // duplicates change nothing
		}
		if len(c.spans) != len(want) {
			t.Fatalf("points %v: got %v want %v", pts, c.spans, want)
		}
		for i := range want {
			if c.spans[i] != want[i] {
				t.Fatalf("points %v: got %v want %v", pts, c.spans, want)
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
		want := coverage{tol: tol}
		sort.Slice(pts, func(a, b int) bool { return pts[a] < pts[b] })
		for _, p := range pts {
			want.add(p)
		}
		r.Shuffle(len(items), func(a, b int) { items[a], items[b] = items[b], items[a] })
		got := coverage{tol: tol}
		for _, it := range items {
			got.addSpan(it.first, it.last)
			got.addSpan(it.first, it.last) // repeats change nothing
		}
		if len(got.spans) != len(want.spans) {
			t.Fatalf("items %v: got %v want %v", items, got.spans, want.spans)
		}
		for i := range want.spans {
			if got.spans[i] != want.spans[i] {
				t.Fatalf("items %v: got %v want %v", items, got.spans, want.spans)
			}
		}
	}
}
