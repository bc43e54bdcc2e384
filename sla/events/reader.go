package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// MaxLineBytes caps one line. An observation holds at most 512 checks, far
// below this; a longer line is an error, not a reason to grow without bound.
const MaxLineBytes = 4 << 20

// LineError says which line of which log is wrong and why. It reads
// "path:N: field: problem", the one form every event-file error takes
// (ReadLog's, the Reader's), as the terms files' errors do.
type LineError struct {
	File string // the log's name (its path, "stdin", "export")
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Reader streams events from a JSON-lines log, one at a time, holding only
// the current line. Blank lines are skipped.
type Reader struct {
	name string
	sc   *bufio.Scanner
	line int
}

// NewReader reads events from r, the log named name (its path), which its
// errors name.
func NewReader(name string, r io.Reader) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	return &Reader{name: name, sc: sc}
}

// Line is the number of the line last read (1-based).
func (r *Reader) Line() int { return r.line }

// Next decodes the next event into e (which is reset first). It returns
// io.EOF after the last event and a *LineError for a malformed line; after a
// LineError the caller may go on reading the following lines.
func (r *Reader) Next(e *Event) error {
	for {
		if !r.sc.Scan() {
			if err := r.sc.Err(); err != nil {
				if errors.Is(err, bufio.ErrTooLong) {
					return &LineError{File: r.name, Line: r.line + 1, Err: fmt.Errorf("line longer than %d bytes", MaxLineBytes)}
				}
				return &LineError{File: r.name, Line: r.line + 1, Err: fmt.Errorf("cannot be read: %w", err)}
			}
			return io.EOF
		}
		r.line++
		b := bytes.TrimSpace(r.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		*e = Event{}
		if err := decodeLine(b, e); err != nil {
			return &LineError{File: r.name, Line: r.line, Err: err}
		}
		if err := e.Validate(); err != nil {
			return &LineError{File: r.name, Line: r.line, Err: err}
		}
		return nil
	}
}

// strict is how a line is read: encoding/json/v2's own semantics
// (go-json-experiment/json, the standard library's v2 as a module), which
// refuse a duplicate member name, invalid UTF-8 (an unpaired surrogate
// escape too), trailing data and nesting past 10,000 levels, and match
// member names exactly; with unknown members refused, a misspelt field
// stops the line instead of vanishing. Every writer of the log (the
// backend's export, Writer below) writes exactly that.
var strict = jsonv2.JoinOptions(jsonv2.RejectUnknownMembers(true))

// decodeLine decodes exactly one JSON object into e (zero on entry); an
// error names the member where it can.
func decodeLine(b []byte, e *Event) error {
	err := jsonv2.Unmarshal(b, e, strict)
	if err == nil {
		return nil
	}
	var se *jsonv2.SemanticError
	var sy *jsontext.SyntacticError
	switch {
	case errors.As(err, &se) && errors.Is(se.Err, jsonv2.ErrUnknownName):
		return &FieldError{Field: fieldOf(se.JSONPointer), Msg: "unknown field (misspelt, or of another version of the log)"}
	case errors.As(err, &se) && se.GoType != nil && se.Err == nil:
		return &FieldError{Field: fieldOf(se.JSONPointer), Msg: fmt.Sprintf("wrong type: JSON %s where %s was expected", kindName(se.JSONKind), se.GoType)}
	case errors.As(err, &se):
		return &FieldError{Field: fieldOf(se.JSONPointer), Msg: strings.TrimPrefix(fmt.Sprint(se.Err), "json: ")}
	case errors.As(err, &sy) && errors.Is(sy.Err, jsontext.ErrDuplicateName):
		return &FieldError{Field: fieldOf(sy.JSONPointer), Msg: "given twice on the line"}
	case errors.As(err, &sy) && strings.Contains(fmt.Sprint(sy.Err), "UTF-8"), errors.As(err, &sy) && strings.Contains(fmt.Sprint(sy.Err), "surrogate"):
		return fmt.Errorf("invalid UTF-8 at byte %d (the event log is UTF-8; the line is damaged): %v", sy.ByteOffset, sy.Err)
	case errors.As(err, &sy) && strings.Contains(fmt.Sprint(sy.Err), "after top-level value"):
		return fmt.Errorf("more than one JSON value on the line (the second at byte %d)", sy.ByteOffset)
	case errors.As(err, &sy) && strings.Contains(fmt.Sprint(sy.Err), "max depth"):
		return fmt.Errorf("not a JSON event: nested more than 10000 levels deep (at byte %d)", sy.ByteOffset)
	case errors.As(err, &sy):
		return fmt.Errorf("not a JSON event: %v at byte %d", sy.Err, sy.ByteOffset)
	}
	return fmt.Errorf("not a JSON event: %w", err)
}

// fieldOf writes a JSON pointer ("/checks/3/number") as the field paths
// the log's other errors use ("checks[3].number").
func fieldOf(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// kindName is a JSON kind in words.
func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}

// Writer writes events as JSON lines. Call Flush at the end.
type Writer struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewWriter writes events to w.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{w: bw, enc: enc}
}

// Write validates e and appends it as one line.
func (w *Writer) Write(e *Event) error {
	if err := e.Validate(); err != nil {
		return fmt.Errorf("event %q (%s): %w", e.ID, e.Type, err)
	}
	return w.enc.Encode(e)
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error { return w.w.Flush() }
