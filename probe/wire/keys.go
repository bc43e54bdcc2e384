package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// encoding/json keeps the last of a key given twice in one object, and
// matches a key to a field regardless of case ("SEQ", "Seq", even "ſeq"
// with the long s, all set seq). A signed body is evidence that others
// read with other parsers, some of which keep the first: a body whose two
// "verdict"s say pass and fail says both, and which one counted would be
// the parser's choice. So a body the backend takes spells every key once
// per object and as the protocol does — lowercase ASCII letters, digits
// and '_' — and anything else is refused, naming the key, before it is
// decoded. Unknown keys so spelled are still ignored: a newer probe's
// optional field reaches an older backend that way.

// CheckKeys refuses a JSON body with a key given twice in one object, or a
// key spelled otherwise than in lowercase ASCII letters, digits and '_',
// as a *FieldError naming it; nil if there is none, or if the body is not
// JSON (the decoder names that).
func CheckKeys(body []byte) error {
	if keysPlain(body) {
		return nil
	}
	if field, why, ok := scanKeys(body); !ok {
		return &FieldError{Field: field, Msg: why}
	}
	return nil
}

// keysPlain is CheckKeys' quick pass over the bytes: true when every key is
// plain and once in its object, or when the body is not JSON it can follow
// (the decoder refuses that). False sends the body to scanKeys, which names
// the key.
func keysPlain(body []byte) bool {
	// keys holds the keys of the open objects, as offsets into body, the
	// innermost last; open the index in keys where each open object's
	// begin, -1 for an array.
	var (
		keys [][2]int
		open []int
	)
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '{':
			open = append(open, len(keys))
		case '[':
			open = append(open, -1)
		case '}', ']':
			if len(open) == 0 {
				return true
			}
			if from := open[len(open)-1]; from >= 0 {
				keys = keys[:from]
			}
			open = open[:len(open)-1]
		case '"':
			j := i + 1
			for {
				q := bytes.IndexByte(body[j:], '"')
				if q < 0 {
					return true
				}
				j += q
				// Escaped when an odd number of backslashes precede it.
				b := j
				for b > i+1 && body[b-1] == '\\' {
					b--
				}
				if (j-b)%2 == 0 {
					break
				}
				j++
			}
			k := j + 1
			for k < len(body) && (body[k] == ' ' || body[k] == '\t' || body[k] == '\n' || body[k] == '\r') {
				k++
			}
			if k < len(body) && body[k] == ':' && len(open) > 0 && open[len(open)-1] >= 0 {
				key := body[i+1 : j]
				if !plainKey(key) {
					return false
				}
				for _, o := range keys[open[len(open)-1]:] {
					if bytes.Equal(body[o[0]:o[1]], key) {
						return false
					}
				}
				keys = append(keys, [2]int{i + 1, j})
			}
			i = j
		}
	}
	return true
}

// plainKey: 1 or more of a-z, 0-9 and '_', and nothing else (no escape).
func plainKey(k []byte) bool {
	if len(k) == 0 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// scanKeys is CheckKeys token by token, naming the first key at fault the
// way FieldError does (observations[3].checks[0].verdict).
func scanKeys(body []byte) (field, msg string, ok bool) {
	ok = true
	var seen []map[string]bool // the keys of each open container (nil: an array)
	walk(body, func(tok json.Token, raw []byte, stack []frame, isKey bool, _ int64) bool {
		switch {
		case tok == json.Delim('{'):
			seen = append(seen, map[string]bool{})
		case tok == json.Delim('['):
			seen = append(seen, nil)
		case tok == json.Delim('}') || tok == json.Delim(']'):
			seen = seen[:len(seen)-1]
		case isKey:
			key := tok.(string)
			raw = bytes.TrimLeft(raw, " \t\r\n,")
			field = join(path(stack), key)
			switch {
			case len(raw) < 2 || !plainKey(raw[1:len(raw)-1]):
				msg = fmt.Sprintf("the key %s is not spelled as the protocol spells its keys (lowercase ASCII letters, digits and '_', no escapes): "+
					"a JSON decoder may read it as another key", raw)
			case seen[len(seen)-1][key]:
				msg = fmt.Sprintf("the key %q is given twice in one object: which one counts would be the reader's choice", key)
			default:
				seen[len(seen)-1][key] = true
				return false
			}
			ok = false
			return true
		}
		return false
	})
	if ok {
		field = ""
	}
	return field, msg, ok
}
