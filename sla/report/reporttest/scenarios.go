// Package reporttest holds the monthly report's scenario logs: each a
// month of one node's events built in code (a two-hour outage across
// midnight, DST, maintenance notices, flapping checks, tickets on holidays,
// late data, a release, per-check incidents, a late delivery, records
// dated before their recording). The report's
// own tests check each scenario's report field by field and against golden
// files; the live service's tests drive the same logs through app.Service
// and compare the incidents one by one, so the live books and the report
// cannot drift apart.
//
// On the path from an observation to a report row, this is no step: it is
// test input, scenario event logs from which the report's rows are checked.
package reporttest

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

// Scenario is one log and the month its report is for.
type Scenario struct {
	Name  string
	Month time.Month // of 2026
	AsOf  time.Time
	Build func(l *Log)
}

// Events builds the scenario's log.
func (s Scenario) Events() []events.Event {
	var l Log
	s.Build(&l)
	return l.Events
}

var (
	// Shanghai and NewYork are the example contracts' zones.
	Shanghai = mustLoc("Asia/Shanghai")
	NewYork  = mustLoc("America/New_York")
)

func mustLoc(name string) *time.Location {
	l, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return l
}

// Local parses "2006-01-02 15:04" in loc.
func Local(loc *time.Location, s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
	if err != nil {
		panic(err)
	}
	return t
}

// Log is a scenario's event log under construction.
type Log struct{ Events []events.Event }

// Add appends e, giving it an id if it has none.
func (l *Log) Add(e events.Event) {
	if e.ID == "" {
		e.ID = fmt.Sprintf("%s-%d", e.Type, len(l.Events))
	}
	l.Events = append(l.Events, e)
}

// Register adds a node_registered event.
func (l *Log) Register(node, contract string, ordered time.Time, gpus int) {
	l.Add(events.Event{Type: events.TypeNodeRegistered, Node: node, Contract: contract, OrderedAt: ordered,
		Hardware: &events.Hardware{GPUModel: "H200 SXM 141GB", GPUCount: gpus}})
}

// Heartbeats adds heartbeats every minute in [from, to), received a second later, except
// strictly inside the given down windows (pairs of instants): the last
// heartbeat before an outage is at its start, the next at its end.
func (l *Log) Heartbeats(node string, from, to time.Time, down ...time.Time) {
	for at := from; at.Before(to); at = at.Add(time.Minute) {
		skip := false
		for i := 0; i+1 < len(down); i += 2 {
			if at.After(down[i]) && at.Before(down[i+1]) {
				skip = true
			}
		}
		if !skip {
			l.Add(events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s/%d", node, at.Unix()), Node: node,
				At: at, ReceivedAt: at.Add(time.Second), Kind: events.KindHeartbeat})
		}
	}
}

// Check adds one check observation received at received.
func (l *Log) Check(node string, at, received time.Time, category, verdict, value string) {
	l.Add(events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s/c/%s/%d", node, category, at.Unix()), Node: node,
		At: at, ReceivedAt: received, Kind: events.KindCheck,
		Checks: []events.Check{{Name: category + ".check", Category: category, Verdict: verdict, Value: value}}})
}

// GPUCheck adds one check of one GPU, received a second later.
func (l *Log) GPUCheck(node string, at time.Time, name, category, verdict string, gpu int) {
	g := gpu
	l.Add(events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s/%s/%d/%d", node, name, gpu, at.Unix()), Node: node,
		At: at, ReceivedAt: at.Add(time.Second), Kind: events.KindCheck,
		Checks: []events.Check{{Name: name, Category: category, Verdict: verdict, GPU: &g}}})
}

// Ticket adds a ticket event; f fills its other fields.
func (l *Log) Ticket(typ, id string, at time.Time, f func(*events.Event)) {
	e := events.Event{Type: typ, Ticket: id, At: at}
	if f != nil {
		f(&e)
	}
	l.Add(e)
}

