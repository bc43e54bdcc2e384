package document

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
)

// FollowUp is what the follow-up letter on a claim needs: the claim, where
// it stands, its contract's provider deadlines and paperwork, and the day
// the letter is written.
type FollowUp struct {
	Claim     claims.Claim
	Status    claims.Status
	Deadlines claims.Deadlines
	// Renter and ContractNumber are the terms' paperwork (renter,
	// contract_number), as the claim letter names them.
	Renter, ContractNumber string
	Date                   time.Time
}

// ErrNothingOverdue is the follow-up letter refused because the provider
// has kept every deadline its terms set so far.
type ErrNothingOverdue struct{ Claim, Why string }

func (e *ErrNothingOverdue) Error() string {
	return fmt.Sprintf("claim %s: no follow-up is due: %s", e.Claim, e.Why)
}

// FollowUpLetter writes the letter that chases a provider past its own
// deadline on a claim, in lang: addressed to the provider, dated f.Date in
// the contract's zone, it cites the original claim (its month, amount and
// id, when and how it was sent, the provider's case), the evidence it rests
// on (the report's seal), the clause that set the deadline with the
// provider's own words where the terms quote them, what the bills recorded
// so far carry, and what is asked: an answer, or the outstanding credit.
// A claim with nothing overdue gets *ErrNothingOverdue.
func FollowUpLetter(w io.Writer, f FollowUp, lang i18n.Lang) error {
	c, st, d := f.Claim, f.Status, f.Deadlines
	if c.Sent == nil {
		return &ErrNothingOverdue{Claim: c.ID, Why: "it has not been recorded as sent"}
	}
	if !st.AnswerOverdue && !st.CreditOverdue {
		return &ErrNothingOverdue{Claim: c.ID, Why: nothingOverdue(st)}
	}
	p := i18n.New(lang)
	loc := c.Loc()
	money := func(v claims.Cents) string { return p.Money(v.Float(), c.Currency) }
	var b strings.Builder
	para := func(key string, args ...any) { b.WriteString(p.T(key, args...) + "\n\n") }
	para("To: %s", party(p, c.Provider))
	if f.Renter != "" {
		para("From: %s", party(p, f.Renter))
	}
	para("Date: %s", p.Date(f.Date.In(loc)))
	para("Subject: follow-up to our SLA credit claim %s for %s", c.ID, p.Month(c.Month))
	contract := c.Contract
	if f.ContractNumber != "" {
		contract = f.ContractNumber + " (" + c.Contract + ")"
	}
	ref := ""
	if c.Sent.Reference != "" {
		ref = p.T(", your reference %s", c.Sent.Reference)
	}
	para("On %s we sent you, by %s%s, our claim for a service credit of %s for %s under contract %s.",
		p.Date(c.Sent.At.In(loc)), p.Word(c.Sent.Via), ref, money(c.Amount), p.Month(c.Month), contract)
	para("The claim rests on the evidence sealed in its report: observations SHA-256 %s, hash chain head %s (%d batches).",
		c.Seal.ObservationsSHA256, c.Seal.ChainHead, c.Seal.Batches)
	if st.AnswerOverdue {
		para("Your terms give you until %s to answer a claim (%s).%s We have received no answer.", p.Zoned(st.AnswerDue, loc), d.AnswerClause, quoted(p, d.AnswerQuote))
		para("Please answer the claim, and tell us your decision with its reference.")
	} else {
		answerLine(p, &b, c, money)
		para("Your terms say the credit is applied by %s (%s).%s", p.Zoned(st.CreditDue, loc), d.CreditClause, quoted(p, d.CreditQuote))
		creditLines(p, &b, c, money)
		para("%s is still outstanding. Please apply it and tell us on which bill it appears.", money(st.Outstanding))
	}
	if f.Renter != "" {
		b.WriteString(party(p, f.Renter) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// quoted is the provider's own words of a clause, as a sentence after its
// citation.
func quoted(p *i18n.Printer, q string) string {
	if q == "" {
		return ""
	}
	return p.T(` The clause reads: "%s"`, q)
}

func answerLine(p *i18n.Printer, b *strings.Builder, c claims.Claim, money func(claims.Cents) string) {
	a := c.Answer
	if a == nil {
		return
	}
	ref := ""
	if a.Reference != "" {
		ref = p.T(" (reference %s)", a.Reference)
	}
	loc := c.Loc()
	switch a.Outcome {
	case claims.Accepted:
		b.WriteString(p.T("On %s you accepted the claim%s.", p.Date(a.At.In(loc)), ref) + "\n\n")
	default:
		b.WriteString(p.T("On %s you granted %s of the claim%s.", p.Date(a.At.In(loc)), money(a.Granted), ref) + "\n\n")
	}
}

func creditLines(p *i18n.Printer, b *strings.Builder, c claims.Claim, money func(claims.Cents) string) {
	if len(c.Credits) == 0 {
		b.WriteString(p.T("No credit against the claim is on the bills we have received so far.") + "\n\n")
		return
	}
	for _, cr := range c.Credits {
		b.WriteString(p.T("Your bill for %s credits %s against the claim.", p.Month(cr.Period), money(cr.Amount)) + "\n\n")
	}
}

// nothingOverdue says why no follow-up is due.
func nothingOverdue(st claims.Status) string {
	switch {
	case st.State == claims.StateRefused:
		return "it was refused; a refusal is disputed, not chased"
	case st.State == claims.StateCredited:
		return "everything granted is on the bills"
	case st.AnswerDue.IsZero() && st.CreditDue.IsZero():
		return "its contract's terms set the provider no deadline (claim.answer_within, claim.credit_within)"
	}
	var parts []string
	if !st.AnswerDue.IsZero() && !st.AnswerOverdue {
		parts = append(parts, "the answer is due before "+st.AnswerDue.Format(time.RFC3339))
	}
	if !st.CreditDue.IsZero() {
		parts = append(parts, "the credit is due before "+st.CreditDue.Format(time.RFC3339))
	}
	return strings.Join(parts, "; ")
}
