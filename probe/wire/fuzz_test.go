package wire

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzDecode: the decoder never panics; what it accepts is valid, what
// DecodeNew accepts holds a new batch's bounds too, and what holds them
// re-encodes to a body that decodes to the same batch (the hash chain
// relies on one meaning per accepted body).
func FuzzDecode(f *testing.F) {
	good, _ := Encode(&Batch{V: Version, ID: "b1", Node: "gz-01", Probe: "1.0", Seq: 1, CreatedAt: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		Observations: []Observation{{At: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Kind: KindHeartbeat},
			{At: time.Date(2026, 11, 30, 0, 0, 1, 0, time.UTC), Kind: KindCheck, Checks: []Check{{Name: "gpu.count", Category: CategoryGPULost, Verdict: Pass}}}}})
	f.Add(good)
	f.Add([]byte(`{"v":1,"id":"x","node":"n","seq":"one"}`))
	f.Add([]byte(`{"v":1,"observations":[[[[[[]]]]]]}`))
	f.Add([]byte(`null`))
	f.Add(bytes.Repeat([]byte("["), 1000))
	f.Add(bytes.Replace(good, []byte(`"gpu.count"`), []byte("\"gpu\xff\""), 1))
	f.Add(bytes.Replace(good, []byte(`"gpu.count"`), []byte(`"\ud800\u"`), 1))
	f.Fuzz(func(t *testing.T, body []byte) {
		b, err := Decode(body)
		if err != nil {
			if b != nil {
				t.Fatalf("an error and a batch: %v", err)
			}
			return
		}
		if err := b.Validate(); err != nil {
			t.Fatalf("Decode accepted a batch Validate refuses: %v", err)
		}
		if !utf8.Valid(body) {
			t.Fatalf("Decode accepted a body that is not UTF-8: %q", body)
		}
		if nb, err := DecodeNew(body); err == nil {
			if err := nb.ValidateNew(); err != nil {
				t.Fatalf("DecodeNew accepted a batch ValidateNew refuses: %v", err)
			}
		}
		if b.ValidateNew() != nil {
			// A stored body from before the bounds a new batch is held
			// to: Decode reads it again, but no probe makes it anew, so
			// Encode (which holds those bounds) refuses it by design.
			if _, err := Encode(b); err == nil {
				t.Fatalf("Encode made a batch ValidateNew refuses")
			}
			return
		}
		again, err := Encode(b)
		if err != nil {
			t.Fatalf("accepted batch does not encode: %v", err)
		}
		b2, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded batch is refused: %v\n%s", err, again)
		}
		j1, _ := json.Marshal(b)
		j2, _ := json.Marshal(b2)
		if !bytes.Equal(j1, j2) {
			t.Fatalf("round trip changed the batch:\n%s\n%s", j1, j2)
		}
	})
}

// FuzzVerify: whatever the headers and body, Verify accepts only the
// signature made with the secret over that timestamp and body, and never
// panics.
func FuzzVerify(f *testing.F) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	now := time.Unix(1_800_000_000, 0)
	ts, sig := Sign(secret, now, []byte(`{"v":1}`))
	f.Add(ts, sig, []byte(`{"v":1}`))
	f.Add(ts, "v1=", []byte(``))
	f.Add("-1", "v1=00", []byte(`x`))
	f.Add("99999999999999999999", sig, []byte(`{"v":1}`))
	f.Fuzz(func(t *testing.T, ts, sig string, body []byte) {
		if _, err := Verify(secret, now, ts, sig, body); err != nil {
			return
		}
		wantTS, wantSig := Sign(secret, time.Unix(mustUnix(t, ts), 0), body)
		if ts != wantTS || !equalFoldHex(sig, wantSig) {
			t.Fatalf("accepted ts %q sig %q; the only valid pair is %q %q", ts, sig, wantTS, wantSig)
		}
	})
}

func mustUnix(t *testing.T, ts string) int64 {
	var n int64
	for _, c := range ts {
		if c < '0' || c > '9' {
			t.Fatalf("accepted a timestamp that is not decimal: %q", ts)
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// equalFoldHex compares signatures; hex.DecodeString accepts upper case
// too, which encodes the same MAC.
func equalFoldHex(a, b string) bool { return bytes.EqualFold([]byte(a), []byte(b)) }
