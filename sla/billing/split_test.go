package billing

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/usage"
)

// splitReport is fullReport with n1's probe readings proving at most
// 100 GB out in April: eth0 (physical, default route) read at 31 March
// 23:00 (tx 0) and 1 May 01:00 (tx 100e9) in one boot, so the one pair of
// readings straddles the whole month; vda is its system disk of exactly
// 100 GB (10¹¹ bytes), an SSD.
func splitReport() *report.Report {
	r := fullReport()
	boot := &usage.Boot{ID: "A", Time: cst(3, 1, 0)}
	rd := func(at time.Time, tx uint64) usage.Reading {
		return usage.Reading{At: at, Boot: boot, Disks: []usage.Disk{{Name: "vda", SizeBytes: 100e9, System: true}},
			Ifaces: []usage.Iface{{Name: "eth0", TxBytes: tx, Physical: true, DefaultRoute: true}}}
	}
	r.Nodes[0].Usage = usage.Summarize([]usage.Reading{rd(cst(3, 31, 23), 0), rd(cst(5, 1, 1), 100e9)}, cst(4, 1, 0), cst(5, 1, 0), cst(5, 1, 1))
	return r
}

func judgeSplit(t *testing.T, bill string) *Full {
	t.Helper()
	items, err := ParseItems("bill.csv", strings.NewReader("node,period,kind,quantity,amount,class,from,to\n"+bill))
	if err != nil {
		t.Fatal(err)
	}
	f, err := JudgeItems(splitReport(), map[string]*terms.Terms{"cn": pricedTerms(t, "true")}, items)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSplitChargeJudgedTogether: lines of one kind for
// one node and month are held together to what was measured, so a charge
// split over several lines is over-billed by exactly what the same charge
// on one line is. Prices: traffic 0.8/GB, SSD 1/GB-month, GPU 10/h; n1's
// counters prove at most 100 GB out, its system disk holds 100 GB, its
// month is 720 h.
func TestSplitChargeJudgedTogether(t *testing.T) {
	const half1, half2 = "2026-04-01T00:00:00+08:00,2026-04-16T00:00:00+08:00", "2026-04-16T00:00:00+08:00,2026-05-01T00:00:00+08:00"
	cases := []struct {
		name, one, split string
		// over is the over-billed total, the same for both bills; lastOver
		// is what the split bill's last line carries.
		over, lastOver float64
	}{
		// 160 GB billed, at most 100 GB sent: 60 GB × 0.8 = 48 over. Split
		// as 80 + 80: line 2 takes 80 GB of the 100 (cannot be verified:
		// within the counters), line 3 the 20 left: 60 GB × 0.8 = 48 over.
		{"traffic", "n1,2026-04,traffic,160,128,,,\n", "n1,2026-04,traffic,80,64,,,\nn1,2026-04,traffic,80,64,,,\n", 48, 48},
		// The same split by halves of the month: each half alone may hold
		// the 100 GB (the readings straddle both), together they may not.
		{"traffic by halves", "n1,2026-04,traffic,160,128,,,\n", "n1,2026-04,traffic,80,64,," + half1 + "\nn1,2026-04,traffic,80,64,," + half2 + "\n", 48, 48},
		// 730 h billed for the 720 h month at 10/h: 10 h = 100 over. Split
		// as 400 h (4000) + 330 h (3300): line 2 takes 4000 of the 7200 the
		// contract gives, line 3 the 3200 left: 100 over.
		{"GPU time", "n1,2026-04,compute,730,7300,,,\n", "n1,2026-04,compute,400,4000,,,\nn1,2026-04,compute,330,3300,,,\n", 100, 100},
		// A 160 GB system disk for the month where vda holds 100 GB: 60
		// GB-months × 1 = 60 over. Split as 80 + 80: line 3 gets the 20
		// GB-months line 2 left: 60 over.
		{"system disk", "n1,2026-04,system_disk,160,160,ssd,,\n", "n1,2026-04,system_disk,80,80,ssd,,\nn1,2026-04,system_disk,80,80,ssd,,\n", 60, 60},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			one, split := judgeSplit(t, c.one), judgeSplit(t, c.split)
			if got := one.OverBilled["CNY"]; got != c.over {
				t.Fatalf("one line: over-billed %.2f, want %.2f (%s)", got, c.over, one.Items[0].Why)
			}
			if got := split.OverBilled["CNY"]; got != c.over {
				t.Fatalf("split: over-billed %.2f, want %.2f (%+v)", got, c.over, split.Items)
			}
			if len(split.Items) != 2 || split.Billed["CNY"] != one.Billed["CNY"] {
				t.Fatalf("split: %d items, billed %v (one line: %v)", len(split.Items), split.Billed, one.Billed)
			}
			last := split.Items[1]
			if last.Line != 3 || last.Verdict != VerdictOverBilled || last.Over != c.lastOver || !strings.Contains(last.Why, "bill lines 2, 3") {
				t.Fatalf("split's last line: %+v", last)
			}
			if first := split.Items[0]; first.Over != 0 {
				t.Fatalf("split's first line carries %.2f over: %+v", first.Over, first)
			}
		})
	}
}

