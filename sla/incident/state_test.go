package incident

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/interval"
)

var t0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func hb(at, recv time.Time, checks ...events.Check) *events.Event {
	return &events.Event{Type: events.TypeObservation, ID: at.String(), Node: "n1", At: at, ReceivedAt: recv, Kind: events.KindHeartbeat, Checks: checks}
}

func conn(verdict string) events.Check {
	return events.Check{Name: "net.internet", Category: events.CategoryConnectivity, Verdict: verdict}
}

func TestTickOpensAfterGraceBackdated(t *testing.T) {
	th := Thresholds{Grace: 2 * time.Minute, FailureThreshold: 3, SuccessThreshold: 2}
	var s State
	s.Observe(th, hb(t0, t0))
	if trs := s.Tick(t0.Add(2*time.Minute+59*time.Second), time.Time{}, time.Minute, th); len(trs) != 0 {
		t.Fatalf("opened inside the grace period: %+v", trs)
	}
	trs := s.Tick(t0.Add(3*time.Minute), time.Time{}, time.Minute, th)
	if len(trs) != 1 || trs[0].Op != Open || !trs[0].Since.Equal(t0.Add(time.Minute)) || !trs[0].Counted {
		t.Fatalf("want open backdated to %s, got %+v", t0.Add(time.Minute), trs)
	}
	if again := s.Tick(t0.Add(10*time.Minute), time.Time{}, time.Minute, th); len(again) != 0 {
		t.Fatalf("opened twice: %+v", again)
	}
	// The node comes back at +20 min; its spool delivers what it saw
	// during the gap first: running at +5 and +6 min, and the internet
	// reachable at +5. That late data splits the gap (the report's rule,
	// SplitGap) but does not end it: only an observation heard promptly
	// does, at its probe time. No data covers +1 to +5: counted; the node
	// ran from +5, and its word that the internet was reachable is
	// contradicted by the backend's silence: counted too.
	back := t0.Add(20 * time.Minute)
	s.Observe(th, hb(t0.Add(5*time.Minute), back, conn(events.Pass)))
	trs = s.Observe(th, hb(t0.Add(6*time.Minute), back))
	if len(trs) != 1 || trs[0].Op != Reclassify || trs[0].Split == nil {
		t.Fatalf("want a reclassification with the gap's evidence, got %+v", trs)
	}
	trs = s.Observe(th, hb(back.Add(-time.Second), back))
	if len(trs) != 1 || trs[0].Op != Close || !trs[0].At.Equal(back.Add(-time.Second)) || trs[0].Split == nil {
		t.Fatalf("want close at the prompt heartbeat's probe time %s, got %+v", back.Add(-time.Second), trs)
	}
	gap := interval.Interval{Start: t0.Add(time.Minute), End: back.Add(-time.Second)}
	wantSegs(t, trs[0].Split.Split(gap, nil), CauseNoData, 5, CauseNoConnectivityEvidence, 7, CauseNoData, 20)
	// A later batch shows the internet failing at +6: that minute is a
	// network outage; and the backend was down from +15: that part is its.
	trs = s.Observe(th, hb(t0.Add(6*time.Minute), back.Add(time.Second), conn(events.Fail)))
	if len(trs) != 1 || trs[0].Op != Reclassify {
		t.Fatalf("want a reclassification, got %+v", trs)
	}
	down := interval.Set{{Start: t0.Add(15 * time.Minute), End: back}}
	wantSegs(t, trs[0].Split.Split(gap, down), CauseNoData, 5, CauseNoConnectivityEvidence, 6, CauseNetwork, 7, CauseNoData, 15, CauseBackendOutage, 20)
	// The state survives JSON.
	b, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	var s2 State
	if err := json.Unmarshal(b, &s2); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Recent, s2.Recent) || !s2.LastReceived.Equal(s.LastReceived) || s2.V != StateVersion {
		t.Fatalf("state changed through JSON:\n%+v\n%+v", s, s2)
	}
}

