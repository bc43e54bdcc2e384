package ticket

import (
	"testing"
	"time"
)

// Each event completes the first target running before it and done with
// it, late by as much as it missed the deadline; an event that finishes
// nothing completes none. P1 hardware ticket under cn-example, opened
// 10:00 on a workday: response 15 min, resolution and replacement 4 h.
func TestCompleted(t *testing.T) {
	tm := cn(t)
	o := time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC) // 10:00 Shanghai
	type step struct {
		name   string
		event  func(*Ticket, time.Time)
		at     time.Duration
		target string
		late   time.Duration
	}
	respond := func(tk *Ticket, at time.Time) { tk.Responses = append(tk.Responses, Response{At: at}) }
	reply := func(tk *Ticket, at time.Time) { tk.CustomerReplies = append(tk.CustomerReplies, at) }
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"answered in time, then answered again", []step{
			{"response", respond, 10 * time.Minute, TargetResponse, 0},
			{"second response", respond, 20 * time.Minute, "", 0},
			{"customer reply", reply, 30 * time.Minute, "", 0},
		}},
		{"answered 5 minutes late", []step{
			{"response", respond, 20 * time.Minute, TargetResponse, 5 * time.Minute},
		}},
		{"replaced an hour late, resolved with it", []step{
			{"response", respond, 5 * time.Minute, TargetResponse, 0},
			{"replaced", func(tk *Ticket, at time.Time) { tk.Replaced = at }, 5 * time.Hour, TargetReplacement, time.Hour},
			{"resolved", func(tk *Ticket, at time.Time) { tk.Resolved = at }, 5 * time.Hour, TargetResolution, time.Hour},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk := &Ticket{ID: "T", Priority: "P1", Category: "hardware", Opened: o}
			for _, s := range c.steps {
				at := o.Add(s.at)
				before := Evaluate(tk, tm, at)
				s.event(tk, at)
				target, late, ok := Completed(before, Evaluate(tk, tm, at))
				if target != s.target || late != s.late || ok != (s.target != "") {
					t.Errorf("%s: completed %q late %s ok %v, want %q late %s", s.name, target, late, ok, s.target, s.late)
				}
			}
		})
	}
	if _, _, ok := Completed(Timing{}, Timing{}); ok {
		t.Error("a ticket without targets completed one")
	}
}
