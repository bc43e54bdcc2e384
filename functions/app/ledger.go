package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/report"
)

// Ledger is the claims ledger (docs/claims.md): each month's claim per
// contract, drafted from the sealed report, followed until the credit is on
// a bill. It keeps the ledger in the store's LedgerStore; every change is
// one versioned write of one claim, every fact recorded with who and when.
type Ledger struct {
	svc   *Service
	store store.LedgerStore
	book  func() TermsBook
	log   *slog.Logger
}

// Ledger returns the desk's claims ledger; the store must implement
// LedgerStore (both infra stores do).
func (d *TicketDesk) Ledger() (*Ledger, error) {
	ls, ok := d.svc.store.(store.LedgerStore)
	if !ok {
		return nil, fmt.Errorf("claims: the store %T keeps no claims ledger (no LedgerStore)", d.svc.store)
	}
	return &Ledger{svc: d.svc, store: ls, book: d.Terms, log: d.log}, nil
}

// ClaimView is a claim with where it stands as of the view's instant and
// its contract's provider deadlines: what every reader of the ledger sees
// (the API, the CLI, the exports, the status page).
type ClaimView struct {
	store.Claim
	Status claims.Status `json:"status"`
	// Deadlines are the contract's provider deadlines as its terms state
	// them (absent: the terms state none).
	Deadlines *ProviderDeadlines `json:"provider_deadlines,omitempty"`
}

// ProviderDeadlines are a contract's provider deadlines as the API shows
// them.
type ProviderDeadlines struct {
	Answer *Within `json:"answer,omitempty"`
	Credit *Within `json:"credit,omitempty"`
	// Of is the same in the domain's form.
	Of claims.Deadlines `json:"-"`
}

// Within is one provider deadline: its terms (days or billing cycles,
// counted from sent or answered), the clause and the provider's words.
type Within struct {
	Days          int    `json:"days,omitempty"`
	BillingCycles int    `json:"billing_cycles,omitempty"`
	From          string `json:"from"`
	Clause        string `json:"clause"`
	Quote         string `json:"quote,omitempty"`
}

// Deadlines is a contract's provider deadlines (none for a contract the
// loaded terms do not define).
func (l *Ledger) Deadlines(contract string) claims.Deadlines {
	return claims.DeadlinesOf(l.book()[contract])
}

// View is c as of now.
func (l *Ledger) View(c store.Claim, now time.Time) ClaimView {
	d := l.Deadlines(c.Contract)
	v := ClaimView{Claim: c, Status: c.StatusAt(d, now)}
	if d.Answer.Set() || d.Credit.Set() {
		v.Deadlines = &ProviderDeadlines{Of: d}
		if w := d.Answer; w.Set() {
			v.Deadlines.Answer = &Within{Days: w.Days, BillingCycles: w.BillingCycles, From: w.From, Clause: d.AnswerClause, Quote: d.AnswerQuote}
		}
		if w := d.Credit; w.Set() {
			v.Deadlines.Credit = &Within{Days: w.Days, BillingCycles: w.BillingCycles, From: w.From, Clause: d.CreditClause, Quote: d.CreditQuote}
		}
	}
	return v
}

// Claims lists the ledger as of now, by month and id.
func (l *Ledger) Claims(ctx context.Context) ([]ClaimView, error) {
	cs, err := l.store.ListClaims(ctx)
	if err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	now := l.svc.Now()
	out := make([]ClaimView, len(cs))
	for i, c := range cs {
		out[i] = l.View(c, now)
	}
	return out, nil
}

// Claim returns one claim as of now; ENotFound naming it if absent.
func (l *Ledger) Claim(ctx context.Context, id string) (ClaimView, error) {
	if _, _, err := claims.ParseID(id); err != nil {
		return ClaimView{}, domainErr(err)
	}
	c, err := l.store.GetClaim(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return ClaimView{}, Errorf(ENotFound, "claim", "%q is not in the ledger", id)
	}
	if err != nil {
		return ClaimView{}, fmt.Errorf("claim %s: %w", id, err)
	}
	return l.View(c, l.svc.Now()), nil
}

// domainErr is a refusal of sla/claims as the application's error kind.
func domainErr(err error) error {
	var e *claims.Error
	if !errors.As(err, &e) {
		return err
	}
	kind := EInvalid
	switch {
	case e.Conflict:
		kind = EConflict
	case e.NotFound:
		kind = ENotFound
	}
	msg := e.Msg
	if e.Value != "" {
		msg = fmt.Sprintf("%q %s", e.Value, e.Msg)
	}
	return &Error{Kind: kind, Field: e.Field, Msg: msg}
}

