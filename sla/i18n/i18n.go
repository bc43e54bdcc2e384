// Package i18n writes gpusla's documents (reports, claim pages, tickets,
// the status page) in the reader's language: a message catalog
// (golang.org/x/text/message, keyed by the English sentence, so English
// needs no entries) and the locale's forms of dates, durations, numbers and
// money. Sentences the domain built as sla/msg Texts are translated with
// their arguments formatted the same way.
package i18n

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"

	"github.com/gpusla/gpusla/sla/msg"
)

// Lang is a language documents are written in.
type Lang string

// Languages.
const (
	EN Lang = "en"
	ZH Lang = "zh"
)

// Langs are every language, English first.
var Langs = []Lang{EN, ZH}

// Parse reads a --lang value or a terms report.lang.
func Parse(s string) (Lang, error) {
	for _, l := range Langs {
		if string(l) == s {
			return l, nil
		}
	}
	return "", fmt.Errorf("language %q: want one of en, zh", s)
}

var (
	cat  = catalog.NewBuilder(catalog.Fallback(language.English))
	tags = map[Lang]language.Tag{EN: language.English, ZH: language.SimplifiedChinese}
	// books holds each language's entries, to tell a missing one.
	books = map[Lang]map[string]string{ZH: zh}
)

func init() {
	for _, part := range []map[string]string{zhStatus, zhActions, zhSummary, zhScorecard, zhRecords, zhBills, zhSources, zhAlerts, zhTrial, zhClaims,
		zhCounting, zhProvisional, zhPrecedence, zhTerms, zhProbe, zhEvidence} {
		for key, s := range part {
			if _, dup := zh[key]; dup {
				panic(fmt.Sprintf("i18n: zh entry %q is in two parts of the catalog", key))
			}
			zh[key] = s
		}
	}
	for key, s := range zh {
		if err := cat.SetString(tags[ZH], key, s); err != nil {
			panic(fmt.Sprintf("i18n: zh entry %q: %v", key, err))
		}
	}
	for _, part := range []map[string]string{enWords, enClaimWords} {
		for key, s := range part {
			if err := cat.SetString(tags[EN], key, s); err != nil {
				panic(fmt.Sprintf("i18n: en word %q: %v", key, err))
			}
		}
	}
}

// Printer writes in one language.
type Printer struct {
	Lang Lang
	p    *message.Printer

	mu      sync.Mutex
	missing map[string]bool
}

// New is a printer for l.
func New(l Lang) *Printer {
	return &Printer{Lang: l, p: message.NewPrinter(tags[l], message.Catalog(cat)), missing: map[string]bool{}}
}

// T translates the English sentence key (a fmt format) with args, each
// formatted for the locale (Time, durations, nested Texts, Words).
func (p *Printer) T(key string, args ...any) string {
	if b := books[p.Lang]; b != nil {
		if _, ok := b[key]; !ok {
			p.mu.Lock()
			p.missing[key] = true
			p.mu.Unlock()
		}
	}
	for i, a := range args {
		args[i] = p.arg(a)
	}
	if p.Lang == ZH {
		return tidyZH(p.p.Sprintf(key, args...))
	}
	return p.p.Sprintf(key, args...)
}

func (p *Printer) arg(a any) any {
	switch v := a.(type) {
	case msg.Text:
		return p.Text(v)
	case msg.Word:
		return p.Word(string(v))
	case msg.Time:
		return p.Time(v.Time)
	case time.Duration:
		return p.Dur(v)
	case msg.ProbeWords:
		return p.probeWords(string(v))
	case msg.RecordedWords:
		return p.recordedWords(string(v))
	}
	return a
}

// probeWords is a probe's English sent without its coded form: as it is,
// marked in Chinese as the probe's own words where it holds words.
func (p *Printer) probeWords(s string) string {
	if p.Lang == ZH && hasWord(s) {
		return p.T("the probe's own words: “%s”", s)
	}
	return s
}

// recordedWords is the backend's English from a record kept without its
// coded form: as it is, marked in Chinese as the system's record where it
// holds words, as a probe's uncoded words are marked.
func (p *Printer) recordedWords(s string) string {
	if p.Lang == ZH && hasWord(s) {
		return p.T("the system's record: “%s”", s)
	}
	return s
}

