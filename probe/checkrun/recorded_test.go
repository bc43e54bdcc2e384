package checkrun

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every file in testdata/snapshots is built in, and reads the same as from
// disk.
func TestRecordedIsTestdata(t *testing.T) {
	files, err := filepath.Glob("testdata/snapshots/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no snapshots: %v", err)
	}
	for _, f := range files {
		want, err := ReadSnapshot(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Recorded(filepath.Base(f))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: built-in copy differs from the file", f)
		}
	}
	if _, err := Recorded("no-such.json"); err == nil || !strings.Contains(err.Error(), "no-such.json") {
		t.Errorf("missing snapshot: err %v, want one naming it", err)
	}
}
