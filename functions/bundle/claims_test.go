package bundle

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/claims"
)

// TestBundleCarriesTheMonthsClaims: written with the ledger, the bundle
// holds the month's claim (sent, answered, with who and when), listed in
// the manifest; verify checks it rests on the bundle's own chain head, and
// names one filed on other evidence.
func TestBundleCarriesTheMonthsClaims(t *testing.T) {
	r, log := claimMonth(t)
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(log)), nil }
	if err := SealReport(r, open); err != nil {
		t.Fatal(err)
	}
	c := r.Contracts[0]
	claim := claims.Claim{ID: claims.ID(c.Contract, r.Month), Contract: c.Contract, Provider: c.Provider, Month: r.Month, Amount: claims.FromFloat(c.Claim),
		Currency: c.Currency, TimeZone: c.TimeZone, Credits: []claims.Credit{},
		Seal: claims.Seal{ObservationsSHA256: r.Seal.ObservationsSHA256, ChainHead: r.Seal.ChainHead, Batches: r.Seal.Batches},
		Sent: &claims.Sent{At: time.Date(2026, 12, 3, 2, 0, 0, 0, time.UTC), Via: "ticket", Reference: "TK-88",
			Record: claims.Record{RecordedAt: time.Date(2026, 12, 3, 2, 5, 0, 0, time.UTC), RecordedBy: "cli:ana"}}}
	other := claim
	other.ID, other.Month = claims.ID(c.Contract, "2026-10"), "2026-10" // another month: left out
	var out bytes.Buffer
	m, err := WriteWithClaims(&out, r, open, []LedgerClaim{{Claim: claim, Status: claim.StatusAt(claims.Deadlines{}, time.Time{})}, {Claim: other}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Files[len(m.Files)-1].Name != ClaimsFile {
		t.Fatalf("manifest files %+v", m.Files)
	}
	res := verify(t, out.Bytes())
	if !res.OK() || res.Claims != 1 {
		t.Fatalf("verify: %s (claims %d)", problems(res), res.Claims)
	}
	files := unzip(t, out.Bytes())
	var doc ClaimsDoc
	if err := json.Unmarshal(files[ClaimsFile], &doc); err != nil || len(doc.Claims) != 1 || doc.Claims[0].Sent.RecordedBy != "cli:ana" || doc.Claims[0].Status.State != claims.StateSent {
		t.Fatalf("claims.json: %v %s", err, files[ClaimsFile])
	}

	// A claim filed on other evidence (a regenerated log, another seal).
	claim.Seal.ChainHead = "0000"
	out.Reset()
	if _, err := WriteWithClaims(&out, r, open, []LedgerClaim{{Claim: claim}}); err != nil {
		t.Fatal(err)
	}
	if res := verify(t, out.Bytes()); res.OK() || !strings.Contains(problems(res), "rests on chain head 0000; this bundle's is") {
		t.Fatalf("verify of a claim on other evidence: %s", problems(res))
	}
	// Without the ledger there is no claims.json, as before.
	if files := unzip(t, claimZipOf(t)); files[ClaimsFile] != nil {
		t.Fatal("claims.json without a ledger")
	}
}

func claimZipOf(t *testing.T) []byte { b, _ := claimBundle(t); return b }
