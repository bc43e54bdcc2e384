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
