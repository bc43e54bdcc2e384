package chantext

import (
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
)

// Notices to the team (the month's report, claim-deadline reminders) are
// written here once, as notify.Notice lines of spans, and laid out by each
// channel: Slack's mrkdwn (infra/slack), the robots' markdown (Notice
// below), the webhook's JSON and plain text. A catalog sentence marks its
// strong parts with *…* and its code with `…`; the values put into it are
// never read as markup.

// Private-use runes stand for a value's own '*' and '`' while a sentence's
// markup is read, and are put back in the span's text.
const (
	starHold     = '\uE000'
	backtickHold = '\uE001'
)

var (
	hold    = strings.NewReplacer("*", string(starHold), "`", string(backtickHold))
	release = strings.NewReplacer(string(starHold), "*", string(backtickHold), "`")
)

// spans translates the catalog sentence key with args and splits it at
// its markup into spans.
func spans(p *i18n.Printer, key string, args ...any) notify.Line {
	for i, a := range args {
		switch v := a.(type) {
		case string:
			args[i] = hold.Replace(v)
		case msg.Text:
			args[i] = hold.Replace(p.Text(v))
		}
	}
	s := p.T(key, args...)
	var (
		line         notify.Line
		cur          strings.Builder
		strong, code bool
	)
	flush := func() {
		if cur.Len() > 0 {
			line = append(line, notify.Span{Text: release.Replace(cur.String()), Strong: strong, Code: code})
			cur.Reset()
		}
	}
	for _, r := range s {
		switch {
		case r == '`':
			flush()
			code = !code
		case r == '*' && !code:
			flush()
			strong = !strong
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return line
}

// ReportNotice is the notice of a contract's stored month in lang (the
// contract's report.lang): the claim in a few lines, the nodes below
// target, the evidence's chain head, and where the files are (prefix, the
// month's folder in the report store). pdf, when given, is attached where
// the channel can carry a file.
func ReportNotice(r *report.Report, head string, lang i18n.Lang, prefix string, pdf *notify.File) notify.Notice {
	p := i18n.New(lang)
	n := notify.Notice{Kind: notify.NoticeReport, Month: r.Month, Lang: string(lang), File: pdf}
	// Each instant on its contract's clock, the zone named as the alerts
	// name it.
	stamp := func(c report.Contract) string {
		t, err := time.Parse(time.RFC3339, c.ClaimDeadline)
		if err != nil {
			return p.Stamp(c.ClaimDeadline)
		}
		return wordsOf(string(lang), c.TimeZone).stamp(t)
	}
	add := func(key string, args ...any) { n.Lines = append(n.Lines, spans(p, key, args...)) }
	month := p.Month(r.Month)
	for i, c := range r.Contracts {
		if i == 0 {
			n.Contract, n.Provider = c.Contract, c.Provider
			n.Title = p.T("SLA report %s: %s (%s)", month, c.Provider, c.Contract)
		}
		add("Claim *%s* of %s charged · nodes below %s: %d of %d · tickets breached: %d · file by *%s*",
			p.Money(c.Claim, c.Currency), p.Money(c.Charge, c.Currency), p.Pct(c.UptimeTarget, 2), c.NodesBelow, c.Nodes, c.TicketsBreached, stamp(c))
	}
	if n.Title == "" {
		n.Title = p.T("SLA report %s", month)
	}
	// A partial report says so in the message itself (report.LeftOut).
	for _, l := range r.LeftOut {
		add("⚠️ Partial report: node %s left out, %s", l.Node, l.Text)
	}
	var worst []report.Node
	for _, nd := range r.Nodes {
		if (!nd.Uptime.Met && nd.Uptime.NotJudged == "") || nd.Credit.Amount > 0 {
			worst = append(worst, nd)
		}
	}
	sort.SliceStable(worst, func(i, k int) bool { return worst[i].Uptime.Claimable() < worst[k].Uptime.Claimable() })
	for i, nd := range worst {
		if i == 10 {
			add("… and %d more nodes", len(worst)-10)
			break
		}
		if nd.Uptime.NotJudged != "" {
			add("• %s: no uptime figure (%s), credit %s", nd.Node, p.Word(nd.Uptime.NotJudged), p.Money(nd.Credit.Amount, nd.Currency))
			continue
		}
		add("• %s: claimable uptime %s, credit %s", nd.Node, p.Pct(nd.Uptime.Claimable(), 4), p.Money(nd.Credit.Amount, nd.Currency))
	}
	if head != "" {
		add("Evidence bundle chain head: `%s`", head)
	}
	if prefix != "" {
		add("Report (every format) and evidence bundle: `%s/`", prefix)
	}
	return n
}

// ScorecardLine is the report notice's line pointing at the scorecard
// stored beside the report (name), in lang.
func ScorecardLine(lang i18n.Lang, from, to string, providers int, name string) notify.Line {
	p := i18n.New(lang)
	return spans(p, "Provider scorecard %s to %s (%d providers compared): `%s`", p.Month(from), p.Month(to), providers, name)
}

// ClaimReminder is the notice of a contract's claim deadline in lang (the
// contract's report.lang): lastDay is the last calendar day to file in the
// contract's zone (YYYY-MM-DD), left the time until the deadline (in
// words, to the hour), prefix where the month's report and bundle are. On
// the last day it is urgent.
func ClaimReminder(lang i18n.Lang, c report.Contract, month, lastDay string, left time.Duration, prefix string) notify.Notice {
	w := wordsOf(string(lang), c.TimeZone)
	p := w.p
	day := lastDay
	if d, err := time.Parse("2006-01-02", lastDay); err == nil {
		day = p.Date(d)
	}
	n := notify.Notice{Kind: notify.NoticeClaimReminder, Contract: c.Contract, Provider: c.Provider, Month: month, Lang: string(lang),
		Urgent: left <= 24*time.Hour,
		Title:  "⏰ " + p.T("Claim deadline %s: %s (%s)", p.Month(month), c.Provider, c.Contract)}
	deadline := c.ClaimDeadline
	if t, err := time.Parse(time.RFC3339, c.ClaimDeadline); err == nil {
		deadline = w.stamp(t)
	}
	n.Lines = append(n.Lines,
		spans(p, "Last day to file: *%s*; the claim must be in before %s; %s left.", day, deadline, p.Words(left.Round(time.Hour))))
	if c.Provisional {
		// A window counted from the incident closes before the month's
		// report is written: the figure is the month so far, and no report
		// is stored yet to point to.
		n.Lines = append(n.Lines,
			spans(p, "The month is not over: the claim so far is *%s*. The window counts from the incident, so it closes before the month's report is written; file with the evidence so far.", p.Money(c.Claim, c.Currency)))
		return n
	}
	n.Lines = append(n.Lines,
		spans(p, "Claim: *%s*.", p.Money(c.Claim, c.Currency)),
		spans(p, "Report and evidence bundle: `%s/`", prefix))
	return n
}

// Notice renders a notice in dialect d: its lines in the robot's markdown,
// every span's text escaped, and no more than the robot takes (the last
// lines give way, the cut said).
func Notice(d Dialect, n notify.Notice) Message {
	lv := Info
	if n.Urgent {
		lv = Warning
	}
	m := Message{Title: n.Title, Level: lv}
	var lines []string
	if d.TitleInBody {
		lines = append(lines, "### "+d.Escape(n.Title))
	}
	for _, l := range n.Lines {
		lines = append(lines, d.noticeLine(l))
	}
	m.Body = strings.Join(lines, d.NL)
	if len(m.Body) > d.MaxBytes {
		mark := wordsOf(n.Lang, "").t("… (truncated)")
		m.Body = clipBytes(m.Body, d.MaxBytes-len(d.NL)-len(mark)) + d.NL + mark
	}
	return m
}

// noticeLine lays out one line: strong as bold, code as inline code where
// the robot shows it (WeCom) and as plain text elsewhere, every text
// escaped, and the line's start defused so a value never opens a block.
func (d Dialect) noticeLine(l notify.Line) string {
	var b strings.Builder
	for i, s := range l {
		t := d.Escape(s.Text)
		if i == 0 {
			t = d.lineStart(t)
		}
		switch {
		case s.Strong:
			b.WriteString("**" + t + "**")
		case s.Code && d.code != nil:
			b.WriteString(d.code(s.Text))
		default:
			b.WriteString(t)
		}
	}
	return b.String()
}
