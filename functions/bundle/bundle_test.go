package bundle

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/document/documenttest"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
)

var (
	claimOnce     sync.Once
	claimZip      []byte
	claimManifest *Manifest
)

// claimBundle builds the claim month's report and its bundle once; tests
// get their own copy of the bytes.
func claimBundle(t *testing.T) ([]byte, *Manifest) {
	t.Helper()
	claimOnce.Do(func() { claimZip, claimManifest = buildClaimBundle(t) })
	if claimZip == nil {
		t.Fatal("claim bundle failed to build")
	}
	return bytes.Clone(claimZip), claimManifest
}

func buildClaimBundle(t *testing.T) ([]byte, *Manifest) {
	r, log := claimMonth(t)
	var out bytes.Buffer
	m, err := Write(&out, r, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(log)), nil })
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), m
}

// claimMonth is the claim month's report and the event log it was built from.
func claimMonth(t *testing.T) (*report.Report, []byte) {
	tm, err := documenttest.Terms()
	if err != nil {
		t.Fatal(err)
	}
	l := documenttest.ClaimMonth()
	var logBuf bytes.Buffer
	w := events.NewWriter(&logBuf)
	for i := range l.Events {
		if err := w.Write(&l.Events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	b, err := report.NewBuilder(tm, report.Options{Year: 2026, Month: time.November, AsOf: documenttest.ClaimAsOf})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ReadLog("log", bytes.NewReader(logBuf.Bytes())); err != nil {
		t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return r, logBuf.Bytes()
}

func verify(t *testing.T, zipped []byte) *Result {
	t.Helper()
	res, err := Verify(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// unzip and rezip let a test tamper with a bundle as an attacker would.
func unzip(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		out[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	return out
}

func rezip(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{ReportJSONFile, ReportHTMLFile, ObservationsFile, RecordsFile, IncidentsFile, ManifestFile} {
		if data, ok := files[name]; ok {
			fw, _ := zw.Create(name)
			fw.Write(data)
		}
	}
	zw.Close()
	return buf.Bytes()
}

func problems(r *Result) string {
	var s []string
	for _, p := range r.Problems {
		s = append(s, p.String())
	}
	return strings.Join(s, "\n")
}

func TestBundleOfClaimMonthVerifies(t *testing.T) {
	zipped, m := claimBundle(t)
	// Four counted outages: va-01's DST hour, its two hours of silence the
	// node's spooled passes cannot explain away, and its late maintenance;
	// va-02's degraded GPU.
	if len(m.Intervals) != 4 {
		t.Fatalf("intervals = %d, want 4: %+v", len(m.Intervals), m.Intervals)
	}
	for _, iv := range m.Intervals {
		if iv.Observations == 0 || iv.FromSeq == 0 || iv.ToSeq < iv.FromSeq {
			t.Errorf("interval %+v has no observations", iv)
		}
	}
	res := verify(t, zipped)
	if !res.OK() {
		t.Fatalf("fresh bundle does not verify:\n%s", problems(res))
	}
	if res.ChainHead != m.ChainHead || res.Batches != len(m.Batches) || res.Lines == 0 {
		t.Fatalf("result %+v", res)
	}
	// Same log, same bytes.
	again, _ := buildClaimBundle(t)
	if !bytes.Equal(again, zipped) {
		t.Fatal("the bundle is not reproducible byte for byte")
	}
}

func TestVerifyCatchesChangedByte(t *testing.T) {
	zipped, m := claimBundle(t)
	files := unzip(t, zipped)
	obs := files[ObservationsFile]
	// Change one digit of a timestamp in the 10th line: still valid JSON.
	lines := bytes.SplitAfter(obs, []byte("\n"))
	i := bytes.Index(lines[9], []byte(`"at":"2026-`))
	if i < 0 {
		t.Fatalf("line 10 has no at: %s", lines[9])
	}
	pos := i + len(`"at":"2026-1`)
	lines[9][pos] ^= 1 // 11 → 10: another month, a valid date
	files[ObservationsFile] = bytes.Join(lines, nil)
	res := verify(t, rezip(t, files))
	p := problems(res)
	if !strings.Contains(p, "observations.jsonl: SHA-256 is") || !strings.Contains(p, "observations.jsonl:10: batch ") ||
		!strings.Contains(p, "a line of this batch was changed") {
		t.Fatalf("changed byte not reported exactly:\n%s", p)
	}
	_ = m
	// A changed byte in the report is named too.
	files = unzip(t, zipped)
	files[ReportJSONFile] = bytes.Replace(files[ReportJSONFile], []byte(`"claim": 6381.44`), []byte(`"claim": 6381.45`), 1)
	if bytes.Equal(files[ReportJSONFile], unzip(t, zipped)[ReportJSONFile]) {
		t.Fatal("test did not change the report")
	}
	p = problems(verify(t, rezip(t, files)))
	if !strings.Contains(p, "report.json: SHA-256 is") {
		t.Fatalf("changed report not reported:\n%s", p)
	}
}

func TestVerifyCatchesRemovedBatch(t *testing.T) {
	zipped, m := claimBundle(t)
	victim := m.Batches[len(m.Batches)/2]
	strip := func(files map[string][]byte) {
		var kept [][]byte
		for _, ln := range bytes.SplitAfter(files[ObservationsFile], []byte("\n")) {
			var e events.Event
			if len(ln) > 0 && json.Unmarshal(ln, &e) == nil && e.Node == victim.Node && e.Seq == victim.Seq {
				continue
			}
			kept = append(kept, ln)
		}
		files[ObservationsFile] = bytes.Join(kept, nil)
	}
	// 1. Lines removed, manifest untouched.
	files := unzip(t, zipped)
	strip(files)
	p := problems(verify(t, rezip(t, files)))
	if !strings.Contains(p, "has no line in the file: the batch was removed") || !strings.Contains(p, victim.ID) {
		t.Fatalf("removed batch %s not reported:\n%s", victim.ID, p)
	}
	// 2. A careful forger: lines and manifest entry removed, file sums,
	// links and head recomputed. The hash chain still shows the hole.
	files = unzip(t, zipped)
	strip(files)
	var fm Manifest
	if err := json.Unmarshal(files[ManifestFile], &fm); err != nil {
		t.Fatal(err)
	}
	var bs []Batch
	link := Genesis
	for _, b := range fm.Batches {
		if b.Node == victim.Node && b.Seq == victim.Seq {
			continue
		}
		link = Link(link, b)
		b.Link = link
		bs = append(bs, b)
	}
	fm.Batches, fm.ChainHead = bs, link
	for i := range fm.Intervals {
		if fm.Intervals[i].Node == victim.Node && victim.Seq >= fm.Intervals[i].FromSeq && victim.Seq <= fm.Intervals[i].ToSeq {
			fm.Intervals[i].Observations -= victim.Lines
		}
	}
	for i, f := range fm.Files {
		if f.Name == ObservationsFile {
			fm.Files[i].SHA256, fm.Files[i].Bytes = sum(files[ObservationsFile]), int64(len(files[ObservationsFile]))
		}
	}
	files[ManifestFile], _ = json.Marshal(fm)
	res := verify(t, rezip(t, files))
	p = problems(res)
	if !strings.Contains(p, "hash chain broken") || !strings.Contains(p, "missing and not declared missing") {
		t.Fatalf("forged removal not caught by the chain:\n%s", p)
	}
	if res.ChainHead == m.ChainHead {
		t.Fatal("chain head unchanged by a removed batch")
	}
}

func TestVerifyRejectsNonBundles(t *testing.T) {
	if _, err := Verify(bytes.NewReader([]byte("not a zip")), 9); err == nil {
		t.Fatal("a non-zip verified")
	}
	files := map[string][]byte{ReportJSONFile: []byte("{}")}
	z := rezip(t, files)
	if _, err := Verify(bytes.NewReader(z), int64(len(z))); err == nil || !strings.Contains(err.Error(), "no manifest.json") {
		t.Fatalf("bundle without manifest: %v", err)
	}
}

// The bundle lists each incident claimed (incidents.csv): one row per
// counted interval with its times, what counted and where its log lines are,
// as a claim procedure asks ("the dates and times of each incident … logs
// that document the errors"). Verify derives it again from the manifest and
// the report: a changed time is named even when the manifest's sum is
// rewritten to match.
func TestIncidentsCSV(t *testing.T) {
	zipped, m := claimBundle(t)
	files := unzip(t, zipped)
	inc := string(files[IncidentsFile])
	lines := strings.Split(strings.TrimSpace(inc), "\n")
	if len(lines) != 1+len(m.Intervals) || !strings.HasPrefix(lines[0], "contract,node,instance_id,region,kind,cause,start,end,seconds,counted_seconds,from_seq,to_seq") {
		t.Fatalf("incidents.csv:\n%s", inc)
	}
	iv := m.Intervals[0]
	if !strings.Contains(lines[1], ","+iv.Node+",") || !strings.Contains(lines[1], iv.Start) ||
		!strings.Contains(lines[1], ","+strconv.FormatInt(iv.CountedSeconds, 10)+",") || !strings.Contains(lines[1], ","+strconv.Itoa(iv.Observations)+",") {
		t.Errorf("row 1 %q does not carry interval %+v", lines[1], iv)
	}
	// Tamper with a time and re-sum it in the manifest, as an attacker
	// who knows the format would: the row no longer derives.
	files[IncidentsFile] = []byte(strings.Replace(inc, iv.Start, strings.Replace(iv.Start, "2026-", "2025-", 1), 1))
	var mm Manifest
	if err := json.Unmarshal(files[ManifestFile], &mm); err != nil {
		t.Fatal(err)
	}
	for i := range mm.Files {
		if mm.Files[i].Name == IncidentsFile {
			mm.Files[i].Bytes, mm.Files[i].SHA256 = int64(len(files[IncidentsFile])), sum(files[IncidentsFile])
		}
	}
	mj, _ := json.MarshalIndent(mm, "", "  ")
	files[ManifestFile] = append(mj, '\n')
	if p := problems(verify(t, rezip(t, files))); !strings.Contains(p, "incidents.csv: does not list the manifest's intervals") {
		t.Fatalf("a changed incident row is not named:\n%s", p)
	}
}

// TestVerifyGivesTheSealTheClaimPageQuotes: the claim page quotes the
// observations' SHA-256, the chain head and the records' SHA-256 and says
// verify re-derives them; verify gives all three as the bundle has them, and
// a report whose quoted seal is not the bundle's is named, even with the
// manifest summed again to match the changed report.
func TestVerifyGivesTheSealTheClaimPageQuotes(t *testing.T) {
	zipped, m := claimBundle(t)
	files := unzip(t, zipped)
	var r report.Report
	if err := json.Unmarshal(files[ReportJSONFile], &r); err != nil {
		t.Fatal(err)
	}
	if r.Seal == nil || r.Seal.RecordsSHA256 == "" {
		t.Fatalf("the bundle's report has no full seal: %+v", r.Seal)
	}
	res := verify(t, zipped)
	if !res.OK() || res.ObservationsSHA256 != r.Seal.ObservationsSHA256 || res.ChainHead != r.Seal.ChainHead || res.RecordsSHA256 != r.Seal.RecordsSHA256 {
		t.Fatalf("verify gave observations %s, chain head %s, records %s; the claim page quotes %+v\n%s",
			res.ObservationsSHA256, res.ChainHead, res.RecordsSHA256, r.Seal, problems(res))
	}
	for _, c := range []struct {
		name string
		set  func(*report.Seal)
		want string
	}{
		{"observations", func(s *report.Seal) { s.ObservationsSHA256 = strings.Repeat("0", 64) }, "observations.jsonl: hashes to " + r.Seal.ObservationsSHA256},
		{"chain head", func(s *report.Seal) { s.ChainHead = strings.Repeat("1", 64) }, "gives chain head " + strings.Repeat("1", 64) + ", the manifest " + m.ChainHead},
		{"records", func(s *report.Seal) { s.RecordsSHA256 = strings.Repeat("2", 64) }, "records.jsonl: hashes to " + r.Seal.RecordsSHA256},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := unzip(t, zipped)
			forged := r
			seal := *r.Seal
			c.set(&seal)
			forged.Seal = &seal
			var rj bytes.Buffer
			if err := report.JSON(&rj, &forged); err != nil {
				t.Fatal(err)
			}
			files[ReportJSONFile] = rj.Bytes()
			var fm Manifest
			if err := json.Unmarshal(files[ManifestFile], &fm); err != nil {
				t.Fatal(err)
			}
			for i, f := range fm.Files {
				if f.Name == ReportJSONFile {
					fm.Files[i].SHA256, fm.Files[i].Bytes = sum(rj.Bytes()), int64(rj.Len())
				}
			}
			files[ManifestFile], _ = json.Marshal(fm)
			p := problems(verify(t, rezip(t, files)))
			if !strings.Contains(p, c.want) || strings.Contains(p, "SHA-256 is") {
				t.Fatalf("a report quoting another seal: problems\n%s\nwant %q and no file mismatch", p, c.want)
			}
		})
	}
}
