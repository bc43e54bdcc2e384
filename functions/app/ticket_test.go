package app_test

import (
	"bytes"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/ticket"
)

// desk is a ticket desk on a real embedded store with a manual clock and a
// recording notifier, the contract terms of testdata/terms loaded, and one
// node per example contract: gz-01 (cn-example, Asia/Shanghai) and ny-01
// (us-example, America/New_York).
type desk struct {
	t     testing.TB
	store deskStore
	svc   *app.Service
	d     *app.TicketDesk
	clock *apptest.Clock
	notif *apptest.Notifier
}

// deskStore is a store of both contracts with a settable clock.
type deskStore interface {
	store.Store
	store.TicketStore
	SetClock(func() time.Time)
}

func newDesk(t testing.TB, start time.Time) *desk { return newDeskOn(t, start, newBolt(t)) }

// newBolt opens an embedded store in the test's folder.
func newBolt(t testing.TB) *bolt.Store {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newDeskOn(t testing.TB, start time.Time, st deskStore, config ...func(*app.Config)) *desk {
	var err error
	w := &desk{t: t, store: st, clock: apptest.NewClock(start), notif: &apptest.Notifier{}}
	st.SetClock(w.clock.Now)
	c := app.Config{Store: st, Notifier: w.notif, Box: apptest.Box(t), Clock: w.clock, Log: slog.New(slog.DiscardHandler)}
	for _, f := range config {
		f(&c)
	}
	w.svc, err = app.New(c)
	if err != nil {
		t.Fatal(err)
	}
	book, err := wiring.LoadTerms("../../testdata/terms")
	if err != nil {
		t.Fatal(err)
	}
	if w.d, err = w.svc.Tickets(book); err != nil {
		t.Fatal(err)
	}
	for id, c := range map[string]string{"gz-01": "cn-example", "ny-01": "us-example"} {
		n := store.Node{ID: id, Provider: "acme", Contract: c, OrderedAt: start.Add(-24 * time.Hour), GPUModel: "H200", GPUCount: 8,
			HeartbeatInterval: 30 * time.Second, PushInterval: time.Minute, Grace: time.Minute, CreatedAt: start}
		if err := st.CreateNode(t.Context(), n); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func zoned(t *testing.T, zone, s string) time.Time {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	v, err := time.ParseInLocation("2006-01-02 15:04:05", s, loc)
	if err != nil {
		t.Fatal(err)
	}
	return v.UTC()
}

func sh(t *testing.T, s string) time.Time { return zoned(t, "Asia/Shanghai", s) }
func ny(t *testing.T, s string) time.Time { return zoned(t, "America/New_York", s) }

func (w *desk) open(r app.OpenRequest) store.Ticket {
	w.t.Helper()
	tk, _, err := w.d.Open(w.t.Context(), r)
	if err != nil {
		w.t.Fatalf("open: %v", err)
	}
	return tk
}

func (w *desk) record(id string, r app.EventRequest) app.Recorded {
	w.t.Helper()
	rec, err := w.d.Record(w.t.Context(), id, r)
	if err != nil {
		w.t.Fatalf("record %s: %v", r.Type, err)
	}
	return rec
}

func (w *desk) watch() app.TicketWatchResult {
	w.t.Helper()
	res, err := w.d.Watch(w.t.Context())
	if err != nil {
		w.t.Fatalf("watch: %v", err)
	}
	return res
}

// TestTicketTimingScenarios: what the desk says about a ticket — off-hours
// or not, which target, its deadline in the contract's zone — in the
// calendar corners the contracts care about.
func TestTicketTimingScenarios(t *testing.T) {
	cases := []struct {
		name     string
		node     string
		prio     string
		cat      string
		opened   func(t *testing.T) time.Time
		offHours bool
		dayKind  string
		response func(t *testing.T) time.Time // deadline
		other    string                       // "resolution" or "replacement" with its deadline in otherDue
		otherDue func(t *testing.T) time.Time
	}{
		{"shanghai 23:50 Thursday, across midnight", "gz-01", "P1", "",
			func(t *testing.T) time.Time { return sh(t, "2026-03-12 23:50:00") }, true, "workday",
			func(t *testing.T) time.Time { return sh(t, "2026-03-13 00:20:00") },
			"resolution", func(t *testing.T) time.Time { return sh(t, "2026-03-13 03:50:00") }},
		{"shanghai 00:10 just after midnight", "gz-01", "P2", "",
			func(t *testing.T) time.Time { return sh(t, "2026-03-13 00:10:00") }, true, "workday",
			func(t *testing.T) time.Time { return sh(t, "2026-03-13 02:10:00") },
			// P2 resolution: 8h on the business clock, from 09:00 that day
			"resolution", func(t *testing.T) time.Time { return sh(t, "2026-03-13 17:00:00") }},
		{"shanghai Friday night 19:30, business clock into Monday", "gz-01", "P3", "",
			func(t *testing.T) time.Time { return sh(t, "2026-03-13 19:30:00") }, true, "workday",
			func(t *testing.T) time.Time { return sh(t, "2026-03-16 13:00:00") }, "", nil},
		{"shanghai Friday night hardware ticket, wall-clock replacement", "gz-01", "P1", "hardware",
			func(t *testing.T) time.Time { return sh(t, "2026-03-13 22:00:00") }, true, "workday",
			func(t *testing.T) time.Time { return sh(t, "2026-03-13 22:30:00") },
			"replacement", func(t *testing.T) time.Time { return sh(t, "2026-03-14 02:00:00") }},
		{"shanghai public holiday (Spring Festival) at 10:00", "gz-01", "P2", "",
			func(t *testing.T) time.Time { return sh(t, "2026-02-17 10:00:00") }, true, "holiday",
			func(t *testing.T) time.Time { return sh(t, "2026-02-17 12:00:00") },
			// business clock: nothing counts until the holiday ends (Tuesday 02-24 09:00)
			"resolution", func(t *testing.T) time.Time { return sh(t, "2026-02-24 17:00:00") }},
		{"shanghai adjusted working Saturday 10:00 is business hours", "gz-01", "P1", "",
			func(t *testing.T) time.Time { return sh(t, "2026-02-14 10:00:00") }, false, "extra_working_day",
			func(t *testing.T) time.Time { return sh(t, "2026-02-14 10:15:00") }, "", nil},
		{"new york Saturday night before spring-forward, 12h wall clock", "ny-01", "sev2", "",
			func(t *testing.T) time.Time { return ny(t, "2026-03-07 22:00:00") }, true, "weekend",
			// 12 real hours: 22:00 EST + 12h = 11:00 EDT (02:00-03:00 does not exist)
			func(t *testing.T) time.Time { return ny(t, "2026-03-08 11:00:00") }, "", nil},
		{"new york Friday 16:00 EST, 8 business hours across the DST weekend", "ny-01", "sev3", "",
			func(t *testing.T) time.Time { return ny(t, "2026-03-06 16:00:00") }, false, "workday",
			func(t *testing.T) time.Time { return ny(t, "2026-03-09 12:00:00") }, "", nil},
		{"new york fall-back night, 1h wall clock through the repeated hour", "ny-01", "sev1", "",
			func(t *testing.T) time.Time { return time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC) }, true, "weekend", // 01:30 EDT
			func(t *testing.T) time.Time { return time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC) }, // 01:30 EST
			"resolution", func(t *testing.T) time.Time { return time.Date(2026, 11, 1, 13, 30, 0, 0, time.UTC) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opened := c.opened(t)
			w := newDesk(t, opened.Add(time.Minute))
			tk := w.open(app.OpenRequest{Node: c.node, Priority: c.prio, Category: c.cat, At: opened, ProviderRef: "R-1"})
			tim, tm, err := w.d.Timing(&tk, opened.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if tim.OffHours != c.offHours || string(tim.DayKind) != c.dayKind {
				t.Errorf("off-hours %v on a %s, want %v on a %s", tim.OffHours, tim.DayKind, c.offHours, c.dayKind)
			}
			if !tim.Response.Deadline.Equal(c.response(t)) {
				t.Errorf("response due %s, want %s", tim.Response.Deadline.In(tm.Calendar.Loc), c.response(t).In(tm.Calendar.Loc))
			}
			switch c.other {
			case "resolution":
				if tim.Resolution == nil || !tim.Resolution.Deadline.Equal(c.otherDue(t)) {
					t.Errorf("resolution %+v, want due %s", tim.Resolution, c.otherDue(t).In(tm.Calendar.Loc))
				}
			case "replacement":
				if tim.Replacement == nil || !tim.Replacement.Deadline.Equal(c.otherDue(t)) {
					t.Errorf("replacement %+v, want due %s", tim.Replacement, c.otherDue(t).In(tm.Calendar.Loc))
				}
			}
			// The opened notice tells people the same deadline, in the
			// contract's zone and language, as its documents are written.
			layout := "2006-01-02 15:04:05"
			if tm.Paperwork.Lang == "zh" {
				layout = "2006年1月2日 15:04:05"
			}
			if n := tk.Notices[0]; !strings.Contains(n.Text, tim.Response.Deadline.In(tm.Calendar.Loc).Format(layout)) {
				t.Errorf("opened notice does not show the response deadline: %s", n.Text)
			}
		})
	}
}

// TestNeverAnsweredBreachesAtDeadline: the watchdog one second before the
// deadline warns (80 % is long past) but does not call it breached; at the
// deadline exactly it says breached, with the time it was due, in the
// ticket's thread — once, however often it runs.
func TestNeverAnsweredBreachesAtDeadline(t *testing.T) {
	opened := sh(t, "2026-03-13 23:50:00") // Friday night: off-hours P1, 30 min
	due := sh(t, "2026-03-14 00:20:00")
	w := newDesk(t, opened)
	tk := w.open(app.OpenRequest{Node: "gz-01", Priority: "P1", ProviderRef: "ACME-7", Summary: "node down"})
	if res := w.watch(); res.Sent != 1 || res.Warnings+res.Breaches != 0 {
		t.Fatalf("first watch: %+v, want only the opened notice sent", res)
	}
	thread := w.notif.TicketsSent()[0]
	if thread.Kind != notify.TicketOpened || thread.Thread != "" || !strings.Contains(thread.Text, "2026年3月14日 00:20:00（北京时间）") {
		t.Fatalf("opened notice: %+v", thread)
	}

	w.clock.Set(opened.Add(23 * time.Minute)) // 76 %: nothing yet
	if res := w.watch(); res.Warnings != 0 {
		t.Fatalf("at 76%% of the allowance: %+v, want no warning", res)
	}
	w.clock.Set(opened.Add(24 * time.Minute)) // 80 %
	if res := w.watch(); res.Warnings != 1 || res.Breaches != 0 {
		t.Fatalf("at 80%% of the allowance: %+v, want one warning", res)
	}
	w.clock.Set(due.Add(-time.Second))
	if res := w.watch(); res.Warnings != 0 || res.Breaches != 0 {
		t.Fatalf("at deadline-1s: %+v, want nothing new (warned already, not breached)", res)
	}
	got, _ := w.d.Get(t.Context(), tk.ID)
	if tim, _, _ := w.d.Timing(&got, w.clock.Now()); tim.Response.Status != ticket.Pending {
		t.Fatalf("at deadline-1s the response is %s, want pending", tim.Response.Status)
	}

	w.clock.Set(due)
	if res := w.watch(); res.Breaches != 1 || res.Sent != 1 {
		t.Fatalf("at the deadline: %+v, want one breach sent", res)
	}
	for i := 0; i < 3; i++ {
		w.clock.Advance(time.Minute)
		if res := w.watch(); res.Breaches != 0 || res.Sent != 0 {
			t.Fatalf("watch after the breach: %+v, want nothing repeated", res)
		}
	}
	sent := w.notif.TicketsSent()
	if len(sent) != 3 {
		t.Fatalf("%d messages, want opened, warning, breached", len(sent))
	}
	warn, breach := sent[1], sent[2]
	if warn.Kind != notify.TicketWarning || warn.Thread != "thread-1" || !strings.Contains(warn.Text, "剩余6分钟，时限30分钟") {
		t.Errorf("warning: %+v", warn)
	}
	if breach.Kind != notify.TicketBreached || breach.Thread != "thread-1" ||
		!strings.Contains(breach.Text, "首次响应时限已违约——截止时间为2026年3月14日 00:20:00（北京时间）") || strings.Contains(breach.Text, ":rotating_light:") ||
		!strings.Contains(breach.Text, "非工作时间（工作日）") || !strings.Contains(breach.Text, "ACME-7") {
		t.Errorf("breach: %+v", breach)
	}

	// The answer comes 7 minutes late: recorded with how late it was, and
	// the message says so in the same thread.
	w.clock.Set(due.Add(7 * time.Minute))
	rec := w.record(tk.ID, app.EventRequest{Type: "responded", By: "api:test"})
	if rec.Event.Late != 7*time.Minute || rec.Event.Target != "response" {
		t.Fatalf("late answer recorded as %+v, want 7m late on response", rec.Event)
	}
	w.watch()
	last := w.notif.TicketsSent()[len(w.notif.TicketsSent())-1]
	if last.Kind != notify.TicketRecorded || last.Thread != "thread-1" || !strings.Contains(last.Text, "首次响应时限已违约：超时7分钟（截止2026年3月14日 00:20:00（北京时间））") {
		t.Fatalf("recorded notice: %+v", last)
	}
}

// TestPauseWhileAwaitingCustomer: the resolution clock stops while the
// provider waits for our answer (cn-example allows it), so the deadline
// moves out by exactly the paused time.
func TestPauseWhileAwaitingCustomer(t *testing.T) {
	opened := sh(t, "2026-03-10 10:00:00") // P1 in business hours: resolution 4h wall
	w := newDesk(t, opened)
	tk := w.open(app.OpenRequest{Node: "gz-01", Priority: "P1"})
	w.clock.Set(opened.Add(10 * time.Minute))
	if rec := w.record(tk.ID, app.EventRequest{Type: "provider_responded", AwaitingCustomer: true}); rec.Event.Target != "response" || rec.Event.Late != 0 {
		t.Fatalf("response in time: %+v", rec.Event)
	}
	w.clock.Set(opened.Add(3*time.Hour + 10*time.Minute))
	w.record(tk.ID, app.EventRequest{Type: "customer_replied"})
	got, _ := w.d.Get(t.Context(), tk.ID)
	tim, _, _ := w.d.Timing(&got, w.clock.Now())
	if tim.Resolution.Paused != 3*time.Hour || !tim.Resolution.Deadline.Equal(opened.Add(7*time.Hour)) {
		t.Fatalf("resolution paused %s due %s, want 3h and %s", tim.Resolution.Paused, tim.Resolution.Deadline, opened.Add(7*time.Hour))
	}
	// Without the pause it would have been breached at +4h; it is not.
	w.clock.Set(opened.Add(6*time.Hour + 59*time.Minute))
	res := w.watch()
	if res.Breaches != 0 || res.Warnings != 1 {
		t.Fatalf("watch at +6h59m: %+v, want a warning and no breach", res)
	}
	w.clock.Set(opened.Add(7 * time.Hour))
	if res := w.watch(); res.Breaches != 1 {
		t.Fatalf("watch at the paused deadline: %+v, want the breach", res)
	}
}

// TestRepeatedEventRecordedOnce: the same idempotency key twice (a Slack
// button clicked twice, an API retry) records one event.
func TestRepeatedEventRecordedOnce(t *testing.T) {
	opened := sh(t, "2026-03-10 10:00:00")
	w := newDesk(t, opened)
	tk := w.open(app.OpenRequest{Node: "gz-01", Priority: "P1", Key: "slack:C1:1764.0001:open"})
	again, created, err := w.d.Open(t.Context(), app.OpenRequest{Node: "gz-01", Priority: "P1", Key: "slack:C1:1764.0001:open"})
	if err != nil || created || again.ID != tk.ID {
		t.Fatalf("second open with the same key: created %v id %s err %v, want the same ticket %s", created, again.ID, err, tk.ID)
	}
	w.clock.Advance(5 * time.Minute)
	first := w.record(tk.ID, app.EventRequest{Type: "responded", Key: "slack:C1:1764.0001:responded"})
	w.clock.Advance(5 * time.Minute)
	second := w.record(tk.ID, app.EventRequest{Type: "responded", Key: "slack:C1:1764.0001:responded"})
	if first.Repeat || !second.Repeat || !second.Event.At.Equal(first.Event.At) {
		t.Fatalf("repeat: first %+v second %+v", first, second)
	}
	got, _ := w.d.Get(t.Context(), tk.ID)
	if len(got.Events) != 1 {
		t.Fatalf("%d events after a repeated click, want 1", len(got.Events))
	}
	// Resolving twice without a key is refused, naming when it was resolved.
	w.record(tk.ID, app.EventRequest{Type: "resolved"})
	_, err = w.d.Record(t.Context(), tk.ID, app.EventRequest{Type: "resolved"})
	var ie *app.Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "already resolved") {
		t.Fatalf("second resolve: %v, want an input error", err)
	}
}

// TestHardwareReplacementLate: a hardware ticket's replacement promise is
// timed from its opening; a late replacement records how late.
func TestHardwareReplacementLate(t *testing.T) {
	opened := sh(t, "2026-03-13 22:00:00")
	w := newDesk(t, opened)
	tk := w.open(app.OpenRequest{Node: "gz-01", Priority: "P1", Category: "hardware"})
	w.clock.Set(opened.Add(10 * time.Minute))
	w.record(tk.ID, app.EventRequest{Type: "responded"})
	w.clock.Set(opened.Add(3 * time.Hour))
	w.record(tk.ID, app.EventRequest{Type: "resolved"})
	got, _ := w.d.Get(t.Context(), tk.ID)
	if !got.Open {
		t.Fatal("resolved but not yet replaced: the ticket must stay open (replacement clock running)")
	}
	w.clock.Set(opened.Add(5*time.Hour + 30*time.Minute))
	rec := w.record(tk.ID, app.EventRequest{Type: "hardware_replaced"})
	if rec.Event.Target != "replacement" || rec.Event.Late != 90*time.Minute {
		t.Fatalf("replacement recorded as %+v, want 1h30m late", rec.Event)
	}
	w.watch()
	got, _ = w.d.Get(t.Context(), tk.ID)
	if got.Open {
		t.Fatalf("every target done and every notice sent: ticket should be closed: %+v", got.Notices)
	}
}

// TestTicketInputErrors: bad requests name the field.
func TestTicketInputErrors(t *testing.T) {
	opened := sh(t, "2026-03-10 10:00:00")
	w := newDesk(t, opened)
	for _, c := range []struct {
		r     app.OpenRequest
		field string
		msg   string
	}{
		{app.OpenRequest{Node: "nope", Priority: "P1"}, "node", `no node "nope"`},
		{app.OpenRequest{Node: "gz-01", Priority: "P9"}, "priority", "one of P1, P2, P3"},
		{app.OpenRequest{Node: "gz-01", Priority: "P1", Category: "gpu"}, "category", `"gpu"`},
		{app.OpenRequest{Node: "gz-01", Priority: "P1", At: opened.Add(time.Hour)}, "at", "in the future"},
	} {
		_, _, err := w.d.Open(t.Context(), c.r)
		var ie *app.Error
		if !errors.As(err, &ie) || ie.Field != c.field || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("open %+v: %v, want field %s mentioning %s", c.r, err, c.field, c.msg)
		}
	}
	tk := w.open(app.OpenRequest{Node: "gz-01", Priority: "P1"})
	_, err := w.d.Record(t.Context(), tk.ID, app.EventRequest{Type: "responded", At: opened.Add(-time.Minute)})
	if err == nil || !strings.Contains(err.Error(), "before the ticket was opened") {
		t.Errorf("event before opening: %v", err)
	}
	_, err = w.d.Record(t.Context(), tk.ID, app.EventRequest{Type: "escalated"})
	if err == nil || !strings.Contains(err.Error(), `"escalated" is not one of`) {
		t.Errorf("unknown type: %v", err)
	}
	_, err = w.d.Record(t.Context(), "T-zzzzzzzz", app.EventRequest{Type: "responded"})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown ticket: %v", err)
	}
}

