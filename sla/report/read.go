package report

import (
	"io"

	"github.com/gpusla/gpusla/sla/events"
)

// ReadLog streams an event log into the builder (events.ReadLog: every
// malformed line is reported with its number; any such line, or an event
// that contradicts the others, fails the whole read, so a report is never
// built from part of a log).
func (b *Builder) ReadLog(name string, r io.Reader) error {
	lines, err := events.ReadLog(name, r, b.Add)
	b.input.Lines += lines
	return err
}

// CountLines records lines read by a caller that streams the log itself
// and feeds Add (the scorecard feeds every month's builder from one read),
// so the report's input says what ReadLog would have.
func (b *Builder) CountLines(lines int) { b.input.Lines += lines }
