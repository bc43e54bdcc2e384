package report

import (
	"errors"
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
	rd := events.NewReader(r)
	var bad []string
	var e events.Event
	for {
		err := rd.Next(&e)
		if err == io.EOF {
			break
		}
		var le *events.LineError
		if errors.As(err, &le) {
			bad = append(bad, fmt.Sprintf("%s:%d: %v", name, le.Line, le.Err))
			if len(bad) >= maxLineErrors {
				bad = append(bad, "(stopped after this many errors)")
				break
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(bad) > 0 {
			continue // keep looking for more malformed lines, build nothing
		}
		if err := b.Add(&e); err != nil {
			return fmt.Errorf("%s:%d: %w", name, rd.Line(), err)
		}
	}
	b.input.Lines += rd.Line()
	if len(bad) > 0 {
		return fmt.Errorf("%d malformed line(s) in the event log, no report written:\n%s", len(bad), strings.Join(bad, "\n"))
	}
	return nil
}
