package replacement

import (
	"archive/zip"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/internal/edkey"
	"github.com/gpusla/gpusla/probe/wire"
)

// Schema names the pack's manifest form.
const Schema = "gpusla.replacement/v1"

// Files of a pack.
const (
	ManifestFile  = "manifest.json"
	SignatureFile = "manifest.sig" // base64 ed25519 signature over manifest.json, byte for byte
	TicketFile    = "ticket.txt"
	IncidentFile  = "incident.json"
	FailingFile   = "failing_checks.json"
	StressFile    = "stress.json"
	FirstFile     = "first_checks.json"
	batchDir      = "batches/"
)

// Manifest is manifest.json.
type Manifest struct {
	Schema   string           `json:"schema"`
	Node     string           `json:"node"`
	Provider string           `json:"provider"`
	Contract string           `json:"contract"`
	Incident string           `json:"incident"`
	Ticket   string           `json:"ticket,omitempty"` // the renter's gpusla ticket id
	Created  time.Time        `json:"created"`
	Files    []bundle.FileSum `json:"files"`
	// Batches are the raw batches in batches/, each with the hash the
	// backend recorded at ingest and the chain link over them, the same
	// scheme as the claim bundle (bundle.Link; LinesSHA256 is the SHA-256
	// of the batch file, Lines 1).
	Batches   []bundle.Batch `json:"batches"`
	LeftOut   int            `json:"batches_left_out"`
	ChainHead string         `json:"chain_head"`
	// PublicKey is the renter's ed25519 public key (base64) that signed
	// manifest.json; KeyID its fingerprint, to compare with the one the
	// renter sent the provider before (a pack signed by a new key proves
	// integrity, not origin).
	PublicKey string `json:"public_key"`
	KeyID     string `json:"key_id"`
}

// KeyID is the fingerprint of a public key: the first 16 bytes of its
// SHA-256, hex.
func KeyID(pub ed25519.PublicKey) string { return edkey.ID(pub) }

// BatchFile is the pack path of batch seq.
func BatchFile(seq uint64) string { return fmt.Sprintf("%sseq-%012d.json", batchDir, seq) }

// PackInput is what a pack holds.
type PackInput struct {
	Evidence *Evidence
	Ticket   string // gpusla ticket id
	Text     string // the ticket text
	Key      ed25519.PrivateKey
	Created  time.Time
}

type file struct {
	name string
	data []byte
}

// WritePack writes the signed zip to w and returns its manifest.
func WritePack(w io.Writer, in PackInput) (*Manifest, error) {
	ev := in.Evidence
	if len(in.Key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("replacement pack: signing key has %d bytes, want an ed25519 private key", len(in.Key))
	}
	pub := in.Key.Public().(ed25519.PublicKey)
	m := &Manifest{Schema: Schema, Node: ev.Node.ID, Provider: ev.Node.Provider, Contract: ev.Node.Contract,
		Incident: ev.Incident.ID, Ticket: in.Ticket, Created: in.Created.UTC(), Batches: []bundle.Batch{}, LeftOut: ev.LeftOut,
		PublicKey: base64.StdEncoding.EncodeToString(pub), KeyID: KeyID(pub)}
	js := func(v any) ([]byte, error) {
		b, err := json.MarshalIndent(v, "", "  ")
		return append(b, '\n'), err
	}
	var files []file
	add := func(name string, v any) error {
		b, err := js(v)
		if err != nil {
			return fmt.Errorf("replacement pack: %s: %w", name, err)
		}
		files = append(files, file{name, b})
		return nil
	}
	files = append(files, file{TicketFile, []byte(in.Text)})
	if err := add(IncidentFile, struct {
		Incident any `json:"incident"`
		Open     any `json:"open_incidents"`
		AsOf     any `json:"as_of"`
	}{ev.Incident, ev.Open, ev.AsOf}); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		v    []Check
	}{{FailingFile, ev.Failing}, {StressFile, ev.Stress}, {FirstFile, ev.First}} {
		if err := add(f.name, f.v); err != nil {
			return nil, err
		}
	}
	link := bundle.Genesis
	for _, r := range ev.Batches {
		b := bundle.Batch{Node: r.Node, Seq: r.Seq, Hash: r.Hash, Lines: 1, LinesSHA256: sum(r.Body)}
		if wb, err := wire.Decode(r.Body); err == nil {
			b.ID, b.Prev = wb.ID, wb.Prev
		}
		link = bundle.Link(link, b)
		b.Link = link
		m.Batches = append(m.Batches, b)
		files = append(files, file{BatchFile(r.Seq), r.Body})
	}
	m.ChainHead = link
	for _, f := range files {
		m.Files = append(m.Files, bundle.FileSum{Name: f.name, Bytes: int64(len(f.data)), SHA256: sum(f.data)})
	}
	mj, err := js(m)
	if err != nil {
		return nil, fmt.Errorf("replacement pack: manifest: %w", err)
	}
	sig := base64.StdEncoding.EncodeToString(ed25519.Sign(in.Key, mj)) + "\n"
	files = append(files, file{ManifestFile, mj}, file{SignatureFile, []byte(sig)})
	zw := zip.NewWriter(w)
	for _, f := range files {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: m.Created})
		if err != nil {
			return nil, fmt.Errorf("replacement pack: %w", err)
		}
		if _, err := fw.Write(f.data); err != nil {
			return nil, fmt.Errorf("replacement pack: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("replacement pack: %w", err)
	}
	return m, nil
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// IsPack says whether the zip in ra is a replacement pack (its manifest
// names Schema), so `gpusla verify` can tell it from a claim bundle.
func IsPack(ra io.ReaderAt, size int64) bool {
	return schemaOf(ra, size, "pack", MaxFiles, MaxFileBytes) == Schema
}

// schemaOf is the schema the zip's manifest.json names; "" when it is no
// zip or has no readable manifest.
func schemaOf(ra io.ReaderAt, size int64, kind string, maxFiles int, maxBytes int64) string {
	z, err := bundle.OpenZip(ra, size, kind, maxFiles, maxBytes)
	if err != nil {
		return ""
	}
	b, ok, err := z.Read(ManifestFile, maxManifest)
	if !ok || err != nil {
		return ""
	}
	var s struct {
		Schema string `json:"schema"`
	}
	if json.NewDecoder(bytes.NewReader(b)).Decode(&s) != nil {
		return ""
	}
	return s.Schema
}
