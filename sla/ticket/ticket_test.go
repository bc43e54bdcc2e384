package ticket

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/terms"
)

func cn(t *testing.T) *terms.Terms { return example(t, "cn-example") }

// example reads testdata/terms/<name>.yaml.
func example(t *testing.T, name string) *terms.Terms {
	ts, err := terms.ReadFile("../../testdata/terms/" + name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

func TestResponseTargets(t *testing.T) {
	tm := cn(t)
	loc := tm.Calendar.Loc
	at := clockAt(t, loc)
	cases := []struct {
		name         string
		prio, opened string
		respond      string // "" never
		asOf         string
		offHours     bool
		day          calendar.DayKind
		status       string
		deadline     string
	}{
		{"friday 23:50 answered in 25 min", "P1", "2026-03-13 23:50", "2026-03-14 00:15", "2026-03-31 00:00", true, calendar.Workday, Met, "2026-03-14 00:20"},
		{"friday 23:50 answered in 31 min", "P1", "2026-03-13 23:50", "2026-03-14 00:21", "2026-03-31 00:00", true, calendar.Workday, Breached, "2026-03-14 00:20"},
		{"holiday morning", "P1", "2026-02-17 10:00", "2026-02-17 10:29", "2026-03-01 00:00", true, calendar.Holiday, Met, "2026-02-17 10:30"},
		{"adjusted working saturday", "P1", "2026-02-14 10:00", "2026-02-14 10:16", "2026-03-01 00:00", false, calendar.ExtraWorkd, Breached, "2026-02-14 10:15"},
		{"never answered, as of the deadline", "P1", "2026-03-10 10:00", "", "2026-03-10 10:15", false, calendar.Workday, Breached, "2026-03-10 10:15"},
		{"never answered, a minute before", "P1", "2026-03-10 10:00", "", "2026-03-10 10:14", false, calendar.Workday, Pending, "2026-03-10 10:15"},
		{"answer after as-of is not seen", "P1", "2026-03-10 10:00", "2026-03-10 10:05", "2026-03-10 10:04", false, calendar.Workday, Pending, "2026-03-10 10:15"},
		{"business clock over a weekend", "P3", "2026-03-13 17:00", "2026-03-16 11:59", "2026-03-31 00:00", false, calendar.Workday, Met, "2026-03-16 12:00"},
		{"business clock into the adjusted saturday", "P3", "2026-02-13 17:00", "", "2026-02-14 11:59", false, calendar.Workday, Pending, "2026-02-14 12:00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tk := &Ticket{ID: "T", Priority: c.prio, Opened: at(c.opened)}
			if c.respond != "" {
				tk.Responses = []Response{{At: at(c.respond)}}
			}
			tim := Evaluate(tk, tm, at(c.asOf))
			if tim.OffHours != c.offHours || tim.DayKind != c.day {
				t.Errorf("off-hours %v day %v, want %v %v", tim.OffHours, tim.DayKind, c.offHours, c.day)
			}
			if tim.Response.Status != c.status || !tim.Response.Deadline.Equal(at(c.deadline)) {
				t.Errorf("status %s deadline %s, want %s %s", tim.Response.Status, tim.Response.Deadline.In(loc), c.status, c.deadline)
			}
		})
	}
}

func TestResolutionPausesAndReplacement(t *testing.T) {
	tm := cn(t)
	o := time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC) // 10:00 Shanghai
	tk := &Ticket{ID: "T", Priority: "P1", Category: "hardware", Opened: o,
		Responses:       []Response{{At: o.Add(10 * time.Minute), AwaitingCustomer: true}},
		CustomerReplies: []time.Time{o.Add(2*time.Hour + 10*time.Minute)},
		Resolved:        o.Add(5 * time.Hour),
		Replaced:        o.Add(5 * time.Hour),
	}
	tim := Evaluate(tk, tm, o.Add(100*time.Hour))
	r := tim.Resolution
	if r.Paused != 2*time.Hour || r.Elapsed != 3*time.Hour || r.Status != Met {
		t.Fatalf("resolution %+v", r)
	}
	// Replacement does not pause: 5 h against 4 h.
	if tim.Replacement.Status != Breached || tim.Replacement.Late != time.Hour {
		t.Fatalf("replacement %+v", tim.Replacement)
	}
	// Without pausing in the terms the resolution is late.
	tm.Support.PauseAwaitingCustomer = false
	if tim := Evaluate(tk, tm, o.Add(100*time.Hour)); tim.Resolution.Status != Breached {
		t.Fatalf("resolution without pause %+v", tim.Resolution)
	}
}
