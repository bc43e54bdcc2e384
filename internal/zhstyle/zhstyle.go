// Package zhstyle checks Chinese text against the house style of
// docs/i18n.md: no English word outside the allowed names (products, units,
// identifiers), full-width punctuation beside Chinese, no space between a
// Chinese character and a number (a date before its time excepted), one
// word for the provider (服务商), the zone named as readers name it, and no
// reference to a "原文" the reader was never shown. Tests run it over every
// zh output: chat messages, documents, pages.
package zhstyle

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Allowed are the Latin words a zh text may carry as they are: product and
// protocol names, units, currencies, acronyms a Chinese reader uses in
// Latin letters, and the project's own command names.
var Allowed = []string{
	"GPU", "GPUs", "CPU", "NVIDIA", "SXM", "PCIe", "NVLink", "NCCL", "CUDA", "ECC", "BMC", "HBM", "XID", "Xid", "MIG", "NVML",
	"PCI", "SM", "VBIOS", "vGPU", "UUID", "Ampere", "Hopper", "VM", "Kubernetes", "Pod",
	// NCCL's and CUDA's own names of a measure or an instruction.
	"busbw", "algbw", "NVLS", "wgmma",
	// °C: the degree sign ends a word, leaving its letter.
	"C",
	// Readings named as the system names them (/proc/meminfo's MemTotal).
	"MemTotal",
	"UTC", "SLA", "USD", "CNY", "EUR", "JPY", "HKD", "SGD", "RMB",
	"GB", "GiB", "MB", "MiB", "TB", "TiB", "KB", "Gbps", "Mbps", "GB/s", "MHz", "GHz", "W", "ms", "us", "µs", "μs", "ns", "x",
	"API", "HTTP", "HTTPS", "DNS", "URL", "ID", "IP", "TCP", "UDP", "ICMP", "TLS", "JSON", "CSV", "PDF", "HTML", "YAML", "SHA", "HMAC", "RSS",
	"AWS", "SSH", "IANA", "ISO", "RFC",
	"iperf", "ping", "curl", "dmon", "gpustat", "bandwidthTest", "PyTorch", "HEAD", "GET", "POST",
	"gpuprobe", "gpusla", "Slack", "Feishu", "Lark", "DingTalk", "WeCom",
	// The language switch names English in English; feed and file formats
	// are their names; a figure's unit and its count of observations (n).
	"English", "Atom", "RTT", "html", "json", "csv", "md", "pdf", "min", "h", "n",
}

var (
	han = func(r rune) bool { return unicode.Is(unicode.Han, r) }
	// fullWidthPunct are the Chinese marks that take no space beside them.
	fullWidthPunct = "，。；：！？（）【】《》「」『』、“”‘’"
	halfPunct      = ",;:!?()"
	// dateTime is a date written 2026年3月5日 before its clock 14:00: the
	// house style's one space between CJK and a number.
	dateThenTime = regexp.MustCompile(`日 \d{1,2}:\d\d`)
	latinDash    = regexp.MustCompile(`\p{Han} — \p{Han}`)
	// codeSpan is an inline code span, `…` or as a Markdown table cell
	// escapes it, \`…\`.
	codeSpan = regexp.MustCompile("\\\\?`[^`\n]+?\\\\?`")
	// unseenOriginal is 原文 not followed by the text it names.
	unseenOriginal = regexp.MustCompile(`原文(?:[^为是：:“"「]|$)|原文[为是](?:[^：:“"「]|$)`)
	// number is a number standing on its own at the start of a text (30 in
	// "30分钟", not H100 or gz-01); numberBefore the same at its end.
	number       = regexp.MustCompile(`^[\d.,:%]+(?:[^\x00-\x7f]|[\s)]|$)`)
	numberBefore = regexp.MustCompile(`(?:^|[^\x00-\x7f]|\s)[\d.,:%]*\d%?$`)
)

// Finding is one departure from the style, with the text around it.
type Finding struct {
	Rule, Context string
}

func (f Finding) String() string { return f.Rule + ": …" + f.Context + "…" }

