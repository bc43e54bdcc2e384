package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
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
	dec  lineDecoder
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
		if err := r.dec.decode(b, e); err != nil {
			return &LineError{File: r.name, Line: r.line, Err: err}
		}
		if err := e.Validate(); err != nil {
			return &LineError{File: r.name, Line: r.line, Err: err}
		}
		return nil
	}
}

// lineDecoder decodes lines one at a time, keeping what it reuses across
// them: one per goroutine (the Reader has one, each of Stream's workers one).
type lineDecoder struct {
	br    bytes.Reader // encoding/json reads the line through it
	names interner
	scan  scan
}

// decode decodes exactly one JSON object into e (zero on entry), rejecting
// unknown fields (a misspelt field would otherwise vanish silently) and
// trailing data.
//
// Decoding is most of the cost of reading a month of heartbeats, so lines go
// through goccy/go-json first (a drop-in decoder, about twice as fast as
// encoding/json); a line it rejects is decoded again with encoding/json,
// whose errors name the field, for the message.
func (d *lineDecoder) decode(b []byte, e *Event) error {
	// goccy is lenient with some malformed escapes, so the syntax is
	// checked first, by encoding/json/v2's tokenizer (go-json-experiment is
	// its mirror) set to v1's grammar: duplicate names and invalid UTF-8
	// allowed, as encoding/json allows them. It accepts exactly what
	// json.Valid accepts (FuzzDecodeAgreement, TestSyntaxAgreesWithValid)
	// in well under half json.Valid's time.
	if !validV1(b) {
		return decodeStd(&d.br, b, e, errors.New("invalid JSON"))
	}
	// Every writer of the log (encoding/json in the backend's export, the
	// Writer below) emits UTF-8, so other bytes are damage; they are also
	// what made goccy's stream decoder index out of its buffer (a panic the
	// fuzzer found: a long key of invalid UTF-8).
	if !utf8.Valid(b) {
		return errors.New("invalid UTF-8 (the event log is UTF-8; the line is damaged)")
	}
	err := d.decodeFast(b, e)
	if err == nil {
		return nil
	}
	*e = Event{}
	return decodeStd(&d.br, b, e, err)
}

// v1Syntax is encoding/json's grammar in jsontext's terms.
var v1Syntax = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

func validV1(b []byte) bool { return jsontext.Value(b).IsValid(v1Syntax...) }

// decodeFast decodes a line whose members are all named exactly
// (members.go) with goccy's Unmarshal, any other with goccy's stream
// decoder (decodeStream); a line Unmarshal refuses gets the stream decoder
// too, so that a line reads alike whichever way it takes
// (FuzzDecodeAgreement). A panic inside either (a bug of the library on
// some input) becomes an error, and the line is then judged by
// encoding/json like any other the fast decoder rejects.
func (d *lineDecoder) decodeFast(b []byte, e *Event) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("fast decoder failed: %v", r)
		}
	}()
	if plainMembers(b, &d.scan) {
		d.presize(e)
		if fastjson.Unmarshal(b, e) == nil {
			d.own(e)
			return nil
		}
		*e = Event{}
	}
	return d.decodeStream(b, e)
}

// Bits of scan.present: the Check fields decoded through a pointer.
var (
	numberBit = uint64(1) << fieldIndex[Check]("Number")
	gpuBit    = uint64(1) << fieldIndex[Check]("GPU")
)

func fieldIndex[T any](name string) int {
	f, ok := reflect.TypeFor[T]().FieldByName(name)
	if !ok {
		panic("events: no field " + name)
	}
	return f.Index[0]
}

// presize readies e for goccy's Unmarshal of a plain line: the checks
// slice as long as the line's longest "checks" array, each Number and GPU
// the line names pointing into one array for the event. Decoded into
// elements that exist, goccy neither allocates a zero Check per element
// nor grows the slice by doubling, and into a pointer that is set it
// decodes what it points to, as encoding/json does, instead of allocating
// a float64 or an int for each (a stress run has 56 of each). Elements
// past the array's length are left out of the slice, as encoding/json
// leaves them; a member the line does not name leaves its pointer nil.
func (d *lineDecoder) presize(e *Event) {
	if d.scan.checks == 0 {
		return
	}
	e.Checks = make([]Check, d.scan.checks)
	nums, gpus := 0, 0
	for _, p := range d.scan.present {
		if p&numberBit != 0 {
			nums++
		}
		if p&gpuBit != 0 {
			gpus++
		}
	}
	nb, gb := make([]float64, nums), make([]int, gpus)
	for k, p := range d.scan.present {
		c := &e.Checks[k]
		if p&numberBit != 0 {
			c.Number, nb = &nb[0], nb[1:]
		}
		if p&gpuBit != 0 {
			c.GPU, gb = &gb[0], gb[1:]
		}
	}
}

// decodeStream is goccy's stream decoder, the one that refuses an unknown
// member (naming it); it was the only decoder before Unmarshal took the
// plain lines.
func (d *lineDecoder) decodeStream(b []byte, e *Event) error {
	d.br.Reset(b)
	dec := fastjson.NewDecoder(&d.br)
	dec.DisallowUnknownFields()
	if err := dec.Decode(e); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	d.own(e)
	return nil
}

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