func Scenarios() []Scenario {
	return []Scenario{
		{
			// A two-hour outage across midnight in Shanghai: the node's last
			// heartbeat is at 23:00, the next at 01:00.
			Name: "cn-outage-across-midnight", Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC),
			Build: func(l *Log) {
				l.Register("gz-01", "cn-example", Local(Shanghai, "2026-02-24 23:40"), 8)
				l.Heartbeats("gz-01", Local(Shanghai, "2026-02-25 00:00"), Local(Shanghai, "2026-04-01 06:00"),
					Local(Shanghai, "2026-03-09 23:00"), Local(Shanghai, "2026-03-10 01:00"))
			},
		},
		{
			// New York: an outage across the spring-forward hour, one across
			// the month end (only March's part counts), and a degraded GPU
			// for three hours (this contract counts gpu_degraded).
			Name: "us-dst-and-month-end", Month: time.March, AsOf: time.Date(2026, 4, 2, 12, 0, 0, 0, time.UTC),
			Build: func(l *Log) {
				l.Register("va-01", "us-example", Local(NewYork, "2026-02-24 09:00"), 8)
				l.Heartbeats("va-01", Local(NewYork, "2026-02-25 00:00"), Local(NewYork, "2026-04-01 06:00"),
					time.Date(2026, 3, 8, 6, 30, 0, 0, time.UTC), time.Date(2026, 3, 8, 7, 30, 0, 0, time.UTC), // 01:30 EST to 03:30 EDT
					Local(NewYork, "2026-03-31 23:30"), Local(NewYork, "2026-04-01 00:30"))
				for at := Local(NewYork, "2026-03-20 09:00"); at.Before(Local(NewYork, "2026-03-20 13:00")); at = at.Add(15 * time.Minute) {
					v := "pass"
					if at.Before(Local(NewYork, "2026-03-20 12:00")) {
						v = "fail"
					}
					l.Check("va-01", at, at.Add(time.Second), "gpu_degraded", v, "xid 79")
				}
			},
		},
		{
			// Two maintenance windows in which the node is down: one announced
			// five days ahead (excluded), one 14 hours ahead (counts).
			Name: "cn-maintenance-notice", Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC),
			Build: func(l *Log) {
				l.Register("gz-02", "cn-example", Local(Shanghai, "2026-02-24 23:40"), 8)
				l.Heartbeats("gz-02", Local(Shanghai, "2026-02-25 00:00"), Local(Shanghai, "2026-04-01 06:00"),
					Local(Shanghai, "2026-03-15 02:00"), Local(Shanghai, "2026-03-15 04:00"),
					Local(Shanghai, "2026-03-20 02:00"), Local(Shanghai, "2026-03-20 03:00"))
				l.Add(events.Event{Type: events.TypeMaintenance, Contract: "cn-example", Start: Local(Shanghai, "2026-03-15 02:00"),
					End: Local(Shanghai, "2026-03-15 04:00"), AnnouncedAt: Local(Shanghai, "2026-03-10 09:00"), Summary: "core switch upgrade"})
				l.Add(events.Event{Type: events.TypeMaintenance, Node: "gz-02", Start: Local(Shanghai, "2026-03-20 02:00"),
					End: Local(Shanghai, "2026-03-20 03:00"), AnnouncedAt: Local(Shanghai, "2026-03-19 12:00"), Summary: "BIOS update"})
			},
		},
		{
			// A GPU check that flaps: fail pass fail fail pass fail fail fail
			// pass fail pass pass at one-minute steps opens one incident at
			// the sixth minute (three failures) and closes it at the tenth
			// (two passes). Heartbeat gaps of 3 minutes are inside the grace
			// (never alerted on) but outages of 2 minutes by the books; one
			// of 4 minutes is an outage of 3 minutes, alerted on.
			Name: "cn-flapping", Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC),
			Build: func(l *Log) {
				l.Register("gz-03", "cn-example", Local(Shanghai, "2026-02-24 23:40"), 8)
				l.Heartbeats("gz-03", Local(Shanghai, "2026-02-25 00:00"), Local(Shanghai, "2026-04-01 06:00"),
					Local(Shanghai, "2026-03-12 08:00"), Local(Shanghai, "2026-03-12 08:03"),
					Local(Shanghai, "2026-03-12 08:10"), Local(Shanghai, "2026-03-12 08:13"),
					Local(Shanghai, "2026-03-12 08:20"), Local(Shanghai, "2026-03-12 08:24"))
				base := Local(Shanghai, "2026-03-12 10:00")
				for i, c := range "FPFFPFFFPFPP" {
					v := "pass"
					if c == 'F' {
						v = "fail"
					}
					at := base.Add(time.Duration(i) * time.Minute)
					l.Check("gz-03", at, at.Add(time.Second), "gpu_lost", v, "7 of 8 GPUs visible")
				}
			},
		},
		{
			// Tickets in February 2026 (Spring Festival) on the Chinese
			// contract; the report is taken at the very deadline of a P1
			// ticket that was never answered.
			Name: "cn-tickets", Month: time.February, AsOf: Local(Shanghai, "2026-02-27 18:05"),
			Build: func(l *Log) {
				l.Register("gz-04", "cn-example", Local(Shanghai, "2026-01-20 10:00"), 8)
				l.Heartbeats("gz-04", Local(Shanghai, "2026-01-25 00:00"), Local(Shanghai, "2026-02-27 18:05"))
				// Friday 23:50: off-hours, 30 min target, answered after 35.
				l.Ticket(events.TypeTicketOpened, "T-1", Local(Shanghai, "2026-02-06 23:50"), func(e *events.Event) {
					e.Node, e.Priority, e.ProviderRef, e.Summary = "gz-04", "P1", "WO-881", "node rebooted twice"
				})
				l.Ticket(events.TypeProviderResponded, "T-1", Local(Shanghai, "2026-02-07 00:25"), nil)
				// Spring Festival holiday, 10:00: off-hours although a weekday.
				l.Ticket(events.TypeTicketOpened, "T-2", Local(Shanghai, "2026-02-17 10:00"), func(e *events.Event) {
					e.Node, e.Priority = "gz-04", "P1"
				})
				l.Ticket(events.TypeProviderResponded, "T-2", Local(Shanghai, "2026-02-17 10:20"), nil)
				// Adjusted working Saturday: business hours, 15 min target.
				l.Ticket(events.TypeTicketOpened, "T-3", Local(Shanghai, "2026-02-14 10:00"), func(e *events.Event) {
					e.Node, e.Priority = "gz-04", "P1"
				})
				l.Ticket(events.TypeProviderResponded, "T-3", Local(Shanghai, "2026-02-14 10:20"), nil)
				// Hardware ticket: answered asking for logs, customer replies an
				// hour later, replaced after 5.5 h.
				l.Ticket(events.TypeTicketOpened, "T-4", Local(Shanghai, "2026-02-10 10:00"), func(e *events.Event) {
					e.Node, e.Priority, e.Category, e.Summary = "gz-04", "P1", "hardware", "GPU 3 fell off the bus"
				})
				l.Ticket(events.TypeProviderResponded, "T-4", Local(Shanghai, "2026-02-10 10:05"), func(e *events.Event) { e.AwaitingCustomer = true })
				l.Ticket(events.TypeCustomerReplied, "T-4", Local(Shanghai, "2026-02-10 11:05"), nil)
				l.Ticket(events.TypeHardwareReplaced, "T-4", Local(Shanghai, "2026-02-10 15:30"), nil)
				l.Ticket(events.TypeTicketResolved, "T-4", Local(Shanghai, "2026-02-10 15:30"), nil)
				// Never answered; the report is as of its deadline.
				l.Ticket(events.TypeTicketOpened, "T-5", Local(Shanghai, "2026-02-27 17:50"), func(e *events.Event) {
					e.Node, e.Priority = "gz-04", "P1"
				})
				// Opened at 18:00 (closing time): off-hours P2, pending.
				l.Ticket(events.TypeTicketOpened, "T-6", Local(Shanghai, "2026-02-27 18:00"), func(e *events.Event) {
					e.Node, e.Priority = "gz-04", "P2"
				})
				// Answered after the as-of instant: not seen.
				l.Ticket(events.TypeProviderResponded, "T-6", Local(Shanghai, "2026-02-27 18:30"), nil)
			},
		},
		{
			// Late data: the backend hears nothing from 10:00 to 12:00; at 12:00
			// the node's spool delivers what it saw: running with the internet
			// reachable until 11:00, running without it until 11:30, nothing
			// after. Later the backend itself is down for an hour.
			Name: "cn-late-data", Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC),
			Build: func(l *Log) {
				l.Register("gz-05", "cn-example", Local(Shanghai, "2026-02-24 23:40"), 8)
				gapFrom, gapTo := Local(Shanghai, "2026-03-05 10:00"), Local(Shanghai, "2026-03-05 12:00")
				l.Heartbeats("gz-05", Local(Shanghai, "2026-02-25 00:00"), Local(Shanghai, "2026-04-01 06:00"),
					gapFrom, gapTo, Local(Shanghai, "2026-03-20 00:00"), Local(Shanghai, "2026-03-20 01:00"))
				for at := gapFrom.Add(time.Minute); at.Before(Local(Shanghai, "2026-03-05 11:30")); at = at.Add(time.Minute) {
					l.Add(events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("gz-05/spool/%d", at.Unix()), Node: "gz-05",
						At: at, ReceivedAt: gapTo, Kind: events.KindHeartbeat, Batch: "b-spool", Seq: 9000})
				}
				for at := gapFrom; at.Before(Local(Shanghai, "2026-03-05 11:30")); at = at.Add(5 * time.Minute) {
					v, recv := "pass", gapTo
					if !at.Before(Local(Shanghai, "2026-03-05 11:00")) {
						v = "fail"
					}
					if at.Equal(gapFrom) {
						recv = at.Add(time.Second)
					}
					l.Add(events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("gz-05/conn/%d", at.Unix()), Node: "gz-05",
						At: at, ReceivedAt: recv, Kind: events.KindCheck,
						Checks: []events.Check{{Name: "net.internet", Category: "connectivity", Verdict: v, Value: "curl mirrors.aliyun.com"}}})
				}
				l.Add(events.Event{Type: events.TypeBackendOutage, Start: Local(Shanghai, "2026-03-20 00:00"), End: Local(Shanghai, "2026-03-20 01:00"), Summary: "database failover"})
				l.Add(events.Event{Type: events.TypeBatchDropped, Node: "gz-05", At: gapTo, FromSeq: 8990, ToSeq: 8995, Batches: 6, Reason: "spool full"})
				l.Add(events.Event{Type: events.TypeChainBreak, Node: "gz-05", At: gapTo, Seq: 8996, ExpectedPrev: strings.Repeat("a", 64), GotPrev: strings.Repeat("b", 64)})
			},
		},
		{
			// The backend itself down for an hour five times (02:00–03:00
			// Shanghai), the node silent around it by different amounts. Only
			// silence the backend, itself up, waited out past the 2-minute
			// grace makes an incident; its part inside the downtime is
			// backend_outage, not counted:
			//   10th: silent exactly while the backend was down: no incident;
			//   12th: silent from 01:50: no_data 01:51–02:00, then backend_outage;
			//   14th: silent from 02:30 to 03:20: backend_outage, then no_data from 03:00;
			//   16th: silent 01:59–03:01 (1 minute due before, 1 after): no incident;
			//   18th: the backend up 02:30–02:36 in between, the node silent
			//   01:59–03:01: overdue in those 6 minutes, one incident of four parts.
			Name: "cn-backend-down", Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC),
			Build: func(l *Log) {
				l.Register("gz-08", "cn-example", Local(Shanghai, "2026-02-27 10:00"), 8)
				at := func(day, hm string) time.Time { return Local(Shanghai, "2026-03-"+day+" "+hm) }
				down := []time.Time{at("10", "02:00"), at("10", "03:00"), at("12", "01:50"), at("12", "03:00"),
					at("14", "02:30"), at("14", "03:20"), at("16", "01:59"), at("16", "03:01"), at("18", "01:59"), at("18", "03:01")}
				l.Heartbeats("gz-08", Local(Shanghai, "2026-02-27 10:30"), Local(Shanghai, "2026-04-01 09:00"), down...)
				for _, d := range []string{"10", "12", "14", "16"} {
					l.Add(events.Event{Type: events.TypeBackendOutage, Start: at(d, "02:00"), End: at(d, "03:00"), Summary: "database failover"})
				}
				l.Add(events.Event{Type: events.TypeBackendOutage, Start: at("18", "02:00"), End: at("18", "02:30"), Summary: "deploy"})
				l.Add(events.Event{Type: events.TypeBackendOutage, Start: at("18", "02:36"), End: at("18", "03:00"), Summary: "deploy rolled back"})
			},
		},
		{
			// The backend down 02:00–03:00 (Shanghai) twice, the node's spool
			// draining after the restart, oldest first:
			//   8th: 72 minutes of backlog in 12 batches, one a minute from
			//   03:00:01; prompt again from 03:12. Late batches arriving are
			//   signs of life: no incident, though nothing was heard
			//   promptly until 03:12;
			//   9th: a batch at 03:00:01, then the drain stalls until
			//   03:06:01: silent for 5 minutes with the backend up, one
			//   incident from 02:00 (its backend part not counted) to 03:06
			//   (the heartbeats of 03:04 and 03:05 came 2m01s and 61 s late:
			//   made while still cut off).
			Name: "cn-slow-drain", Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC),
			Build: func(l *Log) {
				l.Register("gz-09", "cn-example", Local(Shanghai, "2026-02-27 10:00"), 8)
				at := func(day, hm string) time.Time { return Local(Shanghai, "2026-03-"+day+" "+hm) }
				l.Heartbeats("gz-09", Local(Shanghai, "2026-02-27 10:30"), Local(Shanghai, "2026-04-01 09:00"),
					at("08", "01:59"), at("08", "03:12"), at("09", "01:59"), at("09", "03:06"))
				drain := func(from, to, recv time.Time, batch string) {
					for t := from; t.Before(to); t = t.Add(time.Minute) {
						l.Add(events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("gz-09/drain/%d", t.Unix()), Node: "gz-09",
							At: t, ReceivedAt: recv, Kind: events.KindHeartbeat, Batch: batch})
					}
				}
				for k := 0; k < 12; k++ {
					from := at("08", "02:00").Add(time.Duration(6*k) * time.Minute)
					drain(from, from.Add(6*time.Minute), at("08", "03:00").Add(time.Duration(k)*time.Minute+time.Second), fmt.Sprintf("d8-%d", k))
				}
				drain(at("09", "02:00"), at("09", "02:30"), at("09", "03:00").Add(time.Second), "d9-0")
				drain(at("09", "02:30"), at("09", "03:06"), at("09", "03:06").Add(time.Second), "d9-1")
				for _, d := range []string{"08", "09"} {
					l.Add(events.Event{Type: events.TypeBackendOutage, Start: at(d, "02:00"), End: at(d, "03:00"), Summary: "database failover"})
				}
			},
		},
		{
			// A node given back on the 10th (its heartbeats stop then: no
			// outage after the release, billing stops) and one ordered in April
			// (not part of March).
			Name: "us-released-mid-month", Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC),
			Build: func(l *Log) {
				l.Register("va-02", "us-example", Local(NewYork, "2026-02-27 09:00"), 2)
				l.Heartbeats("va-02", Local(NewYork, "2026-02-27 09:30"), Local(NewYork, "2026-03-10 12:00"))
				l.Add(events.Event{Type: events.TypeNodeReleased, Node: "va-02", At: Local(NewYork, "2026-03-10 12:00")})
				l.Register("va-03", "us-example", Local(NewYork, "2026-04-01 09:00"), 8)
			},
		},
		{
			// Per-check hysteresis: a daily burn finds one
			// wrong value on GPU 0 while the 5-minute temperature check of the
			// same category passes around it: a definitive failure, an
			// incident from that result, closed by the next two passing
			// burns. A daily bandwidth test on GPU 1 fails three days running
			// while GPU 0's passes: a measured figure, opened on the third
			// failure of that check, backdated to the first.
			Name: "cn-per-check-incidents", Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC),
			Build: func(l *Log) {
				l.Register("gz-07", "cn-example", Local(Shanghai, "2026-02-24 09:00"), 8)
				l.Heartbeats("gz-07", Local(Shanghai, "2026-02-25 00:00"), Local(Shanghai, "2026-04-01 06:00"))
				for at := Local(Shanghai, "2026-03-14 00:00"); at.Before(Local(Shanghai, "2026-03-20 00:00")); at = at.Add(5 * time.Minute) {
					l.GPUCheck("gz-07", at, "gpu.temperature", "gpu_degraded", "pass", 0)
				}
				for d := 14; d < 20; d++ {
					at := Local(Shanghai, fmt.Sprintf("2026-03-%02d 03:00", d)).Add(30 * time.Second)
					v := "pass"
					if d == 15 {
						v = "fail"
					}
					l.GPUCheck("gz-07", at, "gpu.burn.fp32.errors", "gpu_degraded", v, 0)
					l.GPUCheck("gz-07", at.Add(time.Second), "gpu.bw.h2d", "performance_below_spec", "pass", 0)
					v = "pass"
					if d >= 15 && d <= 17 {
						v = "fail"
					}
					l.GPUCheck("gz-07", at.Add(2*time.Second), "gpu.bw.h2d", "performance_below_spec", v, 1)
				}
			},
		},
		{
			// Delivered 75 minutes after the order (target 30 min), then down for
			// two days: tier 50 % plus 5 % late delivery, capped at 50 %.
			Name: "cn-late-delivery-capped", Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC),
			Build: func(l *Log) {
				l.Register("gz-06", "cn-example", Local(Shanghai, "2026-03-02 10:00"), 4)
				l.Heartbeats("gz-06", Local(Shanghai, "2026-03-02 11:15"), Local(Shanghai, "2026-04-01 06:00"),
					Local(Shanghai, "2026-03-10 00:00"), Local(Shanghai, "2026-03-12 00:00"))
			},
		},
		{
			// Every kind of retroactive record, node
			// gz-40 under cn-example (maintenance notice 72 h, P1 first
			// response 15 min in business hours, late response penalty 5 %):
			//
			//	A    outage 03-05 10:01–12:00; notice 09:00–13:00 "announced"
			//	     02-28, recorded 10:30, after the outage began, no override
			//	B    outage 03-10 10:01–11:00; the same with an override
			//	C    notice 03-15 08:00–12:00 recorded 09:00 (after its start);
			//	     an outage 10:01–11:00 that began after the recording
			//	D    notice 03-20 02:00–03:00 recorded 03-16 (in time), an
			//	     outage inside it
			//	rel  03-25 00:00, recorded 06:00 by cli:alice
			//	T-9  opened 03-05 10:05, recorded 12:05; answered 12:00,
			//	     recorded 12:02
			Name: "cn-retroactive-records", Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC),
			Build: func(l *Log) {
				sh := Shanghai
				l.Register("gz-40", "cn-example", Local(sh, "2026-02-24 23:40"), 8)
				l.Heartbeats("gz-40", Local(sh, "2026-02-25 00:00"), Local(sh, "2026-03-26 00:00"),
					Local(sh, "2026-03-05 10:00"), Local(sh, "2026-03-05 12:00"),
					Local(sh, "2026-03-10 10:00"), Local(sh, "2026-03-10 11:00"),
					Local(sh, "2026-03-15 10:00"), Local(sh, "2026-03-15 11:00"),
					Local(sh, "2026-03-20 02:00"), Local(sh, "2026-03-20 03:00"))
				maint := func(id, start, end, announced, recorded, override string) {
					l.Add(events.Event{Type: events.TypeMaintenance, ID: id, Node: "gz-40", Start: Local(sh, start), End: Local(sh, end),
						AnnouncedAt: Local(sh, announced), RecordedAt: Local(sh, recorded), RecordedBy: "api:k1 (ops)", Override: override})
				}
				maint("maint-A", "2026-03-05 09:00", "2026-03-05 13:00", "2026-02-28 09:00", "2026-03-05 10:30", "")
				maint("maint-B", "2026-03-10 09:00", "2026-03-10 12:00", "2026-03-04 09:00", "2026-03-10 10:30", "provider e-mail MX-1 of 03-04 reached us late")
				maint("maint-C", "2026-03-15 08:00", "2026-03-15 12:00", "2026-03-10 08:00", "2026-03-15 09:00", "")
				maint("maint-D", "2026-03-20 02:00", "2026-03-20 03:00", "2026-03-16 10:00", "2026-03-16 10:00", "")
				l.Add(events.Event{Type: events.TypeNodeReleased, ID: "rel-gz-40", Node: "gz-40", At: Local(sh, "2026-03-25 00:00"),
					RecordedAt: Local(sh, "2026-03-25 06:00"), RecordedBy: "cli:alice"})
				l.Add(events.Event{Type: events.TypeTicketOpened, ID: "T-9/opened", Ticket: "T-9", Node: "gz-40", Priority: "P1",
					At: Local(sh, "2026-03-05 10:05"), RecordedAt: Local(sh, "2026-03-05 12:05"), RecordedBy: "api:k1 (ops)"})
				l.Add(events.Event{Type: events.TypeProviderResponded, ID: "T-9/1/responded", Ticket: "T-9",
					At: Local(sh, "2026-03-05 12:00"), RecordedAt: Local(sh, "2026-03-05 12:02"), RecordedBy: "api:k1 (ops)"})
			},
		},
	}
}
