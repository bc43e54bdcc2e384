package store

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/gpusla/gpusla/sla/claims"
)

// LedgerStore keeps the claims ledger: each month's credit claim per
// contract with everything recorded on it (sent, answered, credits), and
// every credit line read from a bill, applied or not. Declared apart from
// Store like TicketStore; both stores implement it and infra/store/storetest
// holds its contract (ledger.go there).
//
// The same rules hold: conditional single-item writes only. A claim is ONE
// item holding its whole history, so recording on it is one versioned
// write: two people recording its answer at once cannot both succeed, and
// the loser re-reads and sees the winner's answer. A bill's credit line is
// its own item, created once by its key, so a bill imported twice applies
// each line once; its Claim is set in the same write, and the claim then
// gets the credit in a versioned write of its own (a crash between the two
// is repaired by the next import, which finds the line applied and the claim
// without it).
type LedgerStore interface {
	// CreateClaim stores a new claim (Version 1); ErrExists if its id is
	// taken (the month's claim was drafted already).
	CreateClaim(ctx context.Context, c Claim) error
	// GetClaim returns a claim; ErrNotFound if absent.
	GetClaim(ctx context.Context, id string) (Claim, error)
	// UpdateClaim writes c if the stored version equals prev (c.Version =
	// prev+1); ErrConflict if it changed, ErrNotFound if absent.
	UpdateClaim(ctx context.Context, c Claim, prev int64) error
	// ListClaims returns every claim, ordered by month, then id.
	ListClaims(ctx context.Context) ([]Claim, error)

	// PutBillCredit writes b if the stored version equals prev (0: none
	// stored yet), storing b.Version = prev+1; otherwise ErrConflict. It
	// returns the stored version.
	PutBillCredit(ctx context.Context, b BillCredit, prev int64) (int64, error)
	// GetBillCredit returns a credit line by key; ErrNotFound if absent.
	GetBillCredit(ctx context.Context, key string) (BillCredit, error)
	// ListBillCredits returns every credit line, ordered by period, then key.
	ListBillCredits(ctx context.Context) ([]BillCredit, error)
}

// Claim is a claim as the ledger keeps it: the domain's claim, the
// messages sent about it, and its version.
type Claim struct {
	claims.Claim
	// Notices are the alerts sent about it (a provider deadline passed),
	// each with when it first reached a channel; the channels' own marks
	// (the report store's) say which have it.
	Notices []ClaimNotice `json:"notices,omitempty"`
	Version int64         `json:"version"`
	// UpdatedAt is when it was last written.
	UpdatedAt time.Time `json:"updated_at"`
}

// ClaimNotice is one alert sent about a claim.
type ClaimNotice struct {
	// Key is unique within the claim: "answer_overdue", "credit_overdue".
	Key    string    `json:"key"`
	SentAt time.Time `json:"sent_at"`
}

// Notice returns the notice with key, or nil.
func (c *Claim) Notice(key string) *ClaimNotice {
	for i := range c.Notices {
		if c.Notices[i].Key == key {
			return &c.Notices[i]
		}
	}
	return nil
}

// BillCredit is a bill's credit line as the ledger keeps it.
type BillCredit struct {
	claims.BillCredit
	Version int64 `json:"version"`
}

// SortClaims orders claims by month, then id: ListClaims' order.
func SortClaims(l []Claim) {
	slices.SortFunc(l, func(a, b Claim) int { return cmp.Or(cmp.Compare(a.Month, b.Month), cmp.Compare(a.ID, b.ID)) })
}

// SortBillCredits orders credit lines by period, then key.
func SortBillCredits(l []BillCredit) {
	slices.SortFunc(l, func(a, b BillCredit) int { return cmp.Or(cmp.Compare(a.Period, b.Period), cmp.Compare(a.Key, b.Key)) })
}
