package events

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The fast decoder accepts a line only if encoding/json would, and reads it
// the same way; its syntax check accepts exactly what json.Valid accepts;
// and a line reads alike whether it takes goccy's Unmarshal or its stream
// decoder (the one decoder before Unmarshal took the plain lines): the
// same lines accepted, the same events.
func FuzzDecodeAgreement(f *testing.F) {
	f.Add([]byte(`{"type":"observation","id":"a","node":"n1","at":"2026-03-01T00:00:00Z","received_at":"2026-03-01T00:00:00Z","kind":"check","checks":[{"name":"x","category":"gpu_lost","verdict":"fail","number":1.5,"gpu":2}]}`))
	f.Add([]byte(`{"type":"node_registered","id":"r","node":"n","contract":"c","ordered_at":"2026-03-01T00:00:00+08:00","hardware":{"gpu_model":"m","gpu_count":8},"price_per_gpu_hour":2.5}`))
	f.Add([]byte(`{"type":"heartbeat_run","id":"r","node":"n1","at":"2026-03-01T00:00:00Z","last_at":"2026-03-01T01:00:00Z","received_at":"2026-03-01T00:00:01Z","last_received_at":"2026-03-01T01:00:01Z","count":61,"heartbeat_interval_s":60,"max_gap_ms":60000,"max_delay_ms":1000,"from_seq":3,"to_seq":63}`))
	f.Add([]byte(`{"type":"x","id":"\u00e9\ud800"}`))
	f.Add([]byte(`{"type":"node_released","id":"a","ID":"b","Node":"n","node":"m","at":"2026-03-01T00:00:00Z"}`))
	f.Add([]byte(`{"type":"observation","id":"a","seq":1e3,"index":-0,"clock_skew_ms":12.0,"checks":null,"hardware":{}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		// The syntax check is exactly encoding/json's, both ways.
		if got, want := validV1(line), json.Valid(line); got != want {
			t.Fatalf("syntax check says %v, encoding/json.Valid %v: %q", got, want, line)
		}
		// The member check runs on every valid line without failing (a
		// panic here is caught in the decoder, and would only show as a
		// line refused).
		if json.Valid(line) {
			var sc scan
			plainMembers(line, &sc)
		}
		var d lineDecoder
		var fast Event
		if err := d.decode(line, &fast); err != nil {
			return
		}
		var viaStream Event
		if err := d.decodeStream(line, &viaStream); err != nil {
			t.Fatalf("accepted, but goccy's stream decoder refuses it (%v): %q", err, line)
		}
		if !reflect.DeepEqual(fast, viaStream) {
			t.Fatalf("the two ways through goccy disagree on %q:\nfast   %+v\nstream %+v", line, fast, viaStream)
		}
		var std Event
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&std); err != nil {
			t.Fatalf("fast decoder accepted what encoding/json rejects (%v): %q", err, line)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Fatalf("decoders disagree on %q:\nfast %+v\nstd  %+v", line, fast, std)
		}
	})
}

// A line of invalid UTF-8 is damage, refused with that reason, never a
// crash: a long key of such bytes made goccy's stream decoder index out of
// its buffer (found by FuzzDecodeAgreement; the input is in its corpus).
func TestDecodeStrictRefusesInvalidUTF8(t *testing.T) {
	key := bytes.Repeat([]byte{0xc4}, 1600)
	line := append(append([]byte(`{"`), key...), []byte(`":1,"type":"x"}`)...)
	var d lineDecoder
	var e Event
	err := d.decode(line, &e)
	if err == nil || !strings.Contains(err.Error(), "invalid UTF-8") {
		t.Fatalf("got %v", err)
	}
	// Valid UTF-8 with the same shape still reads (and is refused for its
	// unknown field by name, not for its bytes).
	ok := append(append([]byte(`{"`), bytes.Repeat([]byte("é"), 800)...), []byte(`":1,"type":"x"}`)...)
	e = Event{}
	if err := d.decode(ok, &e); err == nil || strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("valid UTF-8 key: %v", err)
	}
}
