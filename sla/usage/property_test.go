package usage

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestTrafficBoundsHoldTheTruth builds random histories whose true traffic
// is known — reboots with the node down between them, interfaces re-created
// (a new ifindex, the counter from zero), readings at random instants with
// gaps, a period anywhere — and checks that the bounds always hold it:
// lower ≤ true, and true ≤ upper whenever the upper bound is not open. A
// bound that could be wrong would make a wrong over-billing verdict.
func TestTrafficBoundsHoldTheTruth(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	const minutes = 3 * 24 * 60
	const maxPerMin = 125000 * 60 // 1 Mbit/s for a minute
	bounded, certain := 0, 0
	for trial := 0; trial < 2000; trial++ {
		// bytes[m] is what went out in minute m; up[m] whether the node ran.
		var bytes [minutes]uint64
		var up [minutes]bool
		type boot struct{ start, end int }
		var boots []boot
		for m := rng.IntN(300); m < minutes && len(boots) < 3; {
			end := min(minutes, m+200+rng.IntN(minutes))
			boots = append(boots, boot{m, end})
			m = end + 1 + rng.IntN(300)
		}
		for _, b := range boots {
			for m := b.start; m < b.end; m++ {
				up[m] = true
				bytes[m] = uint64(rng.IntN(maxPerMin + 1))
			}
		}
		epoch := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
		at := func(m int) time.Time { return epoch.Add(time.Duration(m) * time.Minute) }
		speed := int64(rng.IntN(2)) // 1 Mbit/s, or unknown
		var rs []Reading
		for k, b := range boots {
			// The interface exists from the boot; it may be re-created once.
			recreate := -1
			if rng.IntN(3) == 0 {
				recreate = b.start + rng.IntN(b.end-b.start)
			}
			for m := b.start; m <= b.end; m++ {
				if rng.IntN(60) != 0 {
					continue
				}
				from, index := b.start, int64(2)
				if recreate >= 0 && m >= recreate {
					from, index = recreate, 9
				}
				var c uint64
				for x := from; x < m; x++ {
					c += bytes[x]
				}
				rs = append(rs, Reading{At: at(m), Boot: &Boot{ID: fmt.Sprint("boot", k), Time: at(b.start)},
					Ifaces: []Iface{{Name: "eth0", TxBytes: c, Physical: true, DefaultRoute: true, SpeedMbps: speed, Index: index}}})
			}
		}
		if len(rs) == 0 {
			continue
		}
		p0 := rng.IntN(minutes)
		p1 := p0 + 1 + rng.IntN(minutes-p0)
		var truth uint64
		for m := p0; m < p1 && m < minutes; m++ {
			truth += bytes[m]
		}
		tr := TrafficIn(rs, at(p0), at(p1))
		if tr.Tx.Lower > truth || (!tr.Tx.Unbounded && tr.Tx.Upper < truth) {
			t.Fatalf("trial %d: %d bytes went out in minutes %d–%d, bounds %+v (boots %v, %d readings, speed %d)", trial, truth, p0, p1, tr.Tx, boots, len(rs), speed)
		}
		if !tr.Tx.Unbounded {
			bounded++
		}
		if tr.Tx.Lower > 0 {
			certain++
		}
	}
	// The histories must exercise both bounds, not only open ones.
	if bounded < 400 || certain < 400 {
		t.Fatalf("only %d bounded and %d with a certain part of 2000 trials", bounded, certain)
	}
}
