package i18n

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tidyZH sets a Chinese sentence by the house style (docs/i18n.md) once its
// arguments are in: no space between a Chinese character and a number
// (持续30分钟, 低于99.5%), none beside full-width punctuation, and a dash
// between Chinese written ——; the one space kept is a date's before its
// clock (2026年3月5日 14:00:00). Spaces between Chinese and Latin words or
// identifiers stay (gz-01 已恢复, 每 GPU 小时).
func tidyZH(s string) string {
	if !strings.Contains(s, " ") {
		return s
	}
	s = strings.ReplaceAll(s, " — ", "\x00")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == '\x00' {
			prev, _ := utf8.DecodeLastRuneInString(b.String())
			next, _ := utf8.DecodeRuneInString(s[i+n:])
			if isHan(prev) && isHan(next) || isFullPunct(prev) && isHan(next) {
				b.WriteString("——")
			} else {
				b.WriteString(" — ")
			}
			i += n
			continue
		}
		if r == ' ' && dropSpace(b.String(), s[i+n:]) {
			i += n
			continue
		}
		b.WriteRune(r)
		i += n
	}
	return b.String()
}

// dropSpace says whether the space between before and after goes.
func dropSpace(before, after string) bool {
	prev, _ := utf8.DecodeLastRuneInString(before)
	next, _ := utf8.DecodeRuneInString(after)
	switch {
	case isFullPunct(prev) || isFullPunct(next), isHan(prev) && isHan(next):
		return true
	case isHan(prev) && leadingNumber(strings.TrimLeft(after, "*`")): // markup around a figure: *900.00 CNY*
		return !(prev == '日' && clockAhead(after)) // 2026年3月5日 14:00
	case isHan(next) && trailingNumber(strings.TrimRight(before, "*`")):
		return true
	case isHan(afterMarkup(after)) && trailingNumber(before):
		return true
	}
	return false
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

func isFullPunct(r rune) bool {
	return strings.ContainsRune("，。；：！？（）【】《》「」、“”‘’", r)
}

// leadingNumber: s starts with a number that stands on its own (30 in
// "30分钟", 99.5%), not a word or identifier with digits (H100, gz-01).
func leadingNumber(s string) bool {
	s = strings.TrimLeft(s, "≥≤<>") // a bound is part of its figure: 可用率≥99%
	j := 0
	for j < len(s) && strings.IndexByte("0123456789.,:%+−-", s[j]) >= 0 {
		j++
	}
	if j == 0 || !unicode.IsDigit(rune(s[0])) && s[0] != '+' {
		return false
	}
	rest, _ := utf8.DecodeRuneInString(s[j:])
	return j == len(s) || rest > unicode.MaxASCII || rest == ' ' || rest == ')'
}

// trailingNumber: s ends with a number standing on its own.
func trailingNumber(s string) bool {
	j := len(s)
	for j > 0 && strings.IndexByte("0123456789.,:%", s[j-1]) >= 0 {
		j--
	}
	if j == len(s) || !strings.ContainsAny(s[j:], "0123456789") {
		return false
	}
	prev, _ := utf8.DecodeLastRuneInString(strings.TrimRight(s[:j], "≥≤<>"))
	return j == 0 || prev > unicode.MaxASCII || prev == ' ' || prev == '(' || prev == utf8.RuneError
}

// clockAhead: s starts with a clock, 14:00.
func clockAhead(s string) bool {
	i := 0
	for i < len(s) && i < 2 && unicode.IsDigit(rune(s[i])) {
		i++
	}
	return i > 0 && i+2 < len(s) && s[i] == ':' && unicode.IsDigit(rune(s[i+1]))
}

// afterMarkup is the first rune of s past emphasis or code marks.
func afterMarkup(s string) rune {
	r, _ := utf8.DecodeRuneInString(strings.TrimLeft(s, "*`"))
	return r
}
