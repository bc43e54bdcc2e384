// Package golden compares test output with golden files kept under the test
// package's testdata/golden, and rewrites them when the test binary runs
// with -update. It is for tests only and imports nothing of the project's,
// so the pure domain (sla/) may use it in its tests.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update is registered once for every test binary that uses golden files,
// so `go test ./pkg -update` means the same everywhere.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// Dir is where golden files live, relative to the test package.
var Dir = filepath.Join("testdata", "golden")

// Check fails t unless got equals the golden file name (a path below Dir);
// under -update it writes got there instead.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join(Dir, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update in this package to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the golden file (check the change, then run with -update):\n%s", path, FirstDiff(want, got))
	}
}

// FirstDiff names the first line where a and b differ, with both versions
// of it; "" when they are equal line for line.
func FirstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  want %s\n  got  %s", i+1, x, y)
		}
	}
	return ""
}
