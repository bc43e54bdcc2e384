package billing

import (
	"fmt"
	"io"
	"math/big"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/msg"
)

// splitCredits takes a full bill's credit lines out of its charges: a
// credit is money given back, not a charge to judge. They are listed as not
// judged, per currency (cur for a line without one), with their sum.
func splitCredits(items []Item, cur string) (charges []Item, left []LeftOut) {
	byCur := map[string]int{}
	for _, it := range items {
		if !it.IsCredit() {
			charges = append(charges, it)
			continue
		}
		c := it.Currency
		if c == "" {
			c = cur
		}
		i, ok := byCur[c]
		if !ok {
			why := msg.New("a credit given back: not judged here; the claims ledger matches it to its claim (gpusla claims bill)")
			left = append(left, LeftOut{Reason: why.String(), Text: why, Currency: c})
			i = len(left) - 1
			byCur[c] = i
		}
		left[i].Rows++
		left[i].Amount = money(left[i].Amount + it.Amount)
	}
	return charges, left
}

// Bill formats ReadCredits reads.
const (
	FormatGpusla = "gpusla"  // the full CSV form (docs/bills.md)
	FormatAWSCUR = "aws-cur" // an AWS Cost and Usage Report
)

// ReadCredits reads the credits a bill gives back, for the claims ledger:
// in the full CSV form (format "gpusla"), every line of kind credit or
// with a negative amount, with its reference column; in an AWS Cost and
// Usage Report ("aws-cur"), the rows of line item type Credit, summed per
// billing period, currency, product and description (AWS may split one
// credit over several rows), the reference left for the description to
// carry. Amounts are read exactly from the bill's text and given as what
// is given back (positive), to the cent: longer decimals are rounded half
// away from zero once, a CUR's on the group's sum. A credit without a currency takes
// cur (the contract's). The key of each is claims.CreditKey, so the same
// bill read again gives the same keys. The claims' contracts are for the
// caller to set.
func ReadCredits(name string, r io.Reader, format, cur string) ([]claims.BillCredit, error) {
	switch format {
	case FormatGpusla, "":
		return csvCredits(name, r, cur)
	case FormatAWSCUR:
		return curCredits(name, r)
	}
	return nil, fmt.Errorf("bill format %q: want %s or %s", format, FormatGpusla, FormatAWSCUR)
}

func csvCredits(name string, r io.Reader, cur string) ([]claims.BillCredit, error) {
	items, err := ParseItems(name, r)
	if err != nil {
		return nil, err
	}
	var out []claims.BillCredit
	for _, it := range items {
		if !it.IsCredit() {
			continue
		}
		c, err := claims.RoundCents(strings.TrimPrefix(it.AmountText, "-"))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: field amount: %w", name, it.Line, err)
		}
		b := claims.BillCredit{Bill: name, Lines: []int{it.Line}, Period: it.Period, At: it.From, Amount: c, Currency: it.Currency,
			Reference: it.Reference, Description: it.Description}
		if b.Currency == "" {
			b.Currency = cur
		}
		switch {
		case it.Currency != "" && !claims.IsCurrencyCode(it.Currency):
			return nil, fmt.Errorf("%s:%d: field currency: %q is not an ISO 4217 code (three capital letters, like CNY)", name, it.Line, it.Currency)
		case !claims.IsCurrencyCode(b.Currency):
			return nil, fmt.Errorf("%s:%d: field currency: missing, and no currency for a line that names none was given (%q; gpusla claims bill --currency)", name, it.Line, cur)
		}
		b.Key = claims.CreditKey(b.Period, b.Currency, b.Amount, b.Reference, b.Description, b.Lines)
		out = append(out, b)
	}
	return out, nil
}

// curCredit is a CUR credit being summed.
type curCredit struct {
	b   claims.BillCredit
	sum big.Rat
}

func curCredits(name string, r io.Reader) ([]claims.BillCredit, error) {
	f, err := openCUR(name, r)
	if err != nil {
		return nil, err
	}
	groups := map[string]*curCredit{}
	var order []string
	for {
		ok, err := f.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if f.get(curType) != "Credit" {
			continue
		}
		g, err := f.credit(groups, &order)
		if err != nil {
			return nil, err
		}
		v := f.get(curCost)
		var x big.Rat
		if _, ok := x.SetString(v); !ok || strings.ContainsAny(v, "eE/") {
			return nil, f.bad(curCost, "%q is not a plain decimal number", v)
		}
		if x.Sign() > 0 {
			return nil, f.bad(curCost, "%q: a Credit row gives money back, so its cost is negative", v)
		}
		g.sum.Add(&g.sum, &x)
		g.b.Lines = append(g.b.Lines, f.line)
	}
	var out []claims.BillCredit
	for _, k := range order {
		g := groups[k]
		g.b.Amount = roundCents(new(big.Rat).Neg(&g.sum))
		if g.b.Amount == 0 {
			continue // rows that cancel out give nothing back
		}
		g.b.Key = claims.CreditKey(g.b.Period, g.b.Currency, g.b.Amount, "", g.b.Description, g.b.Lines)
		out = append(out, g.b)
	}
	return out, nil
}

// credit is the group the Credit row f last read is summed into, made on
// its first row with the row's period, currency, description and date.
func (f *curFile) credit(groups map[string]*curCredit, order *[]string) (*curCredit, error) {
	period, err := f.at(curPeriodStart)
	if err != nil {
		return nil, err
	}
	cur := f.get(curCurrency)
	if cur == "" {
		return nil, f.bad(curCurrency, "empty")
	}
	desc := f.get(curDesc)
	k := strings.Join([]string{period.UTC().Format("2006-01"), cur, f.get(curProduct), desc}, "\x00")
	if g := groups[k]; g != nil {
		return g, nil
	}
	var on time.Time
	if v := f.get(curStart); v != "" {
		if on, err = f.at(curStart); err != nil {
			return nil, err
		}
	}
	g := &curCredit{b: claims.BillCredit{Bill: f.name, Period: period.UTC().Format("2006-01"), At: on, Currency: cur, Description: desc}}
	groups[k] = g
	*order = append(*order, k)
	return g, nil
}

// roundCents is x to the cent, half away from zero.
func roundCents(x *big.Rat) claims.Cents {
	c := new(big.Rat).Mul(x, big.NewRat(100, 1))
	neg := c.Sign() < 0
	c.Abs(c)
	q, m := new(big.Int).QuoRem(c.Num(), c.Denom(), new(big.Int))
	if new(big.Int).Mul(m, big.NewInt(2)).Cmp(c.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	v := claims.Cents(q.Int64())
	if neg {
		v = -v
	}
	return v
}
