package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpusla/gpusla/sla/events"
)

// maxLineErrors is how many malformed lines are listed before giving up.
const maxLineErrors = 20

// ReadLog streams an event log into the builder. Every malformed line is
// collected (up to maxLineErrors) and reported with its number; any such
// line, or an event that contradicts the others, fails the whole read, so a
// report is never built from part of a log.
func (b *Builder) ReadLog(name string, r io.Reader) error {
	var bad []string
	lines, err := events.Stream(r, 0, func(e *events.Event, line int) error {
		if len(bad) > 0 {
			return nil // keep looking for more malformed lines, build nothing
		}
		if err := b.Add(e); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		return nil
	}, func(le *events.LineError) bool {
		bad = append(bad, fmt.Sprintf("%s:%d: %v", name, le.Line, le.Err))
		if len(bad) >= maxLineErrors {
			bad = append(bad, "(stopped after this many errors)")
			return false
		}
		return true
	})
	b.input.Lines += lines
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d malformed line(s) in the event log, no report written:\n%s", len(bad), strings.Join(bad, "\n"))
	}
	return nil
}
