package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFirstDiff(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"x\ny\n", "x\ny\n", ""},
		{"x\ny\n", "x\nz\n", "line 2:\n  want y\n  got  z"},
		{"x\n", "x\ny\n", "line 2:\n  want \n  got  y"},
		{"x\ny", "x", "line 2:\n  want y\n  got  "},
	} {
		if got := FirstDiff([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("FirstDiff(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

// fakeT records a failure instead of ending the test, so Check's failing
// paths can be seen.
type fakeT struct {
	testing.TB
	failed string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = format
	panic(f)
}
func (f *fakeT) Fatal(args ...any) { f.Fatalf("fatal") }

func check(name string, got []byte) (failed string) {
	f := &fakeT{}
	defer func() {
		if r := recover(); r != nil && r != any(f) {
			panic(r)
		}
		failed = f.failed
	}()
	Check(f, name, got)
	return ""
}

func TestCheck(t *testing.T) {
	old := Dir
	t.Cleanup(func() { Dir = old; *update = false })
	Dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(Dir, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := check("a.txt", []byte("one\ntwo\n")); f != "" {
		t.Errorf("equal content failed: %s", f)
	}
	if f := check("a.txt", []byte("one\nthree\n")); !strings.Contains(f, "differs") {
		t.Errorf("different content: failure %q, want one saying it differs", f)
	}
	if f := check("missing.txt", []byte("x")); !strings.Contains(f, "-update") {
		t.Errorf("missing file: failure %q, want one naming -update", f)
	}
	*update = true
	if f := check("sub/new.txt", []byte("new\n")); f != "" {
		t.Errorf("-update failed: %s", f)
	}
	*update = false
	if b, err := os.ReadFile(filepath.Join(Dir, "sub", "new.txt")); err != nil || string(b) != "new\n" {
		t.Errorf("-update wrote %q, %v; want %q", b, err, "new\n")
	}
	if f := check("sub/new.txt", []byte("new\n")); f != "" {
		t.Errorf("rewritten file does not match: %s", f)
	}
}
