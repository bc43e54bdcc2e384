package billing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// awsMonth is the aws-ec2-instance pack's golden month (its hand-worked
// figures in testdata/terms/packs/aws-ec2-instance.md).
func awsMonth(t *testing.T) *report.Report {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "terms", "packs")
	tm, err := terms.ReadFile(filepath.Join(dir, "aws-ec2-instance.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := report.NewBuilder(tm, report.Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 2, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "aws-ec2-instance.events.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := b.ReadLog(path, f); err != nil {
		t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAWSClockHourInvoiceMatches: AWS "will not charge you for any Single
// EC2 Instance that is Unavailable for more than six minutes of a clock
// hour". The pack's March has six such hours (10 March 10:00-15:00, five
// whole hours down; 22 March 03:00, 7 minutes down), so a correct invoice
// bills 744 − 6 = 738 h × 8 GPUs × 4.00 = 23,616.00 USD: it matches, not
// "under-billed". An invoice for all 744 h (23,808.00) charges the six
// hours AWS waives: over-billed by 6 h and 192.00 USD.
func TestAWSClockHourInvoiceMatches(t *testing.T) {
	r := awsMonth(t)
	n := r.Nodes[0]
	if n.Billing.UnchargedSeconds != 6*3600 || len(n.Billing.UnchargedHours) != 6 || n.Billing.Charge != 23616 {
		t.Fatalf("billing %+v", n.Billing)
	}
	for _, c := range []struct {
		bill, status string
		over         float64
	}{
		{"p5-01,2026-03,738,23616.00,USD\n", StatusMatches, 0},
		{"p5-01,2026-03,744,23808.00,USD\n", StatusOverBilled, 192},
	} {
		lines, err := ParseCSV("bill.csv", strings.NewReader("node,period,billed_hours,amount,currency\n"+c.bill))
		if err != nil {
			t.Fatal(err)
		}
		rc, err := Reconcile(r, lines)
		if err != nil {
			t.Fatal(err)
		}
		row := rc.Rows[0]
		if row.Status != c.status || row.OverAmount != c.over || row.ExactHours != 738 || row.RoundingHours != 0 {
			t.Errorf("%q: status %s over %v exact %v rounding %v, want %s %v 738 0", c.bill, row.Status, row.OverAmount, row.ExactHours, row.RoundingHours, c.status, c.over)
		}
	}
	// The credit is a share of what is actually charged: 10 % of 23,616.00.
	if n.Credit.Percent != 10 || n.Credit.Amount != 2361.60 {
		t.Errorf("credit %v %% = %v, want 10 %% = 2361.60", n.Credit.Percent, n.Credit.Amount)
	}
}
