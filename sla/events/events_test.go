package events

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	num := 4266.0
	gpu := 0
	in := []Event{
		{Type: TypeNodeRegistered, ID: "r1", Node: "n1", Contract: "acme", OrderedAt: at, Hardware: &Hardware{GPUModel: "H200", GPUCount: 8}, HeartbeatIntervalS: 30},
		{Type: TypeObservation, ID: "o1", Node: "n1", Batch: "b1", Seq: 1, At: at, ReceivedAt: at.Add(time.Second), Kind: KindCheck,
			Checks: []Check{{Name: "gpu.membw", Category: CategoryPerformance, Verdict: Fail, Number: &num, Unit: "GB/s", GPU: &gpu}}},
		{Type: TypeMaintenance, ID: "m1", Contract: "acme", Start: at, End: at.Add(time.Hour), AnnouncedAt: at.Add(-72 * time.Hour)},
		{Type: TypeTicketOpened, ID: "t1", Ticket: "T-1", Node: "n1", At: at, Priority: "P1"},
		{Type: TypeBackendOutage, ID: "bo", Start: at, End: at.Add(time.Minute)},
		{Type: TypeProviderIncident, ID: "provider/acme/p31", Contract: "acme", ProviderRef: "p31", Summary: "GPU instances unreachable",
			Source: "https://status.example.com/api/v2/incidents.json", Format: "statuspage", Status: "resolved", Impact: "major", Resolved: true,
			Start: at, End: at.Add(time.Hour), At: at.Add(time.Hour), ReceivedAt: at.Add(10 * time.Minute), Link: "https://stspg.io/p31",
			Components: []string{"GPU Compute"}},
		{Type: TypeStatusPagePolled, ID: "polled/acme", Contract: "acme", Source: "https://status.example.com/api/v2/incidents.json",
			Start: at, End: at.Add(time.Hour), Count: 13, Failures: 1, Reason: "HTTP 503"},
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i := range in {
		if err := w.Write(&in[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r := NewReader("log.jsonl", &buf)
	var got []Event
	for {
		var e Event
		err := r.Next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if len(got) != len(in) {
		t.Fatalf("read %d events, wrote %d", len(got), len(in))
	}
	if *got[1].Checks[0].Number != num || got[1].Checks[0].Category != CategoryPerformance || !got[1].ReceivedAt.Equal(at.Add(time.Second)) {
		t.Fatalf("observation did not survive: %+v", got[1])
	}
	if got[0].HeartbeatInterval() != 30*time.Second {
		t.Fatalf("interval %v", got[0].HeartbeatInterval())
	}
}

func TestReaderErrorsNameLine(t *testing.T) {
	cases := []struct {
		name, log string
		line      int
		want      string
	}{
		{"not json", `{"type":"backend_outage","id":"a","start":"2026-03-01T00:00:00Z","end":"2026-03-01T01:00:00Z"}` + "\n\n{oops\n", 3, "not a JSON event"},
		{"unknown field", `{"type":"node_released","id":"a","node":"n1","at":"2026-03-01T00:00:00Z","colour":"red"}`, 1, "colour"},
		{"unknown type", `{"type":"party","id":"a"}`, 1, `unknown event type "party"`},
		{"missing id", `{"type":"node_released","node":"n1","at":"2026-03-01T00:00:00Z"}`, 1, "id:"},
		{"bad kind", `{"type":"observation","id":"a","node":"n1","at":"2026-03-01T00:00:00Z","received_at":"2026-03-01T00:00:00Z","kind":"ping"}`, 1, "kind:"},
		{"wrong type", `{"type":"observation","id":"a","node":"n1","seq":"x"}`, 1, "seq"},
		{"end before start", `{"type":"backend_outage","id":"a","start":"2026-03-01T01:00:00Z","end":"2026-03-01T00:00:00Z"}`, 1, "end:"},
		{"bad category", `{"type":"observation","id":"a","node":"n1","at":"2026-03-01T00:00:00Z","received_at":"2026-03-01T00:00:00Z","kind":"check","checks":[{"name":"x","category":"gpu","verdict":"fail"}]}`, 1, "checks[0].category"},
		{"two values", `{"type":"node_released","id":"a","node":"n1","at":"2026-03-01T00:00:00Z"} {}`, 1, "more than one"},
		{"run ends before it starts", `{"type":"heartbeat_run","id":"r","node":"n1","at":"2026-03-01T00:00:00Z","received_at":"2026-03-01T00:00:01Z","last_received_at":"2026-03-01T01:00:01Z","heartbeat_interval_s":60,"max_gap_ms":120000,"max_delay_ms":150000,"count":61,"last_at":"2026-02-28T00:00:00Z"}`, 1, "last_at:"},
		{"run of no heartbeats", `{"type":"heartbeat_run","id":"r","node":"n1","at":"2026-03-01T00:00:00Z","last_at":"2026-03-01T01:00:00Z","received_at":"2026-03-01T00:00:01Z","last_received_at":"2026-03-01T01:00:01Z","heartbeat_interval_s":60,"max_gap_ms":120000,"max_delay_ms":150000,"count":0}`, 1, "count:"},
		{"run too sparse for its span", `{"type":"heartbeat_run","id":"r","node":"n1","at":"2026-03-01T00:00:00Z","last_at":"2026-03-01T01:00:00Z","received_at":"2026-03-01T00:00:01Z","last_received_at":"2026-03-01T01:00:01Z","heartbeat_interval_s":60,"max_gap_ms":120000,"max_delay_ms":150000,"count":20}`, 1, "count: 20 heartbeats at most 120000 ms apart"},
		{"run negative delay", `{"type":"heartbeat_run","id":"r","node":"n1","at":"2026-03-01T00:00:00Z","last_at":"2026-03-01T01:00:00Z","received_at":"2026-03-01T00:00:01Z","last_received_at":"2026-03-01T01:00:01Z","heartbeat_interval_s":60,"max_gap_ms":120000,"max_delay_ms":-1,"count":61}`, 1, "max_delay_ms:"},
		{"bad node", `{"type":"node_released","id":"a","node":"../etc","at":"2026-03-01T00:00:00Z"}`, 1, "node:"},
		{"instance id with a space", `{"type":"node_registered","id":"r","node":"n","contract":"c","ordered_at":"2026-03-01T00:00:00Z","hardware":{"gpu_model":"m","gpu_count":8},"instance_id":"i-0abc 123"}`, 1, "instance_id:"},
		{"region too long", `{"type":"node_registered","id":"r","node":"n","contract":"c","ordered_at":"2026-03-01T00:00:00Z","hardware":{"gpu_model":"m","gpu_count":8},"region":"` + strings.Repeat("a", 129) + `"}`, 1, "region: longer than 128"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader("log.jsonl", strings.NewReader(c.log))
			var err error
			for {
				var e Event
				if err = r.Next(&e); err != nil {
					break
				}
			}
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a LineError", err)
			}
			if le.Line != c.line || !strings.Contains(le.Error(), c.want) {
				t.Fatalf("got %q (line %d), want line %d containing %q", le.Error(), le.Line, c.line, c.want)
			}
		})
	}
}

func TestReaderGoesOnAfterBadLine(t *testing.T) {
	log := "{bad\n" + `{"type":"node_released","id":"a","node":"n1","at":"2026-03-01T00:00:00Z"}` + "\n"
	r := NewReader("log.jsonl", strings.NewReader(log))
	var e Event
	if err := r.Next(&e); err == nil {
		t.Fatal("first line should fail")
	}
	if err := r.Next(&e); err != nil || e.ID != "a" {
		t.Fatalf("second line: %v %+v", err, e)
	}
	if err := r.Next(&e); err != io.EOF {
		t.Fatalf("want EOF, got %v", err)
	}
}

func TestTrueAtCorrectsSkew(t *testing.T) {
	at := time.Date(2026, 3, 1, 0, 0, 10, 0, time.UTC)
	e := Event{At: at, ClockSkewMS: 10000}
	if !e.TrueAt().Equal(at.Add(-10 * time.Second)) {
		t.Fatal(e.TrueAt())
	}
}

// An instant a node reports is never after its receipt: one ahead of it is
// dated at it, however far within the window (the lead side of
// ObservationTimeOK: 5 min is in, a millisecond more is set aside); one
// before it (a spooled observation, hours late) is as it was; a heartbeat
// run's last instant is held to its last receipt the same way; without a
// receipt the time is as corrected.
func TestTrueAtNeverAfterTheReceipt(t *testing.T) {
	rcv := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		at     time.Time
		skewMS int64
		rcv    time.Time
		want   time.Time
	}{
		{rcv.Add(200 * time.Second), 0, rcv, rcv},
		{rcv, -200_000, rcv, rcv},                                        // a reported skew of −200 s
		{rcv.Add(time.Millisecond), 0, rcv, rcv},                         // the smallest lead
		{rcv, 0, rcv, rcv},                                               // at its receipt
		{rcv.Add(-time.Millisecond), 0, rcv, rcv.Add(-time.Millisecond)}, // just before
		{rcv.Add(-6 * time.Hour), 0, rcv, rcv.Add(-6 * time.Hour)},       // spooled hours ago
		{rcv.Add(-6 * time.Hour), 3_000, rcv, rcv.Add(-6*time.Hour - 3*time.Second)},
		{rcv.Add(time.Hour), 0, time.Time{}, rcv.Add(time.Hour)}, // no receipt known
	} {
		e := Event{At: c.at, ClockSkewMS: c.skewMS, ReceivedAt: c.rcv, LastAt: c.at, LastReceivedAt: c.rcv}
		if got := e.TrueAt(); !got.Equal(c.want) {
			t.Errorf("at %s skew %d ms received %s: TrueAt %s, want %s", c.at, c.skewMS, c.rcv, got, c.want)
		}
		if got := e.TrueLastAt(); !got.Equal(c.want) {
			t.Errorf("last at %s skew %d ms received %s: TrueLastAt %s, want %s", c.at, c.skewMS, c.rcv, got, c.want)
		}
	}
	if err := ObservationTimeOK(rcv.Add(MaxObservationLead), rcv); err != nil {
		t.Errorf("a lead of %s: %v", MaxObservationLead, err)
	}
	if err := ObservationTimeOK(rcv.Add(MaxObservationLead+time.Millisecond), rcv); err == nil {
		t.Errorf("a lead of %s + 1 ms is in the window", MaxObservationLead)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte(`{"type":"observation","id":"a","node":"n1","at":"2026-03-01T00:00:00Z","received_at":"2026-03-01T00:00:00Z","kind":"heartbeat"}` + "\n"))
	f.Add([]byte(`{"type":"maintenance","id":"m","contract":"c","start":"2026-03-01T00:00:00Z","end":"2026-03-01T01:00:00Z","announced_at":"2026-02-01T00:00:00Z"}`))
	f.Add([]byte("{\n}\n\n{\"type\":1}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader("log.jsonl", bytes.NewReader(data))
		last := 0
		for i := 0; i < 10000; i++ {
			var e Event
			err := r.Next(&e)
			if err == io.EOF {
				return
			}
			var le *LineError
			if err != nil && !errors.As(err, &le) {
				return // a read error ends the stream
			}
			if r.Line() <= last {
				t.Fatalf("line number did not advance: %d after %d", r.Line(), last)
			}
			last = r.Line()
			if err == nil {
				if verr := e.Validate(); verr != nil {
					t.Fatalf("reader returned an invalid event: %v", verr)
				}
				var buf bytes.Buffer
				w := NewWriter(&buf)
				if werr := w.Write(&e); werr != nil {
					t.Fatalf("valid event not writable: %v", werr)
				}
			}
		}
	})
}

// Stream gives exactly what Reader gives, in the same order, with the same
// line numbers, across chunk boundaries (of lines and of bytes).
func TestStreamMatchesReader(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 3*chunkLines+17; i++ {
		switch {
		case i%997 == 5:
			b.WriteString("{broken\n")
		case i%1231 == 7:
			b.WriteString("\n")
		case i%3 == 0:
			// Long lines: chunks end at chunkBytes as well as at chunkLines.
			fmt.Fprintf(&b, `{"type":"node_released","id":"e%d","node":"n1","at":"2026-03-01T00:00:00Z","summary":"%s"}`+"\n", i, strings.Repeat("s", 700))
		default:
			fmt.Fprintf(&b, `{"type":"node_released","id":"e%d","node":"n1","at":"2026-03-01T00:00:00Z"}`+"\n", i)
		}
	}
	log := b.String()
	type item struct {
		id   string
		line int
		bad  bool
	}
	var want []item
	r := NewReader("log.jsonl", strings.NewReader(log))
	for {
		var e Event
		err := r.Next(&e)
		if err == io.EOF {
			break
		}
		var le *LineError
		if errors.As(err, &le) {
			want = append(want, item{line: le.Line, bad: true})
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, item{id: e.ID, line: r.Line()})
	}
	for _, workers := range []int{1, 2, 5} {
		var got []item
		lines, err := Stream(strings.NewReader(log), workers, func(e *Event, line int) error {
			got = append(got, item{id: e.ID, line: line})
			return nil
		}, func(le *LineError) bool {
			got = append(got, item{line: le.Line, bad: true})
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if lines != r.Line() || len(got) != len(want) {
			t.Fatalf("workers %d: %d lines %d items, want %d lines %d items", workers, lines, len(got), r.Line(), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("workers %d: item %d = %+v, want %+v", workers, i, got[i], want[i])
			}
		}
	}
	// Stopping early returns promptly and leaks nothing that blocks.
	n := 0
	_, err := Stream(strings.NewReader(log), 2, func(*Event, int) error {
		n++
		if n == 10 {
			return errors.New("enough")
		}
		return nil
	}, func(*LineError) bool { return true })
	if err == nil || err.Error() != "enough" {
		t.Fatalf("stop: %v", err)
	}
}

func TestProviderIncidentValidation(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	good := Event{Type: TypeProviderIncident, ID: "provider/acme/p31", Contract: "acme", ProviderRef: "p31", Summary: "GPU down",
		Start: at, ReceivedAt: at.Add(time.Minute)}
	if err := good.Validate(); err != nil {
		t.Fatalf("an open incident: %v", err)
	}
	polled := Event{Type: TypeStatusPagePolled, ID: "polled/acme", Contract: "acme", Source: "https://x", Start: at, End: at, Count: 1}
	if err := polled.Validate(); err != nil {
		t.Fatalf("one successful fetch: %v", err)
	}
	for _, c := range []struct {
		field string
		edit  func(e *Event)
	}{
		{"contract", func(e *Event) { e.Contract = "" }},
		{"provider_ref", func(e *Event) { e.ProviderRef = "" }},
		{"summary", func(e *Event) { e.Summary = "" }},
		{"start", func(e *Event) { e.Start = time.Time{} }},
		{"received_at", func(e *Event) { e.ReceivedAt = time.Time{} }},
		{"end", func(e *Event) { e.Resolved = true }},
		{"end", func(e *Event) { e.End = at.Add(time.Hour) }},
		{"end", func(e *Event) { e.Resolved, e.End = true, at.Add(-time.Hour) }},
	} {
		e := good
		c.edit(&e)
		var fe *FieldError
		if err := e.Validate(); !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("provider_incident: got %v, want an error on %s", err, c.field)
		}
	}
	for _, c := range []struct {
		field string
		edit  func(e *Event)
	}{
		{"source", func(e *Event) { e.Source = "" }},
		{"end", func(e *Event) { e.End = at.Add(-time.Second) }},
		{"count", func(e *Event) { e.Failures = 1 }},
	} {
		e := polled
		c.edit(&e)
		var fe *FieldError
		if err := e.Validate(); !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("status_page_polled: got %v, want an error on %s", err, c.field)
		}
	}
}

// A contract-wide maintenance window from year 0001 to
// 9999 would take every outage out of the books; a log holding one is
// refused, naming the field and both ends. A window of exactly the bound
// reads.
func TestMaintenanceWindowBounded(t *testing.T) {
	line := func(start, end string) string {
		return `{"type":"maintenance","id":"m","contract":"acme","start":"` + start + `","end":"` + end + `","announced_at":"0001-01-01T00:00:01Z"}`
	}
	_, err := ReadLog("log.jsonl", strings.NewReader(line("0001-01-01T00:00:01Z", "9999-12-31T23:59:59Z")), func(*Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "log.jsonl:1: end: 9999-12-31T23:59:59Z is more than 168h0m0s after start 0001-01-01T00:00:01Z") {
		t.Fatalf("year 0001 to 9999: %v; want the end named with both ends", err)
	}
	if _, err := ReadLog("log.jsonl", strings.NewReader(line("2026-03-01T00:00:00Z", "2026-03-08T00:00:00Z")), func(*Event) error { return nil }); err != nil {
		t.Fatalf("a window of exactly %s: %v", MaxMaintenanceWindow, err)
	}
}

// The recording fields: written and read back on every administrative
// record; a log from before they existed (no recorded_at) still reads; an
// override only on a notice or a release; bounded lengths.
func TestRecordFields(t *testing.T) {
	old := `{"type":"maintenance","id":"m","contract":"acme","start":"2026-03-01T00:00:00Z","end":"2026-03-01T01:00:00Z","announced_at":"2026-02-20T00:00:00Z"}
{"type":"node_released","id":"r","node":"n1","at":"2026-03-02T00:00:00Z"}
{"type":"ticket_opened","id":"t","ticket":"T-1","node":"n1","at":"2026-03-01T00:00:00Z","priority":"P1"}
`
	var got []Event
	if _, err := ReadLog("old.jsonl", strings.NewReader(old), func(e *Event) error { got = append(got, *e); return nil }); err != nil || len(got) != 3 {
		t.Fatalf("a log without recording times: %v (%d events)", err, len(got))
	}
	for _, e := range got {
		if !e.RecordedAt.IsZero() || Retroactive(e.At, e.RecordedAt) {
			t.Errorf("%s: recorded_at %v, retroactive %v; want unknown, not retroactive", e.ID, e.RecordedAt, Retroactive(e.At, e.RecordedAt))
		}
	}
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	in := Event{Type: TypeNodeReleased, ID: "r", Node: "n1", At: at, RecordedAt: at.Add(2 * time.Hour), RecordedBy: "api:k7q2m4xa (ops)", Override: "given back by phone, ticket P-77"}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.Write(&in); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var back Event
	if err := NewReader("x", &buf).Next(&back); err != nil || !back.RecordedAt.Equal(in.RecordedAt) || back.RecordedBy != in.RecordedBy || back.Override != in.Override {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	// 2 h after the fact is retroactive; RecordSlack after it is not.
	if !Retroactive(at, at.Add(2*time.Hour)) || Retroactive(at, at.Add(RecordSlack)) {
		t.Fatal("Retroactive: 2 h late must be one, RecordSlack late must not")
	}
	for _, c := range []struct{ line, want string }{
		{`{"type":"ticket_opened","id":"t","ticket":"T-1","node":"n1","at":"2026-03-01T00:00:00Z","priority":"P1","override":"x"}`, "override: only a maintenance notice or a release"},
		{`{"type":"node_released","id":"r","node":"n1","at":"2026-03-02T00:00:00Z","recorded_by":"` + strings.Repeat("x", MaxRecordedBy+1) + `"}`, "recorded_by: longer than 256"},
		{`{"type":"node_released","id":"r","node":"n1","at":"2026-03-02T00:00:00Z","override":"` + strings.Repeat("x", MaxOverride+1) + `"}`, "override: longer than 2000"},
	} {
		_, err := ReadLog("log.jsonl", strings.NewReader(c.line), func(*Event) error { return nil })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60s…: %v; want %q", c.line, err, c.want)
		}
	}
}

// The demo mark: read back on a registration; refused, by name and line,
// on any other event (only a registration says whose node it is).
func TestDemoMarkOnTheRegistrationOnly(t *testing.T) {
	log := `{"type":"node_registered","id":"reg-demo-node","node":"demo-node","contract":"demo","ordered_at":"2026-10-31T09:00:00Z","hardware":{"gpu_model":"H200","gpu_count":2},"demo":true}
{"type":"node_registered","id":"reg-gz-01","node":"gz-01","contract":"cn-example","ordered_at":"2026-10-31T09:00:00Z","hardware":{"gpu_model":"H200","gpu_count":8}}
`
	var got []Event
	if _, err := ReadLog("demo.jsonl", strings.NewReader(log), func(e *Event) error { got = append(got, *e); return nil }); err != nil || len(got) != 2 {
		t.Fatalf("%v (%d events)", err, len(got))
	}
	if !got[0].Demo || got[1].Demo {
		t.Fatalf("demo marks %v %v, want true false", got[0].Demo, got[1].Demo)
	}
	for _, line := range []string{
		`{"type":"node_released","id":"r","node":"demo-node","at":"2026-11-20T12:00:00Z","demo":true}`,
		`{"type":"observation","id":"o","node":"demo-node","at":"2026-11-20T12:00:00Z","received_at":"2026-11-20T12:00:01Z","kind":"heartbeat","demo":true}`,
	} {
		_, err := ReadLog("log.jsonl", strings.NewReader(line+"\n"), func(*Event) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "demo: only a node_registered event marks the demo node") || !strings.Contains(err.Error(), "log.jsonl:1") {
			t.Errorf("%.60s…: %v", line, err)
		}
	}
}
