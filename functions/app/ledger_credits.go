package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/claims"
)

// CreditOutcome says what importing one bill credit line did.
type CreditOutcome struct {
	store.BillCredit
	// Outcome: "applied" (matched and applied now), "unmatched" (shown,
	// applied to nothing, Unmatched says why), "already_applied" (the
	// line was imported before and is on its claim), "still_unmatched".
	Outcome string `json:"outcome"`
}

// ImportCredits records a bill's credit lines (read by sla/billing, each
// naming the contracts whose claims it may be for) and applies each to the
// claim it matches (claims.Match: the provider's reference, else amount and
// period), recorded by by. Every line is checked before anything is
// written; a bad one refuses the whole bill naming it. A line imported
// before is not applied again; one left unmatched then is matched again
// (its claim may have been answered since).
func (l *Ledger) ImportCredits(ctx context.Context, lines []claims.BillCredit, by string) ([]CreditOutcome, error) {
	for i := range lines {
		b := &lines[i]
		// The key is the line's, whoever read the bill.
		b.Key = claims.CreditKey(b.Period, b.Currency, b.Amount, b.Reference, b.Description, b.Lines)
		if err := b.Check(); err != nil {
			return nil, fmt.Errorf("%s line %v: %w", b.Bill, b.Lines, domainErr(err))
		}
		for _, c := range b.Contracts {
			if _, ok := l.book()[c]; !ok {
				return nil, Errorf(EInvalid, "contract", "%q is not a loaded contract (known: %v)", c, l.book().Contracts())
			}
		}
	}
	now := l.svc.Now()
	var out []CreditOutcome
	for _, b := range lines {
		b.Record = claims.Record{RecordedAt: now, RecordedBy: by}
		o, err := l.importOne(ctx, b)
		if err != nil {
			return out, fmt.Errorf("%s line %v: %w", b.Bill, b.Lines, err)
		}
		out = append(out, o)
	}
	return out, nil
}

func (l *Ledger) importOne(ctx context.Context, b claims.BillCredit) (CreditOutcome, error) {
	rec := versioned[store.BillCredit]{
		read: func(ctx context.Context, _ int) (store.BillCredit, error) {
			cur, err := l.store.GetBillCredit(ctx, b.Key)
			if errors.Is(err, store.ErrNotFound) {
				return store.BillCredit{}, nil // new: version 0
			}
			return cur, err
		},
		write: func(ctx context.Context, v store.BillCredit) (store.BillCredit, error) {
			ver, err := l.store.PutBillCredit(ctx, v, v.Version)
			v.Version = ver
			return v, err
		},
	}
	var (
		prev    int64
		already bool
		match   *claims.Claim
	)
	stored, err := update(ctx, "bill credit "+b.Key, rec, func(cur *store.BillCredit) error {
		if cur.Claim != "" {
			already = true
			return errUnchanged
		}
		prev = cur.Version
		line := b
		if prev > 0 {
			line.Record = cur.Record // first imported then
		}
		ledger, err := l.domainClaims(ctx)
		if err != nil {
			return err
		}
		c, by, why := claims.Match(line, ledger)
		line.Claim, line.MatchedBy, line.Unmatched = "", by, why
		if match = c; c != nil {
			line.Claim = c.ID
		}
		*cur = store.BillCredit{BillCredit: line, Version: prev}
		return nil
	})
	if err != nil {
		return CreditOutcome{}, err
	}
	if already {
		// Imported and matched before: make sure its claim has it (a
		// crash between the two writes leaves the claim without).
		if _, err := l.applyTo(ctx, stored.BillCredit); err != nil && ErrorCode(err) != EConflict {
			return CreditOutcome{}, err
		}
		return CreditOutcome{BillCredit: stored, Outcome: "already_applied"}, nil
	}
	o := CreditOutcome{BillCredit: stored, Outcome: "unmatched"}
	if prev > 0 {
		o.Outcome = "still_unmatched"
	}
	if match == nil {
		return o, nil
	}
	if _, err := l.applyTo(ctx, stored.BillCredit); err != nil {
		return o, err
	}
	o.Outcome = "applied"
	return o, nil
}

// applyTo applies credit line b to its claim b.Claim; EConflict if the
// claim has it already.
func (l *Ledger) applyTo(ctx context.Context, b claims.BillCredit) (store.Claim, error) {
	return l.change(ctx, b.Claim, func(c *store.Claim) (bool, error) {
		if slices.ContainsFunc(c.Credits, func(cr claims.Credit) bool { return cr.Key == b.Key }) {
			return false, nil
		}
		out, err := c.Claim.Apply(claims.CreditIn{Credit: claims.Credit{Key: b.Key, Period: b.Period, At: b.At, Amount: b.Amount, Form: b.Form,
			MatchedBy: b.MatchedBy, Reference: b.Reference, Record: b.Record}, Currency: b.Currency})
		c.Claim = out
		return err == nil, err
	})
}

func (l *Ledger) domainClaims(ctx context.Context) ([]claims.Claim, error) {
	cs, err := l.store.ListClaims(ctx)
	if err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	out := make([]claims.Claim, len(cs))
	for i, c := range cs {
		out[i] = c.Claim
	}
	return out, nil
}

