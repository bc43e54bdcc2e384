package billing

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/usage"
)

// The hand-written sample follows AWS's documented CUR columns
// (testdata/aws-cur-2026-04.csv): April 2026 of one p5.48xlarge (gpu-a)
// with its gp3 root volume (tagged system), an st1 data volume (untagged
// role), internet and cross-AZ transfer, an S3 bucket, and rows that are
// not a node's usage.
func TestParseAWSCUR(t *testing.T) {
	f, err := os.Open("testdata/aws-cur-2026-04.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	items, left, err := ParseAWSCUR("cur.csv", f)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		got = append(got, fmt.Sprintf("%d %s %s %s q=%v amount=%v rate=%v any=%v %s–%s", it.Line, it.Node, it.Kind, it.Class, it.Quantity, it.Amount,
			it.UnitPrice, it.AnyDisk, it.From.Format("01-02"), it.To.Format("01-02")))
	}
	// Two 360 h rows of the instance are one 720 h line; the root volume's
	// two 50 GB-month halves are one 100 GB disk over the whole month.
	want := []string{
		"2 gpu-a compute  q=720 amount=70790.4 rate=98.32 any=false 04-01–05-01",
		"4 gpu-a system_disk ssd q=100 amount=8 rate=0.08 any=false 04-01–05-01",
		"6 gpu-a data_disk hdd q=500 amount=22.5 rate=0.045 any=true 04-01–05-01",
		"7 gpu-a traffic  q=120 amount=10.8 rate=0.09 any=false 04-01–05-01",
		"8 gpu-a cross_zone  q=30 amount=0.3 rate=0.01 any=false 04-01–05-01",
		"9 gpu-a object_storage  q=200 amount=4.6 rate=0.023 any=false 04-01–05-01",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var lo []string
	for _, l := range left {
		lo = append(lo, fmt.Sprintf("%s: %d row(s) %v %s", l.Reason, l.Rows, l.Amount, l.Currency))
	}
	wantLeft := []string{"no gpusla-node tag on the resource: 1 row(s) 3.24 USD", "usage type USW2-EBS:SnapshotUsage has no line kind: 1 row(s) 1 USD",
		"line item type Tax: not a charge for a node's usage at its own price: 1 row(s) 7 USD", "line item type Credit: not a charge for a node's usage at its own price: 1 row(s) -50 USD"}
	if strings.Join(lo, "\n") != strings.Join(wantLeft, "\n") {
		t.Fatalf("left out:\n%s\nwant:\n%s", strings.Join(lo, "\n"), strings.Join(wantLeft, "\n"))
	}

	// Judged against a UTC contract at AWS's prices, the node's probe having
	// seen a 100 GiB root and a 500 GiB data volume and sent at most 100 GB:
	// compute 720 h × 8 GPUs × 12.29 = 70790.40 matches; both volumes match
	// (each billed GB within its disk); 120 GB out billed against at most
	// 100 GB sent: 100 × 0.09 = 9.00 due, 10.80 billed, 1.80 over; cross-AZ
	// and S3 are priced right and cannot be verified from the node.
	raw, err := os.ReadFile(awsTermsFile)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := terms.Parse(awsTermsFile, raw)
	if err != nil {
		t.Fatal(err)
	}
	full, err := JudgeItems(awsReport(), map[string]*terms.Terms{"aws-p5": ts[0]}, items)
	if err != nil {
		t.Fatal(err)
	}
	var verdicts []string
	for _, j := range full.Items {
		verdicts = append(verdicts, fmt.Sprintf("%s %s %.2f", j.Kind, j.Verdict, j.Over))
	}
	if v := strings.Join(verdicts, ", "); v != "compute matches 0.00, system_disk matches 0.00, data_disk matches 0.00, traffic over_billed 1.80, cross_zone cannot_verify 0.00, object_storage cannot_verify 0.00" {
		t.Fatalf("verdicts: %s", v)
	}
}

// awsTermsFile is a UTC contract at AWS's prices (functions/monthreport's
// tests read it too).
const awsTermsFile = "testdata/aws-p5.yaml"

func awsReport() *report.Report {
	ms, me := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	secs := int64(720 * 3600)
	n := report.Node{Node: "gpu-a", Contract: "aws-p5", Currency: "USD", TimeZone: "UTC",
		Period:  report.Period{InService: true, Start: ms.Format(time.RFC3339), End: me.Format(time.RFC3339), Seconds: secs},
		Billing: report.Billing{PricePerGPUHour: 12.29, GPUs: 8, From: ms.Format(time.RFC3339), To: me.Format(time.RFC3339), BilledSeconds: secs, GranularitySeconds: 1, UsableSeconds: secs, Charge: 70790.40}}
	boot := &usage.Boot{ID: "b", Time: ms.Add(-time.Hour)}
	rd := func(at time.Time, tx uint64) usage.Reading {
		return usage.Reading{At: at, Boot: boot, Disks: []usage.Disk{{Name: "nvme0n1", SizeBytes: 100 << 30, System: true, Virtual: true},
			{Name: "nvme1n1", SizeBytes: 500 << 30, Virtual: true}}, Ifaces: []usage.Iface{{Name: "ens5", TxBytes: tx, Physical: true, DefaultRoute: true}}}
	}
	n.Usage = usage.Summarize([]usage.Reading{rd(ms.Add(-time.Hour), 0), rd(ms.Add(360*time.Hour), 60e9), rd(me.Add(time.Hour), 100e9)}, ms, me, me)
	return &report.Report{Month: "2026-04", Nodes: []report.Node{n}}
}

