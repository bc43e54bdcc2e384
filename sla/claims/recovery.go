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
	// Booked is the same money by the quarter of the bills that carried
	// it: what a quarter's books received, for claims of any quarter.
	Booked []BookedRow `json:"booked_by_bill_quarter"`
}

// BookedRow is what one provider's bills of one quarter credited against
// claims, in one currency, and for which claims' months.
type BookedRow struct {
	Provider string `json:"provider"`
	Quarter  string `json:"quarter"` // of the bills' months
	Currency string `json:"currency"`
	Received Cents  `json:"received"`
	// ForQuarters are the quarters of the claims it paid, in order.
	ForQuarters []string `json:"for_claims_of"`
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
	// Excess is what bills credited beyond what was owed (a credit larger
	// than the grant): part of Received, shown so it is not mistaken for
	// money owed back or spent.
	Excess Cents `json:"excess"`
	// Unanswered counts the sent claims without an answer; Overdue those
	// with a provider deadline passed (answer or credit) and not kept yet;
	// Late those on which the provider missed one of its own deadlines,
	// kept late or not yet (answered at or after its answer deadline, or
	// not by it; a credit on a bill at or after its credit deadline, or
	// still owed after it): how it honours its own terms.
	Unanswered int `json:"unanswered"`
	Overdue    int `json:"overdue"`
	Late       int `json:"provider_late"`
	// SharePercent is Received / Claimed × 100, to one decimal: above 100
	// only when bills credited more than was claimed (Excess).
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
		r.Excess += st.Excess
		if st.AnswerOverdue || st.CreditOverdue {
			r.Overdue++
		}
		if st.AnswerLate || st.CreditOverdue || len(st.LateCredits) > 0 {
			r.Late++
		}
	}
	out := Recovery{AsOf: now.UTC(), Rows: make([]RecoveryRow, 0, len(rows)), Booked: booked(ledger)}
	for _, r := range rows {
		r.SharePercent = Share(r.Received, r.Claimed)
		out.Rows = append(out.Rows, *r)
	}
	slices.SortFunc(out.Rows, func(a, b RecoveryRow) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Quarter, b.Quarter), cmp.Compare(a.Currency, b.Currency))
	})
	return out
}

// Total sums rows per provider and currency into one row each, under
// label (the span they cover, e.g. "2026-09..2026-11"), the share
// recomputed on the sums; in rows' order of provider and currency.
func Total(rows []RecoveryRow, label string) []RecoveryRow {
	var out []RecoveryRow
	at := map[[2]string]int{}
	for _, r := range rows {
		k := [2]string{r.Provider, r.Currency}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, RecoveryRow{Provider: r.Provider, Quarter: label, Currency: r.Currency})
		}
		t := &out[i]
		t.Claims += r.Claims
		t.Unsent += r.Unsent
		t.Drafted += r.Drafted
		t.Claimed += r.Claimed
		t.Granted += r.Granted
		t.Received += r.Received
		t.Refused += r.Refused
		t.Outstanding += r.Outstanding
		t.Excess += r.Excess
		t.Unanswered += r.Unanswered
		t.Overdue += r.Overdue
		t.Late += r.Late
	}
	for i := range out {
		out[i].SharePercent = Share(out[i].Received, out[i].Claimed)
	}
	slices.SortStableFunc(out, func(a, b RecoveryRow) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Currency, b.Currency))
	})
	return out
}

// Sent is how many of the row's claims were sent.
func (r RecoveryRow) Sent() int { return r.Claims - r.Unsent }

// booked sums the credits applied to the ledger's claims by provider, the
// quarter of the bill that carried each, and currency.
func booked(ledger []Claim) []BookedRow {
	type key struct{ provider, quarter, currency string }
	rows := map[key]*BookedRow{}
	for _, c := range ledger {
		for _, cr := range c.Credits {
			k := key{c.Provider, Quarter(cr.Period), c.Currency}
			r := rows[k]
			if r == nil {
				r = &BookedRow{Provider: k.provider, Quarter: k.quarter, Currency: k.currency}
				rows[k] = r
			}
			r.Received += cr.Amount
			if q := Quarter(c.Month); !slices.Contains(r.ForQuarters, q) {
				r.ForQuarters = append(r.ForQuarters, q)
			}
		}
	}
	out := make([]BookedRow, 0, len(rows))
	for _, r := range rows {
		slices.Sort(r.ForQuarters)
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b BookedRow) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Quarter, b.Quarter), cmp.Compare(a.Currency, b.Currency))
	})
	return out
}
