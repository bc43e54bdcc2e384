package document

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/testenv"
)

// The HTML report prints to PDF in a real browser: Chromium's print path
// applies the print CSS (A4 landscape, each node on its own page), so the
// two-node claim month gives a cover page and at least one page per node.
func TestHTMLPrintsToPDFInChromium(t *testing.T) {
	bin := testenv.Chromium(t)
	r := buildClaim(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var buf bytes.Buffer
	if err := Render(&buf, r, "html", Extras{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report.pdf")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--no-pdf-header-footer", "--print-to-pdf="+out, "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium --print-to-pdf: %v\n%s", err, stderr.String())
	}
	pdf, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatal("chromium did not write a PDF")
	}
	pages := len(regexp.MustCompile(`/Type\s*/Page[^s]`).FindAll(pdf, -1))
	if pages < 1+len(r.Nodes) {
		t.Fatalf("printed %d pages, want at least %d (cover + a page per node from the print CSS)", pages, 1+len(r.Nodes))
	}
	// Landscape A4 (842 × 595 pt) from @page.
	if !regexp.MustCompile(`/MediaBox\s*\[\s*0 0 84[12](\.\d+)? 59[45]`).Match(pdf) {
		t.Errorf("pages are not A4 landscape")
	}
	t.Logf("%d pages", pages)
}
