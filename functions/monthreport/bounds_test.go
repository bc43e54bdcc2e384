package monthreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/report"
)

// TestBillSizeBounds: a bill file longer than the most a bill may be is
// refused from its size before a byte of it is read (the file is sparse:
// its 65 MiB are never written); a 200 MB cell in a small-enough AWS CUR
// is refused at its line once it passes the line bound, streamed, never
// read whole; and either form's bill is read as a stream.
func TestBillSizeBounds(t *testing.T) {
	dir := t.TempDir()
	r := &report.Report{Month: "2026-04"}
	huge := filepath.Join(dir, "huge.csv")
	if err := os.WriteFile(huge, []byte("node,period,billed_hours,amount\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, billing.MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	_, _, err := JudgeBill(r, nil, huge)
	if want := "--bill " + huge + ": 67108865 bytes; a bill is at most 67108864 bytes (64 MiB; docs/bills.md): split it"; err == nil || err.Error() != want {
		t.Errorf("a 64 MiB + 1 bill: %v, want %q", err, want)
	}
	cur := filepath.Join(dir, "cur.csv")
	f, err := os.Create(cur)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("bill/BillingPeriodStartDate,lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/ProductCode," +
		"lineItem/UsageType,lineItem/ResourceId,lineItem/UsageAmount,lineItem/CurrencyCode,lineItem/UnblendedCost,resourceTags/user:gpusla-node\n\"")
	cell := []byte(strings.Repeat("A", 1<<20))
	for range 200 {
		f.Write(cell)
	}
	f.WriteString("\"\n")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := JudgeBillAs(r, nil, cur, "aws-cur"); err == nil || !strings.Contains(err.Error(), cur+":2: a line longer than 1048576 bytes") {
		t.Errorf("a 200 MB cell: %v", err)
	}
	node := filepath.Join(dir, "node.csv")
	if err := os.WriteFile(node, []byte("node,period,billed_hours,amount\nghost,2026-04,1,10\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, full, err := JudgeBill(r, nil, node); err != nil || len(full.Items) != 1 || full.Items[0].Billed != 10 {
		t.Errorf("a node bill: %v %+v", err, full)
	}
}