// TestTicketNoticeRetried: a notice Slack did not take stays queued and the
// next watchdog run delivers it, once.
func TestTicketNoticeRetried(t *testing.T) {
	opened := sh(t, "2026-03-10 10:00:00")
	w := newDesk(t, opened)
	w.open(app.OpenRequest{Node: "gz-01", Priority: "P1"})
	w.notif.Fail = errors.New("slack is down")
	if res, _ := w.d.Watch(t.Context()); res.Sent != 0 {
		t.Fatalf("sent %d while Slack is down", res.Sent)
	}
	w.notif.Fail = nil
	w.clock.Advance(time.Minute)
	if res := w.watch(); res.Sent != 1 {
		t.Fatalf("retry: %+v, want the opened notice sent", res)
	}
	if res := w.watch(); res.Sent != 0 {
		t.Fatalf("second retry: %+v, want nothing", res)
	}
}

// TestTicketsInExportAndReport: ticket events exported in the event-log
// format validate, and the SLA report built from them shows the breach.
func TestTicketsInExportAndReport(t *testing.T) {
	opened := sh(t, "2026-03-13 23:50:00")
	w := newDesk(t, opened)
	tk := w.open(app.OpenRequest{Node: "gz-01", Priority: "P1", Category: "hardware", ProviderRef: "ACME-9", Summary: "GPU lost"})
	w.clock.Set(opened.Add(45 * time.Minute))
	w.record(tk.ID, app.EventRequest{Type: "responded", AwaitingCustomer: true})
	w.clock.Set(opened.Add(50 * time.Minute))
	w.record(tk.ID, app.EventRequest{Type: "customer_replied"})

	var buf bytes.Buffer
	ew := events.NewWriter(&buf)
	if err := w.d.MonthExport(2026, time.March)(t.Context(), ew); err != nil {
		t.Fatal(err)
	}
	if err := ew.Flush(); err != nil {
		t.Fatal(err)
	}
	rd := events.NewReader("export", &buf)
	var types []string
	var e events.Event
	for {
		err := rd.Next(&e)
		if err != nil {
			break
		}
		types = append(types, e.Type)
	}
	if all := strings.Join(types, ","); !strings.HasPrefix(all, "node_registered,node_registered,") ||
		!strings.HasSuffix(all, ",ticket_opened,ticket_provider_responded,ticket_customer_replied") {
		t.Fatalf("exported %v", types)
	}

	rep, _, err := w.d.MonthReport(t.Context(), 2026, time.March, opened.Add(time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, n := range rep.Nodes {
		for _, rt := range n.Tickets {
			if rt.Ticket == tk.ID {
				found = true
				if !rt.Breached || rt.Response == nil || rt.Response.Status != "breached" || rt.Response.LateSeconds != 15*60 || !rt.OffHours {
					t.Fatalf("report ticket: %+v response %+v", rt, rt.Response)
				}
			}
		}
	}
	if !found {
		t.Fatalf("ticket %s not in the report", tk.ID)
	}
}

// TestMinuteTick: the minute tick (watchdog Lambda and serve) also watches
// ticket deadlines, and a terms path that cannot be read is reported on
// every run without stopping the node watchdog.
func TestMinuteTick(t *testing.T) {
	opened := sh(t, "2026-03-10 10:00:00")
	w := newDesk(t, opened)
	w.open(app.OpenRequest{Node: "gz-01", Priority: "P1"})
	run := app.MinuteTick(w.svc, w.d, nil)    // the desk on ../../testdata/terms
	w.clock.Set(opened.Add(15 * time.Minute)) // P1 in business hours: due at +15m
	res, err := run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Nodes != 2 || w.notif.TicketCount(notify.TicketBreached) != 1 {
		t.Fatalf("watchdog %+v; breach messages %d, want 1", res, w.notif.TicketCount(notify.TicketBreached))
	}
	_, termsErr := wiring.LoadTerms("/nonexistent/terms")
	broken := app.MinuteTick(w.svc, nil, termsErr)
	res, err = broken(t.Context())
	if err == nil || !strings.Contains(err.Error(), "ticket watch: read terms:") || !strings.Contains(err.Error(), "/nonexistent/terms") || res.Nodes != 2 {
		t.Fatalf("bad terms path: %+v %v", res, err)
	}
}

// A ticket notice is sent with a deadline inside its retry interval (30 s),
// so a Slack that never answers holds neither the ticket API's request nor
// the minute tick for good, and the notice is never in flight twice.
func TestTicketNoticesAreCutOffBeforeTheirRetry(t *testing.T) {
	slack := &switchNotifier{}
	w := newDeskOn(t, sh(t, "2026-03-10 10:00:00"), newBolt(t), func(c *app.Config) { c.Notifier = slack })
	tk := w.open(app.OpenRequest{Node: "gz-01", Priority: "P1"})
	if _, err := w.d.Flush(t.Context(), tk.ID); err != nil {
		t.Fatal(err)
	}
	slack.mu.Lock()
	defer slack.mu.Unlock()
	if len(slack.ticketDeadlines) == 0 {
		t.Fatal("no ticket notice was sent")
	}
	for i, d := range slack.ticketDeadlines {
		if d <= 0 || d > 30*time.Second*3/4 {
			t.Fatalf("notice %d had %v to run, want a deadline within 3/4 of the 30 s retry interval", i, d)
		}
	}
}
