// Package bundle writes and checks the claim evidence bundle: one zip with
// the month's report (JSON, the documented form, and HTML for people), the
// raw observations behind every counted outage as JSON lines exactly as
// the event log holds them (docs/events.md), the incidents claimed with
// where their log lines are (incidents.csv), the books' administrative
// records behind the report (records.jsonl: maintenance notices, releases,
// ticket events, each with when and by whom it was recorded), and a
// manifest with the SHA-256 of each file, the batches those observations
// came in with their hash chain, and a chain head that summarises all of it.
//
// Verify re-derives everything from the zip alone, offline, and lists each
// thing that does not match — a changed byte names the file and the batch
// whose lines changed; a removed batch names its node and sequence number.
//
// On the path of one observation (docs/architecture.md) this is step 11's evidence: the
// observations behind every counted row, sealed so the provider can check them.
package bundle

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/gpusla/gpusla/functions/document"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
)

// Schema names the manifest's form.
const Schema = "gpusla.bundle/v1"

// File names inside the bundle.
const (
	ManifestFile     = "manifest.json"
	ReportJSONFile   = "report.json"
	ReportHTMLFile   = "report.html"
	ObservationsFile = "observations.jsonl"
)

// Margin is how far around each counted outage observations are kept: the
// heartbeats just before and after it are what prove where it began and
// ended, and a check incident's opening failures lie just before it.
const Margin = 15 * time.Minute

// Manifest is manifest.json.
type Manifest struct {
	Schema    string     `json:"schema"`
	Month     string     `json:"month"`
	AsOf      string     `json:"as_of"`
	Files     []FileSum  `json:"files"`
	Intervals []Interval `json:"intervals"`
	Batches   []Batch    `json:"batches"`
	// ChainHead is the last link of the chain over Batches (see Link): one
	// value that changes if any batch, its order or any of its lines does.
	// Quote it when filing the claim; verify prints it.
	ChainHead string `json:"chain_head"`
	// Records counts the lines of records.jsonl: the report's maintenance
	// notices, releases and ticket events with their recording.
	Records int `json:"records"`
}

// FileSum is one file's size and SHA-256.
type FileSum struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Interval is one counted outage of the report and the batches behind it.
type Interval struct {
	Node           string `json:"node"`
	Kind           string `json:"kind"`
	Cause          string `json:"cause"`
	Start          string `json:"start"`
	End            string `json:"end"`
	CountedSeconds int64  `json:"counted_seconds"`
	// FromSeq..ToSeq is the node's batch range kept for it; Missing lists
	// sequence numbers in the range the event log never had (a probe drop).
	FromSeq      uint64   `json:"from_seq"`
	ToSeq        uint64   `json:"to_seq"`
	Missing      []uint64 `json:"missing_seqs,omitempty"`
	Observations int      `json:"observations"`
}

// Batch is one batch whose observations are in the bundle.
type Batch struct {
	Node string `json:"node"`
	Seq  uint64 `json:"seq"`
	ID   string `json:"id"`
	// Hash is the batch body's SHA-256 as the backend recorded it at ingest
	// (after checking the probe's hash chain); Prev is the hash of batch
	// Seq-1 when the log has it.
	Hash  string `json:"hash"`
	Prev  string `json:"prev,omitempty"`
	Lines int    `json:"lines"`
	// LinesSHA256 is the SHA-256 of this batch's lines in observations.jsonl
	// (each with its newline), in file order.
	LinesSHA256 string `json:"lines_sha256"`
	Link        string `json:"link"`
}

// Link is the chain value after b: SHA-256 over the previous link and b's
// fields, so the head depends on every batch and its order.
func Link(prev string, b Batch) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%d\n%s\n%s\n%s\n%d\n%s\n", prev, b.Node, b.Seq, b.ID, b.Hash, b.Prev, b.Lines, b.LinesSHA256)
	return hex.EncodeToString(h.Sum(nil))
}

