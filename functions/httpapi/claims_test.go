package httpapi_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// claimsEnv is a backend whose acme-std contract gives the provider 10
// days to answer a claim and 60 to credit it, with October 2026's claim of
// 120.50 USD drafted from its sealed report.
func claimsEnv(t *testing.T) (*env, *app.Ledger) {
	t.Helper()
	src := strings.Replace(apptest.TermsYAML, "claim:\n  within_days: 30\n", "claim:\n  within_days: 30\n  answer_within: {days: 10}\n  credit_within: {days: 60}\n", 1)
	ts, err := terms.Parse("acme-std.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, app.TermsBook{"acme-std": ts[0]})
	desk, err := e.svc.Tickets(app.TermsBook{"acme-std": ts[0]})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := httpapi.RegisterClaims(e.api.Mux(), desk, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	l, err := desk.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	r := &report.Report{Month: "2026-10", AsOf: "2026-11-01T06:00:00Z", Seal: &report.Seal{ObservationsSHA256: "9f2c", ChainHead: "a1b2", Batches: 88},
		Contracts: []report.Contract{{Contract: "acme-std", Provider: "acme", Currency: "USD", TimeZone: "UTC", MonthEnd: "2026-11-01T00:00:00Z",
			Claim: 120.5, ClaimDeadline: "2026-12-01T00:00:00Z", Lang: "en"}}}
	if ds, err := l.Draft(t.Context(), r, "report-job"); err != nil || len(ds) != 1 || ds[0].Outcome != "drafted" {
		t.Fatalf("draft: %v %+v", err, ds)
	}
	return e, l
}

func claimView(t *testing.T, body []byte) app.ClaimView {
	t.Helper()
	var v app.ClaimView
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return v
}

// TestClaimsAPI: the ledger over HTTP behind the claims scope, every
// refusal naming its field and changing nothing.
func TestClaimsAPI(t *testing.T) {
	e, l := claimsEnv(t)
	fin, read, tickets := e.key(t, "claims"), e.key(t, "read"), e.key(t, "tickets")
	claim := "/v1/claims/acme-std/2026-10"
	for _, c := range []struct {
		name, token string
		status      int
	}{{"no key", "", 401}, {"read scope", read, 403}, {"tickets scope", tickets, 403}, {"claims scope", fin, 200}, {"admin", e.key(t, "admin"), 200}} {
		if w := get(e.api, httpapi.PathClaims, c.token); w.Code != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, w.Code, w.Body, c.status)
		}
	}
	if w := call(e.api, http.MethodPost, claim+"/sent", `{"at":"2026-11-05T09:00:00Z","via":"email","reference":"CASE-9"}`, fin); w.Code != 200 ||
		claimView(t, w.Body.Bytes()).Sent.RecordedBy != "api:"+strings.SplitN(strings.TrimPrefix(fin, "gsk_"), "_", 2)[0]+" (test)" {
		t.Fatalf("sent: %d %s", w.Code, w.Body)
	}
	// Sent 5 November: an answer was due before 16 November; it is 30 November.
	w := get(e.api, claim+"/letter", fin)
	if w.Code != 200 || !strings.Contains(w.Body.String(), "Your terms give you until 2026-11-16 00:00:00 +00:00 UTC to answer a claim (acme-std.yaml:28). We have received no answer.") ||
		!strings.Contains(w.Body.String(), "On 2026-11-05 we sent you, by email, your reference CASE-9, our claim for a service credit of 120.50 USD for October 2026") {
		t.Fatalf("letter: %d %s", w.Code, w.Body)
	}
	if w := get(e.api, claim+"/letter?lang=fr", fin); w.Code != 400 || decodeErr(t, w).Field != "lang" {
		t.Fatalf("letter in French: %d %s", w.Code, w.Body)
	}
	for _, c := range []struct {
		name, path, body string
		status           int
		field, msg       string
	}{
		{"answer before sent", claim + "/answer", `{"at":"2026-11-05T08:59:59Z","outcome":"accepted"}`, 400, "at", "is before the claim was sent (2026-11-05T09:00:00Z)"},
		{"wrong currency", claim + "/answer", `{"at":"2026-11-20T00:00:00Z","outcome":"accepted","currency":"EUR"}`, 400, "currency", `"EUR" is not the claim's currency (USD)`},
		{"negative grant", claim + "/answer", `{"at":"2026-11-20T00:00:00Z","outcome":"partial","granted":-5}`, 400, "granted", `"-5.00" is negative`},
		{"three decimals", claim + "/answer", `{"at":"2026-11-20T00:00:00Z","outcome":"partial","granted":60.255}`, 400, "granted", "more than two decimals"},
		{"unknown claim", "/v1/claims/acme-std/2026-09/answer", `{"at":"2026-11-20T00:00:00Z","outcome":"accepted"}`, 404, "claim", `"acme-std/2026-09" is not in the ledger`},
		{"not a month", "/v1/claims/acme-std/October/answer", `{"at":"2026-11-20T00:00:00Z","outcome":"accepted"}`, 400, "claim", "is not a claim id"},
		{"negative credit", claim + "/credits", `{"period":"2026-11","amount":-1,"currency":"USD"}`, 400, "amount", `"-1.00" is not positive`},
		{"sent again, otherwise", claim + "/sent", `{"at":"2026-11-06T09:00:00Z","via":"email"}`, 409, "at", "was already recorded as sent"},
	} {
		w := call(e.api, http.MethodPost, c.path, c.body, fin)
		we := decodeErr(t, w)
		if w.Code != c.status || we.Field != c.field || !strings.Contains(we.Error, c.msg) {
			t.Errorf("%s: %d %+v, want %d %s %q", c.name, w.Code, we, c.status, c.field, c.msg)
		}
	}
	if v, _ := l.Claim(t.Context(), "acme-std/2026-10"); v.Answer != nil || len(v.Credits) != 0 || v.Version != 2 {
		t.Fatalf("a refusal changed the claim: %+v", v)
	}
	w = call(e.api, http.MethodPost, claim+"/answer", `{"at":"2026-11-20T00:00:00Z","outcome":"partial","granted":"60.25","reason":"maintenance","reference":"CASE-9"}`, fin)
	if v := claimView(t, w.Body.Bytes()); w.Code != 200 || !v.Status.AnswerLate || v.Status.Outstanding != 6025 || v.Deadlines.Credit.Days != 60 {
		t.Fatalf("answer: %d %s", w.Code, w.Body)
	}
	w = call(e.api, http.MethodPost, claim+"/credits", `{"period":"2026-11","amount":"60.25","currency":"USD","reference":"CN-1"}`, fin)
	if v := claimView(t, w.Body.Bytes()); w.Code != 200 || v.Status.State != claims.StateCredited || v.Credits[0].MatchedBy != claims.ByHand {
		t.Fatalf("credit: %d %s", w.Code, w.Body)
	}
	if w := call(e.api, http.MethodPost, claim+"/credits", `{"period":"2026-11","amount":"60.25","currency":"USD","reference":"CN-1"}`, fin); w.Code != 409 || decodeErr(t, w).Field != "amount" {
		t.Fatalf("the same credit again: %d %s", w.Code, w.Body)
	}
	if w := get(e.api, claim+"/letter", fin); w.Code != 409 || !strings.Contains(decodeErr(t, w).Error, "no follow-up is due: everything granted is on the bills") {
		t.Fatalf("letter when credited: %d %s", w.Code, w.Body)
	}

	// A bill's credit that matches nothing: shown, applied to nothing, then by hand.
	imp := `{"contracts":["acme-std"],"credits":[{"bill":"bill.csv","lines":[4],"period":"2026-11","amount":"9.99","currency":"USD","description":"goodwill"}]}`
	w = call(e.api, http.MethodPost, httpapi.PathBillCreditsIn, imp, fin)
	var got struct{ Credits []app.CreditOutcome }
	if json.Unmarshal(w.Body.Bytes(), &got); w.Code != 200 || len(got.Credits) != 1 || got.Credits[0].Outcome != "unmatched" ||
		got.Credits[0].Unmatched != "no open claim of acme-std has 9.99 USD outstanding for a month before 2026-11" {
		t.Fatalf("import: %d %s", w.Code, w.Body)
	}
	key := got.Credits[0].Key
	if w := call(e.api, http.MethodPost, "/v1/claims/credits/nope/apply", `{"claim":"acme-std/2026-10"}`, fin); w.Code != 404 || decodeErr(t, w).Field != "credit" {
		t.Fatalf("apply an unknown line: %d %s", w.Code, w.Body)
	}
	if w := call(e.api, http.MethodPost, "/v1/claims/credits/"+key+"/apply", `{"claim":"acme-std/2026-10"}`, fin); w.Code != 200 || claimView(t, w.Body.Bytes()).Status.Excess != 999 {
		t.Fatalf("apply: %d %s", w.Code, w.Body)
	}
	if w := call(e.api, http.MethodPost, "/v1/claims/credits/"+key+"/apply", `{"claim":"acme-std/2026-10"}`, fin); w.Code != 409 {
		t.Fatalf("apply twice: %d %s", w.Code, w.Body)
	}
	w = get(e.api, httpapi.PathClaims+"?format=csv", fin)
	lines := strings.Split(strings.TrimSpace(w.Body.String()), "\n")
	if w.Code != 200 || w.Header().Get("Content-Type") != "text/csv; charset=utf-8" || len(lines) != 2 || !strings.HasPrefix(lines[0], "claim,contract,provider,month,currency,amount,state") ||
		!strings.HasPrefix(lines[1], "acme-std/2026-10,acme-std,acme,2026-10,USD,120.50,credited,2026-12-01T00:00:00Z") {
		t.Fatalf("csv: %d %s", w.Code, w.Body)
	}
	if w := get(e.api, httpapi.PathClaims+"?format=xml", fin); w.Code != 400 || decodeErr(t, w).Field != "format" {
		t.Fatalf("xml: %d %s", w.Code, w.Body)
	}
	w = get(e.api, httpapi.PathRecovery, fin)
	var rec claims.Recovery
	if json.Unmarshal(w.Body.Bytes(), &rec); w.Code != 200 || len(rec.Rows) != 1 || rec.Rows[0].Received != 7024 || rec.Rows[0].Granted != 6025 || rec.Rows[0].Refused != 6025 {
		t.Fatalf("recovery: %d %s", w.Code, w.Body)
	}
}
