package bundle

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/document/documenttest"
	"github.com/gpusla/gpusla/sla/report"
)

// A log in the backend's export form (heartbeats as heartbeat_run events)
// bundles the runs that bound each counted outage, verifies, and a changed
// run line is caught.
func TestBundleOfHeartbeatRunsVerifies(t *testing.T) {
	tm, err := documenttest.Terms()
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if err := documenttest.FleetRuns(2, 2026, time.March).WriteLog(&log); err != nil {
		t.Fatal(err)
	}
	b, err := report.NewBuilder(tm, report.Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ReadLog("log", bytes.NewReader(log.Bytes())); err != nil {
		t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	m, err := Write(&out, r, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(log.Bytes())), nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Intervals) == 0 {
		t.Fatal("no counted outage: the fleet month should have one per node")
	}
	obs := unzip(t, out.Bytes())[ObservationsFile]
	// Each node's outage (split by the GPU checks every 15 minutes into
	// several counted intervals) is bounded by the run before it and the
	// run after.
	nodes := map[string]bool{}
	for _, iv := range m.Intervals {
		nodes[iv.Node] = true
	}
	if n := bytes.Count(obs, []byte(`"type":"heartbeat_run"`)); n != 2*len(nodes) {
		t.Fatalf("bundle has %d heartbeat runs for %d nodes with counted outages, want two each:\n%.3000s", n, len(nodes), obs)
	}
	res := verify(t, out.Bytes())
	if !res.OK() {
		t.Fatalf("bundle of runs does not verify:\n%s", problems(res))
	}
	files := unzip(t, out.Bytes())
	files[ObservationsFile] = bytes.Replace(obs, []byte(`"count":`), []byte(`"count":1`), 1)
	if bytes.Equal(files[ObservationsFile], obs) {
		t.Fatal("test did not change a run line")
	}
	if p := problems(verify(t, rezip(t, files))); !strings.Contains(p, "a line of this batch was changed") {
		t.Fatalf("changed run line not reported:\n%s", p)
	}
}
