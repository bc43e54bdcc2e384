package reportgen

import (
	"bytes"
	"regexp"
	"testing"
)

// The PDF has the cover page plus one page per node at least, is the same
// bytes for the same report, and is a complete file.
func TestPDFPagesAndDeterminism(t *testing.T) {
	r := buildClaim(t)
	var a, b bytes.Buffer
	if err := Render(&a, r, "pdf", Extras{}); err != nil {
		t.Fatal(err)
	}
	if err := Render(&b, r, "pdf", Extras{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two renderings of one report differ")
	}
	pdf := a.Bytes()
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) || !bytes.HasSuffix(bytes.TrimSpace(pdf), []byte("%%EOF")) {
		t.Fatal("not a complete PDF file")
	}
	pages := len(regexp.MustCompile(`/Type /Page\b`).FindAll(pdf, -1))
	if pages < 1+len(r.Nodes) {
		t.Fatalf("%d pages, want at least %d (cover + one per node)", pages, 1+len(r.Nodes))
	}
}
