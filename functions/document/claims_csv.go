package document

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/claims"
)

// LedgerRow is one claim of the ledger as the exports show it: the claim
// and where it stands.
type LedgerRow struct {
	Claim  claims.Claim
	Status claims.Status
}

// ClaimsCSVHeader is the claims ledger CSV's header: one row per claim,
// every recorded fact with its recording, amounts exact to the cent.
var ClaimsCSVHeader = []string{"claim", "contract", "provider", "month", "currency", "amount", "state", "deadline", "drafted_at", "drafted_by",
	"sent_at", "sent_via", "sent_reference", "sent_late", "sent_recorded_at", "sent_recorded_by",
	"answered_at", "outcome", "granted", "refused", "answer_reason", "answer_reference", "answer_recorded_at", "answer_recorded_by",
	"answer_due", "answer_late", "received", "outstanding", "excess", "credit_due", "credit_overdue", "late_credits", "credits",
	"chain_head", "observations_sha256", "expired", "opens", "sent_early"}

// ClaimsCSV writes the ledger as CSV (ClaimsCSVHeader): what a finance
// team reconciles a quarter with.
// Every cell goes through the report CSV's guard against formulas: a
// provider's reason or reference is text, never run by a spreadsheet.
func ClaimsCSV(w io.Writer, rows []LedgerRow) error {
	cw := sheet{csv.NewWriter(w)}
	if err := cw.row(ClaimsCSVHeader); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.row(claimRecord(r)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func claimRecord(r LedgerRow) []string {
	c, st := r.Claim, r.Status
	rec := []string{c.ID, c.Contract, c.Provider, c.Month, c.Currency, c.Amount.String(), st.State, stamp(c.Deadline),
		stamp(c.Drafted.RecordedAt), c.Drafted.RecordedBy}
	if s := c.Sent; s != nil {
		rec = append(rec, stamp(s.At), s.Via, s.Reference, yes(st.SentLate), stamp(s.RecordedAt), s.RecordedBy)
	} else {
		rec = append(rec, "", "", "", "", "", "")
	}
	if a := c.Answer; a != nil {
		rec = append(rec, stamp(a.At), a.Outcome, a.Granted.String(), st.Refused.String(), a.Reason, a.Reference, stamp(a.RecordedAt), a.RecordedBy)
	} else {
		rec = append(rec, "", "", "", "", "", "", "", "")
	}
	var keys []string
	for _, cr := range c.Credits {
		k := fmt.Sprintf("%s %s %s", cr.Period, cr.Amount, cr.Key)
		if cr.Form != "" {
			k += " (" + cr.Form + ")"
		}
		keys = append(keys, k)
	}
	return append(rec, stamp(st.AnswerDue), yes(st.AnswerLate), st.Received.String(), st.Outstanding.String(), st.Excess.String(),
		stamp(st.CreditDue), yes(st.CreditOverdue), strings.Join(st.LateCredits, " "), strings.Join(keys, "; "),
		c.Seal.ChainHead, c.Seal.ObservationsSHA256, yes(st.Expired), stamp(c.Opens), yes(st.SentEarly))
}

// CreditsCSVHeader is the bill credits CSV's header: every credit line a
// bill gave back, applied to a claim or shown with why not.
var CreditsCSVHeader = []string{"key", "bill", "lines", "period", "at", "amount", "currency", "reference", "description", "contracts",
	"claim", "matched_by", "unmatched", "recorded_at", "recorded_by", "form"}

// CreditsCSV writes the ledger's bill credit lines as CSV.
func CreditsCSV(w io.Writer, bs []claims.BillCredit) error {
	cw := sheet{csv.NewWriter(w)}
	if err := cw.row(CreditsCSVHeader); err != nil {
		return err
	}
	for _, b := range bs {
		lines := make([]string, len(b.Lines))
		for i, l := range b.Lines {
			lines[i] = fmt.Sprint(l)
		}
		if err := cw.row([]string{b.Key, b.Bill, strings.Join(lines, " "), b.Period, stamp(b.At), b.Amount.String(), b.Currency, b.Reference,
			b.Description, strings.Join(b.Contracts, " "), b.Claim, b.MatchedBy, b.Unmatched, stamp(b.RecordedAt), b.RecordedBy, b.Form}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// stamp is t in RFC 3339 UTC, "" when zero.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func yes(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