// Text translates a domain sentence; data (msg.Plain) stays as it is.
func (p *Printer) Text(t msg.Text) string {
	if t.IsZero() {
		return ""
	}
	if t.Format == "%s" && len(t.Args) == 1 {
		switch v := t.Args[0].(type) {
		case string:
			return v
		case msg.ProbeWords:
			return p.probeWords(string(v))
		case msg.RecordedWords:
			return p.recordedWords(string(v))
		}
	}
	return p.T(t.Format, append([]any(nil), t.Args...)...)
}

// Texts translates each and joins them with the language's separator.
func (p *Printer) Texts(ts []msg.Text) string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = p.Text(t)
	}
	return strings.Join(out, p.sep())
}

func (p *Printer) sep() string {
	if p.Lang == ZH {
		return "；"
	}
	return "; "
}

// Word translates one vocabulary word (kind, cause, status); an unknown
// word is shown as it is and counted missing.
func (p *Printer) Word(w string) string {
	if w == "" {
		return ""
	}
	return p.T(w)
}

// Constants are the catalog's sentences and words that take no argument,
// in every language, with the machine words they translate ("none",
// "Incident history", "节点"): text that is the same on every page and
// holds no data. The status page's leak guard does not look for withheld
// names in them (a contract called "none" is not shown by a value "none").
// The map is shared: read it, never change it.
func Constants() map[string]bool {
	constantsOnce.Do(func() {
		constants = map[string]bool{}
		add := func(s string) {
			if !strings.Contains(s, "%") {
				constants[s] = true
			}
		}
		for _, book := range []map[string]string{zh, enWords} {
			for key, s := range book {
				add(key)
				add(s)
			}
		}
	})
	return constants
}

var (
	constantsOnce sync.Once
	constants     map[string]bool
)

// Missing are the keys this printer was asked for that its language has no
// entry for, sorted; tests require none.
func (p *Printer) Missing() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for k := range p.missing {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Time is an instant in its own zone: 2026-03-05 14:00:00 +08:00, or
// 2026年3月5日 14:00:00 (UTC+08:00).
func (p *Printer) Time(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	if p.Lang == ZH {
		return t.Format("2006年1月2日 15:04:05") + "（" + offset(t) + "）"
	}
	return t.Format("2006-01-02 15:04:05 -07:00")
}

// Zoned is t in loc with the zone named, so a reader in another zone
// knows which clock it is: 2026-03-05 14:00:00 +08:00 Asia/Shanghai, or
// 2026年3月5日 14:00:00（北京时间）, the zone named as the letters and the
// alerts name it (ZoneName: 美国东部时间，UTC−05:00).
func (p *Printer) Zoned(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "—"
	}
	t = t.In(loc)
	if p.Lang == ZH {
		return t.Format("2006年1月2日 15:04:05") + "（" + p.ZoneName(loc, t, t) + "）"
	}
	return t.Format("2006-01-02 15:04:05 -07:00") + " " + loc.String()
}

// Date is t's calendar day in its own zone: 2026-03-05, 2026年3月5日.
func (p *Printer) Date(t time.Time) string {
	if p.Lang == ZH {
		return t.Format("2006年1月2日")
	}
	return t.Format("2006-01-02")
}

