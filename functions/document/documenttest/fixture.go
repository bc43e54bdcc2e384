// Package documenttest builds event logs for tests and benchmarks of the
// report formats, the evidence bundle and the status page: a month with
// everything a claim has to get right (DST, a holiday, maintenance with and
// without enough notice, a gap that late data reclassifies, an off-hours
// ticket breach), and a synthetic fleet of any size.
package documenttest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
)

// Terms loads the example contracts in testdata/terms, found by walking up
// from the working directory to the module root (go test runs in the
// package's folder; a copied test binary may run anywhere in the tree).
func Terms() ([]*terms.Terms, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, fmt.Errorf("no go.mod above the working directory: cannot find testdata/terms")
		}
		dir = parent
	}
	root := filepath.Join(dir, "testdata", "terms")
	var all []*terms.Terms
	for _, f := range []string{"cn-example.yaml", "us-example.yaml"} {
		ts, err := terms.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		all = append(all, ts...)
	}
	return all, nil
}

// Log is an event log under construction. Observations are put in batches
// (one per heartbeat, as a probe pushing every minute would) with
// consecutive sequence numbers and a hash chain, like the backend's export.
type Log struct {
	Events []events.Event
	seq    map[string]uint64
	hash   map[string]string
}

func (l *Log) add(e events.Event) {
	if e.ID == "" {
		e.ID = fmt.Sprintf("%s-%d", e.Type, len(l.Events))
	}
	l.Events = append(l.Events, e)
}

// Register adds a node_registered event (minute heartbeats).
func (l *Log) Register(node, contract string, ordered time.Time, gpus int) {
	l.add(events.Event{Type: events.TypeNodeRegistered, Node: node, Contract: contract, OrderedAt: ordered.UTC(),
		Hardware: &events.Hardware{GPUModel: "H200 SXM 141GB", GPUCount: gpus}, HeartbeatIntervalS: 60})
}

// batch opens the node's next batch and returns its id, seq and hash.
func (l *Log) batch(node string) (string, uint64, string) {
	if l.seq == nil {
		l.seq, l.hash = map[string]uint64{}, map[string]string{}
	}
	l.seq[node]++
	s := l.seq[node]
	id := fmt.Sprintf("%s-b%d", node, s)
	// The hash stands for the batch body's SHA-256; chaining the previous
	// one in makes every hash depend on the whole history, as on the wire.
	sum := sha256.Sum256([]byte(l.hash[node] + "|" + id))
	l.hash[node] = hex.EncodeToString(sum[:])
	return id, s, l.hash[node]
}

// Observation adds one observation in its own batch.
func (l *Log) Observation(node string, at, received time.Time, kind string, checks ...events.Check) {
	id, seq, hash := l.batch(node)
	l.add(events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s/%s/0", node, id), Node: node, Batch: id, Seq: seq,
		Hash: hash, At: at.UTC(), ReceivedAt: received.UTC(), Kind: kind, Checks: checks})
}

// Heartbeats adds a heartbeat every minute in [from, to), received a second
// later, except strictly inside the down windows (pairs of instants).
func (l *Log) Heartbeats(node string, from, to time.Time, down ...time.Time) {
	for at := from; at.Before(to); at = at.Add(time.Minute) {
		skip := false
		for i := 0; i+1 < len(down); i += 2 {
			if at.After(down[i]) && at.Before(down[i+1]) {
				skip = true
			}
		}
		if !skip {
			l.Observation(node, at, at.Add(time.Second), events.KindHeartbeat)
		}
	}
}

// HeartbeatRuns adds the same heartbeats as Heartbeats, in the backend's
// form: one heartbeat_run event per uninterrupted stretch of them.
func (l *Log) HeartbeatRuns(node string, from, to time.Time, down ...time.Time) {
	var first, last time.Time
	var count int64
	flush := func() {
		if count == 0 {
			return
		}
		gap := int64(60000)
		if count == 1 {
			gap = 0
		}
		l.add(events.Event{Type: events.TypeHeartbeatRun, ID: fmt.Sprintf("%s/run@%d", node, first.Unix()), Node: node,
			At: first.UTC(), LastAt: last.UTC(), ReceivedAt: first.Add(time.Second).UTC(), LastReceivedAt: last.Add(time.Second).UTC(),
			Count: count, HeartbeatIntervalS: 60, MaxGapMS: gap, MaxDelayMS: 1000})
		count = 0
	}
	for at := from; at.Before(to); at = at.Add(time.Minute) {
		skip := false
		for i := 0; i+1 < len(down); i += 2 {
			if at.After(down[i]) && at.Before(down[i+1]) {
				skip = true
			}
		}
		if skip {
			flush()
			continue
		}
		if count == 0 {
			first = at
		}
		last = at
		count++
	}
	flush()
}

