package replacement

import (
	"fmt"

	"github.com/gpusla/gpusla/sla/i18n"
)

// Lang is the language of a ticket text.
type Lang string

// Languages.
const (
	Chinese Lang = "zh"
	English Lang = "en"
	Both    Lang = "both" // Chinese first (the provider's desk reads it), then English
)

// ParseLang checks a --lang value ("" is Both).
func ParseLang(s string) (Lang, error) {
	switch Lang(s) {
	case Chinese, English, Both:
		return Lang(s), nil
	case "":
		return Both, nil
	}
	return "", fmt.Errorf("lang %q: want zh, en or both", s)
}

// printers are the languages of l, in the order they are written.
func (l Lang) printers() []*i18n.Printer {
	switch l {
	case Chinese:
		return []*i18n.Printer{i18n.New(i18n.ZH)}
	case English:
		return []*i18n.Printer{i18n.New(i18n.EN)}
	}
	return []*i18n.Printer{i18n.New(i18n.ZH), i18n.New(i18n.EN)}
}
