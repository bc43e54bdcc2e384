// Package acceptance is the signed acceptance record `gpuprobe trial`
// writes for a trial node: what was ordered, what was measured, each of the
// seed's criteria judged (sla/trial), the probe's version and how long the
// trial ran, in a zip whose manifest is signed with the node's own ed25519
// key. The renter keeps it and can send it to the provider with a
// rejection or a replacement request inside the acceptance window; anyone
// can check it offline with `gpusla verify` (functions/replacement reads
// it with the evidence pack's checks), and the key's fingerprint reached
// the renter's backend in the node's signed batches (probe.trial.record).
//
// It is part of the protocol the probe and the backend share (probe/wire):
// a change to the manifest is a change of Schema.
package acceptance

import (
	"archive/zip"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/gpusla/gpusla/internal/edkey"
	"github.com/gpusla/gpusla/sla/trial"
)

// Schema names the record's manifest form.
const Schema = "gpusla.acceptance/v1"

// Files of a record.
const (
	ManifestFile  = "manifest.json"
	SignatureFile = "manifest.sig" // base64 ed25519 signature over manifest.json, byte for byte
	ReportJSON    = "trial.json"   // every check of the run, the rows, the timings
	ReportMD      = "trial.md"     // the same for people
)

// Overall verdicts of a record, worst first.
const (
	VerdictFail       = "fail"
	VerdictWarn       = "warn"
	VerdictIncomplete = "incomplete" // a criterion was not measured (a shortened soak, no iperf3 peer)
	VerdictPass       = "pass"
)

// Manifest is manifest.json.
type Manifest struct {
	Schema   string    `json:"schema"`
	Node     string    `json:"node,omitempty"` // the node id of --config; empty without one
	Hostname string    `json:"hostname,omitempty"`
	Probe    string    `json:"probe"` // the probe's version
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// PlannedSeconds is the wall time the trial announced; WallSeconds
	// what it took.
	PlannedSeconds float64 `json:"planned_seconds"`
	WallSeconds    float64 `json:"wall_seconds"`
	// Order is what was ordered (--expect, --config's expected:, as the
	// probe's expected: section spells it).
	Order json.RawMessage `json:"order"`
	Soak  Soak            `json:"soak"`
	// Verdict is the worst of the rows: fail, warn, incomplete (a
	// criterion not measured), pass; VerdictOf recomputes it.
	Verdict string      `json:"verdict"`
	Rows    []trial.Row `json:"rows"`
	// Counts are the check results' verdicts (pass, warn, fail, skipped).
	Counts map[string]int `json:"counts"`
	// Pushed says where the results went: the backend and how many
	// batches the trial spooled for it (nil: not pushed, no --config).
	Pushed    *Pushed   `json:"pushed,omitempty"`
	Files     []FileSum `json:"files"`
	PublicKey string    `json:"public_key"` // base64 ed25519
	KeyID     string    `json:"key_id"`     // its fingerprint (internal/edkey)
	// Replayed: the rows judge a recorded snapshot (gpuprobe trial
	// --snapshot), not the live machine; nil for a trial of a card. A
	// live trial's manifest has no such member, so its bytes are as
	// before; a verifier that predates it refuses a replay's by name
	// rather than read it as a trial of a card.
	Replayed *Replayed `json:"replayed,omitempty"`
}

// Replayed is the recorded snapshot a trial judged instead of the live
// machine, named by its file's SHA-256: nothing in such a record was
// measured on a card.
type Replayed struct {
	File     string    `json:"file"`
	SHA256   string    `json:"sha256"`
	TakenAt  time.Time `json:"taken_at"`
	Hostname string    `json:"hostname,omitempty"` // the recorded machine's
	Probe    string    `json:"probe"`              // the probe that recorded it
	Note     string    `json:"note,omitempty"`
}

// Soak is the gpu_burn criterion's run: the seed's is 30 minutes; a
// shorter one is marked.
type Soak struct {
	PlannedSeconds float64 `json:"planned_seconds"`
	SeedSeconds    float64 `json:"seed_seconds"`
	Shortened      bool    `json:"shortened"`
}

// Pushed is the delivery of the trial's results.
type Pushed struct {
	Backend string `json:"backend"`
	Spool   string `json:"spool"`
	// Batches spooled by the trial; Acked of them acknowledged before the
	// record was written (the rest go with the next push or `gpuprobe run`).
	Batches int `json:"batches"`
	Acked   int `json:"acked"`
}

// FileSum is one file's size and SHA-256 (the claim bundle's form).
type FileSum struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// File is a file of the record.
type File struct {
	Name string
	Data []byte
}

// VerdictOf is the record's verdict from its rows.
func VerdictOf(rows []trial.Row) string {
	v := VerdictPass
	rank := map[string]int{VerdictPass: 0, VerdictIncomplete: 1, VerdictWarn: 2, VerdictFail: 3}
	for _, r := range rows {
		w := VerdictPass
		switch r.Verdict {
		case trial.Fail:
			w = VerdictFail
		case trial.Warn:
			w = VerdictWarn
		case trial.NotMeasured:
			w = VerdictIncomplete
		}
		if rank[w] > rank[v] {
			v = w
		}
	}
	return v
}

// Write signs the manifest m over files with key and writes the zip to w.
// It fills m's file sums and key, and returns the manifest's SHA-256 (the
// record's name in the node's batches).
func Write(w io.Writer, m *Manifest, files []File, key ed25519.PrivateKey) (string, error) {
	if len(key) != ed25519.PrivateKeySize {
		return "", fmt.Errorf("acceptance record: signing key has %d bytes, want an ed25519 private key", len(key))
	}
	pub := key.Public().(ed25519.PublicKey)
	m.Schema, m.PublicKey, m.KeyID = Schema, base64.StdEncoding.EncodeToString(pub), edkey.ID(pub)
	m.Files = m.Files[:0]
	for _, f := range files {
		s := sha256.Sum256(f.Data)
		m.Files = append(m.Files, FileSum{Name: f.Name, Bytes: int64(len(f.Data)), SHA256: hex.EncodeToString(s[:])})
	}
	mj, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", fmt.Errorf("acceptance record: manifest: %w", err)
	}
	mj = append(mj, '\n')
	sig := base64.StdEncoding.EncodeToString(ed25519.Sign(key, mj)) + "\n"
	zw := zip.NewWriter(w)
	for _, f := range append(files, File{ManifestFile, mj}, File{SignatureFile, []byte(sig)}) {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: m.Finished})
		if err != nil {
			return "", fmt.Errorf("acceptance record: %w", err)
		}
		if _, err := fw.Write(f.Data); err != nil {
			return "", fmt.Errorf("acceptance record: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("acceptance record: %w", err)
	}
	s := sha256.Sum256(mj)
	return hex.EncodeToString(s[:]), nil
}
