package document

import (
	"strings"
	"unicode"
)

// mdText is s as Markdown text that says exactly s: every character that
// CommonMark or GitHub's extensions would read as markup there is escaped,
// so a node id, a provider incident's title, a ticket's or a notice's
// summary or an override's reason — text from outside — is shown as
// written and never becomes raw HTML (<img onerror=…>), an entity, a link
// ([x](javascript:…), <https://…>, a bare www. or https:// address, an
// e-mail address), an image, emphasis, a code span, a block (a heading, a
// list, a quote, a link definition) or a cell boundary of the table it is
// in. Line breaks become spaces: one cell, one line. gpusla's own
// sentences go through it too, since most of them quote outside text; what
// cannot start markup (a "<" before a digit, "[99, 99.5)") is left as it
// is, so the Markdown stays readable as plain text.
func mdText(s string) string { return mdEscape(s, true) }

// mdInline is mdText for text inside a line — a table cell, a value after
// its label — where nothing begins a block, so a leading "#2" or "-3" is
// left as it is.
func mdInline(s string) string { return mdEscape(s, false) }

func mdEscape(s string, block bool) string {
	s = strings.TrimLeft(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s), " \t")
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if mdEscapes(rs, i, block) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdEscapes reports whether rs[i] needs a backslash. Our documents hold no
// link reference definitions, so a bracket is a link only as [text](…);
// a definition could only start a block, where a [ is always escaped.
func mdEscapes(rs []rune, i int, block bool) bool {
	at := func(k int) rune {
		if k < 0 || k >= len(rs) {
			return 0
		}
		return rs[k]
	}
	prev, next := at(i-1), at(i+1)
	switch r := rs[i]; r {
	case '\\', '`', '*', '|', '~', '@':
		// A backslash, a code span, emphasis, a cell boundary,
		// strikethrough; user@example.com is a link to GitHub's autolinker.
		return true
	case '<':
		// An HTML tag, comment or declaration, or an autolink <scheme:…>.
		return unicode.IsLetter(next) || next == '/' || next == '!' || next == '?'
	case '&':
		return unicode.IsLetter(next) || next == '#' // an entity: &lt; &#60;
	case '[':
		return i == 0 && block
	case ']':
		return next == '(' // [text](destination)
	case '_':
		// A run of underscores inside a word (data_disk) or between spaces
		// (a signature line) never emphasises; beside punctuation or at a
		// word's edge it may.
		a, b := i, i
		for a > 0 && rs[a-1] == '_' {
			a--
		}
		for b < len(rs) && rs[b] == '_' {
			b++
		}
		l, r := at(a-1), at(b)
		return a == 0 && block || !(isWord(l) && isWord(r)) && !(isSpace(l) && isSpace(r))
	case '#', '+', '-', '=', '>':
		// At the start they would begin a heading, a list, a rule or a
		// quote; a # after a space may close a heading.
		return i == 0 && block || (r == '#' && prev == ' ')
	case ')':
		// "1) " at the start begins an ordered list.
		return block && i > 0 && allDigits(rs[:i]) && (next == 0 || next == ' ' || next == '\t')
	case '.':
		// "1. " at the start begins an ordered list; www. is a link to
		// GitHub's autolinker.
		return block && i > 0 && allDigits(rs[:i]) && (next == 0 || next == ' ' || next == '\t') ||
			strings.EqualFold(string(rs[max(0, i-3):i]), "www")
	case ':':
		// https://, mailto: and xmpp: are links to GitHub's autolinker.
		return next == '/' || strings.EqualFold(string(rs[max(0, i-6):i]), "mailto") || strings.EqualFold(string(rs[max(0, i-4):i]), "xmpp")
	}
	return false
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isSpace(r rune) bool { return r == 0 || unicode.IsSpace(r) }

func allDigits(rs []rune) bool {
	for _, r := range rs {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// mdCode is s as a Markdown code span: fenced by more backticks than any
// run inside it, so s cannot close it early.
func mdCode(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
