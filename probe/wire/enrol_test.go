package wire

import "testing"

// A URL with a host and no path is the backend's address, not its ingest
// URL; one with any path (a proxy's prefix too) is taken as given.
func TestBareIngestURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://h:8443":   "https://h:8443/v1/batches",
		"https://h/":       "https://h/v1/batches",
		"http://127.0.0.1": "http://127.0.0.1/v1/batches",
	} {
		if got, bare := BareIngestURL(in); !bare || got != want {
			t.Errorf("%s: %q, %v; want %q", in, got, bare, want)
		}
	}
	for _, in := range []string{"https://h/v1/batches", "https://h/gpusla/v1/batches", "not a url", "/v1/batches", "https://h/x"} {
		if got, bare := BareIngestURL(in); bare {
			t.Errorf("%s: taken for a bare address (%q)", in, got)
		}
	}
}