// claimRecord reads and writes claim id for update.
func (l *Ledger) claimRecord(id string) versioned[store.Claim] {
	return versioned[store.Claim]{
		read: func(ctx context.Context, _ int) (store.Claim, error) {
			c, err := l.store.GetClaim(ctx, id)
			switch {
			case errors.Is(err, store.ErrNotFound):
				return c, Errorf(ENotFound, "claim", "%q is not in the ledger", id)
			case err != nil:
				return c, fmt.Errorf("claim %s: %w", id, err)
			}
			return c, nil
		},
		write: func(ctx context.Context, c store.Claim) (store.Claim, error) {
			c.UpdatedAt = l.svc.Now()
			if err := l.store.UpdateClaim(ctx, c, c.Version); err != nil {
				if errors.Is(err, store.ErrConflict) {
					return c, err
				}
				return c, fmt.Errorf("claim %s: %w", id, err)
			}
			c.Version++
			return c, nil
		},
	}
}

// change applies fn to the stored claim id and writes it with the version
// read (update: re-read after a conflict); fn says whether it changed
// anything (nothing written if not). It returns the claim as stored.
func (l *Ledger) change(ctx context.Context, id string, fn func(c *store.Claim) (bool, error)) (store.Claim, error) {
	if _, _, err := claims.ParseID(id); err != nil {
		return store.Claim{}, domainErr(err)
	}
	return update(ctx, "claim "+id, l.claimRecord(id), func(c *store.Claim) error {
		changed, err := fn(c)
		switch {
		case err != nil:
			return domainErr(err)
		case !changed:
			return errUnchanged
		}
		return nil
	})
}

// Drafted says what drafting one contract's claim did.
type Drafted struct {
	Claim string `json:"claim"`
	// Outcome is "drafted", "exists" (drafted before: the month's claim
	// is drafted once), "no_claim" (no credit) or "provisional" (the
	// contract's month is not over as of the report: nothing drafted).
	Outcome string `json:"outcome"`
}

