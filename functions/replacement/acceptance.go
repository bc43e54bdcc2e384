package replacement

import (
	"fmt"
	"io"

	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/probe/wire/acceptance"
)

// A node's signed acceptance record (`gpuprobe trial`, probe/wire/acceptance)
// is evidence for a rejection or a replacement request inside the
// provider's acceptance window, and is checked with the pack's checks:
// the same zip limits, ed25519 signature and file sums.

// RecordResult is what VerifyRecord found.
type RecordResult struct {
	Manifest *acceptance.Manifest
	Problems []Problem
	Files    int
}

// OK says nothing failed.
func (r *RecordResult) OK() bool { return len(r.Problems) == 0 }

// Limits of a record: a few files, a report of every check of the trial.
const (
	recordMaxFiles = 8
	recordMaxBytes = 64 << 20
)

// VerifyRecord checks an acceptance record offline: the signature over
// manifest.json with the node's public key it names (with wantKeyID, that
// the key is that one: the fingerprint the renter's backend received in
// the node's batches), every file's size and SHA-256, no file unlisted,
// and that the verdict is the one its rows give. It returns an error only
// when the zip or its manifest cannot be read at all.
func VerifyRecord(ra io.ReaderAt, size int64, wantKeyID string) (*RecordResult, error) {
	z, err := bundle.OpenZip(ra, size, "acceptance record", recordMaxFiles, recordMaxBytes)
	if err != nil {
		return nil, err
	}
	var m acceptance.Manifest
	mraw, err := z.Manifest(acceptance.ManifestFile, "acceptance record", maxManifest, &m)
	if err != nil {
		return nil, err
	}
	if m.Schema != acceptance.Schema {
		return nil, fmt.Errorf("%s: schema %q, this verifier reads %q", acceptance.ManifestFile, m.Schema, acceptance.Schema)
	}
	res := &RecordResult{Manifest: &m}
	res.Problems = checkSignature(z, mraw, m.PublicKey, m.KeyID, wantKeyID, acceptance.ManifestFile, acceptance.SignatureFile)
	sums := make([]bundle.FileSum, len(m.Files))
	for i, f := range m.Files {
		sums[i] = bundle.FileSum(f)
	}
	data := z.CheckFiles(sums, recordMaxBytes, acceptance.ManifestFile, acceptance.SignatureFile)
	res.Files = len(data)
	res.Problems = append(z.Problems, res.Problems...)
	if v := acceptance.VerdictOf(m.Rows); v != m.Verdict {
		res.Problems = append(res.Problems, Problem{File: acceptance.ManifestFile, Detail: fmt.Sprintf("verdict %q, its rows give %q", m.Verdict, v)})
	}
	return res, nil
}

// IsRecord says whether the zip in ra is an acceptance record (its
// manifest names acceptance.Schema).
func IsRecord(ra io.ReaderAt, size int64) bool {
	return schemaOf(ra, size, "acceptance record", recordMaxFiles, recordMaxBytes) == acceptance.Schema
}