// Credits lists every bill credit line the ledger holds, applied or not.
func (l *Ledger) Credits(ctx context.Context) ([]store.BillCredit, error) {
	bs, err := l.store.ListBillCredits(ctx)
	if err != nil {
		return nil, fmt.Errorf("bill credits: %w", err)
	}
	return bs, nil
}

// ManualCredit is a credit a person records against a claim from a bill
// gpusla does not read (a PDF invoice, a portal's credit memo).
type ManualCredit struct {
	Claim    string
	Period   string
	Amount   claims.Cents
	Currency string
	// On is the credit's own date, if the bill gives one.
	On        time.Time
	Reference string
	// Form is how it was given back (claims.Forms): empty for a bill's
	// credit line.
	Form string
	By   string
}

// CreditByHand records m as a bill credit line applied to its claim. The
// same credit again (same claim, month, amount, currency and reference) is
// a conflict: a credit is applied once.
func (l *Ledger) CreditByHand(ctx context.Context, m ManualCredit) (ClaimView, error) {
	if _, err := l.Claim(ctx, m.Claim); err != nil {
		return ClaimView{}, err
	}
	contract, _, _ := claims.ParseID(m.Claim)
	now := l.svc.Now()
	b := claims.BillCredit{Key: claims.CreditKey(m.Period, m.Currency, m.Amount, m.Reference, strings.TrimSpace("manual "+m.Claim+" "+m.Form), nil), Bill: "manual",
		Period: m.Period, At: m.On.UTC(), Amount: m.Amount, Currency: m.Currency, Reference: m.Reference, Form: m.Form, Contracts: []string{contract},
		Claim: m.Claim, MatchedBy: claims.ByHand, Record: claims.Record{RecordedAt: now, RecordedBy: m.By}}
	if err := b.Check(); err != nil {
		return ClaimView{}, domainErr(err)
	}
	return l.assign(ctx, b, 0)
}

// Assign applies an unmatched bill credit line to a claim by hand.
func (l *Ledger) Assign(ctx context.Context, key, claimID, by string) (ClaimView, error) {
	cur, err := l.store.GetBillCredit(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return ClaimView{}, Errorf(ENotFound, "credit", "%q is not a credit line in the ledger", key)
	}
	if err != nil {
		return ClaimView{}, err
	}
	if cur.Claim != "" {
		return ClaimView{}, Errorf(EConflict, "credit", "%q is already applied to claim %s (%s): a bill's credit is applied once", key, cur.Claim, cur.MatchedBy)
	}
	b := cur.BillCredit
	b.Claim, b.MatchedBy, b.Unmatched = claimID, claims.ByHand, ""
	b.Record = claims.Record{RecordedAt: l.svc.Now(), RecordedBy: by}
	return l.assign(ctx, b, cur.Version)
}

// assign checks that b's claim can take it, records the line as applied
// (with the version read: two people applying it race, one wins) and
// applies it.
func (l *Ledger) assign(ctx context.Context, b claims.BillCredit, prev int64) (ClaimView, error) {
	if prev == 0 {
		if cur, err := l.store.GetBillCredit(ctx, b.Key); err == nil {
			return ClaimView{}, dupCredit(b, cur)
		}
	}
	c, err := l.store.GetClaim(ctx, b.Claim)
	if errors.Is(err, store.ErrNotFound) {
		return ClaimView{}, Errorf(ENotFound, "claim", "%q is not in the ledger", b.Claim)
	}
	if err != nil {
		return ClaimView{}, err
	}
	if _, err := c.Claim.Apply(claims.CreditIn{Credit: claims.Credit{Key: b.Key, Period: b.Period, At: b.At, Amount: b.Amount, MatchedBy: b.MatchedBy, Form: b.Form},
		Currency: b.Currency}); err != nil {
		return ClaimView{}, domainErr(err)
	}
	if _, err := l.store.PutBillCredit(ctx, store.BillCredit{BillCredit: b}, prev); errors.Is(err, store.ErrConflict) {
		if prev == 0 {
			return ClaimView{}, dupCredit(b, store.BillCredit{})
		}
		return ClaimView{}, Errorf(EConflict, "credit", "%q changed while it was being applied; look again", b.Key)
	} else if err != nil {
		return ClaimView{}, err
	}
	got, err := l.applyTo(ctx, b)
	if err != nil {
		return ClaimView{}, err
	}
	return l.View(got, l.svc.Now()), nil
}

// dupCredit refuses a credit recorded by hand a second time.
func dupCredit(b claims.BillCredit, cur store.BillCredit) error {
	when := ""
	if !cur.RecordedAt.IsZero() {
		when = fmt.Sprintf(" (recorded %s by %s)", cur.RecordedAt.Format(time.RFC3339), cur.RecordedBy)
	}
	return Errorf(EConflict, "amount", "%s %s on the %s bill, reference %q, is already recorded against claim %s%s: a credit is applied once",
		b.Amount, b.Currency, b.Period, b.Reference, b.Claim, when)
}
