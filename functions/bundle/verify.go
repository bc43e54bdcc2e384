package bundle

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
)

// Limits of what Verify will read: a bundle is a few files; anything
// bigger is refused before it is decompressed (a zip bomb must not fill
// memory).
const (
	MaxFiles     = 16
	MaxFileBytes = 2 << 30
	maxManifest  = 256 << 20
)

// Problem is one thing that does not match.
type Problem struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Detail string `json:"detail"`
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Detail)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Detail)
}

// Result is what Verify found.
type Result struct {
	Manifest *Manifest
	Problems []Problem
	// Checked counts what was checked, for the summary.
	Files, Batches, Lines, Intervals, Records int
	// Claims counts the claims of claims.json (0: the bundle carries none).
	Claims    int
	ChainHead string
	// ObservationsSHA256 and RecordsSHA256 are the hashes of the bundle's
	// observations.jsonl and records.jsonl as read: with ChainHead, the
	// values the claim page quotes, for the provider to compare ("" when
	// the file is missing).
	ObservationsSHA256, RecordsSHA256 string
}

// OK says nothing failed.
func (r *Result) OK() bool { return len(r.Problems) == 0 }

// Verify checks a bundle offline: every file against the manifest, every
// observation line against its batch, the batches' hash chain, the chain
// head, the report's counted outages against the intervals kept, and its
// maintenance rows, tickets and retroactive records against records.jsonl. It
// returns an error only when the bundle cannot be read at all (not a zip,
// no manifest); everything else is a Problem in the result.
func Verify(ra io.ReaderAt, size int64) (*Result, error) {
	z, err := OpenZip(ra, size, "bundle", MaxFiles, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if _, err := z.Manifest(ManifestFile, "bundle", maxManifest, &m); err != nil {
		return nil, err
	}
	if m.Schema != Schema {
		return nil, fmt.Errorf("%s: schema %q, this verifier reads %q", ManifestFile, m.Schema, Schema)
	}
	v := &verifier{m: &m, res: &Result{Manifest: &m}}

	// Files: present, same size, same SHA-256; nothing unlisted.
	data := z.CheckFiles(m.Files, MaxFileBytes, ManifestFile)
	v.res.Files = len(data)
	v.res.Problems = append(z.Problems, v.res.Problems...)

	var seen map[batchKey]*batchLines
	obs, hasObs := data[ObservationsFile]
	if hasObs {
		seen = v.observations(obs)
		v.res.ObservationsSHA256 = sum(obs)
	}
	listed := v.batches(seen)
	v.unlisted(seen, listed)
	v.intervals(listed)
	var r *report.Report
	rj, ok := data[ReportJSONFile]
	if ok {
		r = v.report(rj)
	}
	recs, ok := data[RecordsFile]
	if ok {
		v.res.RecordsSHA256 = sum(recs)
	}
	if r != nil && r.Seal != nil {
		v.seal(r.Seal, obs, hasObs, recs)
	}
	if inc, has := data[IncidentsFile]; has && r != nil && !bytes.Equal(inc, incidentsCSV(&m, r)) {
		v.add(IncidentsFile, 0, "does not list the manifest's intervals as the report states them: an incident, its times or its instance was changed")
	}
	if cl, has := data[ClaimsFile]; has {
		v.claims(cl, r)
	}
	if ok {
		v.records(recs, r)
	} else if keepsRecords(rj) {
		v.add(ManifestFile, 0, "the bundle carries no %s: who recorded the report's notices, releases and ticket times, and when, cannot be checked", RecordsFile)
	}
	return v.res, nil
}

// seal holds the report's seal — what its claim page quotes — to the
// bundle: the observations' and records' hashes and the chain head.
func (v *verifier) seal(s *report.Seal, obs []byte, hasObs bool, recs []byte) {
	if hasObs && s.ObservationsSHA256 != sum(obs) {
		v.add(ObservationsFile, 0, "hashes to %s, the report's seal (quoted on its claim page) says %s", sum(obs), s.ObservationsSHA256)
	}
	if s.ChainHead != "" && s.ChainHead != v.m.ChainHead {
		v.add(ReportJSONFile, 0, "its seal (quoted on its claim page) gives chain head %s, the manifest %s", s.ChainHead, v.m.ChainHead)
	}
	if s.RecordsSHA256 != "" && sum(recs) != s.RecordsSHA256 {
		v.add(RecordsFile, 0, "hashes to %s, the report's seal (quoted on its claim page) says %s", sum(recs), s.RecordsSHA256)
	}
}

// verifier is one Verify: the bundle's manifest and what was found so far.
type verifier struct {
	m   *Manifest
	res *Result
}

func (v *verifier) add(file string, line int, format string, a ...any) {
	v.res.Problems = append(v.res.Problems, Problem{File: file, Line: line, Detail: fmt.Sprintf(format, a...)})
}

// batchLines is what observations.jsonl holds of one batch.
type batchLines struct {
	lines     int
	h         hashWriter
	firstLine int
	id        string
}

// observations reads observations.jsonl: every line an observation or a
// heartbeat run, grouped by batch with its lines' digest.
func (v *verifier) observations(obs []byte) map[batchKey]*batchLines {
	seen := map[batchKey]*batchLines{}
	sc := bufio.NewScanner(bytes.NewReader(obs))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Bytes()
		var e events.Event
		rd := events.NewReader(ObservationsFile, bytes.NewReader(raw))
		if err := rd.Next(&e); err != nil {
			v.add(ObservationsFile, n, "not a valid event line: %v", unwrapLine(err))
			continue
		}
		if e.Type != events.TypeObservation && e.Type != events.TypeHeartbeatRun {
			v.add(ObservationsFile, n, "a %s event; only observations and heartbeat runs belong here", e.Type)
			continue
		}
		k := batchKey{e.Node, e.Seq}
		g := seen[k]
		if g == nil {
			g = &batchLines{h: newHashWriter(), firstLine: n, id: e.Batch}
			seen[k] = g
		}
		g.lines++
		g.h.h.Write(raw)
		g.h.h.Write([]byte{'\n'})
		v.res.Lines++
	}
	if err := sc.Err(); err != nil {
		v.add(ObservationsFile, n+1, "cannot be read: %v", err)
	}
	return seen
}

