package documenttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gpusla/gpusla/internal/testenv"
)

// PDFText is a rendered PDF's text as poppler's pdftotext reads it (in
// reading order, -raw): what a renter's PDF reader finds in it.
func PDFText(t testing.TB, pdf []byte) string {
	t.Helper()
	pdftotext := testenv.LookPath(t, "pdftotext", "poppler-utils (scripts/setup.sh installs it)")
	p := filepath.Join(t.TempDir(), "report.pdf")
	if err := os.WriteFile(p, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pdftotext, "-raw", p, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, out)
	}
	return string(out)
}