// Stamp is Time of an RFC 3339 string from the report; one that does not
// parse is shown as it is.
func (p *Printer) Stamp(s string) string {
	if s == "" {
		return "—"
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return p.Time(t)
}

// Day is the date of an RFC 3339 string: 2026-03-05, 2026年3月5日.
func (p *Printer) Day(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	if p.Lang == ZH {
		return t.Format("2006年1月2日")
	}
	return t.Format("2006-01-02")
}

// Month names a YYYY-MM month: March 2026, 2026年3月.
func (p *Printer) Month(ym string) string {
	t, err := time.Parse("2006-01", ym)
	if err != nil {
		return ym
	}
	if p.Lang == ZH {
		return t.Format("2006年1月")
	}
	return t.Format("January 2006")
}

// Dur is a duration to the second: 1h30m, 1小时30分钟; days above a day.
func (p *Printer) Dur(d time.Duration) string {
	s := int64(d / time.Second)
	if s == 0 {
		return "0"
	}
	units := []struct {
		n      int64
		en, zh string
	}{{86400, "d", "天"}, {3600, "h", "小时"}, {60, "m", "分"}, {1, "s", "秒"}}
	var b strings.Builder
	if s < 0 {
		b.WriteString("-")
		s = -s
	}
	for i, u := range units {
		// Days only for long spans, so a report's hours read as before.
		if i == 0 && s < 2*86400 {
			continue
		}
		if v := s / u.n; v > 0 {
			fmt.Fprintf(&b, "%d", v)
			s %= u.n
			switch {
			case p.Lang != ZH:
				b.WriteString(u.en)
			case u.n == 60 && s == 0:
				// Minutes that end the duration are 分钟 (15分钟, 1小时30分钟);
				// before seconds, 分 (12小时10分14秒), as a clock reads.
				b.WriteString("分钟")
			default:
				b.WriteString(u.zh)
			}
		}
	}
	return b.String()
}

// Secs is Dur of whole seconds.
func (p *Printer) Secs(s int64) string { return p.Dur(time.Duration(s) * time.Second) }

// Num is v with prec decimals (-1: as few as needed) and the locale's
// digit grouping.
func (p *Printer) Num(v float64, prec int) string {
	if prec < 0 {
		return p.p.Sprint(v)
	}
	return p.p.Sprintf("%.*f", prec, v)
}

// Money is an amount with its ISO 4217 code: 1,234.56 CNY. Sums in
// different currencies are never added; see Totals.
func (p *Printer) Money(v float64, cur string) string { return p.Num(v, 2) + " " + cur }

// Totals are one amount per currency, in code order, for a total line
// that keeps currencies apart.
func (p *Printer) Totals(sums map[string]float64) []string {
	curs := make([]string, 0, len(sums))
	for c := range sums {
		curs = append(curs, c)
	}
	sort.Strings(curs)
	out := make([]string, len(curs))
	for i, c := range curs {
		out[i] = p.Money(sums[c], c)
	}
	return out
}

// Yes is yes or no.
func (p *Printer) Yes(b bool) string {
	if b {
		return p.T("yes")
	}
	return p.T("no")
}

// ShortDay is a chart axis label: Mar 2, 3月2日.
func (p *Printer) ShortDay(t time.Time) string {
	if p.Lang == ZH {
		return t.Format("1月2日")
	}
	return t.Format("Jan 2")
}

// Words is a duration in words of the language, to the second, for chat
// messages read at a glance: 4 minutes 40 seconds, 1 hour 5 minutes,
// 30分钟, 4分40秒 (Dur's Chinese); never Go's 30m0s.
func (p *Printer) Words(d time.Duration) string {
	if p.Lang == ZH {
		if d/time.Second == 0 {
			return "0秒"
		}
		return p.Dur(d)
	}
	s := int64(d / time.Second)
	if s < 0 {
		return "-" + p.Words(-d)
	}
	units := []struct {
		n    int64
		name string
	}{{86400, "day"}, {3600, "hour"}, {60, "minute"}, {1, "second"}}
	var parts []string
	for i, u := range units {
		if i == 0 && s < 2*86400 { // days only for long spans, as Dur
			continue
		}
		if v := s / u.n; v > 0 {
			w := u.name
			if v != 1 {
				w += "s"
			}
			parts = append(parts, fmt.Sprintf("%d %s", v, w))
			s %= u.n
		}
	}
	if len(parts) == 0 {
		return "0 seconds"
	}
	return strings.Join(parts, " ")
}

// ProbeSentences are the keys of the catalog's part for the probe's check
// texts, sorted: a test holds them equal to the probe's own list.
func ProbeSentences() []string {
	out := make([]string, 0, len(zhProbe))
	for k := range zhProbe {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Translated reports whether the catalog has key in l (English has every
// key: it is the key).
func Translated(l Lang, key string) bool {
	if b := books[l]; b != nil {
		_, ok := b[key]
		return ok
	}
	return true
}

// ProbeText is one of a probe check's texts (value, criterion, detail) in
// p's language: its coded form translated where the probe sent one (probe
// and catalog share the keys), else the English as the probe sent it. In
// Chinese, an English sentence with no coded form (sentence true: a
// criterion, a detail) is marked as the probe's own words (msg.ProbeWords);
// a reading (sentence false: a value such as "7" or "NVIDIA H100") is
// shown as it is.
func (p *Printer) ProbeText(en string, coded *msg.Coded, sentence bool) string {
	if sentence {
		return p.Text(msg.FromProbe(en, coded))
	}
	if coded != nil {
		if t, err := coded.Text(); err == nil {
			return p.Text(t)
		}
	}
	return en
}

// hasWord says whether s has a run of two or more Latin letters.
func hasWord(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			if run++; run >= 2 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}
