package wire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// encoding/json decodes a string with bytes that are not UTF-8, or with an
// escaped UTF-16 surrogate that has no partner ("\ud800"), into U+FFFD
// without a word. A batch is evidence: accepting it would store a body
// whose text no longer says what the probe sent, so such a body is refused,
// naming the field, before it is decoded at all.

// CheckText refuses a JSON body with a string (key or value) that is not
// valid text, as a *FieldError naming it; nil if there is none, or if the
// body is not JSON (the decoder names that). Decode uses it, and so does
// every other JSON API whose text is kept (the ticket API), for the same
// reason.
func CheckText(body []byte) error {
	if field, why, ok := badText(body); !ok {
		return &FieldError{Field: field, Msg: why}
	}
	return nil
}

// badText returns the field of the first JSON string (key or value) of body
// that is not valid text, and why; ok is true when there is none. A body
// that is not JSON is left to the decoder to refuse.
func badText(body []byte) (field, why string, ok bool) {
	if utf8.Valid(body) && !surrogateEscape(body) {
		// The common case: nothing to look at closely. The HTML escapes
		// Go's encoder writes (\u0026 for every '&' of a usage reading's
		// detail, \u003c, \u003e) are characters like any other.
		return "", "", true
	}
	return scanText(body)
}

// surrogateEscape says whether body may hold an escaped UTF-16 surrogate:
// a \u followed by d8 to df. It may say yes for one that is not an escape
// (an escaped backslash before "ud800"), never no for one that is.
func surrogateEscape(body []byte) bool {
	for i := 0; ; i++ {
		j := bytes.Index(body[i:], []byte(`\u`))
		if j < 0 {
			return false
		}
		i += j
		if i+3 < len(body) && (body[i+2] == 'd' || body[i+2] == 'D') && strings.IndexByte("89abcdefABCDEF", body[i+3]) >= 0 {
			return true
		}
	}
}

// scanText is badText token by token.
func scanText(body []byte) (field, why string, ok bool) {
	ok = true
	walk(body, func(tok json.Token, raw []byte, stack []frame, isKey bool, _ int64) bool {
		s, isString := tok.(string)
		if !isString {
			return false
		}
		if why = textProblem(raw); why == "" {
			return false
		}
		field = path(stack)
		if isKey {
			field = join(field, s) + " (a key)"
		}
		if field == "" {
			field = "body"
		}
		ok = false
		return true
	})
	return field, why, ok
}

// walk calls visit with every token of body in order: its raw bytes (and
// the separators before it), the containers open around it (the innermost
// last; an object's key is not yet its path), whether it is an object's
// key, and the offset where it ends. It stops when visit says so, at the
// end, or where the body stops being JSON (the decoder names that).
func walk(body []byte, visit func(tok json.Token, raw []byte, stack []frame, isKey bool, end int64) (stop bool)) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var stack []frame
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return // io.EOF, or a syntax error
		}
		_, isString := tok.(string)
		isKey := isString && len(stack) > 0 && stack[len(stack)-1].obj && stack[len(stack)-1].wantKey
		if visit(tok, body[start:dec.InputOffset()], stack, isKey, dec.InputOffset()) {
			return
		}
		switch {
		case isKey:
			stack[len(stack)-1].key, stack[len(stack)-1].wantKey = tok.(string), false
		case tok == json.Delim('{') || tok == json.Delim('['):
			stack = append(stack, frame{obj: tok == json.Delim('{'), wantKey: true})
		case tok == json.Delim('}') || tok == json.Delim(']'):
			stack = stack[:len(stack)-1]
			advance(stack)
		default:
			advance(stack)
		}
	}
}

// frame is one open object or array on the way down to a value.
type frame struct {
	obj     bool
	wantKey bool   // in an object: the next string is a key
	key     string // in an object: the key of the value being read
	idx     int    // in an array: the index of the value being read
}

// advance moves the innermost container past the value just read.
func advance(stack []frame) {
	if len(stack) == 0 {
		return
	}
	f := &stack[len(stack)-1]
	if f.obj {
		f.wantKey = true
	} else {
		f.idx++
	}
}

// path spells the value being read the way FieldError does:
// observations[3].checks[0].name.
func path(stack []frame) string {
	p := ""
	for _, f := range stack {
		if f.obj {
			if !f.wantKey {
				p = join(p, f.key)
			}
		} else {
			p += "[" + strconv.Itoa(f.idx) + "]"
		}
	}
	return p
}

func join(p, key string) string {
	if p == "" {
		return key
	}
	return p + "." + key
}

// textProblem says what is wrong with the raw bytes of one JSON string
// token (quotes and escapes as sent), or "" if nothing is.
func textProblem(raw []byte) string {
	if !utf8.Valid(raw) {
		return "not valid UTF-8"
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // \" \\ \n …: one escaped character
			continue
		}
		r, ok := hex4(raw[i+2:])
		switch {
		case !ok:
			return "" // malformed escape: the decoder refuses it
		case r >= 0xDC00 && r <= 0xDFFF:
			return "a lone UTF-16 surrogate escape (\\u" + string(raw[i+2:i+6]) + ") is not a character"
		case r >= 0xD800 && r <= 0xDBFF:
			lo, ok := rune(0), i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u'
			if ok {
				lo, ok = hex4(raw[i+8:])
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return "a lone UTF-16 surrogate escape (\\u" + string(raw[i+2:i+6]) + ") is not a character"
			}
			i += 11
		default:
			i += 5
		}
	}
	return ""
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(n), err == nil
}

// walkValues calls fn with the path, raw bytes and end offset of every
// scalar value of body (strings, numbers, literals) in order, until fn
// says stop.
func walkValues(body []byte, fn func(path string, raw []byte, end int64) (stop bool)) {
	walk(body, func(tok json.Token, raw []byte, stack []frame, isKey bool, end int64) bool {
		if _, delim := tok.(json.Delim); delim || isKey {
			return false
		}
		return fn(path(stack), bytes.TrimLeft(raw, " \t\r\n,:"), end)
	})
}

// valuePath is the path of the scalar value of body that ends at offset
// (a json.UnmarshalTypeError's), "" when none does.
func valuePath(body []byte, offset int64) string {
	var out string
	walkValues(body, func(p string, _ []byte, end int64) bool {
		if end >= offset {
			if end == offset {
				out = p
			}
			return true
		}
		return false
	})
	return out
}

// badTimePath is the path of the first time field of a batch (at,
// created_at) whose value is not an RFC 3339 time, "" when none.
func badTimePath(body []byte) string {
	var out string
	walkValues(body, func(p string, raw []byte, _ int64) bool {
		if p != "created_at" && !strings.HasSuffix(p, ".at") {
			return false
		}
		var t time.Time
		if json.Unmarshal(raw, &t) != nil {
			out = p
			return true
		}
		return false
	})
	return out
}
