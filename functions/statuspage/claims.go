package statuspage

import (
	"context"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
)

// Claims is what the team view reads of the claims ledger (*app.Ledger
// satisfies it).
type Claims interface {
	Claims(ctx context.Context) ([]app.ClaimView, error)
	Recovery(ctx context.Context) (claims.Recovery, error)
}

// ClaimsView is the claims ledger on the team view: each claim with where
// it stands, and what was recovered per provider and quarter.
type ClaimsView struct {
	Rows     []ClaimRow    `json:"rows"`
	Recovery []RecoveryRow `json:"recovery"`
}

// ClaimRow is one claim, every figure in the page's language.
type ClaimRow struct {
	ID          string `json:"id"`
	Provider    string `json:"provider"`
	Month       string `json:"month"`
	Amount      string `json:"amount"`
	State       string `json:"state"`
	Sent        string `json:"sent"`
	AnswerDue   string `json:"answer_due"`
	Granted     string `json:"granted"`
	Received    string `json:"received"`
	Outstanding string `json:"outstanding"`
	CreditDue   string `json:"credit_due"`
	// Flags name what to act on (a provider deadline passed, a late
	// answer or credit); Overdue marks a provider deadline passed.
	Flags   []string `json:"flags"`
	Overdue bool     `json:"overdue"`
}

// RecoveryRow is one provider's quarter in one currency.
type RecoveryRow struct {
	Provider    string `json:"provider"`
	Quarter     string `json:"quarter"`
	Claimed     string `json:"claimed"`
	Granted     string `json:"granted"`
	Received    string `json:"received"`
	Refused     string `json:"refused"`
	Outstanding string `json:"outstanding"`
	Share       string `json:"share_recovered"`
}

// maxClaimRows bounds the table (five years of a dozen contracts); the
// ledger's exports hold every claim.
const maxClaimRows = 720

// claimsView is the ledger's section, newest month first.
func (h *Handler) claimsView(ctx context.Context, pr *i18n.Printer, p *Page) *ClaimsView {
	vs, err := h.c.Claims.Claims(ctx)
	if err != nil {
		p.Notes = append(p.Notes, "claims: "+err.Error())
		return nil
	}
	rec, err := h.c.Claims.Recovery(ctx)
	if err != nil {
		p.Notes = append(p.Notes, "claims: "+err.Error())
		return nil
	}
	out := &ClaimsView{Rows: []ClaimRow{}, Recovery: []RecoveryRow{}}
	for i := len(vs) - 1; i >= 0 && len(out.Rows) < maxClaimRows; i-- {
		out.Rows = append(out.Rows, claimRow(pr, vs[i].Claim.Claim, vs[i].Status))
	}
	for _, r := range rec.Rows {
		m := func(c claims.Cents) string { return pr.Money(c.Float(), r.Currency) }
		out.Recovery = append(out.Recovery, RecoveryRow{Provider: r.Provider, Quarter: r.Quarter, Claimed: m(r.Claimed), Granted: m(r.Granted),
			Received: m(r.Received), Refused: m(r.Refused), Outstanding: m(r.Outstanding), Share: pr.Pct(r.SharePercent, 1)})
	}
	return out
}

func claimRow(pr *i18n.Printer, c claims.Claim, st claims.Status) ClaimRow {
	loc := c.Loc()
	m := func(v claims.Cents) string { return pr.Money(v.Float(), c.Currency) }
	day := func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return pr.Date(t.In(loc))
	}
	r := ClaimRow{ID: c.ID, Provider: c.Provider, Month: pr.Month(c.Month), Amount: m(c.Amount), State: pr.Word(st.State), Sent: "—",
		AnswerDue: day(st.AnswerDue), Granted: "—", Received: m(st.Received), Outstanding: m(st.Outstanding), CreditDue: day(st.CreditDue),
		Flags: []string{}, Overdue: st.AnswerOverdue || st.CreditOverdue}
	if c.Sent != nil {
		r.Sent = pr.T("%s via %s", day(c.Sent.At), pr.Word(c.Sent.Via))
	}
	if st.Granted != nil {
		r.Granted = m(*st.Granted)
	}
	for _, f := range []struct {
		on   bool
		text string
	}{{st.NotOpen, pr.T("claim window opens on %s", day(c.Opens))}, {st.Expired, pr.T("claim deadline passed, never sent")},
		{st.SentEarly, pr.T("sent before the claim window opened")}, {st.SentLate, pr.T("sent after the claim deadline")}, {st.AnswerOverdue, pr.T("provider's deadline to answer passed")},
		{st.AnswerLate && !st.AnswerOverdue, pr.T("answered late")}, {st.CreditOverdue, pr.T("provider's deadline to credit passed")},
		{len(st.LateCredits) > 0, pr.T("credited late")}, {st.Excess > 0, pr.T("credited %s beyond the grant", m(st.Excess))}} {
		if f.on {
			r.Flags = append(r.Flags, f.text)
		}
	}
	return r
}