// An instance replaced mid-month is still the node's one GPU-time line;
// two GPU-time lines for one node are judged together as one charge
// (TestSplitChargeJudgedTogether).
func TestAWSCURReplacedInstance(t *testing.T) {
	b, err := os.ReadFile("testdata/aws-cur-2026-04.csv")
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(string(b), "\n")
	rows[2] = strings.Replace(rows[2], "i-0a1b2c3d4e5f60718", "i-0ffffffffffffffff", 1)
	items, _, err := ParseAWSCUR("cur.csv", strings.NewReader(strings.Join(rows, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	if it := items[0]; it.Kind != KindCompute || it.Quantity != 720 || it.Description != "i-0a1b2c3d4e5f60718 i-0ffffffffffffffff, 2 AWS CUR row(s) from line 2" {
		t.Fatalf("%+v", it)
	}
	twice, err := ParseItems("bill.csv", strings.NewReader("node,period,kind,quantity,amount\nn1,2026-04,compute,360,3600\nn1,2026-04,compute,360,3600\n"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := JudgeItems(fullReport(), map[string]*terms.Terms{"cn": pricedTerms(t, "true")}, twice)
	if err != nil {
		t.Fatal(err)
	}
	// 360 h + 360 h = the month's 720 h at 10: 3600 + 3600 = 7200, as billed.
	if len(f.Items) != 2 || f.Items[0].Verdict != VerdictMatches || f.Items[1].Verdict != VerdictMatches || f.Billed["CNY"] != 7200 {
		t.Fatalf("two compute lines: %+v", f)
	}
}

// A malformed row names file, line, column and the CUR column.
func TestParseAWSCURErrors(t *testing.T) {
	b, err := os.ReadFile("testdata/aws-cur-2026-04.csv")
	if err != nil {
		t.Fatal(err)
	}
	sample := string(b)
	for _, c := range []struct{ from, to, want string }{
		{",360,USD,98.32,", ",36O,USD,98.32,", "cur.csv:2:268: lineItem/UsageAmount: \"36O\" is not a plain decimal number"},
		{"2026-04-16T00:00:00Z,AmazonEC2,USW2-BoxUsage", "16/04/2026,AmazonEC2,USW2-BoxUsage", "cur.csv:2:178: lineItem/UsageEndDate: \"16/04/2026\" is not an ISO 8601 time"},
		{"GB-Mo,gpu-a,system", "GB-Mo,gpu-a,root", ""},
		{",Hrs,gpu-a,\n", ",GB,gpu-a,\n", "pricing/unit: \"GB\" for USW2-BoxUsage:p5.48xlarge, want Hrs"},
		{",Usage,2026-04-01T00:00:00Z,2026-04-16T00:00:00Z,AmazonEC2,USW2-BoxUsage", ",Usgae,2026-04-01T00:00:00Z,2026-04-16T00:00:00Z,AmazonEC2,USW2-BoxUsage", "cur.csv:2:151: lineItem/LineItemType: \"Usgae\" is not a CUR line item type"},
		{"resourceTags/user:gpusla-node,", "resourceTags/user:team,", `header has no "resourceTags/user:gpusla-node" column`},
	} {
		if c.want == "" {
			c.want = `resourceTags/user:gpusla-disk: "root" is neither system nor data`
		}
		in := strings.Replace(sample, c.from, c.to, 1)
		if in == sample {
			t.Fatalf("%q not in the sample", c.from)
		}
		if _, _, err := ParseAWSCUR("cur.csv", strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q → %q: got %v, want ~%q", c.from, c.to, err, c.want)
		}
	}
}

// FuzzParseAWSCUR: whatever the file, the importer errs or gives lines a
// judgment can rest on.
func FuzzParseAWSCUR(f *testing.F) {
	if b, err := os.ReadFile("testdata/aws-cur-2026-04.csv"); err == nil {
		f.Add(string(b))
	}
	f.Add("lineItem/UsageType\n\"a\"\"b\"\n")
	f.Fuzz(func(t *testing.T, in string) {
		items, left, err := ParseAWSCUR("fuzz.csv", strings.NewReader(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		if len(items) == 0 && len(left) == 0 {
			t.Fatal("no error, no lines and nothing left out")
		}
		for _, it := range items {
			if it.Node == "" || !slices.Contains(itemKinds, it.Kind) || it.Quantity < 0 || it.Amount < 0 || !it.To.After(it.From) {
				t.Fatalf("accepted a bad line %+v", it)
			}
			if _, err := time.Parse("2006-01", it.Period); err != nil {
				t.Fatalf("period %q", it.Period)
			}
		}
	})
}
