package claims

import (
	"time"

	"github.com/gpusla/gpusla/sla/terms"
)

// Deadlines are the provider's own deadlines of a contract (its terms'
// claim.answer_within and claim.credit_within) with where the contract
// states them, for the follow-up letter.
type Deadlines struct {
	Answer, Credit terms.Within
	// AnswerClause and CreditClause cite each (terms.ClaimClause);
	// AnswerQuote and CreditQuote are the provider's words, when the terms
	// quote them.
	AnswerClause, CreditClause string
	AnswerQuote, CreditQuote   string
}

// DeadlinesOf reads a contract's provider deadlines.
func DeadlinesOf(tm *terms.Terms) Deadlines {
	if tm == nil {
		return Deadlines{}
	}
	d := Deadlines{Answer: tm.Claim.AnswerWithin, Credit: tm.Claim.CreditWithin}
	if d.Answer.Set() {
		d.AnswerClause, d.AnswerQuote = tm.ClaimClause(d.Answer).String(), quote(tm, "claim.answer_within")
	}
	if d.Credit.Set() {
		d.CreditClause, d.CreditQuote = tm.ClaimClause(d.Credit).String(), quote(tm, "claim.credit_within")
	}
	return d
}

// quote is the quote of the first source that names key itself.
func quote(tm *terms.Terms, key string) string {
	for _, s := range tm.Sources {
		for _, k := range s.Terms {
			if k == key {
				return s.Quote
			}
		}
	}
	return ""
}

// States of a claim, in the order a claim goes through them.
const (
	StateDrafted      = "drafted"       // not sent yet
	StateSent         = "sent"          // sent, not answered
	StateGranted      = "granted"       // accepted or partly, nothing credited yet
	StatePartCredited = "part_credited" // some of what is owed is on the bills
	StateCredited     = "credited"      // all of it is
	StateRefused      = "refused"
)

// Status is where a claim stands as of an instant: what is owed and what
// came back, and the provider's deadlines with whether it kept them.
type Status struct {
	State string `json:"state"`
	// Claimed is the amount claimed (0 until it is sent); Granted what the
	// answer grants (nil before an answer); Expected what the provider owes
	// (the grant, or the whole claim while unanswered; 0 refused or
	// unsent); Received the credits applied; Outstanding Expected −
	// Received (never below 0); Excess what the credits give beyond
	// Expected.
	Claimed     Cents  `json:"claimed"`
	Granted     *Cents `json:"granted,omitempty"`
	Refused     Cents  `json:"refused"`
	Expected    Cents  `json:"expected"`
	Received    Cents  `json:"received"`
	Outstanding Cents  `json:"outstanding"`
	Excess      Cents  `json:"excess,omitempty"`
	// Rounding is Received − Expected where it is within the claim's
	// rounding allowance (Claim.Rounding): read as paid in full, neither
	// outstanding nor excess.
	Rounding Cents `json:"rounding,omitempty"`
	// SentLate: sent at or after the claim deadline (the provider may
	// refuse it for that alone).
	SentLate bool `json:"sent_late,omitempty"`
	// SentEarly: sent before the window opened (Claim.Opens), which the
	// provider's text does not allow ("only … after the fifth (5th)
	// business day"): it may refuse the claim for that alone, and the
	// renter files it again once the window is open.
	SentEarly bool `json:"sent_early,omitempty"`
	// NotOpen: not sent, and the window has not opened yet (now is before
	// Claim.Opens): the claim waits, sent from then on.
	NotOpen bool `json:"not_open,omitempty"`
	// Expired: not sent, and the claim deadline has passed: the window the
	// contract gives the renter closed with the claim still a draft.
	Expired bool `json:"expired,omitempty"`
	// AnswerDue is the provider's deadline to answer (zero: its terms set
	// none, or not sent); AnswerLate the answer came at or after it, or
	// has not come and it passed (AnswerOverdue).
	AnswerDue     time.Time `json:"answer_due,omitzero"`
	AnswerLate    bool      `json:"answer_late,omitempty"`
	AnswerOverdue bool      `json:"answer_overdue,omitempty"`
	// CreditDue is the provider's deadline to put the credit on a bill;
	// LateCredits the keys of credits applied at or after it;
	// CreditOverdue that it passed with something still outstanding.
	CreditDue     time.Time `json:"credit_due,omitzero"`
	LateCredits   []string  `json:"late_credits,omitempty"`
	CreditOverdue bool      `json:"credit_overdue,omitempty"`
	// LastInTimePeriod is the last bill month on which a credit in time
	// can appear (YYYY-MM): the bill that settles whether it came.
	LastInTimePeriod string `json:"last_in_time_period,omitempty"`
}

// StatusAt is where c stands at now under its contract's deadlines d.
func (c Claim) StatusAt(d Deadlines, now time.Time) Status {
	var s Status
	s.Received = c.received()
	switch {
	case c.Sent == nil:
		s.State = StateDrafted
	case c.Answer == nil:
		s.State, s.Claimed, s.Expected = StateSent, c.Amount, c.Amount
	case c.Answer.Outcome == Refused:
		s.State, s.Claimed, s.Refused = StateRefused, c.Amount, c.Amount
		g := Cents(0)
		s.Granted = &g
	default:
		g := c.Answer.Granted
		s.State, s.Claimed, s.Expected, s.Granted, s.Refused = StateGranted, c.Amount, g, &g, c.Amount-g
	}
	if s.Expected > 0 || s.State == StateGranted {
		s.Outstanding = max(s.Expected-s.Received, 0)
		s.Excess = max(s.Received-s.Expected, 0)
		if d := s.Received - s.Expected; s.Received > 0 && d != 0 && max(d, -d) <= c.Rounding() {
			s.Outstanding, s.Excess, s.Rounding = 0, 0, d
		}
		if s.State == StateGranted && s.Received > 0 {
			s.State = StatePartCredited
			if s.Outstanding == 0 {
				s.State = StateCredited
			}
		}
	}
	if c.Sent == nil {
		s.Expired = !c.Deadline.IsZero() && !now.Before(c.Deadline)
		s.NotOpen = !c.Opens.IsZero() && now.Before(c.Opens)
		return s
	}
	s.SentLate = !c.Sent.At.Before(c.Deadline)
	s.SentEarly = !c.Opens.IsZero() && c.Sent.At.Before(c.Opens)
	loc := c.Loc()
	if s.AnswerDue = d.Answer.Due(c.Sent.At, loc); !s.AnswerDue.IsZero() {
		s.AnswerDue = s.AnswerDue.UTC()
		if c.Answer != nil {
			s.AnswerLate = !c.Answer.At.Before(s.AnswerDue)
		} else {
			s.AnswerOverdue = !now.Before(s.AnswerDue)
			s.AnswerLate = s.AnswerOverdue
		}
	}
	from := c.Sent.At
	if d.Credit.From == terms.WithinFromAnswered {
		from = time.Time{}
		if c.Answer != nil {
			from = c.Answer.At
		}
	}
	if due := d.Credit.Due(from, loc); !due.IsZero() && s.State != StateRefused {
		s.CreditDue = due
		s.LastInTimePeriod = s.CreditDue.In(loc).Add(-time.Nanosecond).Format("2006-01")
		s.CreditDue = s.CreditDue.UTC()
		for _, cr := range c.Credits {
			if !cr.At.Before(s.CreditDue) {
				s.LateCredits = append(s.LateCredits, cr.Key)
			}
		}
		s.CreditOverdue = !now.Before(s.CreditDue) && s.Outstanding > 0
	}
	return s
}
