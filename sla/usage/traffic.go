package usage

import (
	"math"
	"sort"
	"time"

	"github.com/gpusla/gpusla/sla/interval"
)

// Bound is what a byte counter proves about a period: at least Lower bytes
// went through inside it, and at most Upper — unless Unbounded, when part of
// the period is covered by no reading and the link's speed is unknown, so
// nothing caps what it could have carried then.
type Bound struct {
	Lower     uint64 `json:"lower_bytes"`
	Upper     uint64 `json:"upper_bytes"`
	Unbounded bool   `json:"unbounded,omitempty"`
}

// Span is a part of the period a counter does not cover exactly.
type Span struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	Why  string    `json:"why"`
}

// IfaceTraffic is one interface over a period.
type IfaceTraffic struct {
	Name         string `json:"name"`
	Physical     bool   `json:"physical"`
	DefaultRoute bool   `json:"default_route"`
	Tx           Bound  `json:"tx"`
	Rx           Bound  `json:"rx"`
	// Unobserved are the spans the counters do not settle: before the first
	// reading, between the last reading of a boot and the next boot, a
	// counter that went back (the interface was reset), after the last
	// reading. Their traffic is capped by the link speed times their length
	// (or unbounded without one).
	Unobserved []Span `json:"unobserved,omitempty"`
}

// Traffic is a period's traffic, per interface and in total.
type Traffic struct {
	From   time.Time      `json:"from"`
	To     time.Time      `json:"to"`
	Ifaces []IfaceTraffic `json:"interfaces"`
	// Tx is the node's traffic out: Lower is what its default-route
	// interfaces certainly sent inside the period; Upper is the most its
	// physical interfaces (every interface when none is physical) can have
	// sent, which is at least what any provider meter can have counted on
	// its way out. Rx likewise, in.
	Tx Bound `json:"tx"`
	Rx Bound `json:"rx"`
	// Lower names the interfaces of the lower bounds, Upper those of the
	// upper bounds.
	LowerIfaces []string `json:"lower_interfaces"`
	UpperIfaces []string `json:"upper_interfaces"`
}

// Why an unobserved span is one (Span.Why).
const (
	WhyBeforeFirst   = "before the first reading"
	WhyBeforeBoot    = "before the first reading's boot"
	WhyBootToFirst   = "from the boot to its first reading"
	WhyReset         = "the counter went back: the interface was reset"
	WhyRecreated     = "the interface was re-created (a new ifindex): its counter started again"
	WhyToNextBoot    = "from the last reading of a boot to the next boot"
	WhyRebootBetween = "a reboot between readings"
	WhyAfterLast     = "after the last reading"
)

type point struct {
	at       time.Time
	boot     string
	bootTime time.Time
	tx, rx   uint64
	speed    int64
	index    int64 // ifindex; 0 when the probe did not send it
}

// TrafficIn bounds the bytes each interface sent and received inside
// from–to from readings (any order; readings outside the period count only
// for the pairs that straddle its ends).
func TrafficIn(all []Reading, from, to time.Time) *Traffic {
	rs := append([]Reading(nil), all...)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].At.Before(rs[j].At) })
	pts := map[string][]point{}
	phys, def := map[string]bool{}, map[string]bool{}
	for _, r := range rs {
		var boot string
		var bt time.Time
		if r.Boot != nil {
			boot, bt = r.Boot.ID, r.Boot.Time
		}
		for _, i := range r.Ifaces {
			pts[i.Name] = append(pts[i.Name], point{at: r.At, boot: boot, bootTime: bt, tx: i.TxBytes, rx: i.RxBytes, speed: i.SpeedMbps, index: i.Index})
			phys[i.Name] = phys[i.Name] || i.Physical
			def[i.Name] = def[i.Name] || i.DefaultRoute
		}
	}
	if len(pts) == 0 {
		return nil
	}
	t := &Traffic{From: from, To: to, Ifaces: []IfaceTraffic{}, LowerIfaces: []string{}, UpperIfaces: []string{}}
	anyPhys := false
	for n := range pts {
		anyPhys = anyPhys || phys[n]
	}
	names := make([]string, 0, len(pts))
	for n := range pts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		it := IfaceTraffic{Name: n, Physical: phys[n], DefaultRoute: def[n]}
		var spans []Span
		it.Tx, spans = bound(pts[n], from, to, func(p point) uint64 { return p.tx })
		it.Rx, _ = bound(pts[n], from, to, func(p point) uint64 { return p.rx })
		it.Unobserved = spans
		t.Ifaces = append(t.Ifaces, it)
		if it.DefaultRoute {
			t.LowerIfaces = append(t.LowerIfaces, n)
			t.Tx.Lower += it.Tx.Lower
			t.Rx.Lower += it.Rx.Lower
		}
		if it.Physical || !anyPhys {
			t.UpperIfaces = append(t.UpperIfaces, n)
			t.Tx.Upper += it.Tx.Upper
			t.Rx.Upper += it.Rx.Upper
			t.Tx.Unbounded = t.Tx.Unbounded || it.Tx.Unbounded
			t.Rx.Unbounded = t.Rx.Unbounded || it.Rx.Unbounded
		}
	}
	return t
}

