// Package termscheck checks contract terms files on their own (`gpusla
// terms check FILE…`): each file is read as serve, the Lambdas and the
// report read it (sla/terms), and the result is said in the contract's
// language (its report.lang): an error with its file, line and field, or,
// for a valid file, each contract's promises as the engine understood
// them, so a renter can hold them against the provider's text before the
// first month is counted by them.
package termscheck

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/terms"
)

// Check reads every file (a folder: its terms files) and writes what it found to w, each file in its
// contracts' language (lang, when not "", for all). It returns how many
// files failed; a failing file is named with its error and the rest are
// still checked.
func Check(w io.Writer, paths []string, lang i18n.Lang) (failed int, err error) {
	var files []string
	for _, p := range paths {
		// A folder (the data folder's terms/) is each of its terms files,
		// as serve and the report read it.
		fs, ferr := terms.Files(p)
		switch {
		case ferr != nil:
			fs = []string{p} // named with its error below
		case len(fs) == 0:
			if _, err := fmt.Fprintln(w, i18n.New(orEN(lang)).T("%s: a folder with no terms file (*.yaml, *.yml)", p)); err != nil {
				return failed, err
			}
			failed++
		}
		files = append(files, fs...)
	}
	for _, f := range files {
		ok, err := checkFile(w, f, lang)
		if err != nil {
			return failed, err
		}
		if !ok {
			failed++
		}
	}
	return failed, nil
}

// checkFile checks one file; ok is false when it is not valid terms.
func checkFile(w io.Writer, file string, lang i18n.Lang) (ok bool, err error) {
	raw, rerr := os.ReadFile(file)
	if rerr == nil && len(raw) > terms.MaxFileBytes {
		rerr = fmt.Errorf("larger than %d bytes", terms.MaxFileBytes)
	}
	if rerr != nil {
		p := i18n.New(orEN(lang))
		_, err = fmt.Fprintln(w, p.T("%s: cannot be read: %s", file, rerr.Error()))
		return false, err
	}
	ts, perr := terms.Parse(file, raw)
	if perr != nil {
		p := i18n.New(pick(lang, declaredLang(raw)))
		_, err = fmt.Fprintln(w, errorLine(p, file, perr))
		return false, err
	}
	for _, tm := range ts {
		l := lang
		if l == "" {
			l, _ = i18n.Parse(tm.Paperwork.Lang)
		}
		if _, err := fmt.Fprint(w, Summary(i18n.New(orEN(l)), tm)); err != nil {
			return true, err
		}
	}
	return true, nil
}

func orEN(l i18n.Lang) i18n.Lang {
	if l == "" {
		return i18n.EN
	}
	return l
}

func pick(asked, declared i18n.Lang) i18n.Lang {
	if asked != "" {
		return asked
	}
	return orEN(declared)
}

// declaredLang is the report.lang a file that does not parse as terms
// states (its first document's), so its errors are said in it; "" when it
// states none or is not YAML at all.
func declaredLang(raw []byte) i18n.Lang {
	var doc struct {
		Report struct {
			Lang string `yaml:"lang"`
		} `yaml:"report"`
	}
	if yaml.Unmarshal(raw, &doc) != nil {
		return ""
	}
	l, _ := i18n.Parse(doc.Report.Lang)
	return l
}

// errorLine is a terms error in p's language: where (file and line), the
// field, and the problem, translated when the catalog has its sentence.
func errorLine(p *i18n.Printer, file string, err error) string {
	var te *terms.Error
	if !errors.As(err, &te) {
		return p.T("%s: not valid terms: %s", file, err.Error())
	}
	msg := te.Msg
	if te.Format != "" {
		msg = p.T(te.Format, append([]any(nil), te.Args...)...)
	}
	if te.Field == "" {
		return p.T("%s, line %d: %s", te.File, te.Line, msg)
	}
	return p.T("%s, line %d, %s: %s", te.File, te.Line, te.Field, msg)
}

// Summary is a valid contract's promises as the engine reads them, in p's
// language: what it is, then one line a promise; a promise the terms do
// not make is said to be absent, never left blank.
func Summary(p *i18n.Printer, tm *terms.Terms) string {
	var b strings.Builder
	line := func(label, value string) { b.WriteString("  " + p.T(label) + p.Colon() + value + "\n") }
	b.WriteString(p.T("%s, line %d: contract %s is valid", tm.File, tm.Line, tm.Contract) + "\n")
	line("provider", tm.Provider)
	// The zone as the documents name it, with the year's offset changes.
	year := time.Date(time.Now().Year(), 1, 1, 0, 0, 0, 0, tm.Calendar.Loc)
	line("currency and time zone", p.T("%s; %s", tm.Currency, p.ZoneName(tm.Calendar.Loc, year, year.AddDate(1, 0, 0))))
	line("uptime target", uptime(p, tm))
	line("credits for a missed target", credits(p, tm))
	line("maintenance", maintenance(p, tm))
	line("support response", support(p, tm))
	line("hardware replacement", within(p, tm.Replacement.Within))
	line("delivery", within(p, tm.Delivery.Within))
	line("claim window", claim(p, tm.Claim))
	line("price", price(p, tm))
	line("public status page", p.Yes(tm.StatusPage.Public))
	if len(tm.Unverified()) > 0 {
		line("only a secondary source backs", strings.Join(tm.Unverified(), listSep(p)))
	}
	return b.String()
}

