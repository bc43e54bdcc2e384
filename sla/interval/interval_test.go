package interval

import (
	"math/rand"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func iv(a, b int) Interval {
	return Interval{t0.Add(time.Duration(a) * time.Minute), t0.Add(time.Duration(b) * time.Minute)}
}

func TestSetOps(t *testing.T) {
	s := Union(iv(0, 10), iv(5, 20), iv(20, 25), iv(40, 50), iv(60, 60))
	if len(s) != 2 || s[0] != iv(0, 25) || s[1] != iv(40, 50) {
		t.Fatalf("union %v", s)
	}
	o := Union(iv(3, 4), iv(24, 45))
	if got := s.Minus(o); len(got) != 3 || got[0] != iv(0, 3) || got[1] != iv(4, 24) || got[2] != iv(45, 50) {
		t.Fatalf("minus %v", got)
	}
	if got := s.And(o); len(got) != 3 || got.Total() != 7*time.Minute {
		t.Fatalf("and %v", got)
	}
	if got := s.AtLeast(11 * time.Minute); len(got) != 1 {
		t.Fatalf("atleast %v", got)
	}
}

// Minus and And split every set into two disjoint parts.
func TestMinusAndPartition(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	rnd := func() Set {
		var xs []Interval
		for i := 0; i < r.Intn(8); i++ {
			a := r.Intn(200)
			xs = append(xs, iv(a, a+r.Intn(40)))
		}
		return Union(xs...)
	}
	for i := 0; i < 2000; i++ {
		a, b := rnd(), rnd()
		if a.Minus(b).Total()+a.And(b).Total() != a.Total() {
			t.Fatalf("a=%v b=%v: minus %v and %v", a, b, a.Minus(b), a.And(b))
		}
		if a.Minus(b).And(b).Total() != 0 {
			t.Fatalf("a−b overlaps b")
		}
	}
}

// Earliest and Latest pick by instant; of two equal instants in different
// zones they keep the second, the bound a time is clipped to.
func TestEarliestLatest(t *testing.T) {
	sh := time.FixedZone("CST", 8*3600)
	a := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	b := a.Add(time.Hour)
	if !Earliest(a, b).Equal(a) || !Earliest(b, a).Equal(a) || !Latest(a, b).Equal(b) || !Latest(b, a).Equal(b) {
		t.Fatal("wrong instant")
	}
	same := a.In(sh)
	if Earliest(a, same).Location() != sh || Latest(a, same).Location() != sh {
		t.Fatal("a tie does not keep the second")
	}
}
