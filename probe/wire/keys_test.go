package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every key spelled as the protocol spells it and once per object passes;
// a key twice, in another case, with the long s that encoding/json folds
// to s, or written with an escape is refused naming the key where it
// stands. A body that is no JSON is left to the decoder.
func TestCheckKeys(t *testing.T) {
	for _, c := range []struct {
		name, body, field, msg string
	}{
		{"plain", `{"v":1,"seq":2,"observations":[{"at":"x","checks":[{"name":"a","verdict":"pass"},{"name":"b","verdict":"fail"}]}]}`, "", ""},
		{"an unknown key, plain", `{"v":1,"future_field_2":{"x":1}}`, "", ""},
		{"the same key in two objects", `{"a":{"k":1},"b":{"k":2}}`, "", ""},
		{"a value that looks like a key", `{"a":"seq","b":["seq","seq"]}`, "", ""},
		{"not JSON", `{"seq":`, "", ""},
		{"seq twice", `{"v":1,"seq":1,"seq":2}`, "seq", `"seq" is given twice`},
		{"a verdict twice, deep", `{"observations":[{"at":"x"},{"checks":[{"name":"a"},{"verdict":"pass", "verdict" :"fail"}]}]}`, "observations[1].checks[1].verdict", "given twice"},
		{"another case", `{"v":1,"Seq":2}`, "Seq", "not spelled as the protocol"},
		{"the long s", `{"v":1,"ſeq":2}`, "ſeq", "not spelled as the protocol"},
		{"an escape", `{"v":1,"s\u0065q":2}`, "seq", "not spelled as the protocol"},
		{"an empty key", `{"":1}`, "", "not spelled as the protocol"},
	} {
		err := CheckKeys([]byte(c.body))
		if c.msg == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		fe, ok := err.(*FieldError)
		if !ok || fe.Field != c.field || !strings.Contains(fe.Msg, c.msg) {
			t.Errorf("%s: %v; want field %q, %q", c.name, err, c.field, c.msg)
		}
	}
}

func BenchmarkCheckKeys(b *testing.B) {
	obs := strings.Repeat(`{"at":"2026-11-30T10:00:00Z","kind":"check","checks":[{"name":"gpu.count","category":"gpu_lost","verdict":"pass","value":"8"}]},`, 5000)
	body := []byte(`{"v":1,"id":"x","node":"n","seq":1,"observations":[` + obs[:len(obs)-1] + `]}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if err := CheckKeys(body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeForKeys(b *testing.B) {
	obs := strings.Repeat(`{"at":"2026-11-30T10:00:00Z","kind":"check","checks":[{"name":"gpu.count","category":"gpu_lost","verdict":"pass","value":"8"}]},`, 5000)
	body := []byte(`{"v":1,"id":"x","node":"n","seq":1,"observations":[` + obs[:len(obs)-1] + `]}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var x Batch
		_ = json.Unmarshal(body, &x)
	}
}
