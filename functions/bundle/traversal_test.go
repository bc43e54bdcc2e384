package bundle

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

// A bundle whose entries climb out of the folder it would be unzipped into
// (listed in its manifest with the right hashes, so nothing else is wrong
// with them) is flagged by name. Found by functions/e2e's hostile-input
// review.
func TestVerifyFlagsUnsafeEntryNames(t *testing.T) {
	for _, name := range []string{"../../etc/cron.d/gpusla", "/etc/passwd", "reports/../../x", `..\evil.txt`, "./manifest-shadow"} {
		t.Run(name, func(t *testing.T) {
			body := []byte("payload\n")
			h := sha256.Sum256(body)
			m := Manifest{Schema: Schema, Month: "2026-11", Files: []FileSum{{Name: name, Bytes: int64(len(body)), SHA256: hex.EncodeToString(h[:])}}}
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			mraw, _ := json.Marshal(m)
			for n, b := range map[string][]byte{ManifestFile: mraw, name: body} {
				w, err := zw.Create(n)
				if err != nil {
					t.Fatal(err)
				}
				w.Write(b)
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			res, err := Verify(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range res.Problems {
				if p.File == name && strings.Contains(p.Detail, "unsafe name") {
					found = true
				}
			}
			if !found || res.OK() {
				t.Fatalf("problems %v: want %q flagged as an unsafe name", res.Problems, name)
			}
		})
	}
}
