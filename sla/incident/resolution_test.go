package incident

import (
	"testing"
	"time"
)

func TestHeardAtAndGapEnd(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	const iv = 30 * time.Second
	for _, c := range []struct {
		name                string
		made, recv, runFrom time.Time
		push                time.Duration
		want                time.Time
	}{
		{"prompt: its own time", at(0), at(0.2), at(-3600), iv, at(0)},
		{"made in the cut's last seconds, drained after it: the run's first receipt", at(150), at(155.2), at(153.7), iv, at(153.7)},
		{"made before the run but within transit slack of its receipt: its own time", at(153), at(154.9), at(154), iv, at(153)},
		{"made after the run began: its own time", at(160), at(163), at(153.7), iv, at(160)},
		{"two a push: a batch that waited as batches do shows its first heartbeat's time", at(0), at(30.3), at(30.3), 2 * iv, at(0)},
		{"two a push, drained: not before its receipt less the batch's wait", at(130), at(175), at(170), 2 * iv, at(145)},
		{"unknown run (a state from before): its own time", at(150), at(155), time.Time{}, iv, at(150)},
	} {
		if got := HeardAt(c.made, c.recv, c.runFrom, iv, c.push); !got.Equal(c.want) {
			t.Errorf("%s: HeardAt = %s, want %s", c.name, got.Sub(t0), c.want.Sub(t0))
		}
	}
	for _, c := range []struct {
		name                  string
		since, heard, runFrom time.Time
		want                  time.Time
	}{
		{"a long drain: the first receipt ends it", at(30), at(190), at(153.7), at(153.7)},
		{"a run begun before the gap says nothing about it", at(30), at(60), at(-600), at(60)},
		{"never before it began", at(30), at(20), time.Time{}, at(30)},
		{"unknown run", at(30), at(190), time.Time{}, at(190)},
	} {
		if got := GapEnd(c.since, c.heard, c.runFrom); !got.Equal(c.want) {
			t.Errorf("%s: GapEnd = %s, want %s", c.name, got.Sub(t0), c.want.Sub(t0))
		}
	}
	conns := []Conn{{At: at(-10), Fail: true, Lost: true}, {At: at(1.3), Fail: true, Lost: true}, {At: at(5), Fail: true}, {At: at(31.3), Fail: true, Lost: true}}
	if got := RefineStart(at(0), at(30), conns); !got.Equal(at(1.3)) {
		t.Errorf("RefineStart = %s, want 1.3 s: the loss after the last heartbeat heard, before the next was due", got.Sub(t0))
	}
	if got := RefineStart(at(2), at(30), conns); !got.Equal(at(30)) {
		t.Errorf("RefineStart = %s, want the due time: the loss at 1.3 s was before something heard at 2 s", got.Sub(t0))
	}
	if got := RefineStart(at(0), at(30), conns[2:]); !got.Equal(at(30)) {
		t.Errorf("RefineStart = %s, want the due time: a failing check that is not the link watch's, or one after due, moves nothing", got.Sub(t0))
	}
}

func TestDueAfter(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	const iv = 30 * time.Second
	for _, c := range []struct {
		name        string
		heard, beat time.Time
		want        time.Time
	}{
		{"the last heard was a heartbeat", at(0), at(0), at(30)},
		{"check results heard after the heartbeat: it is still due an interval after the heartbeat", at(23), at(0), at(30)},
		{"heartbeats stopped, checks came on: an interval after the last heard", at(95), at(0), at(125)},
		{"no heartbeat heard", at(10), time.Time{}, at(40)},
	} {
		if got := DueAfter(c.heard, c.beat, iv); !got.Equal(c.want) {
			t.Errorf("%s: DueAfter = %s, want %s", c.name, got.Sub(t0), c.want.Sub(t0))
		}
	}
}
