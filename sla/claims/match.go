package claims

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
)

// BillCredit is a credit a provider's bill gives back — a cost report's
// Credit line, a negative line — as the ledger keeps it: applied to the
// claim it was matched to, or shown with why it matches none.
type BillCredit struct {
	// Key identifies the line: the same line read again (the same bill
	// imported twice) has the same key and is applied once.
	Key string `json:"key"`
	// Bill is the file it was read from, Lines its line numbers there.
	Bill  string `json:"bill"`
	Lines []int  `json:"lines"`
	// Period is the bill's month; At the line's own date, zero if it has
	// none (the period's start is then the earliest it can have been
	// applied).
	Period string    `json:"period"`
	At     time.Time `json:"at,omitzero"`
	// Amount is what it gives back, positive; Currency its currency.
	Amount   Cents  `json:"amount"`
	Currency string `json:"currency"`
	// Reference is the provider's reference on the line (a case number),
	// Description the line's own words.
	Reference   string `json:"reference,omitempty"`
	Description string `json:"description,omitempty"`
	// Form is how the provider gave it back (Forms): empty for a credit on
	// a bill, or a coupon, a voucher or cash recorded by hand.
	Form string `json:"form,omitempty"`
	// Contracts are the contracts whose claims it may be for: the bill's
	// provider's.
	Contracts []string `json:"contracts"`
	// Claim is the claim it was applied to and MatchedBy how; Unmatched
	// says why it was applied to none.
	Claim     string `json:"claim,omitempty"`
	MatchedBy string `json:"matched_by,omitempty"`
	Unmatched string `json:"unmatched,omitempty"`
	Record
}

// CreditKey is a bill line's key: its month, currency, amount, reference,
// description and line numbers, hashed — not the file's name, so a bill
// imported again under another name is still recognised.
func CreditKey(period, currency string, amount Cents, reference, description string, lines []int) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%s\x00%s\x00%v", period, currency, amount, reference, description, lines)
	return "bill:" + period + ":" + hex.EncodeToString(h.Sum(nil))[:16]
}

// IsCurrencyCode says whether s has the form of an ISO 4217 code (three
// capital letters), the form every amount of the ledger carries.
func IsCurrencyCode(s string) bool { return currencyRE.MatchString(s) }

// Check holds a credit read from a bill to what a credit is: a positive
// amount in a currency code, a month, and a contract it may be for.
func (b BillCredit) Check() error {
	switch {
	case b.Amount <= 0:
		return invalid("amount", b.Amount.String(), "is not positive (a credit is given as the amount given back)")
	case !currencyRE.MatchString(b.Currency):
		return invalid("currency", b.Currency, "is not an ISO 4217 code")
	case !isMonth(b.Period):
		return invalid("period", b.Period, "is not a month (want YYYY-MM)")
	case !slices.Contains(Forms, b.Form):
		return invalid("form", b.Form, "is not how a credit is given back (%s, or none for a credit on a bill)", strings.Join(Forms[1:], ", "))
	case len(b.Contracts) == 0:
		return invalid("contract", "", "missing: say whose bill it is")
	case b.Key == "":
		return invalid("key", "", "missing")
	}
	return errorsOf(checkText("reference", b.Reference), checkText("description", b.Description), checkText("bill", b.Bill))
}

// Match finds the claim a bill's credit is for, among ledger (every claim),
// with the rule a person can check: the provider's reference where the
// line gives one (equal to the reference recorded when the claim was sent
// or answered, or its claim id, or quoted in the line's description);
// otherwise its amount and period — what one open claim of the bill's
// contracts, in its currency, still has outstanding, to within the claim's
// rounding allowance (Claim.Rounding: a cent a credit line), on a bill for
// a month after the claim's and no earlier than the month it was sent. Two
// claims that fit equally, or none, leave it unmatched with why: a credit
// is shown, never guessed. It returns the claim (nil if none), how it was
// matched, and why not.
func Match(b BillCredit, ledger []Claim) (*Claim, string, string) {
	var mine []Claim
	for _, c := range ledger {
		if slices.Contains(b.Contracts, c.Contract) {
			mine = append(mine, c)
		}
	}
	byRef := byReference(b, mine)
	switch {
	case len(byRef) == 1:
		c := byRef[0]
		if _, err := c.Apply(CreditIn{Credit: Credit{Key: b.Key, Period: b.Period, Amount: b.Amount}, Currency: b.Currency}); err != nil {
			return nil, "", fmt.Sprintf("its reference names claim %s, which cannot take it: %v", c.ID, err)
		}
		return &c, ByReference, ""
	case len(byRef) > 1:
		return nil, "", fmt.Sprintf("its reference names %d claims (%s); apply it by hand", len(byRef), ids(byRef))
	}
	var fit []Claim
	for _, c := range mine {
		if fits(c, b) {
			fit = append(fit, c)
		}
	}
	switch len(fit) {
	case 1:
		return &fit[0], ByAmountPeriod, ""
	case 0:
		why := fmt.Sprintf("no open claim of %s has %s %s outstanding for a month before %s", strings.Join(b.Contracts, ", "), b.Amount, b.Currency, b.Period)
		if b.Reference != "" {
			why = fmt.Sprintf("its reference %q names no claim, and ", b.Reference) + why
		}
		if other := inOtherCurrency(b, mine); other != nil {
			st := other.StatusAt(Deadlines{}, time.Time{})
			why += fmt.Sprintf(" (claim %s has %s %s outstanding: amounts in two currencies are never matched)", other.ID, st.Outstanding, other.Currency)
		}
		return nil, "", why
	}
	return nil, "", fmt.Sprintf("%s %s is outstanding on %d claims (%s); apply it by hand", b.Amount, b.Currency, len(fit), ids(fit))
}

// byReference is the claims the credit's reference names.
func byReference(b BillCredit, cs []Claim) []Claim {
	var out []Claim
	for _, c := range cs {
		for _, ref := range c.references() {
			if ref == b.Reference || (len(ref) >= 6 && strings.Contains(b.Description, ref)) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

func (c Claim) references() []string {
	refs := []string{c.ID}
	if c.Sent != nil && c.Sent.Reference != "" {
		refs = append(refs, c.Sent.Reference)
	}
	if c.Answer != nil && c.Answer.Reference != "" {
		refs = append(refs, c.Answer.Reference)
	}
	return refs
}

// fits says whether credit b is, by amount and period, what c still owes.
func fits(c Claim, b BillCredit) bool {
	if c.Currency != b.Currency || c.Sent == nil || b.Period <= c.Month || b.Period < c.Sent.At.In(c.Loc()).Format("2006-01") {
		return false
	}
	st := c.StatusAt(Deadlines{}, time.Time{})
	d := st.Outstanding - b.Amount
	return st.State != StateRefused && st.Outstanding > 0 && max(d, -d) <= c.Rounding()
}

// inOtherCurrency is the first claim that would fit b by amount and period
// were b in its currency: what a person reading why b matched nothing
// should know.
func inOtherCurrency(b BillCredit, cs []Claim) *Claim {
	for i, c := range cs {
		if c.Currency != b.Currency {
			x := b
			x.Currency = c.Currency
			if fits(c, x) {
				return &cs[i]
			}
		}
	}
	return nil
}

func ids(cs []Claim) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return strings.Join(out, ", ")
}
