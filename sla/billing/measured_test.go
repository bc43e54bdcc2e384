package billing

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/usage"
)

var sh = time.FixedZone("CST", 8*3600)

func cst(m time.Month, d, h int) time.Time { return time.Date(2026, m, d, h, 0, 0, 0, sh) }

// measuredReport is fullReport with two nodes whose probes sent usage
// readings (the service period of both is April in Shanghai):
//
// n1, a VM: vda (system, 100 GiB = 107 374 182 400 bytes, not rotational)
// and vdb (data, 500 GiB, rotational flag set — but a hypervisor's disk);
// eth0 (physical, default route) read four times in one boot:
//
//	31 Mar 23:00   tx 0
//	15 Apr 12:00   tx 300e9   the pair straddles the start: at most 300 GB, none certain
//	30 Apr 23:00   tx 449e9   inside: exactly 149 GB
//	 1 May 01:00   tx 450e9   straddles the end: at most 1 GB
//
// so the month's traffic out is at least 149 GB and at most 450 GB.
//
// n3, bare metal: nvme0n1 (system, 3.84 TB SSD) and sda (data, 4 000 787 030
// 016 bytes, rotational, a real disk); last heard from 10 April 00:00 and
// never released; its period ends at 10 April 00:20 (the report's as-of),
// 216 h 20 min: 216.333… h.
func measuredReport() *report.Report {
	r := fullReport()
	bootA := &usage.Boot{ID: "A", Time: cst(3, 1, 0)}
	vm := func(at time.Time, tx uint64) usage.Reading {
		return usage.Reading{At: at, Boot: bootA,
			Disks: []usage.Disk{{Name: "vda", SizeBytes: 100 << 30, System: true, Virtual: true},
				{Name: "vdb", SizeBytes: 500 << 30, Rotational: true, Virtual: true}},
			Ifaces: []usage.Iface{{Name: "eth0", TxBytes: tx, Physical: true, DefaultRoute: true}}}
	}
	rs := []usage.Reading{vm(cst(3, 31, 23), 0), vm(cst(4, 15, 12), 300e9), vm(cst(4, 30, 23), 449e9), vm(cst(5, 1, 1), 450e9)}
	r.Nodes[0].Usage = usage.Summarize(rs, cst(4, 1, 0), cst(5, 1, 0), cst(5, 1, 1))

	end := cst(4, 10, 0).Add(20 * time.Minute)
	secs := int64(end.Sub(cst(4, 1, 0)).Seconds())
	n3 := report.Node{Node: "n3", Contract: "cn", Currency: "CNY", TimeZone: "Asia/Shanghai",
		Period:  report.Period{InService: true, Start: "2026-04-01T00:00:00+08:00", End: end.Format(time.RFC3339), Seconds: secs},
		Billing: report.Billing{PricePerGPUHour: 10, GPUs: 1, From: "2026-04-01T00:00:00+08:00", To: end.Format(time.RFC3339), BilledSeconds: secs, GranularitySeconds: 1, UsableSeconds: secs, Charge: 2163.33}}
	bm := func(at time.Time) usage.Reading {
		return usage.Reading{At: at, Boot: bootA, Disks: []usage.Disk{{Name: "nvme0n1", SizeBytes: 3840755982336, System: true},
			{Name: "sda", SizeBytes: 4000787030016, Rotational: true}},
			Ifaces: []usage.Iface{{Name: "eno1", TxBytes: uint64(at.Sub(cst(4, 1, 0)).Hours()) * 1e9, Physical: true, DefaultRoute: true}}}
	}
	n3.Usage = usage.Summarize([]usage.Reading{bm(cst(4, 1, 1)), bm(cst(4, 9, 23))}, cst(4, 1, 0), end, cst(4, 10, 0))
	r.Nodes = append(r.Nodes, n3)
	return r
}

