package replacement

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/probe/wire"
)

// Limits of what Verify reads, checked before anything is decompressed.
const (
	MaxFiles     = MaxBatches + 16
	MaxFileBytes = 64 << 20
	maxManifest  = 4 << 20
	maxSignature = 1 << 10
)

// Problem is one thing in a pack that does not match.
type Problem = bundle.Problem

// VerifyResult is what Verify found.
type VerifyResult struct {
	Manifest *Manifest
	Problems []Problem
	Files    int
	Batches  int
	// ChainHead is recomputed from the batch files.
	ChainHead string
}

// OK says nothing failed.
func (r *VerifyResult) OK() bool { return len(r.Problems) == 0 }

// Verify checks a pack offline: the signature over manifest.json with the
// public key it names (and, when wantKeyID is not empty, that the key is
// that one), every file's size and SHA-256, no file unlisted, every raw
// batch's hash as recorded at ingest, the probe's prev links between
// consecutive batches, and the chain head. It returns an error only when
// the zip or its manifest cannot be read at all.
func Verify(ra io.ReaderAt, size int64, wantKeyID string) (*VerifyResult, error) {
	z, err := bundle.OpenZip(ra, size, "pack", MaxFiles, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	res := &VerifyResult{}
	add := func(file, format string, a ...any) {
		res.Problems = append(res.Problems, Problem{File: file, Detail: fmt.Sprintf(format, a...)})
	}
	var m Manifest
	mraw, err := z.Manifest(ManifestFile, "pack", maxManifest, &m)
	if err != nil {
		return nil, err
	}
	if m.Schema != Schema {
		return nil, fmt.Errorf("%s: schema %q, this verifier reads %q", ManifestFile, m.Schema, Schema)
	}
	res.Manifest = &m

	// The signature first: everything below trusts the manifest's sums.
	res.Problems = append(res.Problems, checkSignature(z, mraw, m.PublicKey, m.KeyID, wantKeyID, ManifestFile, SignatureFile)...)

	data := z.CheckFiles(m.Files, MaxFileBytes, ManifestFile, SignatureFile)
	res.Files = len(data)
	res.Problems = append(z.Problems, res.Problems...)

	link := bundle.Genesis
	var prev *bundle.Batch
	for i := range m.Batches {
		b := m.Batches[i]
		res.Batches++
		name := BatchFile(b.Seq)
		body, ok := data[name]
		if !ok {
			add(name, "batch seq %d is in the manifest but its file is not in the pack", b.Seq)
		} else {
			if got := wire.BodyHash(body); got != b.Hash {
				add(name, "the batch hashes to %s, the backend recorded %s at ingest", got, b.Hash)
			}
			if got := sum(body); got != b.LinesSHA256 {
				add(name, "SHA-256 %s, the batch list says %s", got, b.LinesSHA256)
			}
			if wb, err := wire.Decode(body); err != nil {
				add(name, "not a batch: %v", err)
			} else if wb.ID != b.ID || wb.Prev != b.Prev {
				add(name, "batch id %q prev %q, the manifest says %q %q", wb.ID, wb.Prev, b.ID, b.Prev)
			}
		}
		if prev != nil && prev.Seq >= b.Seq {
			add(ManifestFile, "batch seq %d listed after seq %d: out of order", b.Seq, prev.Seq)
		}
		if prev != nil && prev.Seq+1 == b.Seq && b.Prev != "" && b.Prev != prev.Hash {
			add(ManifestFile, "hash chain broken: batch seq %d names prev %s, batch seq %d has hash %s", b.Seq, b.Prev, prev.Seq, prev.Hash)
		}
		prev = &m.Batches[i]
		link = bundle.Link(link, b)
		if link != b.Link {
			add(ManifestFile, "chain link of batch seq %d is %s, recomputed %s", b.Seq, b.Link, link)
			link = b.Link
		}
	}
	res.ChainHead = link
	if link != m.ChainHead {
		add(ManifestFile, "chain head is %s, recomputed from the batches %s", m.ChainHead, link)
	}
	return res, nil
}

// checkSignature checks the ed25519 signature in sigFile over the
// manifest's bytes mraw with the public key the manifest names (pubB64,
// whose fingerprint must be keyID) and, where wantKeyID is set, that the
// key is that one.
func checkSignature(z *bundle.Zip, mraw []byte, pubB64, keyID, wantKeyID, manifestFile, sigFile string) []Problem {
	bad := func(file, format string, a ...any) []Problem {
		return []Problem{{File: file, Detail: fmt.Sprintf(format, a...)}}
	}
	pub, err := base64.StdEncoding.DecodeString(pubB64)
	switch {
	case err != nil || len(pub) != ed25519.PublicKeySize:
		return bad(manifestFile, "public_key is not a base64 ed25519 public key")
	case KeyID(pub) != keyID:
		return bad(manifestFile, "key_id %s is not the fingerprint of public_key (%s)", keyID, KeyID(pub))
	case wantKeyID != "" && !strings.EqualFold(wantKeyID, keyID):
		return bad(manifestFile, "signed by key %s, not by the expected key %s", keyID, wantKeyID)
	}
	sraw, ok, err := z.Read(sigFile, maxSignature)
	switch {
	case !ok:
		return bad(sigFile, "missing: the manifest is not signed")
	case err != nil:
		return bad(sigFile, "cannot be read: %v", err)
	}
	sig, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(sraw)))
	if err != nil || !ed25519.Verify(pub, mraw, sig) {
		return bad(sigFile, "the signature does not verify: %s was changed or signed by another key", manifestFile)
	}
	return nil
}
