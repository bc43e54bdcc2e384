package report

import (
	"slices"
	"testing"
)

// A check reported per GPU takes the passes reported node-wide under its
// name as passes of each GPU's instance, except at an instant that instance
// has its own result; a check reported one way only gains nothing.
func TestNodeWidePassesReachEachGPU(t *testing.T) {
	n := &nodeAcc{evIndex: map[string]int32{}}
	x, x0, x1 := n.evidence("x"), n.evidence("x/gpu0"), n.evidence("x/gpu1")
	y, y0 := n.evidence("y"), n.evidence("y/gpu0")
	z := n.evidence("z")
	rec := func(at int64, key, name int32, fail bool) checkRec {
		return checkRec{at: at, key: key, name: name, fail: fail, ev: -1}
	}
	in := []checkRec{
		rec(1, x, x, false), rec(3, x, x, false), rec(4, x, x, true),
		rec(1, x0, x, true), rec(1, x1, x, true), rec(3, x1, x, true),
		rec(1, y0, y, true), rec(2, y0, y, false), // y: never node-wide
		rec(1, z, z, false), // z: never per GPU
	}
	n.sortChecks(in)
	got := n.withNodeWidePasses(slices.Clone(in))
	want := []checkRec{
		rec(1, x, x, false), rec(3, x, x, false), rec(4, x, x, true),
		rec(1, x0, x, true), rec(3, x0, x, false), // the pass at 3; at 1 gpu0 has its own failure
		rec(1, x1, x, true), rec(3, x1, x, true), // gpu1 has its own results at 1 and 3; the failure at 4 is no pass
		rec(1, y0, y, true), rec(2, y0, y, false),
		rec(1, z, z, false),
	}
	n.sortChecks(want)
	if !slices.Equal(got, want) {
		t.Fatalf("got\n%v\nwant\n%v", got, want)
	}
	// Nothing reported both ways: nothing added.
	one := []checkRec{rec(1, y0, y, true), rec(2, y0, y, false), rec(1, z, z, false)}
	n.sortChecks(one)
	if got := n.withNodeWidePasses(slices.Clone(one)); !slices.Equal(got, one) {
		t.Fatalf("got %v, want %v", got, one)
	}
}
