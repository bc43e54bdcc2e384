package notify

import (
	"context"
	"strings"
)

// NoticeKind says what a notice to the team is about: a contract's month
// (its report, a claim deadline), not one incident or ticket. Routes name
// these kinds as they name alert kinds (infra/notify/route).
type NoticeKind string

// Notice kinds.
const (
	NoticeReport        NoticeKind = "report"         // a month's report was stored
	NoticeClaimReminder NoticeKind = "claim_reminder" // a claim deadline is near
	NoticeClaimOverdue  NoticeKind = "claim_overdue"  // a provider let its own deadline on a claim pass
)

// NoticeKinds are every notice kind, in the order routes list them.
var NoticeKinds = []NoticeKind{NoticeReport, NoticeClaimReminder, NoticeClaimOverdue}

// Notice is one message to the team about a contract, already written in
// the contract's language (infra/notify/chantext builds them): a plain
// title and lines of spans, which each channel lays out in its own markup
// and escapes there, so a provider's or contract's name is never markup.
type Notice struct {
	Kind     NoticeKind `json:"kind"`
	Contract string     `json:"contract"`
	Provider string     `json:"provider,omitempty"`
	Month    string     `json:"month,omitempty"` // YYYY-MM, the month it is about
	Title    string     `json:"title"`
	Lines    []Line     `json:"lines"`
	// Urgent: a deadline is at hand (the claim's last day); channels show
	// it in their warning colour.
	Urgent bool `json:"urgent,omitempty"`
	// Lang is the contract's report.lang the text is in ("en", "zh").
	Lang string `json:"lang,omitempty"`
	// File is the document the notice is about (the month's PDF), attached
	// by a channel that can carry a file (Slack with a bot token); the
	// others show the text alone, whose lines say where the files are.
	File *File `json:"-"`
}

// File is a document a notice carries.
type File struct {
	Name  string // e.g. gpusla-2026-11-us-example.pdf
	Title string
	Data  []byte
}

// Line is one line of a notice.
type Line []Span

// Span is a run of text in one style: plain, strong (a figure or deadline
// the reader must not miss) or code (an identifier, a path).
type Span struct {
	Text   string `json:"text"`
	Strong bool   `json:"strong,omitempty"`
	Code   bool   `json:"code,omitempty"`
}

// String is the line as plain text.
func (l Line) String() string {
	var b strings.Builder
	for _, s := range l {
		b.WriteString(s.Text)
	}
	return b.String()
}

// PlainText is the notice as plain text: its title and its lines, one a
// line (the console, the generic webhook's "text").
func (n Notice) PlainText() string {
	var b strings.Builder
	b.WriteString(n.Title)
	for _, l := range n.Lines {
		b.WriteString("\n")
		b.WriteString(l.String())
	}
	return b.String()
}

// NoticePoster posts notices. Every channel implements it (Slack, the
// robots, the webhook, the console). An error means the notice was not
// delivered; the caller retries it on its next run, so an implementation
// must not retry forever itself.
type NoticePoster interface {
	PostNotice(ctx context.Context, n Notice) error
}
