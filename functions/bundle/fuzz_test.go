package bundle

import (
	"archive/zip"
	"bytes"
	"testing"
)

// Verify reads untrusted zips: it must never panic, and must refuse or
// report, never accept, a bundle whose manifest does not match.
func FuzzVerify(f *testing.F) {
	mk := func(files map[string]string) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for name, data := range files {
			w, _ := zw.Create(name)
			w.Write([]byte(data))
		}
		zw.Close()
		return buf.Bytes()
	}
	f.Add(mk(map[string]string{ManifestFile: `{"schema":"gpusla.bundle/v1","files":[],"intervals":[],"batches":[],"chain_head":"` + Genesis + `"}`}))
	f.Add(mk(map[string]string{ManifestFile: `{"schema":"gpusla.bundle/v1","files":[{"name":"observations.jsonl","bytes":3,"sha256":"x"}],"batches":[{"node":"a","seq":2,"lines":1}]}`,
		ObservationsFile: "{}\n"}))
	f.Add([]byte("PK\x03\x04 not really"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Verify(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if res.OK() && res.ChainHead != res.Manifest.ChainHead {
			t.Fatalf("accepted a bundle whose chain head %s differs from the manifest's %s", res.ChainHead, res.Manifest.ChainHead)
		}
	})
}
