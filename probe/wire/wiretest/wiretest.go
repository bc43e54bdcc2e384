// Package wiretest gives every sentence of the probe's (wire.Sentences)
// coded with sample arguments, for the tests of everything that renders a
// probe's check texts in the reader's language: the chat alerts, the
// status page, the report, the trial page.
package wiretest

import (
	"fmt"
	"strings"

	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/msg"
)

// Sample is one sentence with sample arguments: Text its coded form, En
// its English (what the probe sends beside it), Data the strings among its
// arguments (data, shown as they are in every language).
type Sample struct {
	Text wire.Text
	En   string
	Data []string
}

// Samples are every sentence of the probe's, in wire.Sentences' order. A
// number argument is 8 and up for an integer verb, 141.5 and up for a
// float one; a string argument is an identifier (gz-01, gz-02, …), as the
// probe's data mostly is (a host, a path, a model id).
func Samples() []Sample {
	out := make([]Sample, 0, len(wire.Sentences))
	for _, key := range wire.Sentences {
		vs, err := msg.VerbsOf(key)
		if err != nil {
			panic(fmt.Sprintf("wiretest: %q: %v", key, err))
		}
		var args []any
		var data []string
		for i, v := range vs {
			switch {
			case strings.ContainsRune("dxXob", v):
				args = append(args, 8+i)
			case strings.ContainsRune("efgEFG", v):
				args = append(args, 141.5+float64(i))
			default:
				d := fmt.Sprintf("gz-%02d", i+1)
				args = append(args, d)
				data = append(data, d)
			}
		}
		t := wire.T(key, args...)
		out = append(out, Sample{Text: t, En: t.String(), Data: data})
	}
	return out
}
