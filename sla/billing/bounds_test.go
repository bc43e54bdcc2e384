package billing

import (
	"io"
	"strings"
	"testing"
)

// endless is a reader of n bytes of b, never held whole.
type endless struct {
	b byte
	n int64
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	k := int64(len(p))
	if k > e.n {
		k = e.n
	}
	for i := range p[:k] {
		p[i] = e.b
	}
	e.n -= k
	return int(k), nil
}

// TestBillBounds: a cell, a line and a file past their bounds are refused
// with the file, line and column named, in every form of bill; a 200 MB
// cell is refused once the line passes MaxLineBytes, never read whole
// (the reader hands out the cell's bytes as they are asked for, and the
// test's own memory stays small; docs/BENCHMARKS.md has the peak RSS).
func TestBillBounds(t *testing.T) {
	big := strings.Repeat("A", MaxCellBytes+1)
	cur := "bill/BillingPeriodStartDate,lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/ProductCode,lineItem/UsageType,lineItem/ResourceId,lineItem/UsageAmount,lineItem/CurrencyCode,lineItem/UnblendedCost,resourceTags/user:gpusla-node,lineItem/LineItemDescription\n"
	parsers := map[string]func(io.Reader) error{
		"node": func(r io.Reader) error { _, err := ParseCSV("bill.csv", r); return err },
		"full": func(r io.Reader) error { _, err := ParseItems("bill.csv", r); return err },
		"cur":  func(r io.Reader) error { _, _, err := ParseAWSCUR("bill.csv", r); return err },
	}
	for _, c := range []struct {
		form string
		in   io.Reader
		want string
	}{
		{"node", strings.NewReader("node,period,billed_hours,amount\nn1,2026-04,1,1\n" + big + ",2026-04,1,1\n"),
			"bill.csv:3:1: column 1 (node): a cell of 4097 bytes; a bill's cell is at most 4096 bytes"},
		{"full", strings.NewReader("node,period,kind,quantity,amount,description\nn1,2026-04,traffic,1,1,\"" + big + "\"\n"),
			"bill.csv:2:24: column 6 (description): a cell of 4097 bytes"},
		// A quoted cell over several lines is one record: its line is where it starts.
		{"full", strings.NewReader("node,period,kind,quantity,amount,description\nn1,2026-04,traffic,1,1,\"a\n" + strings.Repeat("b\n", MaxLineBytes/2+1) + "\"\n"),
			"bill.csv:2: a line longer than 65536 bytes"},
		{"cur", strings.NewReader(cur + "2026-04-01T00:00:00Z,Usage,x,x,AmazonEC2,BoxUsage,i-1,1,USD,1,n1," + big + "\n"),
			"bill.csv:2:66: column 12 (lineItem/LineItemDescription): a cell of 4097 bytes"},
		{"node", strings.NewReader(big + "\n"), "bill.csv:1:1: column 1: a cell of 4097 bytes"},
		// 200 MB in one cell, and a file past the most a bill may be.
		{"node", io.MultiReader(strings.NewReader("node,period,billed_hours,amount\n\""), &endless{'A', 200e6}), "bill.csv:2: a line longer than 65536 bytes"},
		{"cur", io.MultiReader(strings.NewReader(cur+"\""), &endless{'A', 200e6}), "bill.csv:2: a line longer than 1048576 bytes"},
		{"node", io.MultiReader(strings.NewReader("node,period,billed_hours,amount\n"), &endless{'\n', MaxFileBytes}), "the file is longer than 67108864 bytes"},
	} {
		err := parsers[c.form](c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want ~%q", c.form, err, c.want)
		}
		if err != nil && strings.Count(err.Error(), "bill.csv") != 1 {
			t.Errorf("%s: %v names the file more than once", c.form, err)
		}
	}
	// At the bounds, a bill is read.
	if _, err := ParseItems("bill.csv", strings.NewReader("node,period,kind,quantity,amount,description\nn1,2026-04,traffic,1,1,\""+big[1:]+"\"\n")); err != nil {
		t.Errorf("a cell of %d bytes: %v", MaxCellBytes, err)
	}
}
