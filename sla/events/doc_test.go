package events

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The example log in docs/events.md reads without error, so the reference
// cannot drift from the reader (a heartbeat_run among the lines).
func TestDocsExampleReads(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "events.md"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(doc, []byte("## Example\n\n```json\n"))
	if i < 0 {
		t.Fatal("docs/events.md has no example block")
	}
	block := doc[i+len("## Example\n\n```json\n"):]
	block = block[:bytes.Index(block, []byte("```"))]
	r := NewReader("docs/events.md", bytes.NewReader(block))
	types := map[string]bool{}
	for {
		var e Event
		err := r.Next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("docs/events.md example: %v", err)
		}
		types[e.Type] = true
	}
	if !types[TypeHeartbeatRun] || !types[TypeObservation] {
		t.Fatalf("example lacks a heartbeat_run or an observation: %v", types)
	}
}
