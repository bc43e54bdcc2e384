package events

import (
	"encoding/json"
	"testing"
)

// The syntax check accepts exactly what encoding/json does, on the corners
// where JSON parsers differ: escapes, surrogates, invalid UTF-8, duplicate
// names, numbers, nesting, trailing data, whitespace.
func TestSyntaxAgreesWithValid(t *testing.T) {
	deep := func(n int) string {
		s := ""
		for range n {
			s += "["
		}
		for range n {
			s += "]"
		}
		return s
	}
	for _, in := range []string{
		`{}`, `{"a":1}`, `{"a":1,"a":2}`, `{"a":"\u00e9"}`, `{"a":"\ud800"}`, `{"a":"\ud800\udc00"}`,
		`{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12G4"}`, "{\"a\":\"\xff\"}", "{\"a\":\"\xc3\"}", "{\"a\":\"\x01\"}",
		`{"a":"\/"}`, `{"a":'x'}`, `{"a":01}`, `{"a":-0}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":1e+5}`,
		`{"a":1E-05}`, `{"a":+1}`, `{"a":NaN}`, `{"a":Infinity}`, `{"a":true}`, `{"a":tru}`, `{"a":null}`,
		`{"a":1,}`, `{,}`, `{"a"}`, `{"a":1}{}`, `{"a":1} `, " \t\r\n{\"a\":1}", `{"a":1}x`, `[1,2]`, `"s"`, `1`,
		``, ` `, `{"a":[1,[2,{"b":null}]]}`, `{"a":1`, `{"a" : 1 }`, "{\"a\":1}\u00a0", `{"\u0000":0}`,
		deep(10000), deep(10001), "{\"a\":\"\xed\xa0\x80\"}", "{\"a\":\"\xef\xbf\xbe\"}",
	} {
		if got, want := validV1([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Errorf("validV1(%q) = %v, encoding/json says %v", in, got, want)
		}
	}
}
