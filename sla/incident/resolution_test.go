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
	if got := RefineStart(at(30), iv, conns); !got.Equal(at(1.3)) {
		t.Errorf("RefineStart = %s, want 1.3 s: the loss after the last heartbeat heard, before the next was due", got.Sub(t0))
	}
	if got := RefineStart(at(30), iv, conns[2:]); !got.Equal(at(30)) {
		t.Errorf("RefineStart = %s, want the due time: a failing check that is not the link watch's, or one after due, moves nothing", got.Sub(t0))
	}
}