// bound walks one counter's readings. Within one boot, of one interface
// (the same ifindex), a counter only grows, so the difference of two
// readings is exactly what went through between them. What went through
// otherwise is known only in part: a reading after a reboot counts at least
// what went through since the boot (the kernel starts every counter at zero
// then); a counter that went back, or of a re-created interface, at least
// what it shows; before the first reading, between the last reading of a
// boot and the next boot and after the last reading nothing is known.
// Those spans are capped by the link speed, or leave the upper bound open.
func bound(pts []point, from, to time.Time, val func(point) uint64) (b Bound, unobs []Span) {
	overlap := func(a, z time.Time) time.Duration {
		if a.Before(from) {
			a = from
		}
		if z.After(to) {
			z = to
		}
		return z.Sub(a)
	}
	// exactly: n bytes went through in a–z.
	exactly := func(a, z time.Time, n uint64) {
		if n == 0 || overlap(a, z) <= 0 {
			return
		}
		b.Upper += n
		if !a.Before(from) && !z.After(to) {
			b.Lower += n
		}
	}
	// unknown: at least n bytes went through in a–z, and the rest is
	// capped only by the link speed.
	unknown := func(a, z time.Time, n uint64, speed int64, why string) {
		d := overlap(a, z)
		if d <= 0 {
			return
		}
		inside := !a.Before(from) && !z.After(to)
		if inside {
			b.Lower += n
		}
		unobs = append(unobs, Span{From: interval.Latest(a, from), To: interval.Earliest(z, to), Why: why})
		if speed <= 0 {
			b.Unbounded = true
			return
		}
		// Mbit/s to bytes over the part inside the period, rounded up: a
		// cap is never too small. The n bytes counted are certain only
		// when the whole span is inside.
		capBytes := uint64(math.Ceil(float64(speed) * 1e6 / 8 * d.Seconds()))
		if inside {
			capBytes = max(capBytes, n)
		}
		b.Upper += capBytes
	}
	// A boot's first reading counts from the boot — at least: an
	// interface re-created before it (a driver reloaded) would have
	// started again, and nothing before the reading says so. So the time
	// from a boot to its first reading is capped like any unobserved span;
	// the daemon takes a reading as it starts to keep that span short.
	first := pts[0]
	if !first.bootTime.IsZero() && !first.bootTime.After(first.at) {
		unknown(from, first.bootTime, 0, first.speed, WhyBeforeBoot)
		unknown(first.bootTime, first.at, val(first), first.speed, WhyBootToFirst)
	} else {
		unknown(from, first.at, 0, first.speed, WhyBeforeFirst)
	}
	for i := 1; i < len(pts); i++ {
		p, q := pts[i-1], pts[i]
		speed := p.speed
		if speed <= 0 {
			speed = q.speed
		}
		recreated := p.index != 0 && q.index != 0 && p.index != q.index
		switch {
		case p.boot == q.boot && recreated:
			unknown(p.at, q.at, val(q), speed, WhyRecreated)
		case p.boot == q.boot && val(q) >= val(p):
			exactly(p.at, q.at, val(q)-val(p))
		case p.boot == q.boot:
			unknown(p.at, q.at, val(q), speed, WhyReset)
		case !q.bootTime.IsZero() && q.bootTime.After(p.at) && !q.bootTime.After(q.at):
			unknown(p.at, q.bootTime, 0, speed, WhyToNextBoot)
			unknown(q.bootTime, q.at, val(q), speed, WhyBootToFirst)
		default:
			// A new boot whose time does not fall between the readings
			// (a clock step): only what the new counter shows is certain.
			unknown(p.at, q.at, val(q), speed, WhyRebootBetween)
		}
	}
	last := pts[len(pts)-1]
	unknown(last.at, to, 0, last.speed, WhyAfterLast)
	return b, unobs
}
