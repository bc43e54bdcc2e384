package scorecard

import (
	"time"

	"github.com/gpusla/gpusla/sla/claims"
)

// Claims is what a provider's claims of the scorecard's months recovered
// (the claims ledger, sla/claims): how it honours its SLA once a claim is
// filed — what it granted, refused, put on its bills, still owes, and on
// how many claims it missed its own deadlines. Sums are per currency,
// never converted.
type Claims struct {
	// Quarters are the rows per quarter of the claims' months; Total the
	// scorecard's months together (Quarter "FROM..TO"), one row per
	// currency.
	Quarters []claims.RecoveryRow `json:"quarters"`
	Total    []claims.RecoveryRow `json:"total"`
}

// AddClaims sets each provider's Claims from the ledger: its claims of the
// months From..To, each held to its contract's provider deadlines (ds, by
// contract; a contract missing has none) as of asOf. A provider with no
// claim in the months gets none; a claim of a provider not compared is
// left out.
func (s *Scorecard) AddClaims(ledger []claims.Claim, ds map[string]claims.Deadlines, asOf time.Time) {
	byProvider := map[string][]claims.Claim{}
	for _, c := range ledger {
		if c.Month >= s.From && c.Month <= s.To {
			byProvider[c.Provider] = append(byProvider[c.Provider], c)
		}
	}
	for i := range s.Providers {
		p := &s.Providers[i]
		cs := byProvider[p.Provider]
		if len(cs) == 0 {
			p.Claims = nil
			continue
		}
		rows := claims.Recover(cs, ds, asOf).Rows
		p.Claims = &Claims{Quarters: rows, Total: claims.Total(rows, s.From+".."+s.To)}
	}
}
