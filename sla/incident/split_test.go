package incident

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/interval"
)

// A gap is an incident only if the backend, itself up, heard nothing for
// longer than the books allow: 15 s (PromptSlack) when the gap does not
// touch the backend's downtime, the grace when it does. The parts outside
// its downtime are what it could observe.
func TestOverdue(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 3, 1, 0, m, 0, 0, time.UTC) }
	iv := func(a, b int) interval.Interval { return interval.Interval{Start: at(a), End: at(b)} }
	grace := 2 * time.Minute
	for _, tc := range []struct {
		name    string
		gap     interval.Interval
		backend interval.Set
		want    bool
	}{
		{"no downtime, longer than the grace", iv(0, 3), nil, true},
		{"no downtime, shorter than the grace: the books count it", iv(0, 2), nil, true},
		{"no downtime, 16 s", interval.Interval{Start: at(0), End: at(0).Add(16 * time.Second)}, nil, true},
		{"no downtime, 15 s: a heartbeat a little late", interval.Interval{Start: at(0), End: at(0).Add(15 * time.Second)}, nil, false},
		{"wholly inside the downtime", iv(10, 60), interval.Set{iv(10, 60)}, false},
		{"inside, heard within the grace of the restart", iv(10, 62), interval.Set{iv(10, 60)}, false},
		{"inside, heard after the grace of the restart", iv(10, 63), interval.Set{iv(10, 60)}, true},
		{"overdue before the backend went down", iv(5, 60), interval.Set{iv(10, 60)}, true},
		{"the grace before and after, not longer", iv(8, 62), interval.Set{iv(10, 60)}, false},
		{"overdue in a short run between two downtimes", iv(9, 61), interval.Set{iv(10, 30), iv(33, 60)}, true},
		{"a run between two downtimes as short as the grace", iv(9, 61), interval.Set{iv(10, 30), iv(32, 60)}, false},
	} {
		if got := Overdue(tc.gap, tc.backend, nil, SilenceAllowance(time.Minute, time.Minute, Thresholds{Grace: grace}), grace); got != tc.want {
			t.Errorf("%s: Overdue = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Late batches arriving are signs of life: a spool draining after the
// backend's restart for longer than the grace is no silence; nor is a
// stream of late batches when the backend was up throughout.
func TestOverdueLateReceipts(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 3, 1, 0, m, 0, 0, time.UTC) }
	iv := func(a, b int) interval.Interval { return interval.Interval{Start: at(a), End: at(b)} }
	grace, down := 2*time.Minute, interval.Set{iv(10, 60)}
	for _, tc := range []struct {
		name    string
		gap     interval.Interval
		backend interval.Set
		late    interval.Set
		want    bool
	}{
		{"drained for 12 minutes after the restart", iv(10, 72), down, interval.Set{iv(60, 72)}, false},
		{"a 3-minute pause in the drain", iv(10, 72), down, interval.Set{iv(60, 65), iv(68, 72)}, true},
		{"a 2-minute pause in the drain", iv(10, 72), down, interval.Set{iv(60, 65), iv(67, 72)}, false},
		{"late batches from 10 s in, no downtime", iv(0, 20), nil, interval.Set{interval.Interval{Start: at(0).Add(10 * time.Second), End: at(20)}}, false},
		{"silent a minute, then late batches, no downtime", iv(0, 20), nil, interval.Set{iv(1, 20)}, true},
	} {
		if got := Overdue(tc.gap, tc.backend, tc.late, PromptSlack, grace); got != tc.want {
			t.Errorf("%s: Overdue = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The silence the books allow inside a gap: the wait of a batch's first
// heartbeat on the node plus 15 s, never more than the grace.
func TestSilenceAllowance(t *testing.T) {
	th := Thresholds{Grace: 2 * time.Minute}
	for _, tc := range []struct {
		interval, push, want time.Duration
	}{
		{30 * time.Second, 30 * time.Second, 15 * time.Second}, // one heartbeat a push
		{30 * time.Second, time.Minute, 45 * time.Second},      // the probe's default: two a push
		{30 * time.Second, 10 * time.Minute, 2 * time.Minute},  // held to the grace
		{time.Minute, 30 * time.Second, 15 * time.Second},      // pushing faster than heartbeats
	} {
		if got := SilenceAllowance(tc.interval, tc.push, th); got != tc.want {
			t.Errorf("SilenceAllowance(%s, %s) = %s, want %s", tc.interval, tc.push, got, tc.want)
		}
	}
	if got := SilenceAllowance(30*time.Second, 30*time.Second, Thresholds{Grace: 5 * time.Second}); got != 5*time.Second {
		t.Errorf("under a 5 s grace: %s, want 5s", got)
	}
}

// TestSplitGapPrecedence: inside a gap the backend heard the end of at
// +20 min (interval 1 min: the probe's reconnection is at most 1 min + 2 s),
// the node running throughout, a passing connectivity record changes
// nothing — a gateway ping, or the link watch's reaching the backend more
// than the reconnection before the end — and is listed as contradicted; the
// link watch's reaching it within the reconnection ends the counted part
// there; a failure is the node's word against itself and stays; a gap still
// open (heard zero) has no reconnection at all.
func TestSplitGapPrecedence(t *testing.T) {
	m := func(x float64) time.Time { return t0.Add(time.Duration(x * float64(time.Minute))) }
	g := interval.Interval{Start: m(1), End: m(20)}
	rc := Reconnect(time.Minute)
	type seg struct {
		cause string
		end   time.Time
	}
	for _, c := range []struct {
		name   string
		conns  []Conn
		heard  time.Time
		want   []seg
		contra int
	}{
		{"gateway ping at +2", []Conn{{At: m(2)}}, m(20), []seg{{CauseNoConnectivityEvidence, m(20)}}, 1},
		{"link watch reached at +5", []Conn{{At: m(5), Reached: true}}, m(20), []seg{{CauseNoConnectivityEvidence, m(20)}}, 1},
		{"link watch reached 1 min 2 s and 1 ns before the end", []Conn{{At: m(20).Add(-rc - 1), Reached: true}}, m(20),
			[]seg{{CauseNoConnectivityEvidence, m(20)}}, 1},
		{"link watch reached 1 min 2 s before the end", []Conn{{At: m(20).Add(-rc), Reached: true}}, m(20),
			[]seg{{CauseNoConnectivityEvidence, m(20).Add(-rc)}, {CauseBackendOnly, m(20)}}, 0},
		{"link watch reached 30 s before the end", []Conn{{At: m(19.5), Reached: true}}, m(20),
			[]seg{{CauseNoConnectivityEvidence, m(19.5)}, {CauseBackendOnly, m(20)}}, 0},
		{"a gap still open", []Conn{{At: m(19.5), Reached: true}}, time.Time{}, []seg{{CauseNoConnectivityEvidence, m(20)}}, 1},
		{"internet failing at +3, a gateway ping at +4", []Conn{{At: m(3), Fail: true, Evidence: "net.internet fail"}, {At: m(4)}}, m(20),
			[]seg{{CauseNoConnectivityEvidence, m(3)}, {CauseNetwork, m(20)}}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			segs := SplitGap(g, interval.Set{g}, c.conns, nil, c.heard, rc)
			if len(segs) != len(c.want) {
				t.Fatalf("segments %+v, want %+v", segs, c.want)
			}
			for i, sg := range segs {
				if sg.Cause != c.want[i].cause || !sg.Span.End.Equal(c.want[i].end) {
					t.Errorf("segment %d: %s until %s, want %s until %s", i, sg.Cause, sg.Span.End, c.want[i].cause, c.want[i].end)
				}
			}
			if n := len(Contradicted(g, c.conns, c.heard, rc)); n != c.contra {
				t.Errorf("%d records contradicted, want %d", n, c.contra)
			}
		})
	}
}
