package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/golden"
	"github.com/gpusla/gpusla/sla/events"
)

// exampleLog is the small log shipped as testdata/example-events.jsonl for
// trying the command (docs/reports.md): two nodes on the two example
// contracts in March 2026, heartbeats every fifteen minutes, an outage each, a
// maintenance notice, late data and a few tickets.
func exampleLog() []events.Event {
	var l log
	every := 900
	l.Add(events.Event{Type: events.TypeNodeRegistered, ID: "reg-gz-01", Node: "gz-01", Contract: "cn-example",
		OrderedAt: local(shanghai, "2026-03-02 09:40"), HeartbeatIntervalS: every,
		Hardware: &events.Hardware{GPUModel: "H200 SXM 141GB", GPUCount: 8}})
	l.Add(events.Event{Type: events.TypeNodeRegistered, ID: "reg-va-01", Node: "va-01", Contract: "us-example",
		OrderedAt: local(newYork, "2026-02-27 09:00"), HeartbeatIntervalS: every,
		Hardware: &events.Hardware{GPUModel: "H100 SXM5 80GB", GPUCount: 4}})
	hb := func(node string, from, to time.Time, late func(time.Time) time.Time, down ...time.Time) {
		for at := from; at.Before(to); at = at.Add(15 * time.Minute) {
			skip := false
			for i := 0; i+1 < len(down); i += 2 {
				if at.After(down[i]) && at.Before(down[i+1]) {
					skip = true
				}
			}
			if skip {
				continue
			}
			recv := at.Add(2 * time.Second)
			if late != nil {
				recv = late(at)
			}
			e := events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s/%d", node, at.Unix()), Node: node,
				At: at, ReceivedAt: recv, Kind: events.KindHeartbeat}
			if at.Minute() == 0 {
				e.Kind = events.KindCheck
				e.Checks = []events.Check{{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: events.Pass, Value: "8", Criterion: "8"},
					{Name: "net.internet", Category: events.CategoryConnectivity, Verdict: events.Pass, Value: "mirrors reachable"}}
			}
			l.Add(e)
		}
	}
	// gz-01: delivered 20 minutes after the order; down from 23:40 to 01:10
	// across midnight; an hour in which only the backend did not hear it.
	hb("gz-01", local(shanghai, "2026-03-02 10:00"), local(shanghai, "2026-04-01 00:00"), func(at time.Time) time.Time {
		if !at.Before(local(shanghai, "2026-03-18 14:00")) && at.Before(local(shanghai, "2026-03-18 15:00")) {
			return local(shanghai, "2026-03-18 15:00")
		}
		return at.Add(2 * time.Second)
	}, local(shanghai, "2026-03-09 23:40"), local(shanghai, "2026-03-10 01:10"))
	l.Add(events.Event{Type: events.TypeMaintenance, ID: "mnt-1", Contract: "cn-example", Start: local(shanghai, "2026-03-21 02:00"),
		End: local(shanghai, "2026-03-21 03:00"), AnnouncedAt: local(shanghai, "2026-03-20 20:00"), Summary: "switch firmware"})
	l.Add(events.Event{Type: events.TypeTicketOpened, ID: "t1-open", Ticket: "T-1001", Node: "gz-01", At: local(shanghai, "2026-03-09 23:50"),
		Priority: "P1", Category: "hardware", ProviderRef: "WO-5521", Summary: "node unreachable, BMC shows GPU fault"})
	l.Add(events.Event{Type: events.TypeProviderResponded, ID: "t1-resp", Ticket: "T-1001", At: local(shanghai, "2026-03-10 00:35")})
	l.Add(events.Event{Type: events.TypeHardwareReplaced, ID: "t1-hw", Ticket: "T-1001", At: local(shanghai, "2026-03-10 01:05")})
	l.Add(events.Event{Type: events.TypeTicketResolved, ID: "t1-done", Ticket: "T-1001", At: local(shanghai, "2026-03-10 01:10")})
	// va-01: across the DST change; a ticket never answered.
	hb("va-01", local(newYork, "2026-02-27 10:00"), local(newYork, "2026-04-01 00:00"), nil,
		time.Date(2026, 3, 8, 6, 0, 0, 0, time.UTC), time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC))
	l.Add(events.Event{Type: events.TypeTicketOpened, ID: "t2-open", Ticket: "T-2001", Node: "va-01", At: local(newYork, "2026-03-27 16:30"),
		Priority: "sev2", Summary: "NCCL all-reduce below spec"})
	return l.Events
}

func TestExampleLog(t *testing.T) {
	path := filepath.Join("testdata", "example-events.jsonl")
	var buf bytes.Buffer
	w := events.NewWriter(&buf)
	evs := exampleLog()
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "../example-events.jsonl", buf.Bytes())
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := NewBuilder(loadTerms(t), Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ReadLog(path, f); err != nil {
		t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	gz := node(t, r, "gz-01")
	eq(t, "gz-01 delivery", gz.Delivery.Status, "met")
	eq(t, "gz-01 maintenance excluded", gz.Maintenance[0].Excluded, false)
	var out bytes.Buffer
	if err := JSON(&out, r); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "example.json", out.Bytes())
	out.Reset()
	if err := Markdown(&out, r); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "example.md", out.Bytes())
}
