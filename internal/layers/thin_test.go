package layers

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MaxMainLines is the longest a command's main.go may be: a main wires
// flags to packages and says so in a screenful; the work, the exit statuses
// and the package documentation live in files of their own.
const MaxMainLines = 60

// TestMainsAreThin holds every main.go of the binaries and Lambdas
// (functions/, probe/) to MaxMainLines.
func TestMainsAreThin(t *testing.T) {
	mains := 0
	for _, top := range []string{"functions", "probe"} {
		err := filepath.WalkDir(filepath.Join("../..", top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "main.go" || strings.Contains(path, "testdata") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			mains++
			if n := bytes.Count(b, []byte("\n")); n > MaxMainLines {
				t.Errorf("%s: %d lines, over %d: move what is not wiring into a file of its own",
					strings.TrimPrefix(path, "../../"), n, MaxMainLines)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if mains < 3 {
		t.Fatalf("found %d main.go files: is the test running in internal/layers?", mains)
	}
}
