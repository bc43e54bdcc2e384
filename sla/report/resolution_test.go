package report

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/terms"
)

// cutSim is a probe as it behaves through a network cut, to the second:
// heartbeats every 30 s (one a push), each received 0.2 s after it was
// made; during the cut [from, to) nothing gets through, so everything made
// is spooled; the probe's next retry reaches the backend reconnect after the
// cut ended, and the spool drains in order, 0.3 s a batch (pace, when set).
// With linkWatch,
// the probe's link watch dials the backend every 5 s (at 1.3 s past each
// 5 s) and records the first failed dial after a success and the first
// success after that (incident.LinkCheck).
type cutSim struct {
	node               string
	start, end         time.Time // heartbeats from start (the phase) to end
	from, to           time.Time
	reconnect          time.Duration
	linkWatch          bool
	checksEvery        time.Duration // a passing host check result this often (the health job), 0: none
	pace               time.Duration // how long the drain takes a batch, 0: 0.3 s
	lostAt, regainedAt time.Time     // the link watch's records, filled by events
	heartbeatsSpooled  int
}

type made struct {
	at     time.Time
	checks []events.Check
}

func (c *cutSim) events() []events.Event {
	var obs []made
	for at := c.start; at.Before(c.end); at = at.Add(30 * time.Second) {
		obs = append(obs, made{at: at})
	}
	for at := c.start.Add(c.checksEvery / 2); c.checksEvery > 0 && at.Before(c.end); at = at.Add(c.checksEvery) {
		obs = append(obs, made{at: at, checks: []events.Check{{Name: "host.health", Category: events.CategoryHost, Verdict: "pass"}}})
	}
	if c.linkWatch {
		up := true
		for at := c.start.Truncate(5 * time.Second).Add(1300 * time.Millisecond); at.Before(c.end); at = at.Add(5 * time.Second) {
			cut := !at.Before(c.from) && at.Before(c.to)
			switch {
			case up && cut:
				c.lostAt = at
				obs = append(obs, made{at: at, checks: []events.Check{{Name: incident.LinkCheck, Category: events.CategoryConnectivity, Verdict: "fail",
					Value: "tcp backend:443 unreachable"}}})
			case !up && !cut:
				c.regainedAt = at
				obs = append(obs, made{at: at, checks: []events.Check{{Name: incident.LinkCheck, Category: events.CategoryConnectivity, Verdict: "pass",
					Value: "tcp backend:443 reached"}}})
			}
			up = !cut
		}
	}
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].at.Before(obs[j].at) })
	var out []events.Event
	var busy time.Time
	for i, o := range obs {
		send := o.at
		if send.Before(busy) {
			send = busy
		}
		if !send.Before(c.from) && send.Before(c.to.Add(c.reconnect)) {
			send = c.to.Add(c.reconnect) // spooled through the cut, sent at the retry
		}
		recv := send.Add(200 * time.Millisecond)
		if send.After(o.at) {
			busy = send.Add(cmp.Or(c.pace, 300*time.Millisecond)) // draining: one batch after another
			if o.checks == nil {
				c.heartbeatsSpooled++
			}
		}
		kind := events.KindHeartbeat
		if o.checks != nil {
			kind = events.KindCheck
		}
		out = append(out, events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s/%d", c.node, i), Node: c.node,
			At: o.at, ReceivedAt: recv, Kind: kind, Checks: o.checks})
	}
	return out
}

