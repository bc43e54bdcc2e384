package bolt

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// The quick read of a stored batch record gives exactly what
// json.Unmarshal gives, on every form json.Marshal writes — and on records
// it does not take (escapes, nulls, a damaged record), because it hands
// them to json.Unmarshal.
func TestBatchRecordQuickDecode(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 2, 3, 4, 567890123, time.UTC)
	recs := []store.BatchRecord{
		{Node: "gz-01", Seq: 17, ID: "b-17", Hash: "ab12", ReceivedAt: t0, Why: []string{"measurements", "late"}, Body: []byte(`{"v":1,"observations":[]}`), ExpiresAt: t0.Add(100 * 24 * time.Hour)},
		{Node: "gz-01", Seq: 1<<64 - 1, ID: `a "quoted" <id>`, ReceivedAt: t0, Body: []byte{0, 1, 2, 255}},
		{Node: "n", Seq: 0, Why: []string{}, Body: []byte{}},
		{Node: "n", Why: []string{"x&y"}, Body: nil, ReceivedAt: t0.In(time.FixedZone("", 8*3600))},
		{},
		{Node: "gz-01", Seq: 18, ID: "b-18", Hash: "ab13", ReceivedAt: t0, Why: []string{"measurements"}, Body: []byte(`{"v":1}`), Form: []byte("gbf\x01\x00"), ExpiresAt: t0},
	}
	for i, r := range recs {
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var want, got store.BatchRecord
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if err := decodeBatch(raw, &got); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("record %d %s:\nquick %+v\nwant  %+v", i, raw, got, want)
		}
		// The forms ingest writes are read without Unmarshal.
		if quick := quickBatch(raw, &store.BatchRecord{}); quick != (i == 0 || i == 2 || i == 5) {
			t.Fatalf("record %d %s: read quickly %v", i, raw, quick)
		}
	}
	// Damaged records are Unmarshal's errors, never a half-read record.
	for _, raw := range []string{`{"node":"n","seq":1`, `{"node":"n","seq":x}`, `{"node":"n","seq":1,"id":"","hash":"","received_at":"2026-03-01T00:00:00Z","why":null,"body":"!!","expires_at":"0001-01-01T00:00:00Z"}`} {
		var got store.BatchRecord
		wantErr := json.Unmarshal([]byte(raw), &store.BatchRecord{})
		if err := decodeBatch([]byte(raw), &got); (err == nil) != (wantErr == nil) {
			t.Fatalf("%s: quick read error %v, Unmarshal %v", raw, err, wantErr)
		}
	}
}

// Records are written in the binary form and read back as they were (times
// in UTC, nil and empty apart); a damaged one is an error, and a record
// written as JSON before the form existed still reads.
func TestBatchRecordBinaryForm(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 2, 3, 4, 567890123, time.UTC)
	recs := []store.BatchRecord{
		{Node: "gz-01", Seq: 17, ID: "b-17", Hash: "ab12", ReceivedAt: t0, Why: []string{"measurements", "late"}, Body: []byte(`{"v":1,"observations":[]}`),
			Form: []byte("gbf\x01\x00"), ExpiresAt: t0.Add(100 * 24 * time.Hour)},
		{Node: "gz-01", Seq: 1<<64 - 1, ID: `a "quoted" <id>`, ReceivedAt: t0, Body: []byte{0, 1, 2, 255}},
		{Node: "n", Seq: 0, Why: []string{}, Body: []byte{}, Form: []byte{}},
		{Node: "n", Why: []string{"x&y", ""}, Body: nil, ReceivedAt: t0.In(time.FixedZone("", 8*3600))},
		{ReceivedAt: time.Unix(-1, 5)},
		{},
	}
	for i, r := range recs {
		raw := encodeBatch(&r)
		var got store.BatchRecord
		if err := decodeBatch(raw, &got); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		want := r
		if !want.ReceivedAt.IsZero() {
			want.ReceivedAt = want.ReceivedAt.UTC()
		}
		if !want.ExpiresAt.IsZero() {
			want.ExpiresAt = want.ExpiresAt.UTC()
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("record %d:\nread  %+v\nwrote %+v", i, got, want)
		}
		for n := len(binMagic); n < len(raw); n++ {
			if err := decodeBatch(raw[:n], &store.BatchRecord{}); err == nil {
				t.Fatalf("record %d cut to %d of %d bytes: read", i, n, len(raw))
			}
		}
		if err := decodeBatch(append(raw, 0), &store.BatchRecord{}); err == nil {
			t.Fatalf("record %d with a byte after its end: read", i)
		}
	}
	old, err := json.Marshal(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	var got store.BatchRecord
	if err := decodeBatch(old, &got); err != nil || got.Seq != 17 || string(got.Form) != "gbf\x01\x00" {
		t.Fatalf("a JSON record: %+v, %v", got, err)
	}
}
