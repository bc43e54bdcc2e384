package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/sla/report"
)

// claimsCLI is a data folder with a store, on the US example contract
// whose provider credits "within one billing cycle following the month of
// the request", and October 2026's sealed report asking 1,234.56 USD.
func claimsCLI(t *testing.T) (data, reportFile string) {
	t.Helper()
	t.Setenv(wiring.EnvTable, "")
	terms := t.TempDir()
	us, err := os.ReadFile("../../../testdata/terms/us-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	us = bytes.Replace(us, []byte("  end_of_billing_cycle: 2"), []byte("  end_of_billing_cycle: 2\n  credit_within: {billing_cycles: 1}"), 1)
	if err := os.WriteFile(filepath.Join(terms, "us-example.yaml"), us, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(wiring.EnvTerms, terms)
	data = t.TempDir()
	if _, err := runCLI(t, "node", "add", "--data", data, "--id", "ny-01", "--provider", "Example GPU Cloud Inc.", "--contract", "us-example",
		"--gpu-model", "H200", "--gpus", "8", "--gpu-memory-gb", "141"); err != nil {
		t.Fatal(err)
	}
	r := report.Report{Schema: report.Schema, Month: "2026-10", AsOf: "2026-11-01T10:00:00Z", Seal: &report.Seal{ObservationsSHA256: "9f2c", ChainHead: "a1b2", Batches: 7},
		Contracts: []report.Contract{{Contract: "us-example", Provider: "Example GPU Cloud Inc.", Currency: "USD", TimeZone: "America/New_York",
			MonthEnd: "2026-11-01T04:00:00Z", Claim: 1234.56, ClaimDeadline: "2027-01-01T05:00:00Z", Lang: "en"}},
		Nodes: []report.Node{{Node: "ny-01", Contract: "us-example", Credit: report.Credit{Amount: 1234.56}}}}
	raw, _ := json.Marshal(r)
	reportFile = filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(reportFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return data, reportFile
}

// TestClaimsDraftSaysWhatToDo: claims draft of the report a renter makes
// first (gpusla report --data: unsealed) says how to get a sealed one, and
// of a month with no contract says it drafted nothing instead of nothing.
func TestClaimsDraftSaysWhatToDo(t *testing.T) {
	data, rep := claimsCLI(t)
	raw, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	write := func(r report.Report) string {
		b, _ := json.Marshal(r)
		p := filepath.Join(t.TempDir(), "report.json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unsealed := r
	unsealed.Seal = nil
	p := write(unsealed)
	out, err := runCLI(t, "claims", "draft", "--report", p, "--data", data)
	if err == nil || !strings.Contains(err.Error(), "--report "+p+": not sealed") || !strings.Contains(err.Error(), "gpusla export --data DIR --month YYYY-MM -o month.jsonl") ||
		!strings.Contains(err.Error(), "gpusla report --events month.jsonl") {
		t.Errorf("unsealed report: %v\n%s", err, out)
	}
	empty := r
	empty.Contracts, empty.Nodes = nil, nil
	p = write(empty)
	if out, err := runCLI(t, "claims", "draft", "--report", p, "--data", data); err != nil || !strings.Contains(out, "reports no contract for 2026-10 (no node was in service): nothing to draft") {
		t.Errorf("a month with no contract: %v\n%q", err, out)
	}
	if out, err := runCLI(t, "claims", "list", "--data", data); err != nil || strings.Contains(out, "us-example/2026-10") {
		t.Errorf("a refused draft left a claim: %v\n%s", err, out)
	}
}

// TestClaimsCommands: a claim from its sealed report to the credit on the
// December bill, on the local store, each refusal naming its flag.
func TestClaimsCommands(t *testing.T) {
	data, rep := claimsCLI(t)
	id := "us-example/2026-10"
	mustRun := func(want string, args ...string) string {
		t.Helper()
		out, err := runCLI(t, append(args, "--data", data)...)
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("%v: %v\n%s\nwant %q", args, err, out, want)
		}
		return out
	}
	mustFail := func(want string, args ...string) {
		t.Helper()
		if out, err := runCLI(t, append(args, "--data", data)...); err == nil || err.Error() != want {
			t.Fatalf("%v: %v\n%s\nwant %q", args, err, out, want)
		}
	}
	mustRun(id+": drafted", "claims", "draft", "--report", rep)
	mustRun(id+": exists", "claims", "draft", "--report", rep)
	mustFail(`--via: "fax" is not a way a claim is sent (support_case, ticket, email, web_form, letter)`, "claims", "sent", id, "--at", "2026-11-03T09:00:00-05:00", "--via", "fax")
	mustFail(`claim: "us-example/2026-09" is not in the ledger`, "claims", "sent", "us-example/2026-09", "--at", "2026-11-03T09:00:00-05:00", "--via", "email")
	mustRun("claim us-example/2026-10: sent; claimed 1234.56 USD", "claims", "sent", id, "--at", "2026-11-03T09:00:00-05:00", "--via", "email", "--reference", "C-1")
	mustFail(`--at: "2026-11-02T09:00:00Z" is before the claim was sent (2026-11-03T14:00:00Z)`, "claims", "answer", id, "--at", "2026-11-02T09:00:00Z", "--outcome", "accepted")
	mustFail(`--granted: "100.005" has more than two decimals`, "claims", "answer", id, "--at", "2026-11-10T09:00:00Z", "--outcome", "partial", "--granted", "100.005")
	mustFail(`--currency: "EUR" is not the claim's currency (USD): amounts in two currencies are never mixed`, "claims", "answer", id, "--at", "2026-11-10T09:00:00Z",
		"--outcome", "partial", "--granted", "1000", "--currency", "EUR")
	mustRun("granted; claimed 1234.56 USD, received 0.00, outstanding 1000.00", "claims", "answer", id, "--at", "2026-11-10T09:00:00Z", "--outcome", "partial",
		"--granted", "1000", "--currency", "USD", "--reason", "the first hour was maintenance")

	// The November bill carries nothing for it; December's the 1,000.00 and a 5.00 credit nobody claimed.
	bill := filepath.Join(t.TempDir(), "bill-2026-12.csv")
	os.WriteFile(bill, []byte("node,period,kind,quantity,amount,currency,reference,description\nny-01,2026-12,compute,744,23808.00,USD,,\n"+
		",2026-12,credit,,-1000.00,USD,,SLA credit\n,2026-12,credit,,-5.00,USD,,goodwill\n"), 0o600)
	out := mustRun("applied", "claims", "bill", bill, "--contract", "us-example")
	if !strings.Contains(out, "1000.00 USD applied → us-example/2026-10 (amount_period)") || !strings.Contains(out, "5.00 USD unmatched: no open claim of us-example has 5.00 USD outstanding") {
		t.Fatalf("bill:\n%s", out)
	}
	mustRun("already_applied", "claims", "bill", bill, "--contract", "us-example")
	mustFail(`--contract: missing: name the contract(s) the bill is for`, "claims", "bill", bill)
	out = mustRun("2027-01-01  -", "claims", "list") // December is in time: one billing cycle after November
	if !strings.Contains(out, "us-example/2026-10  Example GPU Cloud Inc.  1234.56 USD  credited") {
		t.Fatalf("list:\n%s", out)
	}
	mustRun("UNMATCHED: no open claim", "claims", "list", "--credits")
	csv := filepath.Join(t.TempDir(), "claims.csv")
	mustRun("", "claims", "list", "--format", "csv", "-o", csv)
	if b, _ := os.ReadFile(csv); !strings.Contains(string(b), "us-example/2026-10,us-example,Example GPU Cloud Inc.,2026-10,USD,1234.56,credited") {
		t.Fatalf("csv:\n%s", b)
	}
	// 1,000.00 of 1,234.56 received: 81.0 %; the provider kept its
	// deadline (December's bill is in time).
	if out := strings.Join(strings.Fields(mustRun("2026-Q4", "claims", "recovery")), " "); !strings.Contains(out,
		"Example GPU Cloud Inc. 2026-Q4 USD 1 1234.56 1000.00 1000.00 234.56 0.00 0.00 81.0 % 0 (0.00) 0 0 of 1") ||
		!strings.Contains(out, "BILL QUARTER CURRENCY RECEIVED ON ITS BILLS FOR CLAIMS OF Example GPU Cloud Inc. 2026-Q4 USD 1000.00 2026-Q4") {
		t.Fatalf("recovery:\n%s", out)
	}
	mustFail(`claim us-example/2026-10: no follow-up is due: everything granted is on the bills`, "claims", "letter", id)
}

// TestClaimsCommandsRemote: the same commands against a running backend
// (--server), with an API key of the claims scope; a refusal reads as the
// local one does.
func TestClaimsCommandsRemote(t *testing.T) {
	data, rep := claimsCLI(t)
	if _, err := runCLI(t, "claims", "draft", "--report", rep, "--data", data); err != nil {
		t.Fatal(err)
	}
	o, err := wiring.FromEnv().OpenOffline(t.Context(), data, false)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	desk, err := o.Tickets()
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(o.Service, slog.New(slog.DiscardHandler))
	if _, err := httpapi.RegisterClaims(api.Mux(), desk, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api)
	defer srv.Close()
	_, token, err := app.CreateAPIKey(t.Context(), o.Store, "finance", []string{"claims"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(wiring.EnvAPIKey, token)
	id := "us-example/2026-10"
	if _, err := runCLI(t, "claims", "sent", id, "--at", "2026-11-03T09:00:00-05:00", "--via", "fax", "--server", srv.URL); err == nil ||
		err.Error() != `--via: "fax" is not a way a claim is sent (support_case, ticket, email, web_form, letter)` {
		t.Fatalf("remote refusal: %v", err)
	}
	if out, err := runCLI(t, "claims", "sent", id, "--at", "2026-11-03T09:00:00-05:00", "--via", "email", "--server", srv.URL); err != nil || !strings.Contains(out, "sent") {
		t.Fatalf("remote sent: %v %s", err, out)
	}
	out, err := runCLI(t, "claims", "show", id, "--server", srv.URL)
	if err != nil || !strings.Contains(out, `"recorded_by": "api:`) || !strings.Contains(out, "(finance)") {
		t.Fatalf("remote show: %v %s", err, out)
	}
	if out, err := runCLI(t, "claims", "list", "--format", "csv", "--server", srv.URL); err != nil || !strings.Contains(out, "us-example/2026-10,us-example") {
		t.Fatalf("remote csv: %v %s", err, out)
	}
	if _, err := runCLI(t, "claims", "letter", id, "--server", srv.URL); err == nil || !strings.Contains(err.Error(), "no follow-up is due: the credit is due before 2027-01-01T05:00:00Z") {
		t.Fatalf("remote letter: %v", err)
	}
}

// TestClaimsBillBadLineWritesNothing: a bill whose third line is bad is
// refused naming the file, the line, the field and the value — a currency
// code in the wrong form, a description too long for the ledger — and its
// good second line is not recorded alone.
func TestClaimsBillBadLineWritesNothing(t *testing.T) {
	data, _ := claimsCLI(t)
	head := "node,period,kind,quantity,amount,currency,reference,description\n,2026-11,credit,,-1.00,USD,,promo\n"
	for _, c := range []struct{ line3, want string }{
		{",2026-11,credit,,-5.00,usd,,x\n", `:3: field currency: "usd" is not an ISO 4217 code`},
		{",2026-11,credit,,-5.00,USD,," + strings.Repeat("x", 501) + "\n", ` line [3]: description: longer than 500 characters`},
	} {
		bill := filepath.Join(t.TempDir(), "bill.csv")
		if err := os.WriteFile(bill, []byte(head+c.line3), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := runCLI(t, "claims", "bill", bill, "--contract", "us-example", "--data", data)
		if err == nil || !strings.Contains(err.Error(), bill+c.want) {
			t.Errorf("bad line 3: %v, want %q\n%s", err, bill+c.want, out)
		}
		out, err = runCLI(t, "claims", "list", "--credits", "--data", data, "--format", "json")
		if err != nil || strings.Contains(out, "promo") {
			t.Errorf("a refused bill left a line behind: %v\n%s", err, out)
		}
	}
}

// TestClaimsCreditAsCoupon: a credit given back as a coupon (JD Cloud
// compensates "in the form of coupon") pays the claim as a bill's credit
// does, and the ledger keeps that it was a coupon; a form that is no way a
// credit is given back is refused naming the flag and the value, and
// writes nothing.
func TestClaimsCreditAsCoupon(t *testing.T) {
	data, rep := claimsCLI(t)
	id := "us-example/2026-10"
	for _, args := range [][]string{{"claims", "draft", "--report", rep}, {"claims", "sent", id, "--at", "2026-11-03T09:00:00-05:00", "--via", "email"}} {
		if out, err := runCLI(t, append(args, "--data", data)...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	credit := func(form string) (string, error) {
		return runCLI(t, "claims", "credit", id, "--period", "2026-12", "--amount", "1234.56", "--currency", "USD", "--form", form, "--data", data)
	}
	if out, err := credit("giftcard"); err == nil || !strings.Contains(err.Error(), `--form: "giftcard" is not how a credit is given back (coupon, voucher, cash`) {
		t.Fatalf("--form giftcard: %v\n%s", err, out)
	}
	if out, _ := runCLI(t, "claims", "show", id, "--data", data); !strings.Contains(out, `"state": "sent"`) || !strings.Contains(out, `"credits": []`) {
		t.Fatalf("a refused credit left a trace:\n%s", out)
	}
	if out, err := credit("coupon"); err != nil || !strings.Contains(out, "received 1234.56, outstanding 0.00") {
		t.Fatalf("--form coupon: %v\n%s", err, out)
	}
	out, err := runCLI(t, "claims", "show", id, "--data", data)
	if err != nil || !strings.Contains(out, `"form": "coupon"`) || !strings.Contains(out, `"outstanding": 0.00`) {
		t.Fatalf("show after a coupon: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "claims", "list", "--credits", "--data", data); err != nil || !strings.Contains(out, "1234.56 USD (coupon)") {
		t.Fatalf("list --credits: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "claims", "list", "--credits", "--format", "csv", "--data", data); err != nil ||
		!strings.Contains(out, ",recorded_by,form\n") || !strings.Contains(out, ",coupon\n") {
		t.Fatalf("list --credits --format csv: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "claims", "list", "--format", "csv", "--data", data); err != nil || !strings.Contains(out, "(coupon)") {
		t.Fatalf("list --format csv: %v\n%s", err, out)
	}
}

// TestClaimsSentLateSaysSo: recording a claim sent at its deadline's
// instant (October's us-example claim, its deadline moved to 1 December
// 2026 00:00 New York time so that both sides are in the past) says at
// once that the provider may refuse it; a second earlier says nothing of
// the kind.
func TestClaimsSentLateSaysSo(t *testing.T) {
	const warn = "; sent at or after the claim deadline (2026-12-01 00:00 EST): the provider may refuse it for that alone"
	for _, c := range []struct {
		at   string
		late bool
	}{{"2026-11-30T23:59:59-05:00", false}, {"2026-12-01T00:00:00-05:00", true}} {
		data, rep := claimsCLI(t)
		raw, err := os.ReadFile(rep)
		if err != nil {
			t.Fatal(err)
		}
		raw = bytes.Replace(raw, []byte(`"claim_deadline":"2027-01-01T05:00:00Z"`), []byte(`"claim_deadline":"2026-12-01T05:00:00Z"`), 1)
		if !bytes.Contains(raw, []byte("2026-12-01T05:00:00Z")) {
			t.Fatalf("the report's deadline was not moved:\n%s", raw)
		}
		if err := os.WriteFile(rep, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := runCLI(t, "claims", "draft", "--report", rep, "--data", data); err != nil {
			t.Fatalf("draft: %v\n%s", err, out)
		}
		// Unsent with its deadline passed, the CSV says it expired.
		if out, err := runCLI(t, "claims", "list", "--format", "csv", "--data", data); err != nil || !strings.Contains(out, ",observations_sha256,expired,opens,sent_early\n") ||
			!strings.HasSuffix(strings.TrimSpace(out), ",true,,false") {
			t.Fatalf("an unsent claim past its deadline in the CSV: %v\n%s", err, out)
		}
		out, err := runCLI(t, "claims", "sent", "us-example/2026-10", "--at", c.at, "--via", "email", "--data", data)
		if err != nil || strings.Contains(out, warn) != c.late {
			t.Errorf("sent %s: %v\n%s\nwant the warning: %v", c.at, err, out, c.late)
		}
		if out, _ := runCLI(t, "claims", "list", "--format", "csv", "--data", data); !strings.HasSuffix(strings.TrimSpace(out), ",false") {
			t.Errorf("a sent claim is never expired in the CSV:\n%s", out)
		}
	}
}

// TestClaimsSentEarlySaysSo: tencent-cvm's March 2026 claim (drafted from
// the pack's golden report, sealed) may be filed only "在…次月的第五（5）个
// 工作日后": from 9 April 00:00 Beijing. Recorded as sent a second before,
// the command says at once that it was sent before the window opened and
// that Tencent may refuse it, and the ledger's list flags it; sent at the
// opening instant, neither.
func TestClaimsSentEarlySaysSo(t *testing.T) {
	const warn = "; sent before the claim window opened (2026-04-09 00:00 CST): the provider's text takes a claim only from then and may refuse this one for that alone; send it again once the window is open"
	for _, c := range []struct {
		at    string
		early bool
	}{{"2026-04-08T23:59:59+08:00", true}, {"2026-04-09T00:00:00+08:00", false}} {
		data, _ := claimsCLI(t)
		var r report.Report
		raw, err := os.ReadFile("../../../testdata/terms/packs/tencent-cvm.report.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		r.Seal = &report.Seal{ObservationsSHA256: "9f2c", ChainHead: "a1b2", Batches: 7}
		raw, _ = json.Marshal(r)
		rep := filepath.Join(t.TempDir(), "report.json")
		if err := os.WriteFile(rep, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := runCLI(t, "claims", "draft", "--report", rep, "--data", data); err != nil {
			t.Fatalf("draft: %v\n%s", err, out)
		}
		out, err := runCLI(t, "claims", "sent", "tencent-cvm/2026-03", "--at", c.at, "--via", "ticket", "--data", data)
		if err != nil || strings.Contains(out, warn) != c.early || !strings.HasPrefix(out, "claim tencent-cvm/2026-03: sent; claimed 14880.00 CNY") {
			t.Errorf("sent %s: %v\n%s\nwant the warning: %v", c.at, err, out, c.early)
		}
		if out, err := runCLI(t, "claims", "list", "--data", data); err != nil || strings.Contains(out, "SENT-BEFORE-WINDOW-OPENED") != c.early {
			t.Errorf("list after sent %s: %v\n%s", c.at, err, out)
		}
		if out, err := runCLI(t, "claims", "list", "--format", "csv", "--data", data); err != nil ||
			!strings.HasSuffix(strings.TrimSpace(out), fmt.Sprintf(",false,2026-04-08T16:00:00Z,%v", c.early)) {
			t.Errorf("csv after sent %s: %v\n%s", c.at, err, out)
		}
	}
}

// TestClaimsSentWithHolidaysUnknown: tencent-cvm's terms list China's 2026
// holidays only. For March 2025 (gt-01 down 8 March 03:00–09:00) the report
// can give only the earliest opening, counting April 2025's weekdays alone
// (1, 2, 3, 4, 7: from 8 April 00:00 Beijing), with 2025's holidays
// missing — 清明 fell on 4 April 2025, so Tencent's own opening was 9 April.
// A claim sent on 7 April 23:59:59 is early whatever the holidays; one sent
// on 8 April 10:00 may be, and the command and the list say that the
// opening is not known rather than calling it in time.
func TestClaimsSentWithHolidaysUnknown(t *testing.T) {
	dir := t.TempDir()
	var log strings.Builder
	log.WriteString(`{"type":"node_registered","id":"reg-gt-01","node":"gt-01","contract":"tencent-cvm","ordered_at":"2025-02-27T00:00:00+08:00","hardware":{"gpu_model":"A100","gpu_count":8},"heartbeat_interval_s":900}` + "\n")
	bj := time.FixedZone("CST", 8*3600)
	for at := time.Date(2025, 2, 28, 0, 0, 0, 0, bj); at.Before(time.Date(2025, 4, 2, 0, 0, 0, 0, bj)); at = at.Add(15 * time.Minute) {
		if at.After(time.Date(2025, 3, 8, 3, 0, 0, 0, bj)) && at.Before(time.Date(2025, 3, 8, 9, 0, 0, 0, bj)) {
			continue
		}
		s := at.Format(time.RFC3339)
		fmt.Fprintf(&log, `{"type":"observation","id":"gt-01/%d","node":"gt-01","received_at":"%s","kind":"heartbeat","at":"%s"}`+"\n", at.Unix(), s, s)
	}
	events := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(events, []byte(log.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "report", "--terms", "../../../testdata/terms/packs/tencent-cvm.yaml", "--events", events, "--month", "2025-03",
		"--as-of", "2025-04-02T00:00:00+08:00", "--format", "json")
	if err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if c := r.Contracts[0]; c.ClaimOpens != "" || c.ClaimOpensEarliest != "2025-04-08T00:00:00+08:00" || c.ClaimOpensHolidaysMissing != 2025 || c.Claim <= 0 {
		t.Fatalf("the report's opening: %q %q %d, claim %v", c.ClaimOpens, c.ClaimOpensEarliest, c.ClaimOpensHolidaysMissing, c.Claim)
	}
	r.Seal = &report.Seal{ObservationsSHA256: "9f2c", ChainHead: "a1b2", Batches: 7}
	raw, _ := json.Marshal(r)
	rep := filepath.Join(dir, "report.json")
	if err := os.WriteFile(rep, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	const unsure = "; the terms list no holidays for 2025: the claim window opened on 2025-04-08 00:00 CST at the earliest (weekdays counted), later if a holiday fell on one"
	for _, c := range []struct {
		at, note, flag string
	}{
		{"2025-04-07T23:59:59+08:00", "; sent before the claim window opened (2025-04-08 00:00 CST)", "SENT-BEFORE-WINDOW-OPENED"},
		{"2025-04-08T10:00:00+08:00", unsure, "opens-unsure-2025-holidays-unknown"},
	} {
		data, _ := claimsCLI(t)
		if out, err := runCLI(t, "claims", "draft", "--report", rep, "--data", data); err != nil {
			t.Fatalf("draft: %v\n%s", err, out)
		}
		out, err := runCLI(t, "claims", "sent", "tencent-cvm/2025-03", "--at", c.at, "--via", "ticket", "--data", data)
		if err != nil || !strings.Contains(out, c.note) {
			t.Errorf("sent %s: %v\n%s\nwant %q", c.at, err, out, c.note)
		}
		if out, err := runCLI(t, "claims", "list", "--data", data); err != nil || !strings.Contains(out, c.flag) {
			t.Errorf("list after sent %s: %v\n%s\nwant %s", c.at, err, out, c.flag)
		}
	}
}
