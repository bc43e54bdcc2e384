package usage

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

var day = time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)

func at(h int) time.Time { return day.Add(time.Duration(h) * time.Hour) }

func reading(h int, boot string, bootAt time.Time, tx uint64, speed int64) Reading {
	return Reading{At: at(h), Boot: &Boot{ID: boot, Time: bootAt},
		Ifaces: []Iface{{Name: "eth0", TxBytes: tx, RxBytes: 2 * tx, Physical: true, DefaultRoute: true, SpeedMbps: speed},
			{Name: "docker0", TxBytes: 1e12}}}
}

// The period is 1 April 00:00–10:00 UTC. Worked by hand:
//
//	r1 31 Mar 23:00  boot A (booted 31 Mar 00:00)  tx 1000
//	r2 01:00         A  5000   r1–r2 straddles the start: at most 4000, not certainly inside
//	r3 02:00         A  9000   inside: exactly 4000
//	r4 03:00         A  2000   the counter went back: at least 2000; the rest of 02:00–03:00 unknown
//	   04:00         boot B
//	r5 05:00         B   700   03:00–04:00 unknown (the old boot's end); 04:00–05:00 at least
//	                           700 (since the boot; an interface re-created in it would hide more)
//	r6 11:00         B  1700   straddles the end: at most 1000
//
// Lower = 4000 + 2000 + 700 = 6700. With an 8 Mbit/s link (1e6 bytes/s) each
// unknown hour is capped at 3.6e9: Upper = 4000 + 4000 + 3 × 3.6e9 + 1000 =
// 10 800 009 000. Without a link speed the upper bound is open.
// docker0 (not physical) is in neither bound.
func TestTrafficBoundsAcrossResetAndReboot(t *testing.T) {
	bootA, bootB := day.Add(-24*time.Hour), at(4)
	rs := func(speed int64) []Reading {
		return []Reading{reading(-1, "A", bootA, 1000, speed), reading(1, "A", bootA, 5000, speed), reading(2, "A", bootA, 9000, speed),
			reading(3, "A", bootA, 2000, speed), reading(5, "B", bootB, 700, speed), reading(11, "B", bootB, 1700, speed)}
	}
	tr := TrafficIn(rs(8), at(0), at(10))
	if tr.Tx.Lower != 6700 || tr.Tx.Upper != 10800009000 || tr.Tx.Unbounded {
		t.Fatalf("tx %+v, want lower 6700, upper 10800009000", tr.Tx)
	}
	if tr.Rx.Lower != 13400 {
		t.Errorf("rx lower %d, want 13400", tr.Rx.Lower)
	}
	if strings.Join(tr.UpperIfaces, ",") != "eth0" || strings.Join(tr.LowerIfaces, ",") != "eth0" {
		t.Errorf("interfaces: upper %v lower %v", tr.UpperIfaces, tr.LowerIfaces)
	}
	var eth IfaceTraffic
	for _, i := range tr.Ifaces {
		if i.Name == "eth0" {
			eth = i
		}
	}
	if len(eth.Unobserved) != 3 || !eth.Unobserved[0].From.Equal(at(2)) || !eth.Unobserved[1].To.Equal(at(4)) || !eth.Unobserved[2].To.Equal(at(5)) {
		t.Errorf("unobserved %+v, want 02:00–03:00, 03:00–04:00 and 04:00–05:00", eth.Unobserved)
	}
	if tr := TrafficIn(rs(0), at(0), at(10)); !tr.Tx.Unbounded || tr.Tx.Lower != 6700 {
		t.Errorf("no link speed: %+v, want unbounded with lower 6700", tr.Tx)
	}
	// A clean month inside one boot: both bounds are the difference of the
	// readings straddling the ends at most, the inside pairs at least.
	clean := []Reading{reading(-1, "A", bootA, 0, 0), reading(5, "A", bootA, 100, 0), reading(11, "A", bootA, 150, 0)}
	if tr := TrafficIn(clean, at(0), at(10)); tr.Tx.Lower != 0 || tr.Tx.Upper != 150 || tr.Tx.Unbounded {
		t.Errorf("clean: %+v, want lower 0 upper 150", tr.Tx)
	}
}

// The node form of the checks round-trips, and a counter that is not a
// whole number is an error naming the check.
func TestFromChecks(t *testing.T) {
	n := 3600.0
	cs := []events.Check{
		{Name: NameBoot, Category: "host", Verdict: "pass", Number: &n, Detail: Detail(map[string]string{"boot_id": "b1", "boot_time": "1775001600"})},
		{Name: "usage.disk.vdb", Category: "host", Verdict: "pass", Detail: Detail(map[string]string{"size_bytes": "107374182400", "rotational": "1", "virtual": "1", "model": "QEMU HARDDISK"})},
		{Name: "usage.net.eth0.100", Category: "host", Verdict: "pass", Detail: Detail(map[string]string{"rx_bytes": "5", "tx_bytes": "18446744073709551615", "physical": "0", "speed_mbps": "-1"})},
		{Name: "gpu.count", Category: "inventory", Verdict: "pass"},
	}
	r, ok, err := FromChecks(day, cs)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if r.Boot.ID != "b1" || !r.Boot.Time.Equal(time.Unix(1775001600, 0)) || r.Boot.UptimeSeconds != 3600 {
		t.Errorf("boot %+v", r.Boot)
	}
	if d := r.Disks[0]; d.Name != "vdb" || d.SizeBytes != 100<<30 || !d.Rotational || !d.Virtual || d.Model != "QEMU HARDDISK" {
		t.Errorf("disk %+v", d)
	}
	if i := r.Ifaces[0]; i.Name != "eth0.100" || i.TxBytes != 1<<64-1 || i.SpeedMbps != -1 {
		t.Errorf("iface %+v", i)
	}
	cs[2].Detail = "rx_bytes=1.5&tx_bytes=2"
	if _, _, err := FromChecks(day, cs); err == nil || !strings.Contains(err.Error(), "usage.net.eth0.100: rx_bytes") {
		t.Errorf("bad counter: %v", err)
	}
}