// Add appends any event.
func (l *Log) Add(e events.Event) { l.add(e) }

func mustLoc(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// NewYork is the us-example contract's zone.
var NewYork = mustLoc("America/New_York")

// Local parses "2006-01-02 15:04" in loc.
func Local(loc *time.Location, s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
	if err != nil {
		panic(err)
	}
	return t
}

// November2026 is the report month of the claim scenario.
const November2026 = "2026-11"

// ClaimAsOf is when the scenario's report is taken: two days after the
// month ends, when late data has arrived.
var ClaimAsOf = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// ClaimMonth is the month a claim is filed for: November 2026 on the US
// contract (New York time). It holds
//   - the end of daylight saving time (1 November, 02:00 EDT → 01:00 EST),
//     with va-01 down from 01:30 EDT to 01:30 EST — an hour that a
//     wall-clock reading would call zero;
//   - Thanksgiving (26 November, a holiday in the contract): a sev2 ticket
//     opened at 10:00 is off-hours (12 h target) and answered after 13.5 h;
//   - maintenance announced eight days ahead (excluded) and 37 hours ahead
//     (less than the week required: the downtime counts);
//   - a two-hour gap the backend saw as unreachable which the node's spool
//     later shows it ran through with the internet reachable: reclassified,
//     not counted;
//   - va-02 delivered 3.5 h after its order (target 2 h) and a GPU degraded
//     (XID 79) for four hours, which this contract counts;
//   - the Thanksgiving ticket entered two and a half hours after the
//     opening it claims: named in the report's retroactive records.
func ClaimMonth() *Log {
	ny := NewYork
	l := &Log{}
	l.Register("va-01", "us-example", Local(ny, "2026-10-20 09:00"), 8)
	l.Register("va-02", "us-example", Local(ny, "2026-11-03 09:00"), 4)

	// va-01: the DST outage, the two maintenance windows, the reclassified gap.
	gapFrom, gapTo := Local(ny, "2026-11-12 10:00"), Local(ny, "2026-11-12 12:00")
	l.Heartbeats("va-01", Local(ny, "2026-10-20 10:00"), Local(ny, "2026-12-01 06:00"),
		time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC), time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC), // 01:30 EDT to 01:30 EST
		Local(ny, "2026-11-10 02:00"), Local(ny, "2026-11-10 04:00"),
		gapFrom, gapTo,
		Local(ny, "2026-11-18 01:00"), Local(ny, "2026-11-18 06:00"))
	// The spool delivers the gap at its end: heartbeats and connectivity
	// checks that passed.
	for at := gapFrom.Add(time.Minute); at.Before(gapTo); at = at.Add(time.Minute) {
		l.Observation("va-01", at, gapTo, events.KindHeartbeat)
	}
	for at := gapFrom; at.Before(gapTo); at = at.Add(10 * time.Minute) {
		recv := gapTo
		if at.Equal(gapFrom) {
			recv = at.Add(time.Second)
		}
		l.Observation("va-01", at, recv, events.KindCheck,
			events.Check{Name: "net.internet", Category: events.CategoryConnectivity, Verdict: "pass", Value: "https://www.google.com 38 ms"})
	}
	// Every notice and ticket time is recorded a minute after it, by the
	// ops API key, but for T-102's opening: filed on the provider's portal
	// at 10:00 and entered at 12:30, a retroactive record the report names.
	const ops = "api:k7q2m4xa (ops)"
	l.Add(events.Event{Type: events.TypeMaintenance, Contract: "us-example", Start: Local(ny, "2026-11-10 02:00"),
		End: Local(ny, "2026-11-10 04:00"), AnnouncedAt: Local(ny, "2026-11-02 09:00"), Summary: "core switch firmware",
		RecordedAt: Local(ny, "2026-11-02 09:01"), RecordedBy: ops})
	l.Add(events.Event{Type: events.TypeMaintenance, Node: "va-01", Start: Local(ny, "2026-11-18 01:00"),
		End: Local(ny, "2026-11-18 06:00"), AnnouncedAt: Local(ny, "2026-11-16 12:00"), Summary: "BMC update",
		RecordedAt: Local(ny, "2026-11-16 12:01"), RecordedBy: ops})

	// Tickets: one within target on a Thursday, one off-hours breach on Thanksgiving.
	tk := func(typ, id string, at time.Time, f func(*events.Event)) {
		e := events.Event{Type: typ, Ticket: id, At: at.UTC(), RecordedAt: at.Add(time.Minute).UTC(), RecordedBy: ops}
		if f != nil {
			f(&e)
		}
		l.Add(e)
	}
	tk(events.TypeTicketOpened, "T-101", Local(ny, "2026-11-19 11:00"), func(e *events.Event) {
		e.Node, e.Priority, e.ProviderRef, e.Summary = "va-01", "sev1", "CASE-5521", "NCCL all-reduce hangs"
	})
	tk(events.TypeProviderResponded, "T-101", Local(ny, "2026-11-19 11:40"), nil)
	tk(events.TypeTicketResolved, "T-101", Local(ny, "2026-11-19 15:00"), nil)
	tk(events.TypeTicketOpened, "T-102", Local(ny, "2026-11-26 10:00"), func(e *events.Event) {
		e.Node, e.Priority, e.ProviderRef, e.Summary = "va-01", "sev2", "CASE-5590", "ECC errors on GPU 5"
		e.RecordedAt = Local(ny, "2026-11-26 12:30").UTC()
	})
	tk(events.TypeProviderResponded, "T-102", Local(ny, "2026-11-26 23:30"), nil)

	// va-02: late delivery and a degraded GPU.
	l.Heartbeats("va-02", Local(ny, "2026-11-03 12:30"), Local(ny, "2026-12-01 06:00"))
	for at := Local(ny, "2026-11-20 09:00"); at.Before(Local(ny, "2026-11-20 14:00")); at = at.Add(15 * time.Minute) {
		v := "pass"
		if at.Before(Local(ny, "2026-11-20 13:00")) {
			v = "fail"
		}
		gpu := 5
		l.Observation("va-02", at, at.Add(time.Second), events.KindCheck,
			events.Check{Name: "gpu.xid", Category: events.CategoryGPUDegraded, Verdict: v, Value: "xid 79", GPU: &gpu, Detail: "GPU has fallen off the bus"})
	}
	return l
}

