package bundle

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/document/documenttest"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
)

// How a node enrolled is one of the books' records: the bundle carries
// its node_enrolled line (token, who made it, when) for a node of the
// report, and none for a node the report does not hold; the verifier
// accepts it as a record.
func TestBundleCarriesEnrolments(t *testing.T) {
	tm, err := documenttest.Terms()
	if err != nil {
		t.Fatal(err)
	}
	l := documenttest.ClaimMonth()
	node := ""
	for _, e := range l.Events {
		if e.Type == events.TypeNodeRegistered {
			node = e.Node
			break
		}
	}
	at := time.Date(2026, 10, 30, 8, 0, 0, 0, time.UTC)
	for _, n := range []string{node, "not-in-the-report"} {
		l.Events = append(l.Events, events.Event{Type: events.TypeNodeEnrolled, ID: "enrol-" + n, Node: n, At: at, RecordedAt: at,
			RecordedBy: "cli:ops", Token: "k7q2m4xa", Summary: "host " + n + "; probe v1.4.0"})
	}
	var logBuf bytes.Buffer
	w := events.NewWriter(&logBuf)
	for i := range l.Events {
		if err := w.Write(&l.Events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	b, err := report.NewBuilder(tm, report.Options{Year: 2026, Month: time.November, AsOf: documenttest.ClaimAsOf})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ReadLog("log", bytes.NewReader(logBuf.Bytes())); err != nil {
		t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := Write(&out, r, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(logBuf.Bytes())), nil }); err != nil {
		t.Fatal(err)
	}
	files := unzip(t, out.Bytes())
	recs := files[RecordsFile]
	if !bytes.Contains(recs, []byte(`"type":"node_enrolled","id":"enrol-`+node+`"`)) || !bytes.Contains(recs, []byte(`"token":"k7q2m4xa"`)) ||
		bytes.Contains(recs, []byte("not-in-the-report")) {
		t.Fatalf("records.jsonl:\n%s", recs)
	}
	if res := verify(t, out.Bytes()); !res.OK() {
		t.Fatalf("verify: %s", problems(res))
	}
}