// batches holds each batch of the manifest to its lines in the file (seen)
// and to the batch before it, recomputes the chain and its head, and
// returns the batches listed.
func (v *verifier) batches(seen map[batchKey]*batchLines) map[batchKey]bool {
	m := v.m
	link := Genesis
	listed := map[batchKey]bool{}
	prevOf := map[string]*Batch{}
	for i := range m.Batches {
		b := m.Batches[i]
		listed[batchKey{b.Node, b.Seq}] = true
		v.res.Batches++
		name := fmt.Sprintf("batch %s seq %d (%s)", b.Node, b.Seq, b.ID)
		v.lines(name, b, seen[batchKey{b.Node, b.Seq}])
		v.follows(name, b, prevOf[b.Node])
		prevOf[b.Node] = &m.Batches[i]
		link = Link(link, b)
		if link != b.Link {
			v.add(ManifestFile, 0, "chain link of %s is %s, recomputed %s", name, short(b.Link), short(link))
			link = b.Link // report each broken link once, not every one after it
		}
	}
	v.res.ChainHead = link
	if link != m.ChainHead {
		v.add(ManifestFile, 0, "chain head is %s, recomputed from the batches %s", m.ChainHead, link)
	}
	return listed
}

// lines checks that batch b (called name) has the lines the manifest says
// in observations.jsonl (g; nil: none), with the same digest.
func (v *verifier) lines(name string, b Batch, g *batchLines) {
	if g == nil {
		v.add(ObservationsFile, 0, "%s is in the manifest with %d lines but has no line in the file: the batch was removed", name, b.Lines)
		return
	}
	if g.lines != b.Lines {
		v.add(ObservationsFile, g.firstLine, "%s has %d lines, the manifest says %d", name, g.lines, b.Lines)
	}
	if d := hex.EncodeToString(g.h.h.Sum(nil)); d != b.LinesSHA256 {
		v.add(ObservationsFile, g.firstLine, "%s: its lines hash to %s, the manifest says %s: a line of this batch was changed", name, d, b.LinesSHA256)
	}
}