// Fleet is a month of minute heartbeats for n nodes on the Chinese
// contract, each with a one-hour outage and a day of GPU checks every 15
// minutes: the load of the report benchmark.
func Fleet(n int, year int, month time.Month) *Log { return fleet(n, year, month, false) }

// FleetRuns is Fleet in the backend's own form: the same heartbeats as
// heartbeat_run events (a few per node instead of 47 000 lines), the GPU
// checks as they are. Its report is Fleet's, byte for byte but for input.
func FleetRuns(n int, year int, month time.Month) *Log { return fleet(n, year, month, true) }

func fleet(n int, year int, month time.Month, runs bool) *Log {
	sh := mustLoc("Asia/Shanghai")
	l := &Log{}
	start := time.Date(year, month, 1, 0, 0, 0, 0, sh)
	end := start.AddDate(0, 1, 0)
	for i := 0; i < n; i++ {
		node := fmt.Sprintf("gz-%03d", i)
		l.Register(node, "cn-example", start.AddDate(0, 0, -10), 8)
		down := start.Add(time.Duration(24*(i%28)+i%24) * time.Hour)
		if runs {
			l.HeartbeatRuns(node, start.AddDate(0, 0, -3), end.Add(6*time.Hour), down, down.Add(time.Hour))
		} else {
			l.Heartbeats(node, start.AddDate(0, 0, -3), end.Add(6*time.Hour), down, down.Add(time.Hour))
		}
		for at := start; at.Before(end); at = at.Add(15 * time.Minute) {
			gpu := i % 8
			l.Observation(node, at, at.Add(time.Second), events.KindCheck,
				events.Check{Name: "gpu.count", Category: events.CategoryInventory, Verdict: "pass", Value: "8 of 8"},
				events.Check{Name: "gpu.xid", Category: events.CategoryGPUDegraded, Verdict: "pass", GPU: &gpu})
		}
	}
	return l
}

// WriteLog writes the log as JSON lines (docs/events.md).
func (l *Log) WriteLog(w io.Writer) error {
	ew := events.NewWriter(w)
	for i := range l.Events {
		if err := ew.Write(&l.Events[i]); err != nil {
			return err
		}
	}
	return ew.Flush()
}