// Genesis is the link before the first batch.
var Genesis = sum([]byte(Schema))

// LogSource opens the event log again; Write reads it twice (once to find
// the batches behind each counted outage, once to copy their lines), so a
// month of observations is never held in memory.
type LogSource func() (io.ReadCloser, error)

type window struct {
	iv         int // index into intervals
	node       string
	start, end time.Time
}

type seqRange struct{ from, to uint64 }

// outages are the windows around the report's counted outages (Margin
// either side), the observations a bundle keeps.
type outages struct {
	wins   []window
	byNode map[string][]int // indexes into wins
}

// hashes are the batch hashes the log has, by node and seq.
type hashes map[string]map[uint64]string

// Write builds the bundle for r from the log it was built from, and sets
// r.Seal to the bundle's observations hash and chain head.
func Write(w io.Writer, r *report.Report, log LogSource) (*Manifest, error) {
	return WriteWithClaims(w, r, log, nil)
}

// WriteWithClaims is Write with the claims ledger: the ledger's claims of
// r's month and contracts go in claims.json (ClaimsFile).
func WriteWithClaims(w io.Writer, r *report.Report, log LogSource, ledger []LedgerClaim) (*Manifest, error) {
	m := &Manifest{Schema: Schema, Month: r.Month, AsOf: r.AsOf, Intervals: []Interval{}, Batches: []Batch{}}
	out, err := outageWindows(r, m)
	if err != nil {
		return nil, err
	}
	ranges, hs, err := out.seqRanges(log)
	if err != nil {
		return nil, err
	}
	setRanges(m, ranges, hs)
	lines, err := out.lines(log, ranges)
	if err != nil {
		return nil, err
	}
	obs := chainBatches(m, lines, hs)
	recs, n, err := adminRecords(r, log)
	if err != nil {
		return nil, err
	}
	m.Records = n
	// The report's claim page quotes the seal, so it is set before the
	// report is rendered into the bundle (and for the caller's other forms).
	r.Seal = &report.Seal{ObservationsSHA256: sum(obs), ChainHead: m.ChainHead, Batches: len(m.Batches), RecordsSHA256: sum(recs)}
	for i := range m.Intervals {
		iv := &m.Intervals[i]
		for _, b := range m.Batches {
			if b.Node == iv.Node && b.Seq >= iv.FromSeq && b.Seq <= iv.ToSeq {
				iv.Observations += b.Lines
			}
		}
	}
	if err := writeZip(w, m, r, obs, recs, ledger); err != nil {
		return nil, err
	}
	return m, nil
}

// outageWindows adds an interval to m for each counted outage of r, and
// returns the window around each.
func outageWindows(r *report.Report, m *Manifest) (*outages, error) {
	out := &outages{byNode: map[string][]int{}}
	for _, n := range r.Nodes {
		for _, o := range n.Outages {
			if !o.Counted {
				continue
			}
			s, err1 := time.Parse(time.RFC3339, o.Start)
			e, err2 := time.Parse(time.RFC3339, o.End)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("report: node %s outage %q..%q: unreadable time", n.Node, o.Start, o.End)
			}
			out.wins = append(out.wins, window{iv: len(m.Intervals), node: n.Node, start: s.Add(-Margin), end: e.Add(Margin)})
			m.Intervals = append(m.Intervals, Interval{Node: n.Node, Kind: o.Kind, Cause: o.Cause, Start: o.Start, End: o.End,
				CountedSeconds: o.CountedSeconds})
		}
	}
	for i, w := range out.wins {
		out.byNode[w.node] = append(out.byNode[w.node], i)
	}
	return out, nil
}

