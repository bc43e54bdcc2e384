package document

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

// The claim page is a business letter a renter sends to the provider's
// billing desk as it is: addressed (致 / To), dated with the day of
// application (the report's as-of date in the contract's zone), the
// service period ending at 24:00 of its last day in the zone named as its
// readers name it, the amount as a bank writes it with the amount in
// capitals (大写) or in words, a signature block, and an appendix that says
// where each clause and figure came from (the terms file and line), so the
// letter itself cites only the contract's own clause numbers.

// claimPrinter is the printer of contract c's claim page: the language
// asked for (--lang), else the contract's own report.lang, so one report
// holding a Chinese and an English contract sends each provider its letter
// in the contract's language.
func claimPrinter(p *i18n.Printer, x Extras, c *report.Contract) *i18n.Printer {
	if x.Lang != "" {
		return p
	}
	l, err := i18n.Parse(c.Lang)
	if err != nil || l == p.Lang {
		return p
	}
	return i18n.New(l)
}

// bcp47 is the HTML lang of a language.
func bcp47(l i18n.Lang) string {
	return map[i18n.Lang]string{i18n.EN: "en", i18n.ZH: "zh-Hans"}[l]
}

// names splits a party's name as the terms give it, "星河智能科技有限公司
// Galaxy AI Ltd.", into the name in Chinese characters and the Latin one
// after it; a name that is not of that shape is all local.
func names(s string) (local, latin string) {
	s = strings.TrimSpace(s)
	for i, r := range s {
		if r != ' ' || i == 0 {
			continue
		}
		head, tail := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i:])
		if hasHan(head) && !hasHan(tail) && tail != "" {
			return head, tail
		}
		break
	}
	return s, ""
}

