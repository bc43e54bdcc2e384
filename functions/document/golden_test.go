package document

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/document/documenttest"
	"github.com/gpusla/gpusla/internal/golden"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

func buildClaim(t testing.TB) *report.Report {
	t.Helper()
	tm, err := documenttest.Terms()
	if err != nil {
		t.Fatal(err)
	}
	return buildReport(t, tm, report.Options{Year: 2026, Month: time.November, AsOf: documenttest.ClaimAsOf},
		"claim-month", documenttest.ClaimMonth().Events)
}

// buildReport builds the month of evs under tm, read through the log's JSON
// lines, as `gpusla report --events` and the scheduled job read it.
func buildReport(t testing.TB, tm []*terms.Terms, opt report.Options, name string, evs []events.Event) *report.Report {
	t.Helper()
	b, err := report.NewBuilder(tm, opt)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := events.NewWriter(&buf)
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := b.ReadLog(name, &buf); err != nil {
		t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func findNode(t *testing.T, r *report.Report, id string) *report.Node {
	t.Helper()
	for i := range r.Nodes {
		if r.Nodes[i].Node == id {
			return &r.Nodes[i]
		}
	}
	t.Fatalf("node %s not in the report", id)
	return nil
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

const claimBill = `node,period,billed_hours,amount,currency
va-01,2026-11,721,18457.60,USD
va-02,2026-11,661,8460.80,USD
`

// The claim month's facts, checked one by one before the whole report is
// compared with the golden files in every format.
func TestClaimMonthGolden(t *testing.T) {
	r := buildClaim(t)
	eq(t, "month seconds (DST ends: 30 days + 1 h)", r.Contracts[0].MonthSeconds, int64(30*86400+3600))
	v1 := findNode(t, r, "va-01")
	var got []string
	for _, o := range v1.Outages {
		got = append(got, fmt.Sprintf("%s/%s %s..%s counted=%ds", o.Kind, o.Cause, o.Start, o.End, o.CountedSeconds))
	}
	eq(t, "va-01 outages", strings.Join(got, "\n"), strings.Join([]string{
		"unreachable/no_data 2026-11-01T01:31:00-04:00..2026-11-01T01:30:00-05:00 counted=3540s",
		"unreachable/no_data 2026-11-10T02:01:00-05:00..2026-11-10T04:00:00-05:00 counted=0s",
		// The spool's heartbeats came 1 to 119 min late (none heard in time)
		// with internet checks passing: the node's word against the
		// backend's silence, which outranks it (docs/contract.md, "Evidence
		// precedence"): the node ran, the two hours count.
		"unreachable/no_connectivity_evidence 2026-11-12T10:01:00-05:00..2026-11-12T12:00:00-05:00 counted=7140s",
		"unreachable/no_data 2026-11-18T01:01:00-05:00..2026-11-18T06:00:00-05:00 counted=17940s",
	}, "\n"))
	eq(t, "maintenance", len(v1.Maintenance), 2)
	eq(t, "first maintenance excluded", v1.Maintenance[0].Excluded, true)
	eq(t, "second maintenance excluded", v1.Maintenance[1].Excluded, false)
	eq(t, "va-01 claimable", v1.Uptime.ClaimableOutageSeconds, int64(3540+7140+17940))
	eq(t, "tickets", len(v1.Tickets), 2)
	tg := v1.Tickets[1]
	eq(t, "T-102 on", tg.OpenedOn, "holiday")
	eq(t, "T-102 off-hours", tg.OffHours, true)
	eq(t, "T-102 response", tg.Response.Status, "breached")
	eq(t, "T-102 late", tg.Response.LateSeconds, int64(90*60))
	eq(t, "T-101 breached", v1.Tickets[0].Breached, false)
	v2 := findNode(t, r, "va-02")
	eq(t, "va-02 delivery", v2.Delivery.Status, "breached")
	eq(t, "va-02 degraded", v2.Outages[0].Kind, "gpu_degraded")
	eq(t, "va-02 degraded counted", v2.Outages[0].CountedSeconds, int64(4*3600))
	eq(t, "va-01 credit", v1.Credit.Percent, 30.0)
	eq(t, "va-02 credit", v2.Credit.Percent, 10.0)
	eq(t, "va-01 delivery", v1.Delivery.Status, "met")

	bill := claimBillFor(t, r)
	var js bytes.Buffer
	if err := Render(&js, r, "json", Extras{Lang: i18n.ZH}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "claim-month.json", js.Bytes())
	for _, lang := range i18n.Langs {
		for _, f := range []string{"md", "csv", "html"} {
			var buf bytes.Buffer
			x := Extras{Lang: lang, BOM: f == "csv" && lang == i18n.ZH}
			if f == "html" {
				x.Bill = bill
			}
			if err := Render(&buf, r, f, x); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "claim-month."+string(lang)+"."+f, buf.Bytes())
		}
	}
}

// Every sentence, heading, word and label of every format has its
// translation: the printer counts each key its language lacks.
func TestEveryStringTranslated(t *testing.T) {
	r := buildClaim(t)
	r.Seal = &report.Seal{ObservationsSHA256: strings.Repeat("a", 64), ChainHead: strings.Repeat("b", 64), Batches: 3}
	withUsage(r)
	bill := claimBillFor(t, r)
	lines := claimLinesFor(t, r)
	for _, lang := range i18n.Langs {
		d, err := newDoc(r, Extras{Lang: lang, Bill: bill, Lines: lines})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		for _, err := range []error{writeMarkdown(&buf, d), writeHTML(&buf, d), writeCSV(&buf, r, d, false), writePDF(io.Discard, r, d)} {
			if err != nil {
				t.Fatal(err)
			}
		}
		// A key or translation with a stray % prints fmt's complaint.
		if i := bytes.Index(buf.Bytes(), []byte("%!")); i >= 0 {
			t.Errorf("%s: bad format verb near %q", lang, buf.Bytes()[max(0, i-60):i+20])
		}
		if m := d.P.Missing(); len(m) > 0 {
			t.Errorf("%s lacks %d entries:\n%s", lang, len(m), strings.Join(m, "\n"))
		}
	}
}

// claimLinesFor is a full bill of the claim month judged line by line:
// GPU time, disks, traffic and a package, so every kind of verdict and
// reason is drawn.
func claimLinesFor(t *testing.T, r *report.Report) *billing.Full {
	t.Helper()
	full := judgeFull(t, r, "node,period,kind,quantity,amount,class\n"+
		"va-01,2026-11,compute,721,18457.60,\nva-02,2026-11,compute,661,8460.80,\nva-01,2026-11,data_disk,500,40,hdd\n"+
		"va-01,2026-11,cross_zone,30,3,\nva-02,2026-11,traffic,12,1.2,\nva-09,2026-11,package_month,1,100,\n")
	// An imported bill's rows that are no node's line are listed too.
	full.LeftOut = []billing.LeftOut{{Reason: "no gpusla-node tag on the resource", Text: msg.New("no gpusla-node tag on the resource"), Rows: 1, Amount: 3.24, Currency: "USD"}}
	return full
}

func claimBillFor(t *testing.T, r *report.Report) *billing.Reconciliation {
	t.Helper()
	lines, err := billing.ParseCSV("bill.csv", strings.NewReader(claimBill))
	if err != nil {
		t.Fatal(err)
	}
	bill, err := billing.Reconcile(r, lines)
	if err != nil {
		t.Fatal(err)
	}
	return bill
}

// judgeFull parses a full bill and judges it against r and the fixture's
// contracts.
func judgeFull(t *testing.T, r *report.Report, bill string) *billing.Full {
	t.Helper()
	items, err := billing.ParseItems("full.csv", strings.NewReader(bill))
	if err != nil {
		t.Fatal(err)
	}
	tm, err := documenttest.Terms()
	if err != nil {
		t.Fatal(err)
	}
	book := map[string]*terms.Terms{}
	for _, c := range tm {
		book[c.Contract] = c
	}
	full, err := billing.JudgeItems(r, book, items)
	if err != nil {
		t.Fatal(err)
	}
	return full
}
