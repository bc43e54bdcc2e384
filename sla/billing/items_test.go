package billing

import (
	"strings"
	"testing"

	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

const priced = `contract: cn
provider: P
currency: CNY
timezone: Asia/Shanghai
business_hours:
  monday: "09:00-18:00"
uptime:
  target: 99
claim:
  within_days: 30
billing:
  price_per_gpu_hour: 10
  granularity: 1s
prices:
  package_weekly: 9000
  package_monthly: 30000
  bandwidth_per_mbps_month: 100
  traffic_per_gb: 0.8
  disk_ssd_per_gb_month: 1
  disk_hdd_per_gb_month: 0.3
  object_storage_per_gb_month: 0.12
  disks_end_with_node: %s
`

// fullReport is April 2026 (30 days = 720 h) in Shanghai for two nodes:
// n1 (1 GPU, the whole month) and n2 (released 16 April 00:00, half way).
func fullReport() *report.Report {
	node := func(id, end string, released bool, secs int64) report.Node {
		return report.Node{Node: id, Contract: "cn", Currency: "CNY", TimeZone: "Asia/Shanghai",
			Period:  report.Period{InService: true, Start: "2026-04-01T00:00:00+08:00", End: end, Seconds: secs, Released: released},
			Billing: report.Billing{PricePerGPUHour: 10, GPUs: 1, From: "2026-04-01T00:00:00+08:00", To: end, BilledSeconds: secs, GranularitySeconds: 1, UsableSeconds: secs, Charge: float64(secs) / 3600 * 10}}
	}
	return &report.Report{Month: "2026-04", Nodes: []report.Node{
		node("n1", "2026-05-01T00:00:00+08:00", false, 720*3600),
		node("n2", "2026-04-16T00:00:00+08:00", true, 360*3600),
	}}
}

func pricedTerms(t *testing.T, deleteDisks string) *terms.Terms {
	t.Helper()
	ts, err := terms.Parse("p.yaml", []byte(strings.Replace(priced, "%s", deleteDisks, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

func judge(t *testing.T, deleteDisks string, bill string) *Full {
	t.Helper()
	items, err := ParseItems("bill.csv", strings.NewReader(bill))
	if err != nil {
		t.Fatal(err)
	}
	f, err := JudgeItems(fullReport(), map[string]*terms.Terms{"cn": pricedTerms(t, deleteDisks)}, items)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// One scenario per line kind, each worked by hand in its comment.
func TestFullBillLineKinds(t *testing.T) {
	const head = "node,period,kind,quantity,unit_price,amount,class,from,to,description\n"
	cases := []struct {
		name, line, verdict string
		over                float64
		why                 string
	}{
		// Advertised per second, billed by the hour: 720.5 h billed for 720 h → 0.5 h × 10 = 5 over.
		{"compute hourly rounding", "n1,2026-04,compute,720.5,10,7205,,,,GPU", VerdictOverBilled, 5, "billed 720.5 h, the contract allows 720 h"},
		{"compute matches", "n1,2026-04,compute,720,10,7200,,,,GPU", VerdictMatches, 0, "720 h at the contract price"},
		// Weekly package 9000: two packages billed at 9500 each → 19000 − 18000 = 1000 over.
		{"weekly package", "n1,2026-04,package_week,2,9500,19000,,,,", VerdictOverBilled, 1000, "unit price 9500, the contract's is 9000"},
		{"monthly package", "n1,2026-04,package_month,1,30000,30000,,,,", VerdictMatches, 0, "1 package × 30000"},
		// Fixed bandwidth 100/Mbps-month: 10 Mbps for the whole month = 1000.
		{"fixed bandwidth", "n1,2026-04,bandwidth_fixed,10,100,1000,,,,", VerdictMatches, 0, "10 Mbps-month × 100"},
		// Traffic 0.8/GB: 500 GB = 400, billed 450 → 50 over; the GB themselves need the probe's byte counts.
		{"traffic over", "n2,2026-04,traffic,500,0.9,450,,,,", VerdictOverBilled, 50, "unit price 0.9"},
		{"traffic price right", "n2,2026-04,traffic,500,0.8,400,,,,", VerdictUnverified, 0, "the quantity cannot be checked"},
		// A 100 GB HDD data disk billed at the SSD price (1 vs 0.3): 100 − 30 = 70 over.
		{"hdd billed as ssd price", "n2,2026-04,data_disk,100,1,100,hdd,,,", VerdictOverBilled, 70, "unit price 1, the contract's is 0.3"},
		// No usage readings from n2: the size and class stay a question.
		{"system disk unmeasured", "n2,2026-04,system_disk,50,1,50,ssd,,,", VerdictUnverified, 0, "50 GB-month × 1"},
		{"object storage", "n1,2026-04,object_storage,1000,0.12,120,,,,", VerdictUnverified, 0, "the quantity cannot be checked"},
		// No cross-zone price in the terms: nothing to check against.
		{"cross zone", "n1,2026-04,cross_zone,200,0.5,100,,,,", VerdictUnverified, 0, "no price for cross_zone"},
		// n2 released 16 April; its 200 GB SSD billed the whole month (200) — the contract deletes disks
		// with the node, so only half the month (15 of 30 days) is due: 100 over.
		{"storage after release", "n2,2026-04,data_disk,200,1,200,ssd,2026-04-01T00:00:00+08:00,2026-05-01T00:00:00+08:00,", VerdictOverBilled, 100, "after the node was released"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := judge(t, "true", head+c.line+"\n")
			if len(f.Items) != 1 {
				t.Fatalf("%d items", len(f.Items))
			}
			j := f.Items[0]
			if j.Verdict != c.verdict || j.Over != c.over || !strings.Contains(j.Why, c.why) {
				t.Fatalf("got %s over %.2f (%s), want %s over %.2f (~%q)", j.Verdict, j.Over, j.Why, c.verdict, c.over, c.why)
			}
			if j.Verdict == VerdictUnverified && j.Needed == "" {
				t.Fatal("a line that cannot be verified must say what evidence would settle it")
			}
		})
	}
	// Disks kept after release when the contract does not delete them: a
	// question, not a verdict of over-billing.
	f := judge(t, "false", head+"n2,2026-04,data_disk,200,1,200,ssd,2026-04-01T00:00:00+08:00,2026-05-01T00:00:00+08:00,\n")
	if j := f.Items[0]; j.Verdict != VerdictUnverified || !strings.Contains(j.Needed, "release request") {
		t.Fatalf("kept disk: %+v", j)
	}
}

func TestFullBillErrors(t *testing.T) {
	for _, c := range []struct{ bill, want string }{
		{"node,period,kind,quantity,amount\nn1,2026-04,gpu_time,1,1\n", "bill.csv:2: field kind"},
		{"node,period,kind,quantity,amount,class\nn1,2026-04,data_disk,1,1,nvme\n", "bill.csv:2: field class"},
		{"node,period,kind,quantity,amount\nn1,2026-04,traffic,-1,1\n", "bill.csv:2: field quantity"},
		{"node,period,kind,amount\nn1,2026-04,traffic,1\n", `no "quantity" column`},
		{"node,period,kind,quantity,amount,from,to\nn1,2026-04,traffic,1,1,2026-04-02T00:00:00Z,2026-04-01T00:00:00Z\n", "field to"},
	} {
		if _, err := ParseItems("bill.csv", strings.NewReader(c.bill)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want ~%q", c.bill, err, c.want)
		}
	}
}
