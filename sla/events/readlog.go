package events

import (
	"fmt"
	"io"
	"strings"
)

// MaxLineErrors is how many malformed lines ReadLog lists before giving up.
const MaxLineErrors = 20

// ReadLog streams a whole log into add, for every consumer of the log (the
// month's report, the provider scorecard) alike. Every malformed line is
// collected (up to MaxLineErrors) and reported with its number, named after
// the log (name:line); any such line, or an error from add (an event that
// contradicts the others), fails the whole read, so nothing is ever built
// from part of a log. lines is how many lines were read.
func ReadLog(name string, r io.Reader, add func(e *Event) error) (lines int, err error) {
	var bad []string
	lines, err = Stream(r, 0, func(e *Event, line int) error {
		if len(bad) > 0 {
			return nil // keep looking for more malformed lines, build nothing
		}
		if err := add(e); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		return nil
	}, func(le *LineError) bool {
		le.File = name
		bad = append(bad, le.Error())
		if len(bad) >= MaxLineErrors {
			bad = append(bad, "(stopped after this many errors)")
			return false
		}
		return true
	})
	if err != nil {
		return lines, fmt.Errorf("%s: %w", name, err)
	}
	if len(bad) > 0 {
		return lines, fmt.Errorf("%d malformed line(s) in the event log, nothing written:\n%s", len(bad), strings.Join(bad, "\n"))
	}
	return lines, nil
}
