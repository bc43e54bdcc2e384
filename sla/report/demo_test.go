package report

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report/reporttest"
)

// serve's demo node (node_registered demo: true) is left out of a month
// its demo was over in: released before the month ended in its contract's
// zone (cn-example: Shanghai, March ends 2026-03-31T16:00Z), the release
// made and recorded by as_of. Not partial (no left_out), no row, no
// contract summary; said in DemoOver. Either side of each edge: a second
// before the month's end in Shanghai is over, its end and an hour after
// (still March in UTC) are not; a release recorded after as_of is not
// known; a node not the demo's, or a demo not released, stays.
func TestDemoOverEdgesInTheLog(t *testing.T) {
	sh := reporttest.Shanghai
	asOf := time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name       string
		demo       bool
		released   time.Time
		recordedAt time.Time
		out        bool
	}{
		{name: "released a second before the month ended in Shanghai", demo: true, released: time.Date(2026, 3, 31, 15, 59, 59, 0, time.UTC), out: true},
		{name: "released mid-month", demo: true, released: reporttest.Local(sh, "2026-03-20 12:00"), out: true},
		{name: "released as the month ended in Shanghai", demo: true, released: time.Date(2026, 3, 31, 16, 0, 0, 0, time.UTC)},
		{name: "released in UTC's March, Shanghai's April", demo: true, released: time.Date(2026, 3, 31, 17, 0, 0, 0, time.UTC)},
		{name: "release recorded after as_of", demo: true, released: reporttest.Local(sh, "2026-03-20 12:00"), recordedAt: asOf.Add(time.Second)},
		{name: "not the demo's", released: reporttest.Local(sh, "2026-03-20 12:00")},
		{name: "the demo not released", demo: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, scenario{name: c.name, month: time.March, asOf: asOf, build: func(l *log) {
				for _, id := range []string{"demo-node", "gz-01"} {
					l.Register(id, "cn-example", reporttest.Local(sh, "2026-02-20 09:00"), 8)
					l.Heartbeats(id, reporttest.Local(sh, "2026-03-01 00:00"), reporttest.Local(sh, "2026-03-01 06:00"))
				}
				l.Events[0].Demo = c.demo
				if !c.released.IsZero() {
					rec := c.recordedAt
					if rec.IsZero() {
						rec = c.released
					}
					l.Add(events.Event{Type: events.TypeNodeReleased, Node: "demo-node", At: c.released, RecordedAt: rec, RecordedBy: "serve:demo"})
				}
			}}, loadTerms(t), true)
			in := false
			for _, n := range r.Nodes {
				in = in || n.Node == "demo-node"
			}
			if in == c.out || len(r.Nodes) != map[bool]int{true: 1, false: 2}[c.out] {
				t.Fatalf("demo-node in the month %v, want %v (%d nodes)", in, !c.out, len(r.Nodes))
			}
			if len(r.LeftOut) != 0 {
				t.Errorf("left out as partial: %+v", r.LeftOut)
			}
			if !c.out {
				if len(r.DemoOver) != 0 {
					t.Errorf("demo over said: %+v", r.DemoOver)
				}
				return
			}
			if len(r.DemoOver) != 1 || r.DemoOver[0].Node != "demo-node" ||
				!strings.HasPrefix(r.DemoOver[0].Reason, "the demo is over: the demo node was released at "+c.released.UTC().Format(time.RFC3339)+" (recorded by serve:demo)") {
				t.Errorf("demo over: %+v", r.DemoOver)
			}
		})
	}
}