func startsHan(s string) bool {
	for _, r := range s {
		return unicode.Is(unicode.Han, r)
	}
	return false
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// party is a name as running text writes it: 星河智能科技有限公司（Galaxy AI
// Ltd.） in Chinese; the name as given in English.
func party(p *i18n.Printer, s string) string {
	local, latin := names(s)
	switch {
	case p.Lang == i18n.ZH && latin != "":
		return local + "（" + latin + "）"
	case p.Lang == i18n.ZH && !hasHan(s):
		return s + " " // Galaxy AI Ltd. 就合同: Latin text set apart
	}
	return orDash(s)
}

// source is the where-part of a clause citation (terms.Clause's String:
// "第8条 (cn-example.yaml:108)", "第8条", or "cn-example.yaml:108").
var source = regexp.MustCompile(`^[^\s()]+(:\d+|\.ya?ml)$`)

// splitClause is a citation's clause number and its place in the terms file.
func splitClause(s string) (id, where string) {
	if i := strings.LastIndex(s, " ("); i > 0 && strings.HasSuffix(s, ")") && source.MatchString(s[i+2:len(s)-1]) {
		return s[:i], s[i+2 : len(s)-1]
	}
	if source.MatchString(s) {
		return "", s
	}
	return s, ""
}

// clauseWhat names what each clause key of the terms is about, for the
// appendix.
var clauseWhat = map[string]string{
	"uptime": "uptime commitment", "uptime.tiers": "credit tiers", "uptime.credit_cap": "credit cap",
	"maintenance": "maintenance notice", "support.response": "first-response targets", "support.resolution": "resolution targets",
	"support.late_response_penalty": "late-response penalty", "hardware_replacement": "hardware replacement",
	"delivery": "delivery target", "claim": "claim deadline", "billing": "billing", "credits": "downtime credits",
}

// citer collects the clauses a letter cites, in the order first cited, for
// its appendix.
type citer struct {
	c    *report.Contract
	p    *i18n.Printer
	keys []string
}

// cite is the clause numbers of keys as the letter writes them (第4.1条、
// 第4.2条), each key noted for the appendix; "see the appendix" where the
// contract numbers none of them.
func (ci *citer) cite(keys ...string) string {
	var ids []string
	for _, k := range keys {
		v := ci.c.Clauses[k]
		if v == "" {
			continue
		}
		if !slices.Contains(ci.keys, k) {
			ci.keys = append(ci.keys, k)
		}
		if id, _ := splitClause(v); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		if len(keys) == 0 {
			return ""
		}
		return ci.p.T("see the appendix")
	}
	if ci.p.Lang != i18n.ZH {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids, "、")
}

// appendix is the table of every clause the letter cited: its number,
// what it is about, and the terms file and line it was read from.
func (ci *citer) appendix() table {
	p := ci.p
	t := table{Title: p.T("Appendix: where each clause and figure comes from"), Widths: []float64{16, 30, 40},
		Head: []string{p.T("clause"), p.T("about"), p.T("terms file and line")}}
	for _, k := range ci.keys {
		if id, where := splitClause(ci.c.Clauses[k]); id != "" || where != "" {
			t.add(orDash(id), p.T(clauseWhat[k]), orDash(where))
		}
	}
	return t
}

// letterHead is the letter's addressee, parties, period, date and amount.
func letterHead(p *i18n.Printer, r *report.Report, c *report.Contract, ci *citer) []field {
	loc, err := time.LoadLocation(c.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	ms, _ := time.Parse(time.RFC3339, c.MonthStart)
	me, _ := time.Parse(time.RFC3339, c.MonthEnd)
	deadline, _ := time.Parse(time.RFC3339, c.ClaimDeadline)
	amount := p.LetterMoney(c.Claim, c.Currency)
	if c.Claim > 0 {
		amount = p.T("%s (in words: %s)", amount, p.InWords(c.Claim, c.Currency))
	}
	by := p.T("by %s", p.At(deadline, loc, true))
	// A notice meets no claim deadline: nothing of the claim clause is
	// cited for it.
	if c.Letter != report.LetterNotice {
		if cl := ci.cite("claim"); cl != "" {
			if p.Lang == i18n.ZH && !startsHan(cl) {
				cl = " " + cl // 依据 Sec. 6.2, as Chinese sets Latin text apart; 依据第8条
			}
			by = p.T("%s, under %s", by, cl)
		}
	}
	fs := []field{
		{p.T("To"), c.Provider},
		{p.T("Renter (claimant)"), orDash(c.Renter)},
		{p.T("Contract number"), orDash(c.ContractNumber)},
		{p.T("Subject"), subjectLine(p, r, c)},
		{p.T("Service period"), p.Period(ms, me, loc)},
		{p.T("Date of application"), p.LongDate(applicationDate(r, c, loc))},
	}
	// A notice of breach requests nothing: it carries no amount, never
	// "0.00", and no claim deadline to meet.
	if c.Letter == report.LetterNotice {
		fs = append(fs, field{p.T("Purpose"), p.T("notice of breach: no credit is requested")})
	} else {
		fs = append(fs, field{p.T("Credit requested"), amount})
	}
	fs = append(fs, field{p.T("File through"), channelText(p, c.Procedure)})
	if opens, err := time.Parse(time.RFC3339, c.ClaimOpens); err == nil {
		fs = append(fs, field{p.T("May be filed from"), p.LongDate(opens.In(loc))})
	} else if earliest, err := time.Parse(time.RFC3339, c.ClaimOpensEarliest); err == nil && c.Procedure != nil {
		// The day depends on holidays the terms do not list: the rule is
		// given, and the earliest day it can be, never a day the provider
		// could call early.
		fs = append(fs, field{p.T("May be filed from"), p.T("after %d working days of the next month, counted by its public holidays of %s, which the terms do not list: not before %s",
			c.Procedure.OpensAfterWorkingDays, strconv.Itoa(c.ClaimOpensHolidaysMissing), p.LongDate(earliest.In(loc)))})
	}
	if c.Letter != report.LetterNotice {
		fs = append(fs, field{p.T("Claim deadline"), by})
	}
	return fs
}

// signature is the block the renter signs (and, in China, seals): the
// claimant's name in its own script, with room for the date.
func signature(p *i18n.Printer, c *report.Contract) []string {
	local, latin := names(c.Renter)
	if p.Lang != i18n.ZH && latin != "" {
		local = latin
	}
	return []string{p.T("For and on behalf of %s (claimant)", orDash(local)),
		p.T("Signature: ____________________   Name and title: ____________________   Date: ______________")}
}

// chargeBasis is how the month's charge was reckoned, as the terms price
// it: 711 小时 × 8 卡 × 18.50 元/卡·时（自下单起计费，按整小时向上取整）.
func chargeBasis(p *i18n.Printer, n *report.Node) string {
	b := n.Billing
	s := p.T("%s h × %d GPUs × %s per GPU-hour", p.Num(float64(b.BilledSeconds)/3600, -1), b.GPUs, p.Price(b.PricePerGPUHour, n.Currency))
	var how []string
	switch {
	case b.From != "" && b.From == n.Delivery.OrderedAt:
		how = append(how, p.T("billed from the order"))
	case b.From != "" && b.From == n.Delivery.DeliveredAt:
		how = append(how, p.T("billed from delivery"))
	}
	if b.UnchargedSeconds > 0 {
		how = append(how, p.T("%d clock hours with more than %s unavailable not charged", len(b.UnchargedHours), p.Secs(b.ClockHourRuleSeconds)))
	}
	switch b.GranularitySeconds {
	case 0, 1:
	case 3600:
		how = append(how, p.T("rounded up to whole hours"))
	case 60:
		how = append(how, p.T("rounded up to whole minutes"))
	default:
		how = append(how, p.T("rounded up to whole periods of %s", p.Secs(b.GranularitySeconds)))
	}
	if len(how) > 0 {
		sep := ", "
		if p.Lang == i18n.ZH {
			sep = "，"
		}
		s += p.T("; %s", strings.Join(how, sep))
	}
	return s
}

// tierText is an uptime tier as a contract states it: 可用率 ≥99% 且 <99.9%：
// 赔付 10%.
func tierText(p *i18n.Printer, t *report.Tier) string {
	if t == nil {
		return ""
	}
	return p.T("uptime ≥%s and <%s: credit %s", p.Pct(t.MinPercent, -1), p.Pct(t.MaxPercent, -1), p.Pct(t.CreditPercent, -1))
}
