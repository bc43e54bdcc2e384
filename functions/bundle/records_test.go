package bundle

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// reseal is a careful forger's last step: the manifest's sums of every
// file recomputed, and files no longer there dropped from it.
func reseal(t *testing.T, files map[string][]byte) {
	t.Helper()
	var fm Manifest
	if err := json.Unmarshal(files[ManifestFile], &fm); err != nil {
		t.Fatal(err)
	}
	var kept []FileSum
	for _, f := range fm.Files {
		if data, ok := files[f.Name]; ok {
			f.SHA256, f.Bytes = sum(data), int64(len(data))
			kept = append(kept, f)
		}
	}
	fm.Files = kept
	files[ManifestFile], _ = json.Marshal(fm)
}

// editLines applies f to each line of the file (a nil result drops it).
func editLines(files map[string][]byte, name string, f func([]byte) []byte) {
	var out [][]byte
	for _, ln := range bytes.SplitAfter(files[name], []byte("\n")) {
		if len(ln) == 0 {
			continue
		}
		if ln = f(ln); ln != nil {
			out = append(out, ln)
		}
	}
	files[name] = bytes.Join(out, nil)
}

// The bundle carries the books' records — who recorded each
// notice and ticket time, and when — so the provider can see them; the
// verifier holds the report's notices, tickets and retroactive section to
// them, and catches a forger who rewrites either side consistently with
// the file sums.
func TestBundleCarriesTheRecords(t *testing.T) {
	zipped, m := claimBundle(t)
	files := unzip(t, zipped)
	// Two notices, T-101's opening, answer and resolution, T-102's
	// opening (entered 2.5 h late) and answer: seven records.
	if res := verify(t, zipped); m.Records != 7 || res.Records != 7 || !res.OK() {
		t.Fatalf("records: manifest %d, checked %d (want 7):\n%s\n%s", m.Records, res.Records, problems(res), files[RecordsFile])
	}
	if !bytes.Contains(files[RecordsFile], []byte(`"recorded_at":"2026-11-26T17:30:00Z","recorded_by":"api:k7q2m4xa (ops)"`)) {
		t.Fatalf("records.jsonl does not carry T-102's late recording:\n%s", files[RecordsFile])
	}
	late := []byte(`"recorded_at":"2026-11-26T17:30:00Z"`)

	for _, c := range []struct {
		name   string
		forge  func(map[string][]byte)
		expect []string
	}{
		{"the late opening removed", func(f map[string][]byte) {
			editLines(f, RecordsFile, func(ln []byte) []byte {
				if bytes.Contains(ln, late) {
					return nil
				}
				return ln
			})
		}, []string{"report.json names retroactive record ticket_opened-", "which is not here", "times ticket T-102 of node va-01, whose opening is not here"}},
		{"the late opening made timely", func(f map[string][]byte) {
			f[RecordsFile] = bytes.Replace(f[RecordsFile], late, []byte(`"recorded_at":"2026-11-26T15:01:00Z"`), 1)
		}, []string{"was recorded 2026-11-26T15:01:00Z by \"api:k7q2m4xa (ops)\"", "records.jsonl: hashes to"}},
		{"the report's section emptied", func(f map[string][]byte) {
			var r map[string]any
			if err := json.Unmarshal(f[ReportJSONFile], &r); err != nil {
				t.Fatal(err)
			}
			r["retroactive"] = map[string]any{"records": []any{}, "unrecorded": 0}
			f[ReportJSONFile], _ = json.Marshal(r)
		}, []string{"is dated 2026-11-26T15:00:00Z but was recorded 2026-11-26T17:30:00Z", "report.json does not name it as retroactive"}},
		{"records.jsonl left out", func(f map[string][]byte) { delete(f, RecordsFile) },
			[]string{"the bundle carries no records.jsonl", "the report's seal (quoted on its claim page) says"}},
		{"a notice that is not a record", func(f map[string][]byte) {
			f[RecordsFile] = append(f[RecordsFile], []byte(`{"type":"backend_outage","id":"x","start":"2026-11-01T00:00:00Z","end":"2026-11-02T00:00:00Z"}`+"\n")...)
		}, []string{"records.jsonl:8: a backend_outage event"}},
	} {
		f := unzip(t, zipped)
		c.forge(f)
		reseal(t, f)
		p := problems(verify(t, rezip(t, f)))
		for _, want := range c.expect {
			if !strings.Contains(p, want) {
				t.Errorf("%s: problems do not say %q:\n%s", c.name, want, p)
			}
		}
	}
}
