package events

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// Whatever line the log's decoder accepts, encoding/json (with unknown
// fields refused) accepts too and reads the same: the stricter reader
// never lets through what the standard library's looser one would refuse,
// nor reads it differently. And an accepted event written back (as Writer
// writes it) reads the same again.
func FuzzDecodeAgreement(f *testing.F) {
	f.Add([]byte(`{"type":"observation","id":"a","node":"n1","at":"2026-03-01T00:00:00Z","received_at":"2026-03-01T00:00:00Z","kind":"check","checks":[{"name":"x","category":"gpu_lost","verdict":"fail","number":1.5,"gpu":2}]}`))
	f.Add([]byte(`{"type":"node_registered","id":"r","node":"n","contract":"c","ordered_at":"2026-03-01T00:00:00+08:00","hardware":{"gpu_model":"m","gpu_count":8},"price_per_gpu_hour":2.5}`))
	f.Add([]byte(`{"type":"heartbeat_run","id":"r","node":"n1","at":"2026-03-01T00:00:00Z","last_at":"2026-03-01T01:00:00Z","received_at":"2026-03-01T00:00:01Z","last_received_at":"2026-03-01T01:00:01Z","count":61,"heartbeat_interval_s":60,"max_gap_ms":60000,"max_delay_ms":1000,"from_seq":3,"to_seq":63}`))
	f.Add([]byte(`{"type":"x","id":"\u00e9\ud800"}`))
	f.Add([]byte(`{"type":"node_released","id":"a","ID":"b","Node":"n","node":"m","at":"2026-03-01T00:00:00Z"}`))
	f.Add([]byte(`{"type":"observation","id":"a","seq":1e3,"index":-0,"clock_skew_ms":12.0,"checks":null,"hardware":{}}`))
	f.Add([]byte(`{"type":"x","id":"a","id":"b"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var got Event
		if err := decodeLine(line, &got); err != nil {
			return
		}
		var std Event
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&std); err != nil || dec.More() {
			t.Fatalf("accepted what encoding/json rejects (%v): %q", err, line)
		}
		if !reflect.DeepEqual(got, std) {
			t.Fatalf("decoders disagree on %q:\nv2  %+v\nstd %+v", line, got, std)
		}
		var buf bytes.Buffer
		if err := json.NewEncoder(&buf).Encode(&got); err != nil {
			t.Fatal(err)
		}
		var again Event
		if err := decodeLine(bytes.TrimSpace(buf.Bytes()), &again); err != nil {
			t.Fatalf("written back, %q is refused: %v", buf.Bytes(), err)
		}
		var buf2 bytes.Buffer
		if err := json.NewEncoder(&buf2).Encode(&again); err != nil || !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
			t.Fatalf("written back, %q reads as %q", buf.Bytes(), buf2.Bytes())
		}
	})
}