// follows checks batch b (called name) against p, the node's batch listed
// before it (nil: none): the hash chain — the batch before it (same node,
// seq-1) must be the one its prev names, and a gap inside one interval
// must be declared missing — and the batches' order.
func (v *verifier) follows(name string, b Batch, p *Batch) {
	if p == nil {
		return
	}
	if b.Prev != "" {
		if p.Seq == b.Seq-1 && p.Hash != b.Prev {
			v.add(ManifestFile, 0, "hash chain broken: %s names prev %s, batch seq %d has hash %s", name, short(b.Prev), p.Seq, short(p.Hash))
		}
		if p.Seq < b.Seq-1 && !declaredMissing(v.m, b.Node, p.Seq, b.Seq) && inOneInterval(v.m, b.Node, p.Seq, b.Seq) {
			v.add(ManifestFile, 0, "hash chain broken: %s follows seq %d; batches %s are missing and not declared missing",
				name, p.Seq, seqList(p.Seq+1, b.Seq-1))
		}
	}
	if p.Seq >= b.Seq {
		v.add(ManifestFile, 0, "%s listed after seq %d: batches out of order", name, p.Seq)
	}
}

// unlisted names the batches with lines in the file that the manifest does
// not list, in (node, seq) order.
func (v *verifier) unlisted(seen map[batchKey]*batchLines, listed map[batchKey]bool) {
	var unlisted []batchKey
	for k := range seen {
		if !listed[k] {
			unlisted = append(unlisted, k)
		}
	}
	sort.Slice(unlisted, func(i, j int) bool {
		if unlisted[i].node != unlisted[j].node {
			return unlisted[i].node < unlisted[j].node
		}
		return unlisted[i].seq < unlisted[j].seq
	})
	for _, k := range unlisted {
		v.add(ObservationsFile, seen[k].firstLine, "batch %s seq %d has lines but is not in the manifest", k.node, k.seq)
	}
}

// intervals checks that each interval's batch range is all here, or
// declared missing.
func (v *verifier) intervals(listed map[batchKey]bool) {
	for _, iv := range v.m.Intervals {
		v.res.Intervals++
		for s := iv.FromSeq; s > 0 && s <= iv.ToSeq; s++ {
			if !listed[batchKey{iv.Node, s}] && !slices.Contains(iv.Missing, s) {
				v.add(ManifestFile, 0, "interval %s %s %s..%s: batch seq %d of its range %d..%d is neither in the bundle nor declared missing",
					iv.Node, iv.Kind, iv.Start, iv.End, s, iv.FromSeq, iv.ToSeq)
			}
		}
	}
}

// report checks that report.json (rj) is the manifest's month and that its
// counted outages are exactly the manifest's intervals.
func (v *verifier) report(rj []byte) *report.Report {
	m := v.m
	var r report.Report
	if err := json.Unmarshal(rj, &r); err != nil {
		v.add(ReportJSONFile, 0, "not a report: %v", err)
		return nil
	}
	if r.Month != m.Month || r.AsOf != m.AsOf {
		v.add(ReportJSONFile, 0, "is for %s as of %s, the manifest for %s as of %s", r.Month, r.AsOf, m.Month, m.AsOf)
	}
	want := map[string]bool{}
	for _, iv := range m.Intervals {
		want[iv.Node+" "+iv.Kind+" "+iv.Start+" "+iv.End] = true
	}
	for _, n := range r.Nodes {
		for _, o := range n.Outages {
			if !o.Counted {
				continue
			}
			k := n.Node + " " + o.Kind + " " + o.Start + " " + o.End
			if !want[k] {
				v.add(ReportJSONFile, 0, "counted outage %s has no interval in the manifest: its evidence is not in the bundle", k)
			}
			delete(want, k)
		}
	}
	var left []string
	for k := range want {
		left = append(left, k)
	}
	sort.Strings(left)
	for _, k := range left {
		v.add(ManifestFile, 0, "interval %s is not a counted outage of report.json", k)
	}
	return &r
}

func unwrapLine(err error) error {
	var le *events.LineError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

func readAll(f *zip.File, limit int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: over the %d byte limit", f.Name, limit)
	}
	return b, nil
}

func declaredMissing(m *Manifest, node string, from, to uint64) bool {
	for s := from + 1; s < to; s++ {
		found := false
		for _, iv := range m.Intervals {
			if iv.Node == node && slices.Contains(iv.Missing, s) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// inOneInterval: a and b fall in one interval's range, so the batches
// between them belong in the bundle (different intervals leave real gaps).
func inOneInterval(m *Manifest, node string, a, b uint64) bool {
	for _, iv := range m.Intervals {
		if iv.Node == node && a >= iv.FromSeq && b <= iv.ToSeq {
			return true
		}
	}
	return false
}

func seqList(from, to uint64) string {
	if from == to {
		return fmt.Sprint(from)
	}
	return fmt.Sprintf("%d..%d", from, to)
}

func short(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}
