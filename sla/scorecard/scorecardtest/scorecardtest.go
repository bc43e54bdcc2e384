// Package scorecardtest gives tests outside sla/scorecard the package's
// golden two-provider scorecard (testdata/golden: Alpha and Beta, three
// 8 × H200 nodes each, March 2026, as of 2026-04-05T00:00:00Z; its figures
// are computed by hand in sla/scorecard's scenario test and shown in
// docs/scorecard.md), built by the real builder from the real files.
//
// On the path from an observation to a report row, this is no step: it is
// test input, the golden scorecard other packages' tests compare with.
package scorecardtest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/terms"
)

// dir is the golden files' folder, found from this file so that any
// package's test can call Golden.
func dir(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("scorecardtest: no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "testdata", "golden")
}

// Golden builds the golden scorecard.
func Golden(t testing.TB) *scorecard.Scorecard {
	t.Helper()
	d := dir(t)
	all, err := terms.ReadFile(filepath.Join(d, "two-providers-terms.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := scorecard.Month{Year: 2026, Month: time.March}
	b, err := scorecard.NewBuilder(all, scorecard.Options{From: m, To: m, AsOf: time.Date(2026, 4, 5, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(d, "two-providers.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := b.ReadLog(f.Name(), f); err != nil {
		t.Fatal(err)
	}
	sc, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
