// Package provstatustest holds what every status page parser's tests share:
// the recorded documents in infra/provstatus/testdata, and the table test
// that edits a good document into a bad one and checks the parser's error.
package provstatustest

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/infra/provstatus"
)

// Document returns a recorded document of infra/provstatus/testdata.
func Document(t testing.TB, name string) []byte {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Case edits a good document (Old → New, once) and names the error the
// parser must give: Line (0: the format has none here), Field, and a part
// of the message.
type Case struct {
	Name, Old, New string
	Line           int
	Field, Msg     string
}

// Refuses runs the cases against parse, which must refuse each edited
// document with a *provstatus.Error of format.
func Refuses(t *testing.T, format string, good []byte, parse func([]byte) ([]provstatus.Incident, error), cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			src := strings.Replace(string(good), c.Old, c.New, 1)
			if src == string(good) {
				t.Fatal("case changed nothing")
			}
			_, err := parse([]byte(src))
			var pe *provstatus.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a provstatus.Error", err)
			}
			if pe.Format != format || pe.Line != c.Line || pe.Field != c.Field || !strings.Contains(pe.Msg, c.Msg) {
				t.Fatalf("got %q (line %d, field %q), want line %d field %q containing %q", err, pe.Line, pe.Field, c.Line, c.Field, c.Msg)
			}
		})
	}
}

// C makes a Case (go vet wants keyed literals of another package's struct;
// a table of them reads better positional).
func C(name, old, new string, line int, field, msg string) Case {
	return Case{Name: name, Old: old, New: new, Line: line, Field: field, Msg: msg}
}

// Fuzz runs parse on the recorded document name and whatever the fuzzer
// makes of it: it must never panic, and what it accepts must pass
// provstatus.Check (ids, order of times) and the limits.
func Fuzz(f *testing.F, name string, parse func([]byte) ([]provstatus.Incident, error)) {
	f.Add(Document(f, name))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		incs, err := parse(data)
		if err != nil {
			return
		}
		if err := provstatus.Check("fuzz", incs); err != nil {
			t.Fatalf("accepted a document Check refuses: %v", err)
		}
		for _, in := range incs {
			if provstatus.CheckID(in.ID) != "" || in.Title == "" || in.Start.IsZero() || len(in.Updates) > provstatus.MaxUpdates {
				t.Fatalf("accepted an incident without what every parser must give: %+v", in)
			}
		}
	})
}
