package claims

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Recovery is what the claims recovered, per provider, quarter and
// currency: what a finance team needs to close a quarter.
type Recovery struct {
	AsOf time.Time     `json:"as_of"`
	Rows []RecoveryRow `json:"rows"`
}

// RecoveryRow is one provider's quarter in one currency. The quarter is
// that of the claims' months (the service the money is for), in the
// contracts' zones: 2026-Q4 holds October to December's claims, whenever
// they were answered or credited.
type RecoveryRow struct {
	Provider string `json:"provider"`
	Quarter  string `json:"quarter"` // 2026-Q4
	Currency string `json:"currency"`
	// Claims counts the months' claims; Unsent those not sent (yet), with
	// Drafted their amount, which Claimed leaves out.
	Claims  int   `json:"claims"`
	Unsent  int   `json:"unsent"`
	Drafted Cents `json:"drafted"`
	// Claimed is what the sent claims asked for; Granted what answers
	// granted; Received the credits bills carried; Refused what answers
	// turned down (a partial grant's remainder included); Outstanding what
	// is still owed (granted, or claimed and unanswered, less received).
	Claimed     Cents `json:"claimed"`
	Granted     Cents `json:"granted"`
	Received    Cents `json:"received"`
	Refused     Cents `json:"refused"`
	Outstanding Cents `json:"outstanding"`
	// Unanswered counts the sent claims without an answer; Overdue those
	// with a provider deadline passed (answer or credit).
	Unanswered int `json:"unanswered"`
	Overdue    int `json:"overdue"`
	// SharePercent is Received / Claimed × 100, to one decimal.
	SharePercent float64 `json:"share_recovered_percent"`
}

// Quarter is the quarter of a YYYY-MM month: "2026-Q4".
func Quarter(month string) string {
	t, err := time.Parse("2006-01", month)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d-Q%d", t.Year(), (int(t.Month())-1)/3+1)
}

// Recover sums the ledger as of now, each claim under its contract's
// deadlines (deadlines by contract; a contract missing has none), into
// rows by provider, quarter and currency, in that order.
func Recover(ledger []Claim, deadlines map[string]Deadlines, now time.Time) Recovery {
	type key struct{ provider, quarter, currency string }
	rows := map[key]*RecoveryRow{}
	for _, c := range ledger {
		k := key{c.Provider, Quarter(c.Month), c.Currency}
		r := rows[k]
		if r == nil {
			r = &RecoveryRow{Provider: k.provider, Quarter: k.quarter, Currency: k.currency}
			rows[k] = r
		}
		st := c.StatusAt(deadlines[c.Contract], now)
		r.Claims++
		if c.Sent == nil {
			r.Unsent++
			r.Drafted += c.Amount
			continue
		}
		r.Claimed += st.Claimed
		if st.Granted != nil {
			r.Granted += *st.Granted
		} else {
			r.Unanswered++
		}
		r.Received += st.Received
		r.Refused += st.Refused
		r.Outstanding += st.Outstanding
		if st.AnswerOverdue || st.CreditOverdue {
			r.Overdue++
		}
	}
	out := Recovery{AsOf: now.UTC(), Rows: make([]RecoveryRow, 0, len(rows))}
	for _, r := range rows {
		r.SharePercent = Share(r.Received, r.Claimed)
		out.Rows = append(out.Rows, *r)
	}
	slices.SortFunc(out.Rows, func(a, b RecoveryRow) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Quarter, b.Quarter), cmp.Compare(a.Currency, b.Currency))
	})
	return out
}