func judgeMeasured(t *testing.T, bill string) *Full {
	t.Helper()
	ts, err := terms.Parse("p.yaml", []byte(strings.Replace(priced, "%s", "true", 1)))
	if err != nil {
		t.Fatal(err)
	}
	items, err := ParseItems("bill.csv", strings.NewReader("node,period,kind,quantity,unit_price,amount,class,from,to\n"+bill))
	if err != nil {
		t.Fatal(err)
	}
	f, err := JudgeItems(measuredReport(), map[string]*terms.Terms{"cn": ts[0]}, items)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Each line kind held to what the probe measured, worked by hand (prices:
// SSD 1, HDD 0.3 per GB-month, traffic 0.8 per GB, GPU 10 per hour).
func TestBillLinesAgainstMeasurements(t *testing.T) {
	for _, c := range []struct {
		name, line, verdict string
		over                float64
		why, needed         string
	}{
		// 100 GB billed, vda holds 107.37 GB: within it.
		{"system disk matches", "n1,2026-04,system_disk,100,1,100,ssd,,", VerdictMatches, 0, "vda holds 107.374 GB (100 GiB)", ""},
		// 120 GB billed, vda holds 107.3741824 GB at most: 107.37 due, 120 − 107.37 = 12.63 over.
		{"system disk larger than the disk", "n1,2026-04,system_disk,120,1,120,ssd,,", VerdictOverBilled, 12.63, "billed 120 GB, but vda holds 107374182400 bytes = 107.374 GB", ""},
		// vdb's rotational flag is the hypervisor's: the SSD class cannot be refuted.
		{"virtual disk class", "n1,2026-04,data_disk,500,1,500,ssd,,", VerdictUnverified, 0, "hypervisor's disk", "random-read latency"},
		// sda is a real spinning disk billed as SSD: 4000 GB × 0.3 = 1200 due, 4000 billed: 2800 over.
		{"hdd billed as ssd", "n3,2026-04,data_disk,4000,1,4000,ssd,,", VerdictOverBilled, 2800, "sda is a rotational disk (HDD) billed as SSD", ""},
		{"hdd billed as hdd", "n3,2026-04,data_disk,4000,0.3,1200,hdd,,", VerdictMatches, 0, "sda holds 4000.787 GB", ""},
		// 500 GB out billed, the interfaces sent at most 450 GB: 450 × 0.8 = 360 due, 400 billed: 40 over.
		{"traffic above the counters", "n1,2026-04,traffic,500,0.8,400,,,", VerdictOverBilled, 40, "sent at most 450 GB", ""},
		// 400 GB is within 149–450 GB: the counters cannot tell public from private traffic.
		{"traffic within the counters", "n1,2026-04,traffic,400,0.8,320,,,", VerdictUnverified, 0, "at most 450 GB, its default-route interface at least 149 GB", "flow logs"},
		// n3's last reading is 9 April 23:00 and its period runs to 10 April 00:20 with no link speed: unbounded.
		{"traffic unbounded", "n3,2026-04,traffic,10,0.8,8,,,", VerdictUnverified, 0, "covered by no reading", "link speed"},
		// n3 was last heard from 10 April 00:00, never released: a disk billed for all of April
		// (4000 GB × 0.3 = 1200) has 21 of its 30 days after that, 840.00 — a question.
		{"storage after the node went silent", "n3,2026-04,data_disk,4000,0.3,1200,hdd,2026-04-01T00:00:00+08:00,2026-05-01T00:00:00+08:00", VerdictUnverified, 0, "840.00 of it is billed after", "release record"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := judgeMeasured(t, c.line+"\n")
			j := f.Items[0]
			if j.Verdict != c.verdict || j.Over != c.over || !strings.Contains(j.Why, c.why) || !strings.Contains(j.Needed, c.needed) {
				t.Fatalf("got %s over %.2f\nwhy %s\nneeded %s\nwant %s over %.2f (~%q, ~%q)", j.Verdict, j.Over, j.Why, j.Needed, c.verdict, c.over, c.why, c.needed)
			}
		})
	}
	// Two data disk lines on n3, which has one data disk: the larger line
	// is held to sda, the other has no disk to be.
	f := judgeMeasured(t, "n3,2026-04,data_disk,1000,0.3,300,hdd,,\nn3,2026-04,data_disk,4000,0.3,1200,hdd,,\n")
	if a, b := f.Items[0], f.Items[1]; a.Verdict != VerdictUnverified || !strings.Contains(a.Why, "saw no data_disk") || !strings.Contains(a.Needed, "attachment record") || b.Verdict != VerdictMatches {
		t.Fatalf("two lines, one disk:\n%+v\n%+v", a, b)
	}
}

// Billed by the hour while advertised per second: n3's 216.333… h period
// billed as 217 h at 10 = 2170, the contract's 2163.33: 6.67 over, and the
// note names the rounding.
func TestHourlyRoundingOfAPerSecondContract(t *testing.T) {
	f := judgeMeasured(t, "n3,2026-04,compute,217,10,2170,,,\n")
	j := f.Items[0]
	if j.Verdict != VerdictOverBilled || j.Over != 6.67 || !strings.Contains(j.Why, "rounds the 216.333333 h period up to whole hours; the contract bills per 1s") {
		t.Fatalf("%+v", j)
	}
}
