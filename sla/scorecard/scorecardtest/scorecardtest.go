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
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/billing"
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
	sc, err := builder(t, "two-providers.jsonl", nil, nil, false).Build()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// GoldenTrial builds the trial page of the golden trial log (trial.jsonl:
// one node from each of Alpha and Beta, March 2026, as of
// 2026-04-05T00:00:00Z; its verdicts are worked by hand in sla/scorecard's
// trial test), with Beta's bill charging 750 h for March's 744.
func GoldenTrial(t testing.TB) *scorecard.Trial {
	t.Helper()
	return GoldenTrialEdited(t, nil)
}

// GoldenTrialEdited is GoldenTrial built from the golden files as edit
// changes them (nil: as they are): the terms it is given and the log's
// bytes it returns, as another package's test needs them (a hostile check
// name, a provider named so).
func GoldenTrialEdited(t testing.TB, edit func(all []*terms.Terms, log []byte) []byte) *scorecard.Trial {
	t.Helper()
	tr, err := builder(t, "trial.jsonl", []billing.Line{{Line: 2, Node: "tb", Period: "2026-03", Hours: 750, HasHours: true}}, edit, true).BuildTrial()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// builder is a March 2026 builder under the golden terms, as of
// 2026-04-05T00:00:00Z, that has read the golden log file, both as edit
// changes them when it is not nil.
func builder(t testing.TB, file string, bill []billing.Line, edit func([]*terms.Terms, []byte) []byte, trial bool) *scorecard.Builder {
	t.Helper()
	d := dir(t)
	all, err := terms.ReadFile(filepath.Join(d, "two-providers-terms.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(d, file))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		log = edit(all, log)
	}
	m := scorecard.Month{Year: 2026, Month: time.March}
	b, err := scorecard.NewBuilder(all, scorecard.Options{From: m, To: m, AsOf: time.Date(2026, 4, 5, 0, 0, 0, 0, time.UTC), Bill: bill, Trial: trial})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ReadLog(filepath.Join(d, file), bytes.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	return b
}
