package bundle

import (
	"encoding/json"
	"slices"

	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/report"
)

// ClaimsFile is the bundle's claims.json: the month's claims as the ledger
// holds them (sent, answered, credited, with who recorded each fact and
// when), when the bundle is written with the ledger (gpusla bundle
// --claims). It is listed and summed in the manifest like every file, but
// it is not part of the report's seal: the claim comes after the evidence
// and quotes its seal, which Verify checks.
const ClaimsFile = "claims.json"

// ClaimsSchema names claims.json's form.
const ClaimsSchema = "gpusla.claims/v1"

// ClaimsDoc is claims.json.
type ClaimsDoc struct {
	Schema string        `json:"schema"`
	Month  string        `json:"month"`
	Claims []LedgerClaim `json:"claims"`
}

// LedgerClaim is one claim of the ledger with where it stood when the
// ledger was exported (the form `gpusla claims list --format json` and GET
// /v1/claims write; other fields of theirs are ignored).
type LedgerClaim struct {
	claims.Claim
	Status claims.Status `json:"status"`
}

// claimsFile is claims.json of r's month: the ledger's claims of r's month
// and contracts, nil when there are none.
func claimsFile(r *report.Report, ledger []LedgerClaim) ([]byte, error) {
	var contracts []string
	for _, c := range r.Contracts {
		contracts = append(contracts, c.Contract)
	}
	doc := ClaimsDoc{Schema: ClaimsSchema, Month: r.Month}
	for _, c := range ledger {
		if c.Month == r.Month && slices.Contains(contracts, c.Contract) {
			doc.Claims = append(doc.Claims, c)
		}
	}
	if len(doc.Claims) == 0 {
		return nil, nil
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	return append(b, '\n'), err
}

// claims checks claims.json: each claim is of the bundle's month and one
// of its report's contracts, and rests on this bundle's evidence — its seal
// is the report's (observations and chain head): a claim filed on other
// evidence than the bundle carries is named.
func (v *verifier) claims(data []byte, r *report.Report) {
	var doc ClaimsDoc
	if err := json.Unmarshal(data, &doc); err != nil || doc.Schema != ClaimsSchema {
		v.add(ClaimsFile, 0, "not a %s document: %v", ClaimsSchema, err)
		return
	}
	for _, c := range doc.Claims {
		switch {
		case c.Month != v.m.Month:
			v.add(ClaimsFile, 0, "claim %s is for %s, the bundle for %s", c.ID, c.Month, v.m.Month)
		case c.Seal.ChainHead != v.m.ChainHead:
			v.add(ClaimsFile, 0, "claim %s rests on chain head %s; this bundle's is %s: the claim was filed on other evidence", c.ID, c.Seal.ChainHead, v.m.ChainHead)
		case r != nil && r.Seal != nil && c.Seal.ObservationsSHA256 != r.Seal.ObservationsSHA256:
			v.add(ClaimsFile, 0, "claim %s quotes observations SHA-256 %s; the report's seal says %s", c.ID, c.Seal.ObservationsSHA256, r.Seal.ObservationsSHA256)
		}
		if r != nil && !slices.ContainsFunc(r.Contracts, func(rc report.Contract) bool { return rc.Contract == c.Contract }) {
			v.add(ClaimsFile, 0, "claim %s is under contract %s, which the report does not hold", c.ID, c.Contract)
		}
	}
	v.res.Claims = len(doc.Claims)
}
