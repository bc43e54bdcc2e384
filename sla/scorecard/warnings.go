package scorecard

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// warnings says what makes the comparison less than fair, in words the
// documents print above the table: providers observed over different
// months, providers on too few machines to rank, prices in currencies
// that cannot be compared.
func warnings(sc *Scorecard, facts factSet) []string {
	out := []string{}
	var spans []string
	differ := false
	for i, p := range sc.Providers {
		ms := p.All.Exposure.Months
		spans = append(spans, fmt.Sprintf("%s %s", p.Provider, monthList(ms)))
		if i > 0 && !slices.Equal(ms, sc.Providers[0].All.Exposure.Months) {
			differ = true
		}
	}
	if differ {
		out = append(out, "providers are compared over different months: "+strings.Join(spans, "; ")+
			"; a month one provider was not observed in (a holiday, a price change, an outage elsewhere) is not in its figures")
	}
	for _, p := range sc.Providers {
		if p.All.Exposure.Machines < MinMachines {
			out = append(out, fmt.Sprintf("%s: %d machines in service, fewer than the %d needed to rank: its figures are shown, never ranked", p.Provider, p.All.Exposure.Machines, MinMachines))
		}
	}
	curs := map[string][]string{}
	for _, f := range facts {
		for _, m := range f.months {
			if m.billed > 0 && m.currency != "" && !slices.Contains(curs[m.currency], f.provider) {
				curs[m.currency] = append(curs[m.currency], f.provider)
			}
		}
	}
	var codes []string
	for c := range curs {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	if len(codes) > 1 && sc.Rates == nil {
		var parts []string
		for _, c := range codes {
			sort.Strings(curs[c])
			parts = append(parts, fmt.Sprintf("%s (%s)", c, strings.Join(curs[c], ", ")))
		}
		out = append(out, "prices are in "+strings.Join(parts, " and ")+": a price per usable GPU-hour is ranked only among providers billed in the same currency; give --rates to compare them")
	}
	if sc.Rates != nil {
		for _, c := range codes {
			if _, ok := sc.Rates.Per[c]; !ok {
				out = append(out, fmt.Sprintf("the rates file has no rate for %s: prices are not converted to %s", c, sc.Rates.Base))
			}
		}
	}
	return out
}

// monthList is months as "2026-02 to 2026-04" when they run without a
// gap, else listed; "no months" when empty.
func monthList(ms []string) string {
	if len(ms) == 0 {
		return "no months"
	}
	for i := 1; i < len(ms); i++ {
		a, errA := ParseMonth(ms[i-1])
		b, errB := ParseMonth(ms[i])
		if errA != nil || errB != nil || a.next() != b {
			return strings.Join(ms, ", ")
		}
	}
	if len(ms) == 1 {
		return ms[0]
	}
	return ms[0] + " to " + ms[len(ms)-1]
}
