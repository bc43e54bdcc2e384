package events

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// A line is decoded by goccy/go-json's Unmarshal, which works on the line's
// bytes in place (its stream decoder, the only one that refuses unknown
// members, reads through a buffer it grows afresh for every line, and was a
// third of the cost of a year's scorecard). Unmarshal skips a member it does
// not know, so the members are checked first, here: a misspelt field must
// refuse the line, not vanish. Only a line whose every member is named
// exactly as the Go types name it (as every writer of the log writes it)
// takes that way; any other name, a misspelt one, one in other letter case
// or with an escape, sends the line to the stream decoder, which judges it
// as it always has.
//
// The check runs only over a line jsontext has already found valid, so it
// needs to know no more of JSON than where strings, objects and arrays begin
// and end (jsontext's token reader, which could tell it the same, costs more
// than the whole decode). Which members exist comes from the Go types by
// reflection, as encoding/json finds them, so a field added to Event is
// known here without a second list.

// members is the shape of an object the decoder fills: its members by
// name, each with the shape of its value where that is an object (or an
// array of objects) whose members matter too.
type members struct {
	byLen [][]member // by name length: names are matched by length first
	array bool       // the value is an array of such objects ([]Check)
}

type member struct {
	name  string   // the JSON name
	field int      // the Go field's index in its struct
	sub   *members // nil: a value whose members are not checked (a string, a time, a number)
}

var eventMembers = membersOf(reflect.TypeFor[Event]())

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// membersOf lists a struct type's JSON members the way encoding/json does:
// exported fields, named by their tag's name or else the field's. A type
// that decodes itself (time.Time) is a value, not an object of members.
func membersOf(t reflect.Type) *members {
	m := &members{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			// encoding/json promotes an embedded struct's fields; none of
			// the event types embeds one, and a silent mismatch here would
			// refuse good lines or pass a misspelt one.
			panic(fmt.Sprintf("events: embedded field %s.%s: the member check does not handle embedding", t.Name(), f.Name))
		}
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		var sub *members
		ft, array := f.Type, false
		if ft.Kind() == reflect.Slice {
			ft, array = ft.Elem(), true
		}
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && !reflect.PointerTo(ft).Implements(jsonUnmarshaler) && !reflect.PointerTo(ft).Implements(textUnmarshaler) {
			if array && ft.NumField() > 64 {
				panic(fmt.Sprintf("events: %s has more than 64 fields: scan.present holds a bit per field", ft.Name()))
			}
			sub = membersOf(ft)
			sub.array = array
		}
		for len(m.byLen) <= len(name) {
			m.byLen = append(m.byLen, nil)
		}
		m.byLen[len(name)] = append(m.byLen[len(name)], member{name: name, field: i, sub: sub})
	}
	return m
}

// find finds the member named exactly raw (the bytes between its quotes).
func (m *members) find(raw []byte) (*member, bool) {
	if len(raw) >= len(m.byLen) {
		return nil, false
	}
	for i := range m.byLen[len(raw)] {
		if c := &m.byLen[len(raw)][i]; c.name == string(raw) {
			return c, true
		}
	}
	return nil, false
}

// scan is what plainMembers learns of a line besides whether it is plain.
type scan struct {
	// checks is the most elements any "checks" array of the line holds,
	// for sizing the slice before the decode.
	checks int
	// present[k] has bit f set where element k of a "checks" array names
	// the Check's field f (any of the arrays, if the line repeats the
	// member: encoding/json merges them element by element).
	present []uint64
}

// plainMembers reports whether every member name of b, a valid JSON text,
// is exactly the name of a field of Event (or of its Hardware, or of one of
// its Checks, as their place in b says), and fills sc. A text that is not
// an object has no members to check.
func plainMembers(b []byte, sc *scan) bool {
	sc.checks, sc.present = 0, sc.present[:0]
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return true
	}
	_, plain := scanObject(b, i, eventMembers, sc, -1)
	return plain
}

// scanObject scans the object at b[i] == '{' against m and returns the
// offset after it; plain is false at the first member m does not name.
// elem >= 0 is the object's index in the event's checks array, whose
// members it records in sc.present.
func scanObject(b []byte, i int, m *members, sc *scan, elem int) (next int, plain bool) {
	i = skipSpace(b, i+1)
	if b[i] == '}' {
		return i + 1, true
	}
	for {
		end := stringEnd(b, i)
		f, ok := m.find(b[i+1 : end-1])
		if !ok {
			return 0, false
		}
		if elem >= 0 {
			sc.present[elem] |= 1 << f.field
		}
		i = skipSpace(b, end)
		i = skipSpace(b, i+1) // past the colon
		switch {
		case f.sub != nil && f.sub.array && b[i] == '[':
			n := 0
			i = skipSpace(b, i+1)
			for b[i] != ']' {
				if b[i] == '{' {
					in := -1
					if m == eventMembers { // the event's checks
						for len(sc.present) <= n {
							sc.present = append(sc.present, 0)
						}
						in = n
					}
					if i, ok = scanObject(b, i, f.sub, sc, in); !ok {
						return 0, false
					}
				} else {
					i = skipValue(b, i)
				}
				n++
				i = skipSpace(b, i)
				if b[i] == ',' {
					i = skipSpace(b, i+1)
				}
			}
			i++
			if m == eventMembers {
				sc.checks = max(sc.checks, n)
			}
		case f.sub != nil && !f.sub.array && b[i] == '{':
			if i, ok = scanObject(b, i, f.sub, sc, -1); !ok {
				return 0, false
			}
		default:
			i = skipValue(b, i)
		}
		i = skipSpace(b, i)
		if b[i] == '}' {
			return i + 1, true
		}
		i = skipSpace(b, i+1) // past the comma
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the offset after the string at b[i] == '"'.
func stringEnd(b []byte, i int) int {
	for i++; ; i++ {
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i++ // the escaped byte ('"' or '\\' among them)
		}
	}
}

// skipValue returns the offset after the value at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	default: // a number, true, false, null
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}