// seqRanges is the bundle's first pass over the log: the seq range of the
// observations made (probe time) or received inside each window, and every
// batch the log has, with its hash.
func (out *outages) seqRanges(log LogSource) ([]seqRange, hashes, error) {
	ranges := make([]seqRange, len(out.wins))
	hs := hashes{}
	err := scan(log, func(e *events.Event) {
		if e.Type != events.TypeObservation {
			return
		}
		if e.Seq > 0 && e.Hash != "" {
			hm := hs[e.Node]
			if hm == nil {
				hm = map[uint64]string{}
				hs[e.Node] = hm
			}
			hm[e.Seq] = e.Hash
		}
		at := e.TrueAt()
		for _, i := range out.byNode[e.Node] {
			w := out.wins[i]
			in := !at.Before(w.start) && at.Before(w.end)
			late := !e.ReceivedAt.Before(w.start) && e.ReceivedAt.Before(w.end)
			if !in && !late {
				continue
			}
			r := &ranges[i]
			if r.from == 0 || e.Seq < r.from {
				r.from = e.Seq
			}
			if e.Seq > r.to {
				r.to = e.Seq
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return ranges, hs, nil
}

// setRanges records each interval's batch range and the sequence numbers
// in it the log never had.
func setRanges(m *Manifest, ranges []seqRange, hs hashes) {
	for i := range ranges {
		iv := &m.Intervals[i]
		iv.FromSeq, iv.ToSeq = ranges[i].from, ranges[i].to
		for s := iv.FromSeq; s > 0 && s <= iv.ToSeq; s++ {
			if _, ok := hs[iv.Node][s]; !ok {
				iv.Missing = append(iv.Missing, s)
			}
		}
	}
}

// logLine is one event the bundle keeps, as the log spells it.
type logLine struct {
	node  string
	seq   uint64
	index int
	at    time.Time
	text  []byte
}

// lines is the bundle's second pass over the log: every line of every
// batch in a range (and, for logs without batch numbers, the observations
// inside the window), in (node, seq, index) order.
func (out *outages) lines(log LogSource, ranges []seqRange) ([]logLine, error) {
	var lines []logLine
	keep := func(e *events.Event, seq uint64, index int) {
		var buf bytes.Buffer
		ew := events.NewWriter(&buf)
		if ew.Write(e) == nil && ew.Flush() == nil {
			lines = append(lines, logLine{e.Node, seq, index, e.TrueAt(), buf.Bytes()})
		}
	}
	err := scan(log, func(e *events.Event) {
		if e.Type == events.TypeHeartbeatRun {
			// The backend keeps heartbeat-only batches as runs: a run that
			// reaches into the window is the heartbeats that bound the
			// outage. Kept whole, under seq 0 like other lines without a batch.
			for _, i := range out.byNode[e.Node] {
				if e.TrueAt().Before(out.wins[i].end) && !e.TrueLastAt().Before(out.wins[i].start) {
					keep(e, 0, 0)
					return
				}
			}
			return
		}
		if e.Type == events.TypeObservation && out.inRange(e, ranges) {
			keep(e, e.Seq, e.Index)
		}
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if a.node != b.node {
			return a.node < b.node
		}
		if a.seq != b.seq {
			return a.seq < b.seq
		}
		if a.index != b.index {
			return a.index < b.index
		}
		return a.at.Before(b.at)
	})
	return lines, nil
}

// inRange says whether observation e is kept: its batch is in a window's
// range, or, without a batch number, it was made inside a window.
func (out *outages) inRange(e *events.Event, ranges []seqRange) bool {
	keep := false
	for _, i := range out.byNode[e.Node] {
		rg := ranges[i]
		if e.Seq > 0 && rg.from > 0 && e.Seq >= rg.from && e.Seq <= rg.to {
			keep = true
		}
		if e.Seq == 0 {
			at := e.TrueAt()
			if !at.Before(out.wins[i].start) && at.Before(out.wins[i].end) {
				keep = true
			}
		}
	}
	return keep
}

// chainBatches writes the sorted lines into observations.jsonl, dropping
// exact duplicates (the log is at-least-once), and sets m's batches, each
// with its lines' digest and its link in the chain, and the chain head.
func chainBatches(m *Manifest, lines []logLine, hs hashes) []byte {
	var obs bytes.Buffer
	var prev []byte
	per := map[batchKey]*Batch{}
	var order []batchKey
	digests := map[batchKey]hashWriter{}
	for _, l := range lines {
		if bytes.Equal(l.text, prev) {
			continue
		}
		prev = l.text
		obs.Write(l.text)
		k := batchKey{l.node, l.seq}
		b := per[k]
		if b == nil {
			b = &Batch{Node: l.node, Seq: l.seq, Hash: hs[l.node][l.seq]}
			if l.seq > 1 {
				b.Prev = hs[l.node][l.seq-1]
			}
			per[k] = b
			order = append(order, k)
			digests[k] = newHashWriter()
		}
		b.Lines++
		digests[k].h.Write(l.text)
		var e events.Event
		if err := json.Unmarshal(l.text, &e); err == nil && b.ID == "" {
			b.ID = e.Batch
		}
	}
	link := Genesis
	for _, k := range order {
		b := per[k]
		b.LinesSHA256 = hex.EncodeToString(digests[k].h.Sum(nil))
		link = Link(link, *b)
		b.Link = link
		m.Batches = append(m.Batches, *b)
	}
	m.ChainHead = link
	return obs.Bytes()
}

// batchKey names a batch: its node and seq (0: lines without a batch).
type batchKey struct {
	node string
	seq  uint64
}

// zipFile is one file of the bundle.
type zipFile struct {
	name string
	data []byte
}

// writeZip renders r (JSON and HTML), sums every file into m.Files and
// writes the zip: the report, the observations, the records, then the
// manifest.
func writeZip(w io.Writer, m *Manifest, r *report.Report, obs, recs []byte, ledger []LedgerClaim) error {
	var rj, rh bytes.Buffer
	if err := report.JSON(&rj, r); err != nil {
		return err
	}
	if err := document.Render(&rh, r, "html", document.Extras{}); err != nil {
		return err
	}
	files := []zipFile{{ReportJSONFile, rj.Bytes()}, {ReportHTMLFile, rh.Bytes()}, {ObservationsFile, obs}, {RecordsFile, recs},
		{IncidentsFile, incidentsCSV(m, r)}}
	cl, err := claimsFile(r, ledger)
	if err != nil {
		return err
	}
	if cl != nil {
		files = append(files, zipFile{ClaimsFile, cl})
	}
	for _, f := range files {
		m.Files = append(m.Files, FileSum{Name: f.name, Bytes: int64(len(f.data)), SHA256: sum(f.data)})
	}
	mj, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	// Fixed times in the zip headers (the report's as-of), so a bundle is
	// reproducible byte for byte from the same log.
	mod, _ := time.Parse(time.RFC3339, r.AsOf)
	zw := zip.NewWriter(w)
	for _, f := range append(files, zipFile{ManifestFile, append(mj, '\n')}) {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: mod.UTC()})
		if err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
		if _, err := fw.Write(f.data); err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	return nil
}

// SealReport sets r.Seal as Write would, without keeping the bundle.
func SealReport(r *report.Report, log LogSource) error {
	_, err := Write(io.Discard, r, log)
	return err
}

type hashWriter struct {
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
}

func newHashWriter() hashWriter { return hashWriter{h: sha256.New()} }

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func scan(open LogSource, f func(*events.Event)) error {
	rc, err := open()
	if err != nil {
		return fmt.Errorf("bundle: open event log: %w", err)
	}
	defer rc.Close()
	// Errors name the log by its path when it is a file (path:N: …).
	name := "event log"
	if f, ok := rc.(interface{ Name() string }); ok {
		name = f.Name()
	}
	rd := events.NewReader(name, rc)
	var e events.Event
	for {
		err := rd.Next(&e)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
		f(&e)
	}
}
