package monthreport

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

const log = `{"type":"node_registered","id":"r1","node":"gz-01","contract":"cn-example","ordered_at":"2026-03-01T01:00:00Z","hardware":{"gpu_model":"H200","gpu_count":8}}
{"type":"observation","id":"o1","node":"gz-01","at":"2026-03-01T01:20:00Z","received_at":"2026-03-01T01:20:01Z","kind":"heartbeat"}
{"type":"observation","id":"o2","node":"gz-01","at":"2026-03-01T05:00:00Z","received_at":"2026-03-01T05:00:01Z","kind":"heartbeat"}
`

var termsFiles = []string{"../../testdata/terms/cn-example.yaml", "../../testdata/terms/us-example.yaml"}

func writeLog(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The same log gives the same report from a file and from standard input,
// and --as-of cuts off what was received after it.
func TestBuild(t *testing.T) {
	fromFile, _, err := Build(Request{Terms: termsFiles, Events: writeLog(t, log), Month: "2026-03", AsOf: "2026-03-02T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	fromStdin, _, err := Build(Request{Terms: termsFiles, Events: "-", Stdin: strings.NewReader(log), Month: "2026-03", AsOf: "2026-03-02T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	if len(fromFile.Nodes) != 1 || fromFile.Nodes[0].Node != "gz-01" || fromFile.AsOf != fromStdin.AsOf ||
		fromFile.Input.Events != 3 || fromStdin.Input.Events != 3 {
		t.Fatalf("file %+v\nstdin %+v", fromFile, fromStdin)
	}
	// New York's March begins at 05:00 UTC: the earliest as-of both
	// contracts' month has begun at.
	early, _, err := Build(Request{Terms: termsFiles, Events: "-", Stdin: strings.NewReader(log), Month: "2026-03", AsOf: "2026-03-01T05:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	if early.Input.AfterAsOf != 1 || fromFile.Input.AfterAsOf != 0 {
		t.Errorf("left out as of 05:00: %d, as of the next day: %d; want the 05:00 heartbeat only, then nothing",
			early.Input.AfterAsOf, fromFile.Input.AfterAsOf)
	}
}

// Without --as-of the report is judged at the last instant the log
// records, so the same log gives the same report on any day and in any
// format; never after the clock's now, and from standard input (which
// cannot be read twice) at now.
func TestBuildAsOfDefaultsToTheLog(t *testing.T) {
	ev := writeLog(t, log)
	for _, c := range []struct {
		now   time.Time
		stdin bool
		want  string
	}{
		{time.Date(2026, 3, 20, 8, 0, 0, 0, time.UTC), false, "2026-03-01T05:00:01Z"}, // the 05:00 heartbeat's receipt
		{time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), false, "2026-03-01T05:00:01Z"},  // a later day: the same report
		{time.Date(2026, 3, 1, 5, 0, 0, 0, time.UTC), false, "2026-03-01T05:00:00Z"},  // a clock behind the log
		{time.Date(2026, 3, 20, 8, 0, 0, 0, time.UTC), true, "2026-03-20T08:00:00Z"},
	} {
		r := Request{Terms: termsFiles, Events: ev, Month: "2026-03", Now: func() time.Time { return c.now }}
		if c.stdin {
			r.Events, r.Stdin = "-", strings.NewReader(log)
		}
		rep, _, err := Build(r)
		if err != nil {
			t.Fatal(err)
		}
		if rep.AsOf != c.want || !rep.Provisional {
			t.Errorf("now %s (stdin %v): as of %q (provisional %v), want %q, provisional", c.now, c.stdin, rep.AsOf, rep.Provisional, c.want)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	ev := writeLog(t, log)
	for _, c := range []struct {
		name string
		r    Request
		want string
	}{
		{"month", Request{Terms: termsFiles, Events: ev, Month: "March"}, `--month "March": want YYYY-MM`},
		{"as-of", Request{Terms: termsFiles, Events: ev, Month: "2026-03", AsOf: "yesterday"}, `--as-of "yesterday"`},
		{"terms file", Request{Terms: []string{"nope.yaml"}, Events: ev, Month: "2026-03"}, "nope.yaml"},
		{"events file", Request{Terms: termsFiles, Events: filepath.Join(t.TempDir(), "none.jsonl"), Month: "2026-03"}, "read events"},
		{"line", Request{Terms: termsFiles, Events: writeLog(t, log+"{oops\n"), Month: "2026-03"}, "events.jsonl:4: not a JSON event"},
	} {
		if _, _, err := Build(c.r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// A bad bill or format writes nothing, neither to the file nor to stdout.
func TestWriteAllOrNothing(t *testing.T) {
	rep, _, err := Build(Request{Terms: termsFiles, Events: writeLog(t, log), Month: "2026-03", AsOf: "2026-03-02T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bill := filepath.Join(dir, "bill.csv")
	if err := os.WriteFile(bill, []byte("node,period,billed_hours\ngz-01,2026-03,7 21\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	out := filepath.Join(dir, "report.html")
	for _, o := range []Output{
		{Format: "html", Bill: bill, Path: out},
		{Format: "html", Bill: bill, Stdout: &stdout},
		{Format: "xml", Stdout: &stdout},
		{Format: "md", Bill: filepath.Join(dir, "none.csv"), Stdout: &stdout},
	} {
		if err := Write(rep, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := os.Stat(out); err == nil || stdout.Len() != 0 {
		t.Fatalf("partial output: file %v, stdout %q", err, stdout.String())
	}
	if err := os.WriteFile(bill, []byte("node,period,billed_hours\ngz-01,2026-03,721\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// cn-example's report.lang is zh; --lang en gives the English document.
	if err := Write(rep, Output{Format: "html", Bill: bill, Lang: "en", Path: out}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out); err != nil || !bytes.Contains(b, []byte("Billing reconciliation")) {
		t.Fatalf("%v: html without the reconciliation", err)
	}
	if err := Write(rep, Output{Format: "md", Lang: "en", Stdout: &stdout}); err != nil || !strings.Contains(stdout.String(), "# SLA report March 2026") {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
}

// The bundle is written whole to its file and its manifest returned.
func TestWriteBundle(t *testing.T) {
	ev := writeLog(t, log)
	rep, _, err := Build(Request{Terms: termsFiles, Events: ev, Month: "2026-03", AsOf: "2026-03-02T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "claim.zip")
	man, err := WriteBundle(out, rep, ev)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out); err != nil || !bytes.HasPrefix(b, []byte("PK")) || man.ChainHead == "" || man.Month != "2026-03" {
		t.Fatalf("%v: manifest %+v", err, man)
	}
	if _, err := WriteBundle(filepath.Join(t.TempDir(), "x.zip"), rep, filepath.Join(t.TempDir(), "gone.jsonl")); err == nil {
		t.Fatal("bundle from a missing log: no error")
	}
}

// TestEmptyMonthSaysSo: a month with no node of the contracts given is
// written in the language the terms agree on (cn-example: zh), and its
// total says there is nothing rather than being blank.
func TestEmptyMonthSaysSo(t *testing.T) {
	files := []string{"../../testdata/terms/cn-example.yaml"}
	rep, _, err := Build(Request{Terms: files, Events: writeLog(t, ""), Month: "2026-03", AsOf: "2026-04-05T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(rep, Output{Format: "md", Terms: files, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "无：本月这些合同下没有在服务的节点") {
		t.Errorf("the total is not said in the terms' language:\n%s", out.String())
	}
	out.Reset()
	if err := Write(rep, Output{Format: "md", Terms: files, Lang: "en", Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "**Total claim:** **none: no node of these contracts was in service this month**") {
		t.Errorf("en:\n%s", out.String())
	}
}

// A report from the store (--data) without --as-of is judged at the last
// instant the store records, no later than now: a store read after serve
// stopped is not judged at now, which would count the time since against
// every node though no backend heard it.
func TestAsOfFromTheStore(t *testing.T) {
	now := time.Date(2026, 12, 7, 19, 0, 0, 0, time.UTC)
	stopped := now.Add(-time.Hour)
	books := func([]*terms.Terms, int, time.Month, time.Time) (*report.Report, error) { return nil, nil }
	for _, c := range []struct {
		name string
		last func() (time.Time, error)
		want time.Time
	}{
		{"serve stopped an hour ago", func() (time.Time, error) { return stopped, nil }, stopped},
		{"a record past now (clock skew)", func() (time.Time, error) { return now.Add(time.Minute), nil }, now},
		{"an empty store", func() (time.Time, error) { return time.Time{}, nil }, now},
		{"no LastKnown", nil, now},
	} {
		r := Request{Books: books, LastKnown: c.last, Now: func() time.Time { return now }}
		if got, err := r.asOf(); err != nil || !got.Equal(c.want) {
			t.Errorf("%s: as of %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	r := Request{Books: books, LastKnown: func() (time.Time, error) { return time.Time{}, errors.New("store unreadable") }, Now: func() time.Time { return now }}
	if _, err := r.asOf(); err == nil {
		t.Fatal("an unreadable store judged at now")
	}
}

// --as-of is an instant that has passed: now itself is judged, a second
// later is refused naming the flag, the value and now (a future as-of would
// count an undelivered node's wait or an unanswered ticket up to it).
func TestAsOfInTheFutureIsRefused(t *testing.T) {
	now := time.Date(2026, 12, 7, 19, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		asOf string
		ok   bool
	}{
		{"2026-12-07T19:00:00Z", true},
		{"2026-12-07T18:59:59Z", true},
		{"2026-12-08T03:00:00+08:00", true}, // 19:00 UTC
		{"2026-12-07T19:00:01Z", false},
		{"2027-01-01T00:00:00Z", false},
	} {
		r := Request{AsOf: c.asOf, Now: func() time.Time { return now }}
		_, err := r.asOf()
		switch {
		case c.ok && err != nil:
			t.Errorf("%s refused: %v", c.asOf, err)
		case !c.ok && (err == nil || !strings.Contains(err.Error(), "--as-of "+c.asOf+" is after now (2026-12-07T19:00:00Z)")):
			t.Errorf("%s: %v", c.asOf, err)
		}
	}
	// Inside a second, the instant written to the second it ends at is
	// that second rounded up (a backend's summary): taken; the next is not.
	mid := now.Add(400 * time.Millisecond)
	for asOf, ok := range map[string]bool{"2026-12-07T19:00:01Z": true, "2026-12-07T19:00:01.4Z": false, "2026-12-07T19:00:02Z": false} {
		r := Request{AsOf: asOf, Now: func() time.Time { return mid }}
		if _, err := r.asOf(); (err == nil) != ok {
			t.Errorf("%s at 19:00:00.4: %v", asOf, err)
		}
	}
}