// Check returns every departure in text. data are strings the text carries
// as given (a provider's name, a renter's own words, a probe's reading):
// they are taken out before the words are checked, and only the words.
func Check(text string, data ...string) []Finding {
	var out []Finding
	out = append(out, latin(text, data)...)
	out = append(out, punctuation(text)...)
	out = append(out, spaces(text)...)
	// 原文 only where the text itself follows (原文为：“…”).
	for _, m := range unseenOriginal.FindAllStringIndex(text, -1) {
		out = append(out, Finding{"no reference to a 原文 the reader was never shown", around(text, m[0], m[1]-m[0])})
	}
	for _, m := range latinDash.FindAllStringIndex(text, -1) {
		out = append(out, Finding{"a Latin dash between Chinese (write ——)", around(text, m[0], m[1]-m[0])})
	}
	for _, w := range []struct{ bad, rule string }{
		{"供应商", "the provider is 服务商, one word for one thing"},
		{"（Asia/", "the zone named as readers name it (北京时间), not its IANA name"},
		{"（America/", "the zone named as readers name it (美国东部时间), not its IANA name"},
		{"（Europe/", "the zone named as readers name it, not its IANA name"},
	} {
		for i := strings.Index(text, w.bad); i >= 0; {
			out = append(out, Finding{w.rule, around(text, i, len(w.bad))})
			j := strings.Index(text[i+len(w.bad):], w.bad)
			if j < 0 {
				break
			}
			i += len(w.bad) + j
		}
	}
	return out
}

// latin finds English words: runs of letters that are no identifier (an
// identifier has a digit, '.', '_', '-', '/', '@', '=' or '~' inside it:
// gz-01, gpu.xid, acme_gpu, cn-example.yaml) and not in Allowed.
func latin(text string, data []string) []Finding {
	// A code span is what the reader types (`gpuprobe trial --expect …`),
	// Markdown-escaped or not: its words are the command's, not prose.
	text = codeSpan.ReplaceAllString(text, " ")
	for _, d := range data {
		if d != "" {
			// Whole words only: data "ta" leaves "total" to be judged.
			text = wholeWord(d).ReplaceAllString(text, "$1 $2")
		}
	}
	var out []Finding
	seen := map[string]bool{}
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool {
		// µ and μ belong to their unit (µs); other non-ASCII ends a word.
		return unicode.IsSpace(r) || r > unicode.MaxASCII && r != 'µ' && r != 'μ' || strings.ContainsRune("()[]{},;:\"'`*|<>!?&", r)
	}) {
		tok = strings.Trim(tok, ".#+%$")
		if tok == "" || strings.ContainsAny(tok, "0123456789._-/@=~\\") || !strings.ContainsFunc(tok, unicode.IsLetter) {
			continue
		}
		if slices.Contains(Allowed, tok) || seen[tok] {
			continue
		}
		seen[tok] = true
		i := strings.Index(text, tok)
		out = append(out, Finding{fmt.Sprintf("an English word %q", tok), around(text, i, len(tok))})
	}
	return out
}

// punctuation finds a half-width mark beside a Chinese character, and a
// space beside a full-width mark.
func punctuation(text string) []Finding {
	var out []Finding
	prev := rune(0)
	for i, r := range text {
		next, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):])
		// The nearest characters on either side, past one space.
		before, after := prev, next
		if before == ' ' {
			before, _ = utf8.DecodeLastRuneInString(strings.TrimSuffix(text[:i], " "))
		}
		if after == ' ' {
			after, _ = utf8.DecodeRuneInString(text[i+2:])
		}
		switch {
		case strings.ContainsRune(halfPunct, r) && (han(before) || han(after)):
			out = append(out, Finding{fmt.Sprintf("half-width %q beside Chinese", r), around(text, i, 1)})
		case r == ' ' && (strings.ContainsRune(fullWidthPunct, prev) || strings.ContainsRune(fullWidthPunct, next)):
			out = append(out, Finding{"a space beside full-width punctuation", around(text, i, 1)})
		}
		prev = r
	}
	return out
}

// spaces finds a space between a Chinese character and a number, either
// way round; a date before its clock keeps its one space.
func spaces(text string) []Finding {
	var out []Finding
	prev := rune(0)
	for i, r := range text {
		if r != ' ' {
			prev = r
			continue
		}
		next, _ := utf8.DecodeRuneInString(text[i+1:])
		if han(prev) && number.MatchString(text[i+1:]) && !dateThenTime.MatchString(text[i-len("日"):min(len(text), i+7)]) ||
			han(next) && numberBefore.MatchString(text[:i]) {
			out = append(out, Finding{"a space between Chinese and a number", around(text, i, 1)})
		}
		prev = r
	}
	return out
}

// around is the text near [i, i+n), for a finding.
func around(text string, i, n int) string {
	a, b := max(0, i-24), min(len(text), i+n+24)
	for a > 0 && !utf8.RuneStart(text[a]) {
		a--
	}
	for b < len(text) && !utf8.RuneStart(text[b]) {
		b++
	}
	return strings.ReplaceAll(text[a:b], "\n", "⏎")
}

// wholeWord matches d where it is not part of a longer Latin word.
func wholeWord(d string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^A-Za-z])` + regexp.QuoteMeta(d) + `($|[^A-Za-z])`)
}
