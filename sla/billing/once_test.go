package billing

import (
	"strings"
	"testing"
)

// TestEachLineJudgedOnce: a compute line for a node the
// report does not know is listed once, and the totals are the bill's own.
// The bill, by hand (April, 720 h; GPU 10/h, weekly package 9000,
// bandwidth 100 per Mbps-month, traffic 0.8/GB):
//
//	line 2  n1     compute          720 h        7200
//	line 3  n2     compute          360 h        3600
//	line 4  n1     package_week     1            9000
//	line 5  n1     bandwidth_fixed  40 Mbps      4000
//	line 6  n1     traffic          10 GB           8
//	line 7  ghost  compute          1 h            10
//	                                total      23,818
//
// Listed twice, the ghost's 10 made the billed total 23,828. It cannot be
// verified (no such node), nor can n1's traffic (no usage readings): 18.
func TestEachLineJudgedOnce(t *testing.T) {
	f := judge(t, "true", "node,period,kind,quantity,amount\n"+
		"n1,2026-04,compute,720,7200\nn2,2026-04,compute,360,3600\nn1,2026-04,package_week,1,9000\n"+
		"n1,2026-04,bandwidth_fixed,40,4000\nn1,2026-04,traffic,10,8\nghost,2026-04,compute,1,10\n")
	seen := map[int]int{}
	for _, j := range f.Items {
		seen[j.Line]++
	}
	for line := 2; line <= 7; line++ {
		if seen[line] != 1 {
			t.Errorf("bill line %d listed %d times", line, seen[line])
		}
	}
	if len(f.Items) != 6 {
		t.Errorf("%d judgments for 6 lines", len(f.Items))
	}
	if got := f.Billed["CNY"]; got != 23818 {
		t.Errorf("billed total %.2f, the bill charges 23818", got)
	}
	if got := f.Unverified["CNY"]; got != 18 {
		t.Errorf("cannot verify %.2f, want 18 (the ghost's 10 and the traffic's 8)", got)
	}
	if len(f.Billed) != 1 {
		t.Errorf("billed totals %v, want one currency", f.Billed)
	}
	if len(f.OverBilled) != 0 {
		t.Errorf("over-billed %v, want none", f.OverBilled)
	}
	for _, j := range f.Items {
		if j.Node == "ghost" && (j.Verdict != VerdictUnverified || j.Needed == "") {
			t.Errorf("ghost line: %+v", j)
		}
	}
}

// The node form too: the unknown node's line is listed once, in the
// report's currency (the line gives none): 7200 + 10 = 7210 billed.
func TestNodeBillUnknownNodeOnce(t *testing.T) {
	lines, err := ParseCSV("bill.csv", strings.NewReader("node,period,billed_hours,amount\nn1,2026-04,720,7200\nghost,2026-04,1,10\n"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := JudgeLines(fullReport(), lines)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Items) != 2 || len(f.Billed) != 1 || f.Billed["CNY"] != 7210 || f.Unverified["CNY"] != 10 {
		t.Fatalf("%d items, billed %v, cannot verify %v", len(f.Items), f.Billed, f.Unverified)
	}
}
