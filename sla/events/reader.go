package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	fastjson "github.com/goccy/go-json"
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
	br   bytes.Reader
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
		if err := decodeStrict(&r.br, b, e); err != nil {
			return &LineError{File: r.name, Line: r.line, Err: err}
		}
		if err := e.Validate(); err != nil {
			return &LineError{File: r.name, Line: r.line, Err: err}
		}
		return nil
	}
}

// decodeStrict decodes exactly one JSON object, rejecting unknown fields (a
// misspelt field would otherwise vanish silently) and trailing data.
//
// Decoding is most of the cost of reading a month of heartbeats, so lines go
// through goccy/go-json first (a drop-in decoder, about twice as fast as
// encoding/json); a line it rejects is decoded again with encoding/json,
// whose errors name the field, for the message.
func decodeStrict(br *bytes.Reader, b []byte, e *Event) error {
	// goccy is lenient with some malformed escapes; the standard scanner
	// (a fraction of a full decode) keeps syntax exactly encoding/json's.
	if !json.Valid(b) {
		return decodeStd(br, b, e, errors.New("invalid JSON"))
	}
	// Every writer of the log (encoding/json in the backend's export, the
	// Writer below) emits UTF-8, so other bytes are damage; they are also
	// what makes goccy's stream decoder index out of its buffer (a panic
	// the fuzzer found: a long key of invalid UTF-8).
	if !utf8.Valid(b) {
		return errors.New("invalid UTF-8 (the event log is UTF-8; the line is damaged)")
	}
	err := decodeFast(br, b, e)
	if err == nil || errors.Is(err, errMoreValues) {
		return err
	}
	*e = Event{}
	return decodeStd(br, b, e, err)
}

// decodeFast is goccy's decode; a panic inside it (a bug of the library on
// some input) becomes an error, and the line is then judged by
// encoding/json like any other the fast decoder rejects.
func decodeFast(br *bytes.Reader, b []byte, e *Event) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("fast decoder failed: %v", r)
		}
	}()
	br.Reset(b)
	dec := fastjson.NewDecoder(br)
	dec.DisallowUnknownFields()
	if err := dec.Decode(e); err != nil {
		return err
	}
	if dec.More() {
		return errMoreValues
	}
	return nil
}

var errMoreValues = errors.New("more than one JSON value on the line")

func decodeStd(br *bytes.Reader, b []byte, e *Event, fastErr error) error {
	br.Reset(b)
	dec := json.NewDecoder(br)
	dec.DisallowUnknownFields()
	if err := dec.Decode(e); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &FieldError{Field: te.Field, Msg: fmt.Sprintf("wrong type: %s where %s was expected", te.Value, te.Type)}
		}
		return fmt.Errorf("not a JSON event: %w", err)
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	// The two decoders disagree; trust the stricter one.
	return fmt.Errorf("not a JSON event: %w", fastErr)
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
