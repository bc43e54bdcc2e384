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
