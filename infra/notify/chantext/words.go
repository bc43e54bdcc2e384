package chantext

import (
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/i18n"
)

// words are the language and clock of one message: the contract's
// report.lang and time zone (notify.Alert.Lang and Zone), through the
// catalogs the documents use (sla/i18n), so a zh contract's robot messages
// read as its reports do.
type words struct {
	p   *i18n.Printer
	loc *time.Location
}

// english is the words of a message without a contract language: English,
// UTC (Slack, the console, old records).
func english() words { return englishAt(time.UTC) }

func englishAt(loc *time.Location) words { return words{p: i18n.New(i18n.EN), loc: loc} }

// wordsOf is lang and zone's words; an unknown language is English and an
// unknown zone UTC (a record written before they were carried).
func wordsOf(lang, zone string) words {
	l, err := i18n.Parse(lang)
	if err != nil {
		l = i18n.EN
	}
	loc := time.UTC
	if zone != "" {
		if z, err := time.LoadLocation(zone); err == nil {
			loc = z
		}
	}
	return words{p: i18n.New(l), loc: loc}
}

func (w words) zh() bool { return w.p.Lang == i18n.ZH }

// t translates an English sentence of the catalog.
func (w words) t(key string, args ...any) string { return w.p.T(key, args...) }

// inline is a label and its value inside a line of plain text: "provider
// acme" in English, "服务商：acme" in Chinese.
func (w words) inline(label, value string) string {
	if w.zh() {
		return w.t(label) + "：" + value
	}
	return strings.ToLower(label) + " " + value
}
