package report

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
)

// cn-example's "late_response_penalty: 5 # percent of the node's monthly
// charge per late first response", for a ticket open across the month's
// end: a P1 opened on Tuesday 31 March 23:50 Beijing time, off-hours, is
// due its first response 30 min later, at 00:20 on 1 April. Answered at
// 00:20 it is met; at 00:21 a minute late, and the 5 % is March's (the
// month the ticket was opened in) and not April's too: one late response,
// one penalty.
func TestExampleTicketAcrossTheMonthsEnd(t *testing.T) {
	tms, err := terms.ReadFile(filepath.Join("..", "..", "testdata", "terms", "cn-example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tm := tms[0]
	for _, c := range []struct {
		answer       string
		march, april int // late_response penalties
		status       string
		late         int64
	}{{"2026-04-01 00:20:00", 0, 0, "met", 0}, {"2026-04-01 00:21:00", 1, 0, "breached", 60}} {
		for _, month := range []time.Month{time.March, time.April} {
			ec := edgeCase{month: month, tickets: []string{"2026-03-31 23:50:00"}}
			evs := edgeLog(t, tm, ec)
			at, err := time.ParseInLocation("2006-01-02 15:04:05", c.answer, tm.Calendar.Loc)
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, events.Event{Type: events.TypeProviderResponded, ID: "resp", Ticket: "T-1", At: at})
			r := buildFrom(t, tms, Options{Year: 2026, Month: month, AsOf: time.Date(2026, month+1, 2, 12, 0, 0, 0, time.UTC)}, evs)
			n := node(t, r, "n1")
			late := 0
			for _, p := range n.Credit.Penalties {
				if p.Kind == "late_response" && p.Ref == "T-1" {
					late++
				}
			}
			want := c.march
			if month == time.April {
				want = c.april
			}
			if late != want {
				t.Errorf("answered %s, %s: %d late-response penalties, want %d (%+v)", c.answer, month, late, want, n.Credit.Penalties)
			}
			if month == time.March {
				if len(n.Tickets) != 1 || n.Tickets[0].Response == nil || n.Tickets[0].Response.Status != c.status || n.Tickets[0].Response.LateSeconds != c.late || n.Tickets[0].Response.Deadline != "2026-04-01T00:20:00+08:00" {
					t.Errorf("answered %s: March's ticket rows %+v, want the response %s, due 2026-04-01T00:20:00+08:00", c.answer, n.Tickets, c.status)
				}
			} else if len(n.Tickets) != 0 {
				t.Errorf("answered %s: April lists %d tickets opened in March", c.answer, len(n.Tickets))
			}
		}
	}
}

// A breach read on a year whose holidays the terms do not list earns no
// penalty. cn-example lists 2026's holidays; December 2026's report, as of
// 2 January 2027 12:00 UTC (20:00 Beijing): a P3 (4 business hours) opened
// Thursday 31 December 16:00 and not yet answered is due, on weekdays
// alone, Friday 1 January 2027 11:00 — 元旦, a day closed by law that the
// terms cannot name: breached on the weekdays, holidays_unknown [2027], no
// 5 % penalty. The other side: a P3 opened Wednesday 30 December 10:00,
// due 14:00, answered on the 31st at 10:00, is late inside 2026: 5 %.
func TestExampleBreachInAYearWithoutHolidays(t *testing.T) {
	tms, err := terms.ReadFile(filepath.Join("..", "..", "testdata", "terms", "cn-example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tm := tms[0]
	at := func(s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, tm.Calendar.Loc)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		opened, answered, deadline string
		unknown                    []int
		penalties                  int
	}{
		{"2026-12-31 16:00", "2027-01-04 10:00", "2027-01-01T11:00:00+08:00", []int{2027}, 0},
		{"2026-12-30 10:00", "2026-12-31 10:00", "2026-12-30T14:00:00+08:00", nil, 1},
	} {
		evs := append(edgeLog(t, tm, edgeCase{month: time.December}),
			events.Event{Type: events.TypeTicketOpened, ID: "open", Ticket: "T-3", Node: "n1", Priority: "P3", At: at(c.opened)},
			events.Event{Type: events.TypeProviderResponded, ID: "resp", Ticket: "T-3", At: at(c.answered)})
		r := buildFrom(t, tms, Options{Year: 2026, Month: time.December, AsOf: time.Date(2027, 1, 2, 12, 0, 0, 0, time.UTC)}, evs)
		n := node(t, r, "n1")
		if len(n.Tickets) != 1 || n.Tickets[0].Response == nil {
			t.Fatalf("opened %s: tickets %+v", c.opened, n.Tickets)
		}
		resp := n.Tickets[0].Response
		if resp.Status != "breached" || resp.Deadline != c.deadline || !slices.Equal(resp.HolidaysUnknown, c.unknown) {
			t.Errorf("opened %s: response %+v, want breached, due %s, holidays unknown %v", c.opened, resp, c.deadline, c.unknown)
		}
		late := 0
		for _, p := range n.Credit.Penalties {
			if p.Kind == "late_response" {
				late++
			}
		}
		if late != c.penalties {
			t.Errorf("opened %s: %d late-response penalties, want %d (%+v)", c.opened, late, c.penalties, n.Credit.Penalties)
		}
	}
}
