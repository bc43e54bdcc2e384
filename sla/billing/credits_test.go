package billing

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/sla/claims"
)

func creditRows(bs []claims.BillCredit) string {
	var out []string
	for _, b := range bs {
		out = append(out, fmt.Sprintf("%v %s %s %s %q ref=%q at=%s", b.Lines, b.Period, b.Amount, b.Currency, b.Description, b.Reference, b.At.Format("01-02")))
	}
	return strings.Join(out, "\n")
}

// TestReadCreditsCUR: May 2026's CUR holds one SLA credit AWS split over
// two rows (590.40 + 590.40 = 1,180.80, its case quoted in the
// description), promotional credits of 7.125 + 0.0001 = 7.1251 → 7.13, a
// Refund and a Usage row, which are not credits.
func TestReadCreditsCUR(t *testing.T) {
	read := func() []claims.BillCredit {
		f, err := os.Open("testdata/aws-cur-2026-05-credits.csv")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		bs, err := ReadCredits("cur-2026-05.csv", f, FormatAWSCUR, "")
		if err != nil {
			t.Fatal(err)
		}
		return bs
	}
	bs := read()
	want := `[3 4] 2026-05 1180.80 USD "AWS SLA credit, case 170001" ref="" at=05-01
[6 7] 2026-05 7.13 USD "AWS Activate credits" ref="" at=05-12`
	if got := creditRows(bs); got != want {
		t.Fatalf("credits:\n%s\nwant:\n%s", got, want)
	}
	again := read()
	if bs[0].Key != again[0].Key || bs[0].Key == bs[1].Key || !strings.HasPrefix(bs[0].Key, "bill:2026-05:") {
		t.Fatalf("keys %s %s %s", bs[0].Key, again[0].Key, bs[1].Key)
	}
}

func TestReadCreditsCSV(t *testing.T) {
	bill := `node,period,kind,quantity,amount,currency,reference,description,from
gz-01,2026-05,compute,744,15000.00,CNY,,,
,2026-05,credit,,-1180.80,,TK-88,SLA 赔偿,2026-05-20T00:00:00+08:00
gz-01,2026-05,compute,,-12.005,CNY,,rounding adjustment,
`
	bs, err := ReadCredits("bill.csv", strings.NewReader(bill), FormatGpusla, "CNY")
	if err != nil {
		t.Fatal(err)
	}
	want := `[3] 2026-05 1180.80 CNY "SLA 赔偿" ref="TK-88" at=05-20
[4] 2026-05 12.01 CNY "rounding adjustment" ref="" at=01-01`
	if got := creditRows(bs); got != want {
		t.Fatalf("credits:\n%s\nwant:\n%s", got, want)
	}
	// Judged, the credits are listed apart, never as a charge.
	items, err := ParseItems("bill.csv", strings.NewReader(bill))
	if err != nil {
		t.Fatal(err)
	}
	charges, left := splitCredits(items, "CNY")
	if len(charges) != 1 || len(left) != 1 || left[0].Rows != 2 || left[0].Amount != -1192.81 || left[0].Currency != "CNY" {
		t.Fatalf("split: %+v %+v", charges, left)
	}
}

func TestReadCreditsRefusesBadLines(t *testing.T) {
	head := "node,period,kind,quantity,amount,currency,reference\n"
	for _, tc := range []struct{ bill, format, want string }{
		{head + ",2026-05,credit,,120.00,USD,TK-1\n", FormatGpusla, `bill.csv:2: field amount: "120.00": a credit line gives money back, so its amount is negative (-120.00)`},
		{head + "gz-01,2026-05,compute,10,100,USD,TK-1\n", FormatGpusla, `bill.csv:2: field reference: "TK-1" is only for credit lines`},
		{head + ",2026-5,credit,,-1,USD,\n", FormatGpusla, `bill.csv:2: field period: "2026-5" is not a month`},
		{head + ",2026-05,credit,,-1$,USD,\n", FormatGpusla, `bill.csv:2: field amount: "-1$"`},
		{head, "pdf", `bill format "pdf": want gpusla or aws-cur`},
	} {
		_, err := ReadCredits("bill.csv", strings.NewReader(tc.bill), tc.format, "USD")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.bill, err, tc.want)
		}
	}
	// The currency is the line's own, checked where it is read: a code in
	// the wrong form, or none where no default is given, names the line; a
	// good line before it is not read alone.
	for _, tc := range []struct{ bill, cur, want string }{
		{head + ",2026-05,credit,,-1.00,USD,\n,2026-05,credit,,-5.00,usd,\n", "USD", `bill.csv:3: field currency: "usd" is not an ISO 4217 code`},
		{head + ",2026-05,credit,,-1.00,USD,\n,2026-05,credit,,-5.00,US$,\n", "USD", `bill.csv:3: field currency: "US$" is not an ISO 4217 code`},
		{head + ",2026-05,credit,,-1.00,USD,\n,2026-05,credit,,-5.00,,\n", "", `bill.csv:3: field currency: missing`},
	} {
		if got, err := ReadCredits("bill.csv", strings.NewReader(tc.bill), FormatGpusla, tc.cur); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v %v, want %q", tc.bill, got, err, tc.want)
		}
	}
	if got, err := ReadCredits("bill.csv", strings.NewReader(head+",2026-05,credit,,-5.00,,\n"), FormatGpusla, "CNY"); err != nil || len(got) != 1 || got[0].Currency != "CNY" {
		t.Errorf("a line naming no currency takes the default: %+v %v", got, err)
	}
	cur, _ := os.ReadFile("testdata/aws-cur-2026-05-credits.csv")
	bad := strings.Replace(string(cur), ",-0.0001,", ",0.0001,", 1)
	if _, err := ReadCredits("cur.csv", strings.NewReader(bad), FormatAWSCUR, ""); err == nil || !strings.Contains(err.Error(), `cur.csv:7:`) ||
		!strings.Contains(err.Error(), `lineItem/UnblendedCost: "0.0001": a Credit row gives money back, so its cost is negative`) {
		t.Fatalf("a positive Credit row: %v", err)
	}
}
