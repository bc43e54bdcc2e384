package scorecard

import (
	"encoding/json"
	"io"
)

// JSON writes the scorecard as indented JSON (docs/scorecard.md).
func JSON(w io.Writer, sc *Scorecard) error { return indented(w, sc) }

// Named is a rankable figure with the key that names it in too_few lists
// and in the comparison table.
type Named struct {
	Key    string
	Figure *Figure
}

// Figures lists every rankable figure of d, in the order the documents
// show them.
func (d *Dimensions) Figures() []Named {
	ks := figures(d)
	out := make([]Named, len(ks))
	for i, k := range ks {
		out[i] = Named{Key: k.key, Figure: k.f}
	}
	return out
}

// TrialJSON writes the trial page as indented JSON (docs/scorecard.md).
func TrialJSON(w io.Writer, tr *Trial) error { return indented(w, tr) }

func indented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
