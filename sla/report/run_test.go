package report

import (
	"bytes"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/golden"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/terms"
)

// toRuns rewrites a log the way the backend keeps heartbeats: every maximal
// sequence of heartbeats (probe time order) no further apart than the
// books' tolerance (incident.PromptTol), each received within it and by
// asOf, becomes one heartbeat_run event; the
// other heartbeats (late ones, or received after asOf) stay individual
// observations, as the backend keeps late data in full. Everything else is
// kept as it is.
func toRuns(t *testing.T, evs []events.Event, tm []*terms.Terms, asOf time.Time) []events.Event {
	t.Helper()
	byContract := map[string]*terms.Terms{}
	for _, x := range tm {
		byContract[x.Contract] = x
	}
	type nodeInfo struct {
		tol, prompt, delay time.Duration
		interval           time.Duration
	}
	info := map[string]nodeInfo{}
	for _, e := range evs {
		if e.Type == events.TypeNodeRegistered {
			tm := byContract[e.Contract]
			info[e.Node] = nodeInfo{tol: e.HeartbeatInterval() + tm.Detection.Grace, prompt: incident.PromptTol(e.HeartbeatInterval(), tm.Detection),
				delay:    incident.SilenceAllowance(e.HeartbeatInterval(), e.PushInterval(), tm.Detection),
				interval: e.HeartbeatInterval()}
		}
	}
	var out []events.Event
	hbs := map[string][]events.Event{}
	for _, e := range evs {
		if e.Type == events.TypeObservation && e.Kind == events.KindHeartbeat && len(e.Checks) == 0 {
			ni := info[e.Node]
			if e.ReceivedAt.Sub(e.TrueAt()) <= ni.delay && !e.ReceivedAt.After(asOf) {
				hbs[e.Node] = append(hbs[e.Node], e)
				continue
			}
		}
		out = append(out, e)
	}
	nodes := make([]string, 0, len(hbs))
	for n := range hbs {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	msUp := func(d time.Duration) int64 { return int64((d + time.Millisecond - 1) / time.Millisecond) }
	for _, node := range nodes {
		hs := hbs[node]
		sort.Slice(hs, func(i, j int) bool { return hs[i].TrueAt().Before(hs[j].TrueAt()) })
		ni := info[node]
		for i := 0; i < len(hs); {
			j := i + 1
			maxGap, maxDelay := time.Duration(0), hs[i].ReceivedAt.Sub(hs[i].TrueAt())
			recvFirst, recvLast := hs[i].ReceivedAt, hs[i].ReceivedAt
			for j < len(hs) && hs[j].TrueAt().Sub(hs[j-1].TrueAt()) <= ni.prompt {
				maxGap = max(maxGap, hs[j].TrueAt().Sub(hs[j-1].TrueAt()))
				maxDelay = max(maxDelay, hs[j].ReceivedAt.Sub(hs[j].TrueAt()))
				recvFirst, recvLast = interval.Earliest(recvFirst, hs[j].ReceivedAt), interval.Latest(recvLast, hs[j].ReceivedAt)
				j++
			}
			first, last := hs[i].TrueAt().UTC(), hs[j-1].TrueAt().UTC()
			out = append(out, events.Event{Type: events.TypeHeartbeatRun, ID: fmt.Sprintf("%s/run@%d-%d", node, first.Unix(), last.Unix()),
				Node: node, At: first, LastAt: last, ReceivedAt: recvFirst.UTC(), LastReceivedAt: recvLast.UTC(), Count: int64(j - i),
				HeartbeatIntervalS: int(ni.interval / time.Second), MaxGapMS: msUp(maxGap), MaxDelayMS: msUp(max(maxDelay, 0))})
			i = j
		}
	}
	return out
}

// The same scenarios with heartbeats kept as runs (the backend's form) give
// the same report, byte for byte, as with individual heartbeats — read from
// JSON lines, reversed and every line twice. The one field that differs is
// input (lines and events read: a run is one line where its heartbeats were
// many; duplicates count the repeated lines), which says what was read, not
// what it means.
func TestScenariosWithHeartbeatRunsGiveTheSameReport(t *testing.T) {
	tm := loadTerms(t)
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			want := run(t, sc, tm, false)
			orig := sc.build
			runs := 0
			sc.build = func(l *log) {
				orig(l)
				l.Events = toRuns(t, l.Events, tm, sc.asOf)
				n := len(l.Events)
				for i := range l.Events {
					if l.Events[i].Type == events.TypeHeartbeatRun {
						runs++
					}
				}
				for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
					l.Events[i], l.Events[j] = l.Events[j], l.Events[i]
				}
				l.Events = append(l.Events, l.Events[:n]...)
			}
			got := run(t, sc, tm, true)
			if runs == 0 {
				t.Fatal("scenario has no heartbeat run: the test proves nothing")
			}
			if got.Input.Events >= 2*want.Input.Events && want.Input.Events > 100 {
				t.Errorf("run form read %d events, individual form %d: runs did not shrink the log", got.Input.Events/2, want.Input.Events)
			}
			want.Input, got.Input = Input{}, Input{}
			var a, b bytes.Buffer
			if err := JSON(&a, want); err != nil {
				t.Fatal(err)
			}
			if err := JSON(&b, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("report from heartbeat runs differs:\n%s", golden.FirstDiff(a.Bytes(), b.Bytes()))
			}
			a.Reset()
			b.Reset()
			_ = Markdown(&a, want)
			_ = Markdown(&b, got)
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("markdown from heartbeat runs differs:\n%s", golden.FirstDiff(a.Bytes(), b.Bytes()))
			}
		})
	}
}
