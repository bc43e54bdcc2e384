// Package msg keeps the report's sentences (reasons, evidence, penalties) as
// an English format with typed arguments instead of finished strings, so a
// renderer can translate them through a message catalog (the English format
// is the catalog key) and format their times, durations and numbers for the
// reader's locale. String gives the English the JSON form carries.
//
// It imports nothing of the project's: the domain builds Texts, adapters
// translate them.
//
// On the path from an observation to a report row, this is the wording a
// report row carries: each reason, piece of evidence and penalty, not yet
// translated.
package msg

import (
	"fmt"
	"time"
)

// Text is one sentence: Format is a fmt format in English, Args its
// arguments. Args hold Time, time.Duration, numbers, plain strings (data
// such as a probe's own check detail, which is shown as it came) or nested
// Texts.
type Text struct {
	Format string
	Args   []any
}

// New is a Text; with no args Format is the whole sentence.
func New(format string, args ...any) Text { return Text{Format: format, Args: args} }

// Plain is a Text that is data, not a sentence of ours: it is shown as it
// is in every language (a probe's check detail, a provider's reason).
func Plain(s string) Text { return Text{Format: "%s", Args: []any{s}} }

// IsZero reports whether t holds nothing.
func (t Text) IsZero() bool { return t.Format == "" && len(t.Args) == 0 }

// String is the English sentence.
func (t Text) String() string {
	if len(t.Args) == 0 {
		return t.Format
	}
	return fmt.Sprintf(t.Format, t.Args...)
}

// Strings is the English of each Text.
func Strings(ts []Text) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}

// Time is an instant shown in its own zone: RFC 3339 in English (the form
// the JSON report uses everywhere), the locale's date form elsewhere.
type Time struct{ time.Time }

// At is t in loc.
func At(t time.Time, loc *time.Location) Time { return Time{t.In(loc)} }

// String is RFC 3339 in t's zone.
func (t Time) String() string { return t.Format(time.RFC3339) }

// Word is one of the report's vocabulary words (an incident kind, a cause,
// a status such as "breached"): the word itself in English and in JSON,
// translated on its own elsewhere.
type Word string

// String is the word.
func (w Word) String() string { return string(w) }
