package chantext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dialect is one robot's markdown: how user text is made inert, how lines
// break, how a quote looks, whether the title belongs in the body, and how
// long a body may be.
type Dialect struct {
	Name string
	// inline escapes user text inside a line.
	inline func(string) string
	// lineStart escapes what would start a block (heading, list, quote)
	// when it opens a line.
	lineStart func(string) string
	// NL ends a line so the robot shows a line break.
	NL string
	// quote renders an already escaped line as a quotation.
	quote func(string) string
	// TitleInBody: the robot shows no title of its own (WeCom) or only in
	// the notification preview (DingTalk), so the body opens with it.
	TitleInBody bool
	// MaxBytes bounds the body (UTF-8 bytes) the robot accepts.
	MaxBytes int
	// LinksInBody: the robot's markdown message has no buttons (WeCom), so
	// a button becomes a markdown link line in the body.
	LinksInBody bool
	// code shows an identifier or path as inline code; nil where the
	// robot's markdown has none (it is then plain, escaped text).
	code func(string) string
	// Bullet opens a list item: the markdown list where the robot renders
	// one (Feishu's card), a plain bullet where it does not reliably
	// (DingTalk and WeCom show "- " as typed, or not at all).
	Bullet string
}

// link is a button as a markdown link. The URL is ours (a signed link of
// this backend), never user text; ')' and whitespace, which would end it
// early, are percent-encoded all the same.
func (d Dialect) link(b Button) string {
	u := strings.NewReplacer(")", "%29", "(", "%28", " ", "%20", "\n", "%0A").Replace(b.URL)
	return "[" + d.inline(b.Label) + "](" + u + ")"
}

// Escape makes s inert inside one line: newlines become spaces (a value must
// not open a block of its own) and markup characters are escaped. Inline
// values never start a line in our layouts ("**Node:** " or "- " precedes
// them), so line-start markers need no care here.
func (d Dialect) Escape(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	return d.inline(s)
}

// EscapeBlock makes multi-line user text inert: each line is escaped, a
// line that would open a block is defused, and lines are joined with NL.
func (d Dialect) EscapeBlock(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue // blank lines would end a list or quote we are in
		}
		out = append(out, d.lineStart(d.inline(strings.TrimLeft(l, " \t"))))
	}
	return strings.Join(out, d.NL)
}

// Quote renders escaped text as a quotation.
func (d Dialect) Quote(escaped string) string { return d.quote(escaped) }

// lookalikes make user text inert in DingTalk's and WeCom's markdown,
// which do not honour CommonMark's backslash escapes (a "\<" shows its
// backslash): each character that opens inline markup becomes its
// full-width or mathematical twin, which reads the same and means nothing
// to either renderer. Ordinary text (dates, dots, dashes) is left alone.
var lookalikes = strings.NewReplacer(
	`\`, "＼", "`", "ˋ", `*`, "∗", `[`, "［", `]`, "］",
	`<`, "＜", `>`, "＞", `~`, "～", `|`, "｜",
)

// underscores escapes each '_' that could open or close emphasis: one at a
// word's edge. An '_' inside a word ("acme_gpu", "gpu_lost@…") never does in
// CommonMark or GFM, so ids stay as they are.
func underscores(s, as string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	r := []rune(s)
	var b strings.Builder
	word := func(i int) bool { return i >= 0 && i < len(r) && (unicode.IsLetter(r[i]) || unicode.IsDigit(r[i])) }
	for i, c := range r {
		if c == '_' && !(word(i-1) && word(i+1)) {
			b.WriteString(as)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// lookalikeLineStart defuses what opens a block at the start of a line in
// DingTalk and WeCom: headings, quotes, lists, thematic breaks, with the
// same full-width twins.
func lookalikeLineStart(s string) string {
	return defuseLineStart(s, map[byte]string{'#': "＃", '-': "－", '+': "＋", '=': "＝", '.': "．", ')': "）"})
}

// defuseLineStart replaces the character that makes s open a block: its
// first (a heading, list or rule marker in as), or the one after its
// leading digits ("1. ", "1) ": an ordered list).
func defuseLineStart(s string, as map[byte]string) string {
	if s == "" {
		return s
	}
	if r, ok := as[s[0]]; ok && s[0] != '.' && s[0] != ')' {
		return r + s[1:]
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i == len(s) || (s[i] != '.' && s[i] != ')') {
		return s
	}
	if r, ok := as[s[i]]; ok {
		return s[:i] + r + s[i+1:]
	}
	return s
}

// feishuEntities escapes for Feishu/Lark card markdown, which documents HTML
// character references (&#42; for *, &lt; for <) as the way to show markup
// characters; '<' also stops <at id=all> and <font> tags from user text.
var feishuEntities = strings.NewReplacer(
	`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `*`, "&#42;", `~`, "&#126;",
	"`", "&#96;", `[`, "&#91;", `]`, "&#93;", `\`, "&#92;", `$`, "&#36;",
)

func feishuLineStart(s string) string {
	return defuseLineStart(s, map[byte]string{'#': "&#35;", '-': "&#45;", '+': "&#43;", '.': "&#46;"})
}

func lookalikeInline(s string) string { return underscores(lookalikes.Replace(s), "＿") }

// The dialects.
var (
	// Feishu is Feishu/Lark's interactive card markdown element: the card
	// header carries the title; no blockquote, so a quote is grey text.
	Feishu = Dialect{Name: "feishu", inline: func(s string) string { return underscores(feishuEntities.Replace(s), "&#95;") }, lineStart: feishuLineStart, NL: "\n",
		quote: func(s string) string { return "<font color='grey'>↳ " + s + "</font>" }, MaxBytes: 20000, Bullet: "- "}
	// DingTalk is the custom robot's markdown message: markdown.title shows
	// only in the notification, so the text opens with a heading; a single
	// newline does not break a line there, an empty line does.
	DingTalk = Dialect{Name: "dingtalk", inline: lookalikeInline, lineStart: lookalikeLineStart, NL: "\n\n",
		quote: func(s string) string { return "> " + s }, TitleInBody: true, MaxBytes: 18000, Bullet: "• "}
	// WeCom is the group robot's markdown message (content at most 4096
	// bytes, per its documentation).
	WeCom = Dialect{Name: "wecom", inline: lookalikeInline, lineStart: lookalikeLineStart, NL: "\n",
		quote: func(s string) string { return "> " + s }, TitleInBody: true, MaxBytes: 4096, LinksInBody: true, Bullet: "• ",
		code: weComCode}
)

// weComCode is WeCom's inline code (its markdown documents "行内代码段"):
// the text as typed, on one line, a backtick in it (which would end the
// code early) replaced by its look-alike.
func weComCode(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ", "`", "ˋ").Replace(s)
	return "`" + s + "`"
}

// Clip cuts s to at most n characters, marking the cut with "…": the
// robots' cut, for a channel that bounds a field of its own.
func Clip(s string, n int) string { return clip(s, n) }

// clip cuts s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