// Split lines within what was measured stay what each alone would be: two
// 40 GB traffic lines under the 100 GB the counters allow cannot be
// verified, two 50 GB system disk lines on a 100 GB disk match.
func TestSplitChargeWithinTheMeasure(t *testing.T) {
	f := judgeSplit(t, "n1,2026-04,traffic,40,32,,,\nn1,2026-04,traffic,40,32,,,\nn1,2026-04,system_disk,50,50,ssd,,\nn1,2026-04,system_disk,50,50,ssd,,\n")
	want := []string{VerdictUnverified, VerdictUnverified, VerdictMatches, VerdictMatches}
	for i, j := range f.Items {
		if j.Verdict != want[i] || j.Over != 0 {
			t.Errorf("line %d: %s over %.2f (%s), want %s", j.Line, j.Verdict, j.Over, j.Why, want[i])
		}
	}
	if len(f.OverBilled) != 0 {
		t.Errorf("over-billed %v", f.OverBilled)
	}
}

// FuzzJudgeItems: whatever a full bill holds, a bill that parses is judged
// line by line once each (every line listed once, the billed total the
// bill's own), an over-billed amount is never negative nor more than its
// line, and the over-billed total never exceeds the billed one.
func FuzzJudgeItems(f *testing.F) {
	f.Add("n1,2026-04,traffic,80,64,,,\nn1,2026-04,traffic,80,64,,,\n")
	f.Add("n1,2026-04,compute,400,4000,,,\nn1,2026-04,compute,330,3300,,,\nghost,2026-04,compute,1,10,,,\n")
	f.Add("n1,2026-04,system_disk,80,80,ssd,2026-04-01T00:00:00+08:00,2026-04-16T00:00:00+08:00\nn1,2026-04,system_disk,80,80,ssd,,\n")
	parsed, err := terms.Parse("p.yaml", []byte(strings.Replace(priced, "%s", "true", 1)))
	if err != nil {
		f.Fatal(err)
	}
	ts := parsed[0]
	f.Fuzz(func(t *testing.T, bill string) {
		items, err := ParseItems("bill.csv", strings.NewReader("node,period,kind,quantity,amount,class,from,to\n"+bill))
		if err != nil {
			return
		}
		full, err := JudgeItems(splitReport(), map[string]*terms.Terms{"cn": ts}, items)
		if err != nil {
			return
		}
		seen := map[int]int{}
		sum := map[string]float64{}
		for _, j := range full.Items {
			seen[j.Line]++
			sum[j.Currency] += j.Billed
			if j.Over < 0 || j.Over > j.Billed+moneyTol {
				t.Fatalf("line %d: over %.2f of %.2f billed", j.Line, j.Over, j.Billed)
			}
		}
		for _, it := range items {
			if seen[it.Line] != 1 {
				t.Fatalf("line %d listed %d times", it.Line, seen[it.Line])
			}
		}
		for cur, b := range full.Billed {
			if math.Abs(b-money(sum[cur])) > 0.011*float64(len(items)) {
				t.Fatalf("billed %s %.2f, the lines sum to %.2f", cur, b, sum[cur])
			}
			if full.OverBilled[cur] > b+moneyTol {
				t.Fatalf("over-billed %.2f of %.2f billed", full.OverBilled[cur], b)
			}
		}
	})
}

// The node reconciliation drawn in html and pdf (Reconcile over
// ComputeLines) holds a node's split GPU time as one row too: 400 h + 330 h
// for n1's 720 h month is one row, bill lines 2 and 3, 10 h and 100 over.
func TestComputeLinesMerged(t *testing.T) {
	items, err := ParseItems("bill.csv", strings.NewReader("node,period,kind,quantity,amount\nn1,2026-04,compute,400,4000\nn1,2026-04,compute,330,3300\nn2,2026-04,compute,360,3600\n"))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := Reconcile(fullReport(), ComputeLines(items))
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Rows) != 2 {
		t.Fatalf("%d rows: %+v", len(rc.Rows), rc.Rows)
	}
	r := rc.Rows[0]
	if r.Node != "n1" || r.BillLine != 2 || LineList(r.BillLines) != "2, 3" || *r.BilledHours != 730 || r.OverHours != 10 || r.OverAmount != 100 || r.Status != StatusOverBilled {
		t.Fatalf("n1: %+v", r)
	}
	if r := rc.Rows[1]; r.Node != "n2" || r.BillLines != nil || r.Status != StatusMatches {
		t.Fatalf("n2: %+v", r)
	}
}
