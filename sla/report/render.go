package report

import (
	"encoding/json"
	"io"
)

// JSON writes the stable JSON form (docs/reports.md).
func JSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
