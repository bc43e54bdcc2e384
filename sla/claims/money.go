package claims

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Cents is an amount in hundredths of its currency's unit, the unit the
// books round every credit to (sla/account.Money), held as an integer so
// that a ledger's sums are exact: 0.10 + 0.20 is 0.30 here, as it is on a
// bill. An amount never carries its currency; every sum is per currency.
type Cents int64

// MaxCents bounds an amount: a trillion units, far above any claim, far
// below where int64 sums could overflow.
const MaxCents = Cents(1e14)

// ParseCents reads a plain decimal amount exactly: digits, at most one
// point and two decimals ("1200", "1200.5", "1200.50"), with an optional
// leading minus. A currency sign, a thousands separator, an exponent or a
// third decimal is refused rather than guessed at or rounded.
func ParseCents(s string) (Cents, error) {
	neg := strings.HasPrefix(s, "-")
	whole, frac, hasPoint := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	if whole == "" && frac == "" || !digits(whole) || !digits(frac) || (hasPoint && frac == "") {
		return 0, fmt.Errorf("%q is not a plain decimal amount (digits, one point, no sign of currency or thousands)", s)
	}
	if len(frac) > 2 {
		return 0, fmt.Errorf("%q has more than two decimals", s)
	}
	return fromParts(s, neg, whole, frac+strings.Repeat("0", 2-len(frac)))
}

// RoundCents reads a plain decimal with any number of decimals (a cost
// report's "-12.3456789") and rounds it to the cent exactly, half away
// from zero, without passing through a float.
func RoundCents(s string) (Cents, error) {
	neg := strings.HasPrefix(s, "-")
	whole, frac, hasPoint := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	if whole == "" && frac == "" || !digits(whole) || !digits(frac) || (hasPoint && frac == "") {
		return 0, fmt.Errorf("%q is not a plain decimal amount (digits, one point, no sign of currency or thousands)", s)
	}
	up := len(frac) > 2 && frac[2] >= '5'
	if len(frac) > 2 {
		frac = frac[:2]
	}
	c, err := fromParts(s, false, whole, frac+strings.Repeat("0", 2-len(frac)))
	if err != nil {
		return 0, err
	}
	if up {
		c++
	}
	if neg {
		c = -c
	}
	return c, nil
}

func fromParts(s string, neg bool, whole, frac2 string) (Cents, error) {
	if whole == "" {
		whole = "0"
	}
	if len(whole) > 13 {
		return 0, fmt.Errorf("%q is more than %s", s, MaxCents)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a plain decimal amount", s)
	}
	f, _ := strconv.ParseInt(frac2, 10, 64)
	c := Cents(w*100 + f)
	if c > MaxCents {
		return 0, fmt.Errorf("%q is more than %s", s, MaxCents)
	}
	if neg {
		c = -c
	}
	return c, nil
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// FromFloat is an amount the books computed (sla/report's credit, already
// rounded to the cent by account.Money) as Cents.
func FromFloat(v float64) Cents { return Cents(math.Round(v * 100)) }

// Float is c in units, for the documents that print money as a number.
func (c Cents) Float() float64 { return float64(c) / 100 }

// String is c with two decimals: "1200.50", "-0.05".
func (c Cents) String() string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// MarshalJSON writes c as a JSON number with two decimals (1200.50), so a
// reader that parses numbers as decimals gets it exactly.
func (c Cents) MarshalJSON() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalJSON reads a number or a string exactly (ParseCents).
func (c *Cents) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		b = []byte(s)
	}
	v, err := ParseCents(string(b))
	if err != nil {
		return errors.New("amount " + err.Error())
	}
	*c = v
	return nil
}

// Share is part/whole as a percentage rounded to one decimal, computed on
// the integers (0 when whole is not positive).
func Share(part, whole Cents) float64 {
	if whole <= 0 {
		return 0
	}
	// Round half up on tenths of a percent: part*1000/whole, exactly.
	tenths := (int64(part)*2000/int64(whole) + 1) / 2
	return float64(tenths) / 10
}
