package scorecard

import (
	"fmt"

	"github.com/gpusla/gpusla/sla/msg"
	"slices"
	"sort"
	"strings"
)

// warnings says what makes the comparison less than fair, in sentences
// the documents print above the table (in the report's language, through
// sla/i18n): providers observed over different months, providers on too
// few machines to rank, prices in currencies that cannot be compared.
func warnings(sc *Scorecard, facts factSet) []msg.Text {
	out := []msg.Text{}
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
		out = append(out, msg.New("providers are compared over different months: %s; a month one provider was not observed in (a holiday, a price change, an outage elsewhere) is not in its figures",
			msg.Plain(strings.Join(spans, "; "))))
	}
	for _, p := range sc.Providers {
		if p.All.Exposure.Machines < MinMachines {
			out = append(out, msg.New("%s: %d machines in service, fewer than the %d needed to rank: its figures are shown, never ranked", msg.Plain(p.Provider), p.All.Exposure.Machines, MinMachines))
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
		out = append(out, msg.New("prices are in %s: a price per usable GPU-hour is ranked only among providers billed in the same currency; give --rates to compare them", msg.Plain(strings.Join(parts, " and "))))
	}
	if sc.Rates != nil {
		for _, c := range codes {
			if _, ok := sc.Rates.Per[c]; !ok {
				out = append(out, msg.New("the rates file has no rate for %s: prices are not converted to %s", msg.Plain(c), msg.Plain(sc.Rates.Base)))
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

// WarningTexts are the warnings as translatable sentences; a scorecard
// read back from its JSON has only their English.
func (sc *Scorecard) WarningTexts() []msg.Text {
	if len(sc.warnings) == len(sc.Warnings) {
		return sc.warnings
	}
	out := make([]msg.Text, len(sc.Warnings))
	for i, w := range sc.Warnings {
		out[i] = msg.Plain(w)
	}
	return out
}
