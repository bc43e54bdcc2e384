package dynamo

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"

	"github.com/gpusla/gpusla/probe/wire"
)

// Batch bodies are stored deflated. The JSON of a health batch (the same
// check names, criteria and units for every GPU) shrinks several times, and
// DynamoDB bills writes per started KB and storage per byte — for a year of
// retention the bodies are most of a node's bill. It also keeps a body of
// up to wire.MaxBodyBytes (1 MiB) under DynamoDB's 400 KB item limit.
const (
	bodyEncAttr = "body_enc"
	// formAttr is the batch's decoded form (store.BatchRecord.Form), kept
	// as it is: it is read to be quick.
	formAttr       = "form"
	bodyEncDeflate = "deflate"
	// maxItemBytes is DynamoDB's item size limit.
	maxItemBytes = 400 * 1024
)

func deflate(p []byte) ([]byte, error) { return deflateDict(p, nil) }

// deflateDict deflates with a preset dictionary (nil: none).
func deflateDict(p, dict []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := flate.NewWriterDict(&buf, flate.BestCompression, dict)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(p); err != nil {
		return nil, fmt.Errorf("deflate body: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("deflate body: %w", err)
	}
	return buf.Bytes(), nil
}

// inflate refuses output beyond the largest body ingest accepts, so a
// damaged or hostile item cannot expand without bound.
func inflate(z []byte) ([]byte, error) { return inflateDict(z, nil) }

// inflateDict inflates what deflateDict wrote with the same dictionary.
func inflateDict(z, dict []byte) ([]byte, error) {
	r := flate.NewReaderDict(bytes.NewReader(z), dict)
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, wire.MaxBodyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("inflate body: %w", err)
	}
	if len(out) > wire.MaxBodyBytes {
		return nil, fmt.Errorf("inflate body: over %d bytes", wire.MaxBodyBytes)
	}
	return out, nil
}
