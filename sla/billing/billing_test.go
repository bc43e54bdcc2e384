package billing

import (
	"strings"
	"testing"

	"github.com/gpusla/gpusla/sla/report"
)

func TestParseCSVErrorsNameLineAndField(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "bill.csv: empty file"},
		{"unknown column", "node,period,hours\n", `bill.csv:1: column 3 "hours" is not one of`},
		{"no node column", "period,amount\n", `bill.csv:1: header has no "node" column`},
		{"no figure column", "node,period\n", "needs a billed_hours or an amount column"},
		{"bad number", "node,period,billed_hours\nva-01,2026-11,72O\n", `bill.csv:2: field billed_hours: "72O" is not a plain decimal`},
		{"currency sign", "node,period,amount\nva-01,2026-11,$18457.60\n", `bill.csv:2: field amount: "$18457.60"`},
		{"negative", "node,period,amount\nva-01,2026-11,-1\n", "bill.csv:2: field amount: \"-1\" is negative"},
		{"bad period", "node,period,amount\nva-01,Nov 2026,1\n", `bill.csv:2: field period: "Nov 2026" is not a month`},
		{"empty node", "node,period,amount\n,2026-11,1\n", "bill.csv:2: field node: empty"},
		{"both empty", "node,period,billed_hours,amount\nva-01,2026-11,,\n", "bill.csv:2: fields billed_hours and amount are both empty"},
		{"field count", "node,period,amount\nva-01,2026-11\n", "bill.csv:2: 2 fields, the header has 3"},
		{"duplicate", "node,period,amount\nva-01,2026-11,1\nva-02,2026-11,1\nva-01,2026-11,2\n", "bill.csv:4: node va-01, period 2026-11 is billed again (first on line 2)"},
		{"quote", "node,period,amount\n\"va-01,2026-11,1\n", "bill.csv:2"},
		{"header only", "node,period,amount\n", "header but no lines"},
	} {
		_, err := ParseCSV("bill.csv", strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

func node(id string, billedS, usableS int64, gran int64, charge float64) report.Node {
	return report.Node{Node: id, Contract: "c", Currency: "USD", Billing: report.Billing{PricePerGPUHour: 2, GPUs: 4,
		From: "2026-11-01T00:00:00Z", To: "2026-11-10T00:30:00Z", BilledSeconds: billedS, GranularitySeconds: gran, UsableSeconds: usableS, Charge: charge}}
}

// Hourly rounding shows what it costs; a bill above the contract is
// over-billed by the difference; a node billed but unknown, or known but
// not billed, is said so.
func TestReconcile(t *testing.T) {
	exact := int64(9*86400 + 1800)
	hourly := int64(9*86400 + 3600)
	r := &report.Report{Month: "2026-11", Nodes: []report.Node{
		node("a", hourly, exact-7200, 3600, float64(hourly)/3600*8),
		node("b", exact, exact, 1, float64(exact)/3600*8),
		node("c", exact, exact, 1, 100),
	}}
	lines, err := ParseCSV("b.csv", strings.NewReader("node,period,billed_hours,amount\na,2026-11,217,1736\nb,2026-11,218,\nz,2026-11,5,\n"))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := Reconcile(r, lines)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Row{}
	for _, row := range rc.Rows {
		by[row.Node] = row
	}
	if a := by["a"]; a.Status != StatusMatches || a.RoundingHours != 0.5 || a.UnusableBilled != 2.5 || a.UnusableAmount != 20 {
		t.Errorf("a: %+v", a)
	}
	if b := by["b"]; b.Status != StatusOverBilled || b.OverHours != 1.5 || b.OverAmount != 12 {
		t.Errorf("b: %+v", b)
	}
	if by["z"].Status != StatusNotInReport || by["c"].Status != StatusNotBilled {
		t.Errorf("z %+v, c %+v", by["z"], by["c"])
	}
	if rc.OverAmount["USD"] != 12 {
		t.Errorf("over total %v", rc.OverAmount)
	}
	if _, err := Reconcile(r, []Line{{Line: 7, Node: "a", Period: "2026-10", Hours: 1, HasHours: true}}); err == nil ||
		!strings.Contains(err.Error(), "bill line 7: field period: 2026-10 is not the report's month 2026-11") {
		t.Errorf("other month: %v", err)
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add("node,period,billed_hours,amount\nva-01,2026-11,721,18457.60\n")
	f.Add("node,period,amount\n\"a\"\"b\",2026-11,1e3\n")
	f.Fuzz(func(t *testing.T, in string) {
		lines, err := ParseCSV("fuzz.csv", strings.NewReader(in))
		if err == nil && len(lines) == 0 {
			t.Fatal("no error and no lines")
		}
		for _, l := range lines {
			if l.Node == "" || (!l.HasHours && !l.HasAmt) || l.Hours < 0 || l.Amount < 0 {
				t.Fatalf("accepted a bad line %+v", l)
			}
		}
	})
}
