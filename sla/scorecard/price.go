package scorecard

import (
	"fmt"
	"math"
	"regexp"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/yardstick"
)

// env is what every group of nodes is computed against: the fleet and
// the renter's exchange rates.
type env struct {
	fleet baseline.Result
	rates *Rates
}

// yardstick is model's absolute figures for a stress figure (the spec
// database's datasheet and healthy-card figures, sla/yardstick).
func (e *env) yardstick(model, figure string) (yardstick.Yardstick, bool) {
	y, ok := yardstick.Lookup(model, figure)
	return y, ok && (y.Datasheet > 0 || y.Healthy > 0)
}

// Rates are the renter's exchange rates (docs/scorecard.md, "Price per
// usable GPU-hour"): Per[C] is what one unit of currency C is worth in
// Base. Without them prices in different currencies are never compared.
type Rates struct {
	Base string             `json:"base"`
	Per  map[string]float64 `json:"rates"`
}

var isoCurrency = regexp.MustCompile(`^[A-Z]{3}$`)

// Bounds on a rates file. ISO 4217 lists under 200 active codes, about 20
// bytes a line in this form, so 64 KiB is room for every one many times
// over; a larger file is refused before it is parsed.
//
// A rate says what one unit of a currency is worth in the base, so it is
// the ratio of two currencies' values. The widest ratio between two live
// currencies is under 10⁷ (the Kuwaiti dinar, about 3.3 USD, against the
// Iranian rial, about 10⁻⁶ USD on the open market); a rate outside
// [MinRate, MaxRate] — ten times wider on either side — is a typo (a rate
// written the wrong way up twice, a missing decimal point many times over),
// and would turn one provider's price into nonsense that still ranks.
const (
	MaxRatesBytes = 64 << 10
	MinRate       = 1e-8
	MaxRate       = 1e8
)

// ParseRates reads a rates file:
//
//	base: USD
//	rates:
//	  CNY: 0.1385   # 1 CNY = 0.1385 USD
//	  EUR: 1.08
//
// Every code is ISO 4217 (three capital letters), every rate a positive
// finite number from MinRate to MaxRate; the base's own rate, if given,
// is 1; the file is at most MaxRatesBytes. An error names name:line: field
// and the value.
func ParseRates(name string, data []byte) (*Rates, error) {
	if len(data) > MaxRatesBytes {
		return nil, fmt.Errorf("%s: %d bytes; a rates file is at most %d bytes", name, len(data), MaxRatesBytes)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:1: want a mapping with base and rates", name)
	}
	m := doc.Content[0]
	r := &Rates{Per: map[string]float64{}}
	var ratesNode *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch k.Value {
		case "base":
			if !isoCurrency.MatchString(v.Value) {
				return nil, fmt.Errorf("%s:%d: base: %q is not an ISO 4217 code like USD", name, v.Line, v.Value)
			}
			r.Base = v.Value
		case "rates":
			if v.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("%s:%d: rates: want a mapping of currency to rate", name, v.Line)
			}
			ratesNode = v
		default:
			return nil, fmt.Errorf("%s:%d: unknown field %q (want base, rates)", name, k.Line, k.Value)
		}
	}
	if r.Base == "" {
		return nil, fmt.Errorf("%s:1: base: missing", name)
	}
	if ratesNode == nil || len(ratesNode.Content) == 0 {
		return nil, fmt.Errorf("%s:1: rates: missing", name)
	}
	for i := 0; i+1 < len(ratesNode.Content); i += 2 {
		k, v := ratesNode.Content[i], ratesNode.Content[i+1]
		if !isoCurrency.MatchString(k.Value) {
			return nil, fmt.Errorf("%s:%d: rates: %q is not an ISO 4217 code like CNY", name, k.Line, k.Value)
		}
		if _, dup := r.Per[k.Value]; dup {
			return nil, fmt.Errorf("%s:%d: rates.%s: given twice", name, k.Line, k.Value)
		}
		var x float64
		if err := v.Decode(&x); err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
			return nil, fmt.Errorf("%s:%d: rates.%s: %q is not a positive number", name, v.Line, k.Value, v.Value)
		}
		if x < MinRate || x > MaxRate {
			return nil, fmt.Errorf("%s:%d: rates.%s: %s is outside %g to %g: no two currencies are that far apart (one %s is worth %s %s)",
				name, v.Line, k.Value, v.Value, MinRate, MaxRate, k.Value, v.Value, r.Base)
		}
		if k.Value == r.Base && x != 1 {
			return nil, fmt.Errorf("%s:%d: rates.%s: the base currency's rate is 1, not %s", name, v.Line, k.Value, v.Value)
		}
		r.Per[k.Value] = x
	}
	r.Per[r.Base] = 1
	return r, nil
}

// prices is, per currency billed, the amount billed ÷ the GPU-hours that
// were usable in the node-months billed in it: the bill's amount where the
// bill has one for the node-month, else what the contract charges for the
// hours it bills. With rates, Converted is every currency's amount in the
// base ÷ every usable GPU-hour; a currency the rates lack leaves it nil
// (the scorecard's warnings name it).
func prices(fs []*nodeFacts, rates *Rates) ([]Price, Figure) {
	type acc struct {
		amount, hours float64
		fromBill      int
		nodes         []obs
	}
	byCur := map[string]*acc{}
	for _, f := range fs {
		for _, m := range f.months {
			if m.billed <= 0 || m.currency == "" {
				continue
			}
			a := byCur[m.currency]
			if a == nil {
				a = &acc{}
				byCur[m.currency] = a
			}
			a.amount += m.charge
			if m.fromBill {
				a.fromBill++
			}
			a.hours += float64(m.usable) / 3600 * float64(f.gpus)
			a.nodes = append(a.nodes, obs{node: f.id})
		}
	}
	out := []Price{}
	var conv Figure
	var total, hours float64
	var all []obs
	convertible := rates != nil
	for c, a := range byCur {
		p := Price{Currency: c, Amount: a.amount, FromBill: a.fromBill, UsableGPUHours: a.hours,
			PerGPUHour: fig(ratio(a.amount, a.hours), c+" per usable GPU-hour", len(a.nodes), machines(a.nodes), MinNodeMonths, Lower)}
		p.PerGPUHour.MinDiff = minDiff("billing.price_per_usable_gpu_hour")
		out = append(out, p)
		all = append(all, a.nodes...)
		hours += a.hours
		if rates == nil {
			continue
		}
		if r, ok := rates.Per[c]; ok {
			total += a.amount * r
		} else {
			convertible = false
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
	v := math.NaN()
	unit := "per usable GPU-hour"
	if convertible && len(byCur) > 0 {
		v = ratio(total, hours)
		unit = rates.Base + " per usable GPU-hour"
	}
	conv = fig(v, unit, len(all), machines(all), MinNodeMonths, Lower)
	return out, conv
}
