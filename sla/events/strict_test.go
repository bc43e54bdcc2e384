package events

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The log is read strictly, each rule on both sides: what a writer of the
// log writes is read, and each way a line can be damaged, tampered with or
// written by something else is refused with the member named where there
// is one — unknown members (at the top, in a check, in the hardware; in
// another letter case), a member given twice, invalid UTF-8 (raw bytes and
// unpaired surrogate escapes), nesting however deep, trailing data.
func TestDecodeStrictness(t *testing.T) {
	const obs = `{"type":"observation","id":"a","node":"n1","at":"2026-03-01T00:00:00Z","received_at":"2026-03-01T00:00:01Z","kind":"check","checks":[{"name":"gpu.xid","category":"gpu_degraded","verdict":"pass","gpu":3,"number":1.5,"detail":"é \u00e9 \ud83d\ude00"}]}`
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, c := range []struct {
		name, line, want string // want "": accepted
	}{
		{"the writer's form", obs, ""},
		{"members in any order, spaces", ` { "node" : "n1", "type":"node_released", "id":"r", "at":"2026-03-01T00:00:00Z" } `, ""},
		{"unknown member", strings.Replace(obs, `"kind"`, `"colour":"red","kind"`, 1), "colour: unknown field"},
		{"unknown member in a check", strings.Replace(obs, `"verdict"`, `"verdcit":"x","verdict"`, 1), "checks[0].verdcit: unknown field"},
		{"unknown member in the hardware", `{"type":"node_registered","id":"r","node":"n","contract":"c","ordered_at":"2026-03-01T00:00:00Z","hardware":{"gpu_model":"m","gpu_count":8,"vram":1}}`, "hardware.vram: unknown field"},
		{"a member in another letter case", strings.Replace(obs, `"node"`, `"Node"`, 1), "Node: unknown field"},
		{"a member given twice", strings.Replace(obs, `"kind":"check"`, `"kind":"check","kind":"heartbeat"`, 1), "kind: given twice"},
		{"a member given twice in a check", strings.Replace(obs, `"gpu":3`, `"gpu":3,"gpu":4`, 1), "checks[0].gpu: given twice"},
		{"invalid UTF-8 in a value", strings.Replace(obs, `"node":"n1"`, "\"node\":\"n\xff1\"", 1), "invalid UTF-8"},
		{"invalid UTF-8 in a member name", "{\"\xc4\xc4\":1,\"type\":\"x\"}", "invalid UTF-8"},
		{"an unpaired surrogate escape", strings.Replace(obs, `\ud83d\ude00`, `\ud83d`, 1), "invalid UTF-8"},
		{"deep nesting in a member", strings.Replace(obs, `"checks":[`, `"checks":[`+deep(10001)+`,`, 1), "checks[0]: wrong type: JSON array"},
		{"deeper than the stack could hold", `{"type":"x","summary":` + deep(1_000_000) + `}`, "nested more than 10000 levels deep"},
		{"trailing data", obs + `{}`, "more than one JSON value on the line"},
		{"not an object", `[1,2]`, "wrong type: JSON array"},
		{"wrong type, named", strings.Replace(obs, `"gpu":3`, `"gpu":"3"`, 1), "checks[0].gpu: wrong type: JSON string where int"},
		{"not JSON", `{oops`, "not a JSON event"},
	} {
		var e Event
		err := decodeLine([]byte(c.line), &e)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	var e Event
	if err := decodeLine([]byte(obs), &e); err != nil || e.Checks[0].Detail != "é é 😀" || *e.Checks[0].GPU != 3 || !e.At.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("read %+v, %v", e, err)
	}
}

// A decoded event holds nothing of its line: the report keeps events'
// strings for the month, and must not keep every line whole with them.
func TestEventsDoNotHoldTheirLine(t *testing.T) {
	line := []byte(`{"type":"node_released","id":"rel-1","node":"n1","at":"2026-03-01T00:00:00Z"}`)
	var e Event
	if err := decodeLine(line, &e); err != nil {
		t.Fatal(err)
	}
	copy(line, bytes.Repeat([]byte("x"), len(line)))
	if e.ID != "rel-1" || e.Node != "n1" || e.Type != "node_released" {
		t.Fatalf("the event changed with its line: %+v", e)
	}
}