// cutTerms is cn-example with a 1-minute minimum downtime period counted to
// the second, and its 2-minute grace.
func cutTermsForResolution(t *testing.T) []*terms.Terms {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "terms", "cn-example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const minimum = "  minimum_outage: 1m            # shorter runs of unavailability do not count\n"
	if !strings.Contains(string(src), minimum) {
		t.Fatal("cn-example.yaml's minimum_outage line changed; update this test")
	}
	tms, err := terms.Parse("cn-example.yaml", []byte(strings.Replace(string(src), minimum, "  downtime_period: {minimum: 1m}\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	return tms
}

// The counted outage of a real cut, at its worst phase (the cut begins half
// a second after a heartbeat, so the next one was due 29.5 s into it), with
// the spool's drain after it (a heartbeat made 6 s before the cut ended is
// delivered, heard in time, after the late batches):
//
//   - by the heartbeats alone the outage begins when the next heartbeat was
//     due and ends when the backend heard the node again, the first batch of
//     the drain, 3 s after the cut (not when that spooled heartbeat was
//     made): 150 s reads 150 − 29.5 + 3.2 = 123.7 s, within one interval;
//   - with the probe's link watch the outage begins at its first failed
//     dial (at most 5 s into the cut) and the connectivity pass at its first
//     good dial after the cut ends the counted part: within 5 s, and the
//     75 s cut, which the heartbeats alone read below the 1-minute minimum
//     (48.7 s), is counted.
//
// The live state, fed the same log in receive order, records the same
// gaps.
func TestCutsDatedByReceiptsAndLinkWatch(t *testing.T) {
	tms := cutTermsForResolution(t)
	base := time.Date(2026, time.March, 10, 2, 0, 0, 0, time.UTC)
	type tc struct {
		length    time.Duration
		linkWatch bool
		// phase: the cut begins this long after a heartbeat (default
		// 0.5 s); checks: a health result this often besides.
		phase, checks time.Duration
		// wantSeen is the extent the heartbeats show (before the minimum),
		// wantCounted what the minimum leaves of it, worked by hand.
		wantSeen, wantCounted time.Duration
	}
	const ms = time.Millisecond
	cases := []tc{
		{75 * time.Second, false, 0, 0, 75*time.Second - 29500*ms + 3200*ms, 0},
		{150 * time.Second, false, 0, 0, 150*time.Second - 29500*ms + 3200*ms, 150*time.Second - 29500*ms + 3200*ms},
		{10 * time.Minute, false, 0, 0, 600*time.Second - 29500*ms + 3200*ms, 600*time.Second - 29500*ms + 3200*ms},
		// Health results every 2 s besides, the last 1 s before the cut: the
		// next heartbeat was still due 30 s after the last heartbeat, 18 s
		// into a cut begun 12 s after it (not 30 s after the last result).
		{150 * time.Second, false, 12 * time.Second, 2 * time.Second, 150*time.Second - 18*time.Second + 3200*ms, 150*time.Second - 18*time.Second + 3200*ms},
		// The link watch: the cut begins at :00.5, the first failed dial
		// at :01.3; it ends at C1, the first good dial at the next x1.3 or
		// x6.3 (the row's counted part ends at it, the rest, to the drain's
		// first batch, is the probe's reconnection: backend_only).
		{75 * time.Second, true, 0, 0, 75*time.Second - 800*ms + 3200*ms, 75 * time.Second},
		{150 * time.Second, true, 0, 0, 150*time.Second - 800*ms + 3200*ms, 150 * time.Second},
		{10 * time.Minute, true, 0, 0, 600*time.Second - 800*ms + 3200*ms, 600 * time.Second},
	}
	var evs []events.Event
	sims := make([]*cutSim, len(cases))
	for i, c := range cases {
		id := fmt.Sprintf("cut-%d", i)
		phase := c.phase
		if phase == 0 {
			phase = 500 * time.Millisecond
		}
		from := base.Add(time.Duration(i) * time.Hour).Add(phase)
		sims[i] = &cutSim{node: id, start: base.Add(time.Duration(i)*time.Hour - 20*time.Minute), end: base.Add(8 * time.Hour),
			from: from, to: from.Add(c.length), reconnect: 3 * time.Second, linkWatch: c.linkWatch, checksEvery: c.checks}
		evs = append(evs, events.Event{Type: events.TypeNodeRegistered, ID: "reg-" + id, Node: id, Contract: "cn-example",
			OrderedAt: base.Add(-24 * time.Hour), HeartbeatIntervalS: 30, PushIntervalS: 30, Hardware: &events.Hardware{GPUModel: "H200 SXM 141GB", GPUCount: 8}})
		evs = append(evs, sims[i].events()...)
	}
	r := buildFrom(t, tms, Options{Year: 2026, Month: time.March, AsOf: base.Add(8*time.Hour - time.Minute)}, evs)
	near := func(what string, got, want time.Duration) {
		t.Helper()
		if d := got - want; d < -time.Second || d > time.Second {
			t.Errorf("%s = %s, want %s (to the second the report shows)", what, got, want)
		}
	}
	for i, c := range cases {
		n := node(t, r, sims[i].node)
		var counted int64
		var first, last time.Time
		for _, o := range n.Outages {
			if o.Kind == string(incident.Unreachable) {
				counted += o.CountedSeconds
				if first.IsZero() {
					first = rfcTime(t, o.Start)
				}
				last = rfcTime(t, o.End)
			}
		}
		name := fmt.Sprintf("%s cut (link watch %v)", c.length, c.linkWatch)
		if sims[i].heartbeatsSpooled == 0 {
			t.Fatalf("%s: the simulation spooled nothing", name)
		}
		near(name+": extent the books see", last.Sub(first), c.wantSeen)
		near(name+": counted", time.Duration(counted)*time.Second, c.wantCounted)
		if off := time.Duration(counted)*time.Second - c.length; c.wantCounted > 0 && (off <= -30*time.Second || off >= 30*time.Second) {
			t.Errorf("%s: counted %d s, %s off the real cut: not within one heartbeat interval", name, counted, off)
		}
		for _, o := range n.Outages {
			t.Logf("%s: %s %s..%s %d s counted %d s; %q", name, o.Cause, o.Start, o.End, o.ObservedSeconds, o.CountedSeconds, o.Evidence)
		}
	}
	liveAgreesOnCuts(t, tms[0].Detection, evs, r)
}

// A 10-minute cut whose spool drains slowly, as a loaded backend takes it:
// a check result every second besides the heartbeats, each a batch, 90 ms
// a batch, so the drain takes about a minute and everything made in its
// first 40 s after the cut arrives more than SilenceAllowance (15 s) late.
// The books still end the cut at the drain's first receipt (heartbeats
// alone: 600 − 6 + 3.2 s for a cut begun 24 s after a heartbeat) or at the
// link watch's first good dial (600 s), as a quick drain does
// (TestCutsDatedByReceiptsAndLinkWatch): how long the backend takes to
// drain a spool moves nothing. But they can say so only once the backend
// has heard something in time: as of an instant before that receipt the
// gap is open and counted to the as-of — a report as of that instant
// written to the second (00:42:57Z for a receipt at 00:42:57.1) counted a
// real 600 s cut as 650 s.
func TestSlowDrainEndsTheCutAtItsFirstReceipt(t *testing.T) {
	tms := cutTermsForResolution(t)
	th := tms[0].Detection
	base := time.Date(2026, time.March, 10, 2, 0, 0, 0, time.UTC)
	const ms = time.Millisecond
	for _, linkWatch := range []bool{false, true} {
		id := fmt.Sprintf("drain-link-%v", linkWatch)
		from := base.Add(24 * time.Second)
		sim := &cutSim{node: id, start: base.Add(-20 * time.Minute), end: base.Add(time.Hour), from: from, to: from.Add(10 * time.Minute),
			reconnect: 3 * time.Second, linkWatch: linkWatch, checksEvery: time.Second, pace: 90 * ms}
		evs := append([]events.Event{{Type: events.TypeNodeRegistered, ID: "reg-" + id, Node: id, Contract: "cn-example",
			OrderedAt: base.Add(-24 * time.Hour), HeartbeatIntervalS: 30, PushIntervalS: 30, Hardware: &events.Hardware{GPUModel: "H200 SXM 141GB", GPUCount: 8}}},
			sim.events()...)
		// The drain's first receipt, and the first receipt of an
		// observation heard in time after the cut: what closes the gap.
		var drained, closing time.Time
		for _, e := range evs[1:] {
			if e.ReceivedAt.Before(sim.to) {
				continue
			}
			if drained.IsZero() || e.ReceivedAt.Before(drained) {
				drained = e.ReceivedAt
			}
			if e.ReceivedAt.Sub(e.At) <= incident.SilenceAllowance(30*time.Second, 30*time.Second, th) && (closing.IsZero() || e.ReceivedAt.Before(closing)) {
				closing = e.ReceivedAt
			}
		}
		if closing.Sub(drained) < 45*time.Second {
			t.Fatalf("%s: heard in time %s after the drain began; the simulation drains too fast", id, closing.Sub(drained))
		}
		unreachable := func(asOf time.Time) (row string, counted int64, end time.Time) {
			t.Helper()
			r := buildFrom(t, tms, Options{Year: 2026, Month: time.March, AsOf: asOf}, evs)
			var first, last string
			for _, o := range node(t, r, id).Outages {
				if o.Kind == string(incident.Unreachable) {
					counted += o.CountedSeconds
					if first == "" {
						first = o.Start
					}
					last = o.End
				}
			}
			if first == "" {
				t.Fatalf("%s: as of %s no unreachable outage", id, asOf.Format(time.RFC3339Nano))
			}
			return utc(t, first) + ".." + utc(t, last), counted, rfcTime(t, last)
		}
		after := base.Add(time.Hour - time.Minute)
		row, counted, end := unreachable(after)
		want := 600*time.Second - 6*time.Second + 3200*ms
		if linkWatch {
			want = 600 * time.Second
		}
		if d := time.Duration(counted)*time.Second - want; d < -time.Second || d > time.Second {
			t.Errorf("%s: counted %d s, want %s", id, counted, want)
		}
		if !end.Equal(drained.Truncate(time.Second)) {
			t.Errorf("%s: the gap ends %s, want at the drain's first receipt %s", id, end, drained.Format(time.RFC3339Nano))
		}
		// As of the receipt that closes it, the same; as of the second it
		// fell in (before it), open to the as-of.
		if got, _, _ := unreachable(closing); got != row {
			t.Errorf("%s: as of the receipt heard in time (%s): %s, want %s", id, closing.Format(time.RFC3339Nano), got, row)
		}
		before := closing.Truncate(time.Second)
		if before.Equal(closing) {
			before = before.Add(-time.Second)
		}
		if _, _, end := unreachable(before); !end.Equal(before) {
			t.Errorf("%s: as of %s, before anything was heard in time, the cut ends %s, want open to the as-of", id, before.Format(time.RFC3339Nano), end)
		}
		liveAgreesOnCuts(t, th, evs, buildFrom(t, tms, Options{Year: 2026, Month: time.March, AsOf: after}, evs))
	}
}

// liveAgreesOnCuts feeds each node's log to the live state in receive order
// (a watchdog tick every 10 s) and checks that its unreachable gaps, begun
// where the link watch dates them, are the report's rows end to end.
func liveAgreesOnCuts(t *testing.T, th incident.Thresholds, evs []events.Event, r *Report) {
	t.Helper()
	byNode := map[string][]events.Event{}
	for _, e := range evs {
		if e.Type == events.TypeObservation {
			byNode[e.Node] = append(byNode[e.Node], e)
		}
	}
	for id, log := range byNode {
		sort.SliceStable(log, func(i, j int) bool { return log[i].ReceivedAt.Before(log[j].ReceivedAt) })
		st := incident.State{Interval: 30 * time.Second, Push: 30 * time.Second}
		var live []string
		note := func(trs []incident.Transition) {
			for _, tr := range trs {
				if tr.Kind == incident.Unreachable && (tr.Op == incident.Close || tr.Op == incident.Record) {
					start := tr.Since
					if tr.Split != nil {
						start = tr.Split.Start(tr.Since)
					}
					live = append(live, start.UTC().Format(time.RFC3339)+".."+tr.At.UTC().Format(time.RFC3339))
				}
			}
		}
		next := log[0].ReceivedAt.Truncate(10 * time.Second).Add(10 * time.Second)
		for i := range log {
			for !next.After(log[i].ReceivedAt) {
				note(st.Tick(next, time.Time{}, 30*time.Second, th))
				next = next.Add(10 * time.Second)
			}
			note(st.Observe(th, &log[i]))
		}
		var rows []string
		n := node(t, r, id)
		var first, last string
		for _, o := range n.Outages {
			if o.Kind != string(incident.Unreachable) {
				continue
			}
			if first == "" {
				first = o.Start
			}
			last = o.End
		}
		if first != "" {
			rows = append(rows, utc(t, first)+".."+utc(t, last))
		}
		if strings.Join(live, ",") != strings.Join(rows, ",") {
			t.Errorf("%s: live gaps %v, report %v", id, live, rows)
		}
	}
}

func utc(t *testing.T, s string) string {
	t.Helper()
	return rfcTime(t, s).UTC().Format(time.RFC3339)
}

func rfcTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// A node that dies (no spool, nothing late) a moment after a connectivity
// check passed, itself a moment after a heartbeat: the backend heard that
// pass in time, then missed the heartbeat due 30 s after the last one. The
// outage is no_data from that due time to the restart's first heartbeat,
// all of it counted: the pass heard before the gap shows nothing of it (a
// node "running on" for an interval after its last result is what the
// missed heartbeat refutes), so no part is "only the backend could not
// hear it". Live and report agree, cause by cause.
func TestDeadNodeGapIsNoDataFromTheMissedHeartbeat(t *testing.T) {
	tms := cutTermsForResolution(t)
	base := time.Date(2026, time.March, 10, 2, 0, 0, 0, time.UTC)
	const id = "dead-1"
	lastBeat := base.Add(20 * time.Minute)
	restarted := lastBeat.Add(2*time.Second + 5*time.Minute) // died 2 s after the last heartbeat, down 5 min
	evs := []events.Event{{Type: events.TypeNodeRegistered, ID: "reg-" + id, Node: id, Contract: "cn-example",
		OrderedAt: base.Add(-24 * time.Hour), HeartbeatIntervalS: 30, PushIntervalS: 30, Hardware: &events.Hardware{GPUModel: "H200 SXM 141GB", GPUCount: 8}}}
	obs := func(at time.Time, checks []events.Check) {
		kind := events.KindHeartbeat
		if checks != nil {
			kind = events.KindCheck
		}
		evs = append(evs, events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s/%d", id, len(evs)), Node: id,
			At: at, ReceivedAt: at.Add(200 * time.Millisecond), Kind: kind, Checks: checks})
	}
	pass := []events.Check{{Name: "net.tcp.gateway", Category: events.CategoryConnectivity, Verdict: "pass", Value: "tcp gateway:443 reached"}}
	for at := base; !at.After(lastBeat); at = at.Add(30 * time.Second) {
		obs(at, nil)
		obs(at.Add(time.Second), pass)
	}
	for at := restarted; at.Before(base.Add(2 * time.Hour)); at = at.Add(30 * time.Second) {
		obs(at, nil)
	}
	r := buildFrom(t, tms, Options{Year: 2026, Month: time.March, AsOf: base.Add(2 * time.Hour)}, evs)
	var rows []string
	var counted int64
	for _, o := range node(t, r, id).Outages {
		if o.Kind == string(incident.Unreachable) {
			rows = append(rows, fmt.Sprintf("%s %s..%s", o.Cause, utc(t, o.Start), utc(t, o.End)))
			counted += o.CountedSeconds
		}
	}
	due := lastBeat.Add(30 * time.Second)
	want := fmt.Sprintf("%s %s..%s", incident.CauseNoData, due.Format(time.RFC3339), restarted.Format(time.RFC3339))
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("report rows %q, want the one row %q", rows, want)
	}
	if wantS := int64(restarted.Sub(due) / time.Second); counted != wantS {
		t.Errorf("counted %d s, want %d s (from the missed heartbeat to the restart)", counted, wantS)
	}

	st := incident.State{Interval: 30 * time.Second, Push: 30 * time.Second}
	var live []string
	for i := range evs[1:] {
		e := &evs[1+i]
		for _, tr := range append(st.Tick(e.ReceivedAt, time.Time{}, 30*time.Second, tms[0].Detection), st.Observe(tms[0].Detection, e)...) {
			if tr.Kind != incident.Unreachable || tr.Op != incident.Close || tr.Split == nil {
				continue
			}
			for _, sg := range tr.Split.Split(interval.Interval{Start: tr.Split.Start(tr.Since), End: tr.At}, nil) {
				live = append(live, fmt.Sprintf("%s %s..%s", sg.Cause, sg.Span.Start.UTC().Format(time.RFC3339), sg.Span.End.UTC().Format(time.RFC3339)))
			}
		}
	}
	if strings.Join(live, ",") != want {
		t.Errorf("live gap parts %q, want %q", live, want)
	}
}
