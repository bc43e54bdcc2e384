package httpapi_test

import (
	"net/http"
	"testing"
	"time"
)

// FuzzIngestBody: whatever a correctly signed body holds, ingest answers 200
// (stored or duplicate) or 400 naming a field — never a 500 or a panic.
func FuzzIngestBody(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":"b1","node":"node-a","probe":"t","seq":1,"created_at":"2026-11-30T10:00:00Z","observations":[{"at":"2026-11-30T10:00:00Z","kind":"heartbeat"}]}`))
	f.Add([]byte(`{"v":1,"id":"b2","node":"node-a","probe":"t","seq":7,"prev":"` + "0000000000000000000000000000000000000000000000000000000000000000" + `","created_at":"2026-11-30T10:00:00Z","dropped":{"batches":2,"from_seq":5,"to_seq":6,"reason":"full"},"observations":[{"at":"2026-11-30T09:00:00Z","kind":"check","checks":[{"name":"gpu.count","category":"gpu_lost","verdict":"fail","value":"7"}]}]}`))
	f.Add([]byte(`{"v":1}`))
	f.Add([]byte(`[]`))
	e := newEnv(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		e.clock.Advance(time.Second) // a new signature every time: no replay refusals
		w := e.post(e.a.Request(e.clock.Now(), body))
		switch w.Code {
		case http.StatusOK:
		case http.StatusBadRequest:
			if decodeErr(t, w).Field == "" {
				t.Fatalf("400 without a field: %s", w.Body.String())
			}
		case http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("status %d for body %q: %s", w.Code, body, w.Body.String())
		}
	})
}