// Draft drafts each contract's claim of a sealed, finished month's report:
// one per contract whose report asks for a credit, with its amount,
// currency, deadline and seal, recorded by by. A claim drafted before is
// left as it is. A contract whose month is provisional (not over as of the
// report in its zone) is skipped (outcome "provisional"), the others
// drafted; a report provisional for every contract, an unsealed report or
// a bad figure is refused naming the field, and nothing is drafted.
func (l *Ledger) Draft(ctx context.Context, r *report.Report, by string) ([]Drafted, error) {
	asOf, err := reportAsOf(r)
	if err != nil {
		return nil, err
	}
	now := l.svc.Now()
	var drafts []claims.Claim
	var out []Drafted
	var provisional []string
	for _, c := range r.Contracts {
		id := claims.ID(c.Contract, r.Month)
		if c.Provisional {
			// Another zone's month may be over: a report read at 06:00 in
			// Beijing on the 1st holds cn-example's finished month and New
			// York's unfinished one. The finished one is drafted.
			provisional = append(provisional, c.Contract)
			out = append(out, Drafted{Claim: id, Outcome: "provisional"})
			continue
		}
		if c.Claim <= 0 {
			out = append(out, Drafted{Claim: id, Outcome: "no_claim"})
			continue
		}
		d, err := draftOf(r, c, asOf, now, by)
		if err != nil {
			return nil, err
		}
		cl, err := claims.New(d)
		if err != nil {
			return nil, fmt.Errorf("contract %s: %w", c.Contract, domainErr(err))
		}
		drafts = append(drafts, cl)
	}
	if len(provisional) > 0 && len(provisional) == len(r.Contracts) {
		return nil, Errorf(EInvalid, "month", "%s is provisional for contract %s (the report is as of %s, before the month ends there): a claim is drafted from a finished month only",
			r.Month, strings.Join(provisional, ", "), r.AsOf)
	}
	for _, cl := range drafts {
		d, err := l.create(ctx, cl, now, by)
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
	return out, nil
}

// create puts drafted claim cl in the ledger: "exists" when it was drafted
// before (a claim is drafted once).
func (l *Ledger) create(ctx context.Context, cl claims.Claim, now time.Time, by string) (Drafted, error) {
	err := l.store.CreateClaim(ctx, store.Claim{Claim: cl, UpdatedAt: now})
	switch {
	case errors.Is(err, store.ErrExists):
		return Drafted{Claim: cl.ID, Outcome: "exists"}, nil
	case err != nil:
		return Drafted{}, fmt.Errorf("claim %s: %w", cl.ID, err)
	}
	l.log.Info("claim drafted", "claim", cl.ID, "amount", cl.Amount.String(), "currency", cl.Currency, "deadline", cl.Deadline, "by", by)
	return Drafted{Claim: cl.ID, Outcome: "drafted"}, nil
}

// draftOf is contract c's claim as report r states it.
func draftOf(r *report.Report, c report.Contract, asOf, now time.Time, by string) (claims.Draft, error) {
	end, err := time.Parse(time.RFC3339, c.MonthEnd)
	if err != nil {
		return claims.Draft{}, Errorf(EInvalid, "month_end", "contract %s: %q is not an RFC 3339 time", c.Contract, c.MonthEnd)
	}
	deadline, err := time.Parse(time.RFC3339, c.ClaimDeadline)
	if err != nil {
		return claims.Draft{}, Errorf(EInvalid, "claim_deadline", "contract %s: %q is not an RFC 3339 time", c.Contract, c.ClaimDeadline)
	}
	d := claims.Draft{Contract: c.Contract, Provider: c.Provider, Month: r.Month, Amount: claims.FromFloat(c.Claim), Currency: c.Currency,
		Deadline: deadline, TimeZone: c.TimeZone, Lang: c.Lang, MonthEnd: end, AsOf: asOf,
		Record: claims.Record{RecordedAt: now, RecordedBy: by}}
	// The window's opening, where the text sets one: the day itself, or
	// the earliest it can be when the terms lack a year's holidays.
	if opens := cmp.Or(c.ClaimOpens, c.ClaimOpensEarliest); opens != "" {
		if d.Opens, err = time.Parse(time.RFC3339, opens); err != nil {
			return claims.Draft{}, Errorf(EInvalid, "claim_opens", "contract %s: %q is not an RFC 3339 time", c.Contract, opens)
		}
		d.OpensHolidaysMissing = c.ClaimOpensHolidaysMissing
	}
	for _, n := range r.Nodes {
		if n.Contract == c.Contract && n.Credit.Amount > 0 {
			d.Nodes = append(d.Nodes, n.Node)
			d.Lines += n.Credit.Lines()
		}
	}
	if s := r.Seal; s != nil {
		d.Seal = claims.Seal{ObservationsSHA256: s.ObservationsSHA256, ChainHead: s.ChainHead, Batches: s.Batches, RecordsSHA256: s.RecordsSHA256}
	}
	return d, nil
}

// Send records how and when a claim was sent (once; the same again is a
// no-op); without a way given, the contract's claim.channel.
func (l *Ledger) Send(ctx context.Context, id string, s claims.Sent) (ClaimView, error) {
	return l.record(ctx, id, func(c claims.Claim, now time.Time) (claims.Claim, bool, error) {
		s.RecordedAt = now
		if tm := l.book()[c.Contract]; s.Via == "" && tm != nil && tm.Claim.Procedure.Channel != "" {
			s.Via = string(tm.Claim.Procedure.Channel) // the way the contract's text says claims are filed
		}
		return c.Send(s, now)
	})
}

// Answer records the provider's answer (once).
func (l *Ledger) Answer(ctx context.Context, id string, a claims.AnswerIn) (ClaimView, error) {
	return l.record(ctx, id, func(c claims.Claim, now time.Time) (claims.Claim, bool, error) {
		a.RecordedAt = now
		return c.Answered(a, now)
	})
}

// record makes one recorded change of sla/claims to claim id as of now.
func (l *Ledger) record(ctx context.Context, id string, do func(claims.Claim, time.Time) (claims.Claim, bool, error)) (ClaimView, error) {
	now := l.svc.Now()
	c, err := l.change(ctx, id, func(c *store.Claim) (bool, error) {
		out, changed, err := do(c.Claim, now)
		c.Claim = out
		return changed, err
	})
	if err != nil {
		return ClaimView{}, err
	}
	return l.View(c, now), nil
}

// Recovery is what the ledger's claims recovered as of now, per provider,
// quarter and currency.
func (l *Ledger) Recovery(ctx context.Context) (claims.Recovery, error) {
	cs, ds, err := l.Ledger(ctx)
	if err != nil {
		return claims.Recovery{}, err
	}
	return claims.Recover(cs, ds, l.svc.Now()), nil
}

// Ledger is every claim in the domain's form with the provider deadlines
// of each one's contract.
func (l *Ledger) Ledger(ctx context.Context) ([]claims.Claim, map[string]claims.Deadlines, error) {
	cs, err := l.store.ListClaims(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("claims: %w", err)
	}
	ds := map[string]claims.Deadlines{}
	dom := make([]claims.Claim, len(cs))
	for i, c := range cs {
		dom[i] = c.Claim
		if _, ok := ds[c.Contract]; !ok {
			ds[c.Contract] = l.Deadlines(c.Contract)
		}
	}
	return dom, ds, nil
}

// Paperwork is a contract's renter and contract number (terms renter,
// contract_number), which the follow-up letter names; empty for a contract
// the loaded terms do not define.
func (l *Ledger) Paperwork(contract string) (renter, number string) {
	if tm := l.book()[contract]; tm != nil {
		return tm.Paperwork.Renter, tm.Paperwork.ContractNumber
	}
	return "", ""
}

// Now is the ledger's clock.
func (l *Ledger) Now() time.Time { return l.svc.Now() }

// reportAsOf is the as-of instant of report r, which a draft is made from.
func reportAsOf(r *report.Report) (time.Time, error) {
	if r == nil {
		return time.Time{}, Errorf(EInvalid, "report", "missing")
	}
	asOf, err := time.Parse(time.RFC3339, r.AsOf)
	if err != nil {
		return time.Time{}, Errorf(EInvalid, "as_of", "%q is not an RFC 3339 time", r.AsOf)
	}
	return asOf, nil
}

// listed is every claim in the ledger.
func (l *Ledger) listed(ctx context.Context) ([]store.Claim, error) {
	cs, err := l.store.ListClaims(ctx)
	if err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	return cs, nil
}