func TestHysteresisFlapping(t *testing.T) {
	th := Thresholds{FailureThreshold: 3, SuccessThreshold: 2}
	lost := func(v string) events.Check {
		return events.Check{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: v, Value: "7", Criterion: "8"}
	}
	// fail pass fail fail pass fail fail fail pass fail pass pass
	seq := "FPFFPFFFPFPP"
	var s State
	var got []Transition
	for i, c := range seq {
		v := events.Pass
		if c == 'F' {
			v = events.Fail
		}
		at := t0.Add(time.Duration(i) * time.Minute)
		got = append(got, s.Observe(th, hb(at, at, lost(v)))...)
	}
	if len(got) != 2 {
		t.Fatalf("want one open and one close, got %+v", got)
	}
	if got[0].Op != Open || got[0].Kind != GPULost || !got[0].Since.Equal(t0.Add(5*time.Minute)) {
		t.Fatalf("open: %+v", got[0])
	}
	if got[1].Op != Close || !got[1].At.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("close: %+v", got[1])
	}
}

func TestClassifyGap(t *testing.T) {
	cases := []struct {
		alive      bool
		pass, fail int
		want       string
		counted    bool
	}{
		{false, 0, 0, CauseNoData, true},
		{true, 3, 1, CauseNetwork, true},
		{true, 3, 0, CauseBackendOnly, false},
		{true, 0, 0, CauseNoConnectivityEvidence, true},
	}
	for _, c := range cases {
		got := ClassifyGap(c.alive, c.pass, c.fail)
		if got != c.want || CauseCounted(got) != c.counted {
			t.Errorf("ClassifyGap(%v,%d,%d) = %s counted %v", c.alive, c.pass, c.fail, got, CauseCounted(got))
		}
	}
}

func TestReleaseClosesEveryOpenIncidentAtTheRelease(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	th := Thresholds{Grace: time.Minute, FailureThreshold: 1, SuccessThreshold: 1}
	var s State
	s.Interval = time.Minute
	g := 0
	s.Observe(th, &events.Event{At: t0, ReceivedAt: t0, Kind: events.KindCheck,
		Checks: []events.Check{{Name: "gpu.temperature", Category: events.CategoryGPUDegraded, Verdict: events.Fail, GPU: &g}}})
	if trs := s.Tick(t0.Add(5*time.Minute), time.Time{}, time.Minute, th); len(trs) != 1 {
		t.Fatalf("tick opened %v, want the unreachable incident", trs)
	}
	rel := t0.Add(10 * time.Minute)
	trs := s.Release(rel)
	if len(trs) != 2 {
		t.Fatalf("release gave %+v, want two closes", trs)
	}
	for _, tr := range trs {
		if tr.Op != Close || !tr.At.Equal(rel) {
			t.Errorf("release transition %+v, want a close at %s", tr, rel)
		}
	}
	if s.Unreachable != nil || s.Checks["gpu.temperature/gpu0"].Open {
		t.Fatalf("state still open after release: %+v", s)
	}
	if trs := s.Release(rel); len(trs) != 0 {
		t.Fatalf("second release gave %+v, want nothing", trs)
	}
	if trs := s.Tick(rel.Add(time.Hour), time.Time{}, time.Minute, th); len(trs) != 0 {
		t.Fatalf("tick after the release gave %+v, want nothing", trs)
	}
	after := rel.Add(time.Minute)
	if trs := s.Observe(th, &events.Event{At: after, ReceivedAt: after, Kind: events.KindCheck,
		Checks: []events.Check{{Name: "gpu.temperature", Category: events.CategoryGPUDegraded, Verdict: events.Fail, GPU: &g}}}); len(trs) != 0 {
		t.Fatalf("a failure after the release gave %+v, want nothing", trs)
	}
}

// wantSegs checks segments against (cause, end minute after t0) pairs;
// the last end is the gap's (minute 20 is back − 1 s).
func wantSegs(t *testing.T, segs []Segment, want ...any) {
	t.Helper()
	if len(segs) != len(want)/2 {
		t.Fatalf("segments %+v, want %v", segs, want)
	}
	for i, sg := range segs {
		cause, min := want[2*i].(string), want[2*i+1].(int)
		end := t0.Add(time.Duration(min) * time.Minute)
		if min == 20 {
			end = end.Add(-time.Second)
		}
		if sg.Cause != cause || !sg.Span.End.Equal(end) {
			t.Errorf("segment %d: %s until %s, want %s until %s", i, sg.Cause, sg.Span.End, cause, end)
		}
	}
}