func uptime(p *i18n.Printer, tm *terms.Terms) string {
	var kinds []string
	for _, k := range incident.Kinds {
		if tm.Uptime.Unavailable[k] {
			kinds = append(kinds, p.Word(string(k)))
		}
	}
	s := p.T("target %s of each month; counted as down: %s", p.Pct(tm.Uptime.Target, -1), strings.Join(kinds, listSep(p)))
	switch dp := tm.Uptime.DowntimePeriod; {
	case dp.Minimum > 0 && dp.Strict:
		s += p.T("; a downtime counts once it lasts more than %s", p.Words(dp.Minimum))
	case dp.Minimum > 0:
		s += p.T("; a downtime counts once it lasts %s", p.Words(dp.Minimum))
	}
	if dp := tm.Uptime.DowntimePeriod; dp.Unit > 0 {
		s += p.T(map[terms.Rounding]string{
			terms.RoundDown:  "; counted in whole units of %s from its start, a part unit at its end left out",
			terms.RoundUp:    "; counted in whole units of %s, a part unit at its end rounded up",
			terms.RoundClock: "; counted in units of %s on the clock, each only when down all through",
		}[dp.Rounding], p.Words(dp.Unit))
	}
	return s
}

func credits(p *i18n.Printer, tm *terms.Terms) string {
	if len(tm.Uptime.Tiers) == 0 && len(tm.Credits.Rules) == 0 {
		return p.T("none stated: a missed target earns no credit")
	}
	var parts []string
	for _, t := range tm.Uptime.Tiers {
		parts = append(parts, p.T("uptime from %s to below %s: %s of the month's charge", p.Pct(t.Min, -1), p.Pct(t.Max, -1), p.Pct(t.Credit, -1)))
	}
	if n := len(tm.Credits.Rules); n > 0 {
		parts = append(parts, p.T("%d downtime credit rule(s)", n))
	}
	s := strings.Join(parts, p.T("; "))
	switch {
	case tm.Uptime.CreditCap == terms.NoCreditCap:
		s += p.T("; no cap")
	case tm.Uptime.CreditCap > 0:
		s += p.T("; capped at %s of the month's charge", p.Pct(tm.Uptime.CreditCap, -1))
	}
	if m := tm.Uptime.MinimumCredit; m > 0 {
		s += p.T("; a credit of %s or less is not issued", p.Money(m, tm.Currency))
	}
	return s
}

func maintenance(p *i18n.Printer, tm *terms.Terms) string {
	switch {
	case tm.Maintenance.Excludes:
		return p.T("excluded when announced at least %s ahead", p.Words(tm.Maintenance.Notice))
	case tm.Maintenance.Stated:
		return p.T("never excluded")
	}
	return p.T("not stated: never excluded")
}

func support(p *i18n.Printer, tm *terms.Terms) string {
	if len(tm.Support.Priorities) == 0 {
		return p.T("none stated")
	}
	var parts []string
	for _, pr := range tm.Support.Priorities {
		t, ok := tm.Support.Response[pr]
		if !ok {
			continue
		}
		s := p.T("%s first response within %s in business hours", pr, p.Words(t.BusinessHours))
		if t.OffHours > 0 && t.OffHours != t.BusinessHours {
			s += p.T(", %s outside them", p.Words(t.OffHours))
		}
		if t.Clock == terms.Business {
			s += p.T(" (business-hours clock)")
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, p.T("; "))
}

func within(p *i18n.Printer, d time.Duration) string {
	if d <= 0 {
		return p.T("none stated")
	}
	return p.T("within %s", p.Words(d))
}

func claim(p *i18n.Printer, c terms.Claim) string {
	switch {
	case c.BillingCycles > 0 && c.FromIncident:
		return p.T("by the end of billing cycle %d after the one the month's first counted outage began in", c.BillingCycles)
	case c.BillingCycles > 0:
		return p.T("by the end of billing cycle %d after the month", c.BillingCycles)
	case c.FromIncident:
		return p.T("within %d days of each counted outage's start", c.WindowDays)
	case c.WindowDays > 0:
		return p.T("within %d days after the month ends", c.WindowDays)
	}
	return p.T("none stated")
}

func price(p *i18n.Printer, tm *terms.Terms) string {
	b := tm.Billing
	if b.PricePerGPUHour <= 0 {
		return p.T("none stated: node add takes --price")
	}
	s := p.T("%s per GPU-hour", p.Money(b.PricePerGPUHour, tm.Currency))
	if b.Granularity > 0 {
		s += p.T(", billed in steps of %s", p.Words(b.Granularity))
	}
	if slices.Contains([]terms.BillingStart{terms.FromDelivery, terms.FromOrder}, b.StartsAt) {
		s += p.T(map[terms.BillingStart]string{terms.FromDelivery: ", from delivery", terms.FromOrder: ", from the order"}[b.StartsAt])
	}
	return s
}

// listSep separates the items of a list of words: the enumeration comma
// (顿号) in Chinese.
func listSep(p *i18n.Printer) string {
	if p.Lang == i18n.ZH {
		return "、"
	}
	return ", "
}
