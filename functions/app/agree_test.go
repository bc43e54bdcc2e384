package app_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/report/reporttest"
	"github.com/gpusla/gpusla/sla/terms"
)

// The same event log driven through the live
// service (app.Service over the embedded store, a watchdog tick every
// minute, each batch ingested at its receive time) and through the
// offline report gives the same incidents, one by one: kind, check, open
// and close instants, counted or not, counted seconds.
//
// Logs: the example log, every report scenario (sla/report/reporttest),
// and random logs from a seeded generator under every example contract.

// liveCase is one log to drive, with the report month and as-of instant.
type liveCase struct {
	name  string
	evs   []events.Event
	year  int
	month time.Month
	asOf  time.Time
}

// packDir holds the term packs, each with its golden month's log.
var packDir = filepath.Join("..", "..", "testdata", "terms", "packs")

func exampleTerms(t testing.TB) (app.TermsBook, []*terms.Terms) {
	t.Helper()
	book, err := wiring.LoadTerms(filepath.Join("..", "..", "testdata", "terms"), packDir)
	if err != nil {
		t.Fatal(err)
	}
	var tms []*terms.Terms
	for _, c := range book.Contracts() {
		tms = append(tms, book[c])
	}
	return book, tms
}

func readLog(t testing.TB, path string) []events.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []events.Event
	if _, err := events.ReadLog(path, f, func(e *events.Event) error { out = append(out, *e); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// row is one incident as both sides state it.
type row struct {
	kind, check    string
	start, end     time.Time
	ongoing        bool
	counted        bool
	countedSeconds int64
	reason         string
}

func (r row) String() string {
	end := r.end.UTC().Format(time.RFC3339)
	if r.ongoing {
		end = "ongoing"
	}
	return fmt.Sprintf("%s %s %s–%s counted=%v %ds %q", r.kind, r.check, r.start.UTC().Format(time.RFC3339), end, r.counted, r.countedSeconds, r.reason)
}

// reportRows builds the offline report and returns each node's rows.
func reportRows(t testing.TB, tms []*terms.Terms, c liveCase) map[string][]row {
	t.Helper()
	b, err := report.NewBuilder(tms, report.Options{Year: c.year, Month: c.month, AsOf: c.asOf})
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.evs {
		if err := b.Add(&c.evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]row{}
	for _, n := range r.Nodes {
		for _, o := range n.Outages {
			s, _ := time.Parse(time.RFC3339, o.Start)
			e, _ := time.Parse(time.RFC3339, o.End)
			out[n.Node] = append(out[n.Node], row{kind: o.Kind, check: o.Check, start: s, end: e, ongoing: o.Ongoing,
				counted: o.Counted, countedSeconds: o.CountedSeconds, reason: o.Reason})
		}
	}
	return out
}

// driveLive feeds the log to a live service and returns each node's
// incidents in the report's month, judged over it.
func driveLive(t testing.TB, book app.TermsBook, c liveCase) map[string][]row {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.SetNoSync(true)
	var regs []events.Event
	var outages []interval.Interval
	type batch struct {
		node, id string
		recv     time.Time
		obs      []wire.Observation
	}
	groups := map[string]*batch{}
	start := c.asOf
	// Operators' actions, done at their instant: a release when it
	// happened, a maintenance notice when it was announced.
	type action struct {
		at time.Time
		do func() error
	}
	var actions []action
	var svc *app.Service
	for _, e := range c.evs {
		switch e.Type {
		case events.TypeNodeReleased:
			// Recorded when the log says it was (at the release in an old log).
			r := app.NodeRelease{Node: e.Node, At: e.At, By: e.RecordedBy, Override: e.Override}
			actions = append(actions, action{recordedAt(e, e.At), func() error { _, err := svc.ReleaseNode(t.Context(), r); return err }})
		case events.TypeTicketOpened:
			// The renter's notice, under a contract whose clock starts at it.
			r := app.OpenRequest{Node: e.Node, Priority: e.Priority, Category: e.Category, ProviderRef: e.ProviderRef, Summary: e.Summary, At: e.At,
				Key: e.Ticket, By: e.RecordedBy}
			actions = append(actions, action{recordedAt(e, e.At), func() error {
				desk, err := svc.Tickets(book)
				if err == nil {
					_, _, err = desk.Open(t.Context(), r)
				}
				return err
			}})
		case events.TypeMaintenance:
			in := app.NewMaintenance{Contract: e.Contract, Node: e.Node, Start: e.Start, End: e.End, AnnouncedAt: e.AnnouncedAt, Summary: e.Summary,
				By: e.RecordedBy, Override: e.Override}
			if in.Node != "" {
				in.Contract = "" // a node's own notice (the log may name its contract too)
			}
			actions = append(actions, action{recordedAt(e, e.AnnouncedAt), func() error { _, err := svc.AnnounceMaintenance(t.Context(), in); return err }})
		case events.TypeNodeRegistered:
			regs = append(regs, e)
			if e.OrderedAt.Before(start) {
				start = e.OrderedAt
			}
		case events.TypeBackendOutage:
			outages = append(outages, interval.Interval{Start: e.Start, End: e.End})
		case events.TypeHeartbeatRun:
			// The heartbeats the run stands for, one batch each (docs/events.md:
			// count heartbeats an interval apart, each received with the
			// run's delay).
			iv := time.Duration(e.HeartbeatIntervalS) * time.Second
			delay := e.ReceivedAt.Sub(e.At)
			for k := int64(0); k < e.Count; k++ {
				at := e.At.Add(time.Duration(k) * iv)
				recv := at.Add(delay)
				if recv.After(c.asOf) {
					break
				}
				key := e.Node + "|run|" + recv.UTC().Format(time.RFC3339Nano)
				groups[key] = &batch{node: e.Node, id: key, recv: recv, obs: []wire.Observation{{At: at.UTC(), Kind: events.KindHeartbeat}}}
			}
		case events.TypeObservation:
			if e.ReceivedAt.After(c.asOf) {
				continue
			}
			// One batch per node, batch id (or receive instant).
			key := e.Node + "|" + e.Batch + "|" + e.ReceivedAt.UTC().Format(time.RFC3339Nano)
			g := groups[key]
			if g == nil {
				g = &batch{node: e.Node, id: key, recv: e.ReceivedAt}
				groups[key] = g
			}
			o := wire.Observation{At: e.At.UTC(), Kind: e.Kind}
			for _, ch := range e.Checks {
				o.Checks = append(o.Checks, wire.Check{Name: ch.Name, Category: ch.Category, Verdict: ch.Verdict, Value: ch.Value,
					Criterion: ch.Criterion, Number: ch.Number, Unit: ch.Unit, GPU: ch.GPU, UUID: ch.UUID, Detail: ch.Detail})
			}
			g.obs = append(g.obs, o)
		}
	}
	var bs []*batch
	for _, g := range groups {
		sort.SliceStable(g.obs, func(i, j int) bool { return g.obs[i].At.Before(g.obs[j].At) })
		bs = append(bs, g)
	}
	sort.Slice(bs, func(i, j int) bool {
		if !bs[i].recv.Equal(bs[j].recv) {
			return bs[i].recv.Before(bs[j].recv)
		}
		return bs[i].id < bs[j].id
	})
	clock := apptest.NewClock(start.Add(-time.Minute))
	st.SetClock(clock.Now)
	svc, err = app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Clock: clock, Terms: book, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	probes := map[string]*apptest.Probe{}
	for _, r := range regs {
		tm := book[r.Contract]
		iv := r.HeartbeatInterval()
		n, secret, err := svc.AddNode(ctx, app.NewNode{ID: r.Node, Provider: tm.Provider, Contract: r.Contract, OrderedAt: r.OrderedAt,
			GPUModel: r.Hardware.GPUModel, GPUCount: r.Hardware.GPUCount, HeartbeatInterval: iv, PushInterval: iv, Grace: tm.Detection.Grace})
		if err != nil {
			t.Fatal(err)
		}
		probes[n.ID] = &apptest.Probe{Node: n.ID, Secret: secret}
	}
	inOutage := func(at time.Time) (interval.Interval, bool) {
		for _, o := range outages {
			if !at.Before(o.Start) && at.Before(o.End) {
				return o, true
			}
		}
		return interval.Interval{}, false
	}
	if _, err := svc.BackendStart(ctx); err != nil {
		t.Fatal(err)
	}
	// The watchdog runs every minute. A tick changes the books only when
	// a node is overdue (its first tick past last receive + interval +
	// grace opens the incident); the others only record that the backend
	// is alive, which a tick every MaxTickGap does as well. So the driver
	// runs those ticks only, and the first tick on the minute grid after
	// each node becomes overdue: the same incidents, in a fraction of the
	// time.
	confirm := map[string]time.Time{} // node → when it is overdue, until it is heard again
	regOf := map[string]events.Event{}
	for _, r := range regs {
		regOf[r.Node] = r
	}
	next := clock.Now().Truncate(time.Minute).Add(time.Minute)
	lastTick := clock.Now()
	down := false
	tickUntil := func(until time.Time) {
		for ; !next.After(until); next = next.Add(time.Minute) {
			if o, ok := inOutage(next); ok {
				if !down && next.Equal(o.Start) {
					// The run's last tick: an export's backend_outage begins
					// at the last tick of the run before it, which judged.
					clock.Set(next)
					if _, err := svc.Watchdog(ctx); err != nil {
						t.Fatal(err)
					}
					lastTick = next
				}
				if !down {
					clock.Set(o.Start)
					if err := svc.BackendStop(ctx, svc.Now()); err != nil {
						t.Fatal(err)
					}
					down = true
				}
				continue
			}
			need := down || next.Sub(lastTick) >= app.MaxTickGap
			for n, c := range confirm {
				if !next.Before(c) {
					need = true
					delete(confirm, n)
				}
			}
			if !need {
				continue
			}
			clock.Set(next)
			if down {
				if _, err := svc.BackendStart(ctx); err != nil {
					t.Fatal(err)
				}
				down = false
			}
			if _, err := svc.Watchdog(ctx); err != nil {
				t.Fatal(err)
			}
			lastTick = next
		}
	}
	sort.SliceStable(actions, func(i, j int) bool { return actions[i].at.Before(actions[j].at) })
	act := func(until time.Time) {
		for len(actions) > 0 && !actions[0].at.After(until) {
			a := actions[0]
			actions = actions[1:]
			if a.at.After(clock.Now()) {
				tickUntil(a.at)
				clock.Set(a.at)
			}
			if err := a.do(); err != nil {
				t.Fatalf("operator action at %s: %v", a.at, err)
			}
		}
	}
	for _, b := range bs {
		act(b.recv)
		tickUntil(b.recv)
		clock.Set(b.recv)
		p := probes[b.node]
		_, body := p.Batch(b.recv, b.obs...)
		if _, err := svc.Ingest(ctx, p.Request(b.recv, body)); err != nil {
			t.Fatalf("ingest %s at %s: %v", b.id, b.recv, err)
		}
		r := regOf[b.node]
		confirm[b.node] = b.recv.Add(r.HeartbeatInterval()).Add(book[r.Contract].Detection.Grace)
	}
	act(c.asOf)
	tickUntil(c.asOf)
	clock.Set(c.asOf)
	out := map[string][]row{}
	for _, r := range regs {
		tm := book[r.Contract]
		loc := tm.Calendar.Loc
		ms := time.Date(c.year, c.month, 1, 0, 0, 0, 0, loc)
		me := ms.AddDate(0, 1, 0)
		if c.asOf.Before(me) {
			me = c.asOf
		}
		js, err := svc.JudgedIncidents(ctx, r.Node, ms, me)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range js {
			end, ongoing := j.End, j.Open()
			if ongoing {
				end = me
			}
			out[r.Node] = append(out[r.Node], row{kind: j.Kind, check: j.Check, start: j.Start, end: end, ongoing: ongoing,
				counted: j.Counted, countedSeconds: j.CountedSeconds, reason: j.Reason})
		}
	}
	return out
}

// recordedAt is when the operator's action is done: when the log says it
// was recorded, else (an old log) at def, when it claims to have happened.
func recordedAt(e events.Event, def time.Time) time.Time {
	if e.RecordedAt.IsZero() {
		return def
	}
	return e.RecordedAt
}

func sortRows(rs []row) {
	sort.SliceStable(rs, func(i, j int) bool {
		if !rs[i].start.Equal(rs[j].start) {
			return rs[i].start.Before(rs[j].start)
		}
		if rs[i].kind != rs[j].kind {
			return rs[i].kind < rs[j].kind
		}
		return rs[i].check < rs[j].check
	})
}

// compare returns every difference between the two sides' incidents.
func compare(t *testing.T, book app.TermsBook, tms []*terms.Terms, c liveCase) []string {
	t.Helper()
	var all []string
	want := reportRows(t, tms, c)
	got := driveLive(t, book, c)
	nodes := map[string]bool{}
	for n := range want {
		nodes[n] = true
	}
	for n := range got {
		nodes[n] = true
	}
	for n := range nodes {
		w, g := want[n], got[n]
		sortRows(w)
		sortRows(g)
		var diffs []string
		for i := 0; i < len(w) || i < len(g); i++ {
			switch {
			case i >= len(w):
				diffs = append(diffs, "live only:   "+g[i].String())
			case i >= len(g):
				diffs = append(diffs, "report only: "+w[i].String())
			case w[i].kind != g[i].kind || w[i].check != g[i].check || !w[i].start.Equal(g[i].start) || !w[i].end.Equal(g[i].end) ||
				w[i].ongoing != g[i].ongoing || w[i].counted != g[i].counted || w[i].countedSeconds != g[i].countedSeconds:
				diffs = append(diffs, "report: "+w[i].String()+"\n    live:   "+g[i].String())
			}
		}
		if len(diffs) > 0 {
			all = append(all, fmt.Sprintf("%s node %s: live and report disagree:\n  %s", c.name, n, strings.Join(diffs, "\n  ")))
		}
	}
	return all
}

func TestLiveAndReportAgreeIncidentByIncident(t *testing.T) {
	book, tms := exampleTerms(t)
	cases := []liveCase{{name: "example", evs: readLog(t, filepath.Join("..", "..", "sla", "report", "testdata", "example-events.jsonl")),
		year: 2026, month: time.March, asOf: time.Date(2026, 4, 5, 0, 0, 0, 0, time.UTC)}}
	for _, sc := range reporttest.Scenarios() {
		cases = append(cases, liveCase{name: sc.Name, evs: sc.Events(), year: 2026, month: sc.Month, asOf: sc.AsOf})
	}
	cases = append(cases, releaseCases()...)
	// Every term pack's golden month (sla/report's packs test reads the same).
	packs, err := filepath.Glob(filepath.Join(packDir, "*.events.jsonl"))
	if err != nil || len(packs) == 0 {
		t.Fatalf("no term pack logs in %s (%v)", packDir, err)
	}
	for _, p := range packs {
		cases = append(cases, liveCase{name: "pack-" + strings.TrimSuffix(filepath.Base(p), ".events.jsonl"), evs: readLog(t, p),
			year: 2026, month: time.March, asOf: time.Date(2026, 4, 2, 12, 0, 0, 0, time.UTC)})
	}
	// Random logs under every contract: six seeds for the two example
	// contracts, two for each pack's.
	for _, c := range book.Contracts() {
		seeds := uint64(2)
		if c == "cn-example" || c == "us-example" {
			seeds = 6
		}
		for seed := uint64(1); seed <= seeds; seed++ {
			cases = append(cases, generate(seed, book[c]))
		}
	}
	seen := map[string]bool{}
	for _, c := range cases {
		for _, rs := range reportRows(t, tms, c) {
			for _, r := range rs {
				seen[fmt.Sprintf("%s counted=%v", r.kind, r.counted)] = true
				if strings.HasPrefix(c.name, "gen-") && strings.Contains(r.reason, "backend itself was down") {
					seen["generated backend_outage"] = true
				}
				if strings.HasPrefix(c.name, "gen-") && r.kind == "unreachable" && r.counted && !r.ongoing && r.end.Sub(r.start) <= time.Minute {
					seen["generated unreachable within the grace"] = true
				}
			}
		}
	}
	for _, k := range []string{"unreachable counted=true", "gpu_lost counted=true", "gpu_degraded counted=true", "gpu_degraded counted=false",
		"network_degraded counted=false", "performance_below_spec counted=false", "inventory_mismatch counted=false", "unreachable counted=false",
		"generated backend_outage", "generated unreachable within the grace"} {
		if !seen[k] {
			t.Errorf("no log gives a %s incident: the comparison does not cover it", k)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, d := range compare(t, book, tms, c) {
				t.Error(d)
			}
		})
	}
}

// generate is a random log under tm (seeded, bounded: one node, two days
// of minute heartbeats): outages of random length (some inside the grace,
// never alerted on, counted all the same),
// the backend's own downtime (some around the node's outages), and runs of passing and failing checks of every incident category, some
// definitive, some measured, per GPU and node-wide.
func generate(seed uint64, tm *terms.Terms) liveCase {
	rng := rand.New(rand.NewPCG(seed, 14))
	node := fmt.Sprintf("gen-%s-%d", tm.Contract, seed)
	ordered := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(600)) * time.Minute)
	var evs []events.Event
	add := func(e events.Event) {
		e.ID = fmt.Sprintf("%s-%d", e.Type, len(evs))
		evs = append(evs, e)
	}
	add(events.Event{Type: events.TypeNodeRegistered, Node: node, Contract: tm.Contract, OrderedAt: ordered,
		Hardware: &events.Hardware{GPUModel: "H200", GPUCount: 8}, HeartbeatIntervalS: 60})
	first := ordered.Add(time.Duration(5+rng.IntN(50)) * time.Minute)
	end := first.Add(48 * time.Hour)
	delay := time.Duration(1+rng.IntN(3)) * time.Second
	// Outages: silent stretches of 2 to 90 minutes.
	var silent []interval.Interval
	for i := 0; i < 2+rng.IntN(4); i++ {
		s := first.Add(time.Duration(rng.IntN(46*60)) * time.Minute)
		silent = append(silent, interval.Interval{Start: s, End: s.Add(time.Duration(2+rng.IntN(89)) * time.Minute)})
	}
	isSilent := func(at time.Time) bool {
		for _, s := range silent {
			if at.After(s.Start) && at.Before(s.End) {
				return true
			}
		}
		return false
	}
	// The backend itself down one to three times, 3 to 60 minutes (on the
	// minute grid, the watchdog's), two times in three around a silent
	// stretch: what
	// the node sends in it reaches the backend only after the restart (the
	// spool's drain, late). Drawn from a stream of their own, so the rest
	// of each seed's log is what it was before they existed.
	rng2 := rand.New(rand.NewPCG(seed, 15))
	var down []interval.Interval
	for i := 0; i < 1+rng2.IntN(3); i++ {
		s := first.Add(time.Duration(rng2.IntN(46*60)) * time.Minute)
		if len(silent) > 0 && rng2.IntN(3) > 0 {
			s = silent[rng2.IntN(len(silent))].Start.Add(time.Duration(rng2.IntN(21)-10) * time.Minute)
		}
		d := interval.Interval{Start: s, End: s.Add(time.Duration(3+rng2.IntN(58)) * time.Minute)}
		if slices.ContainsFunc(down, func(o interval.Interval) bool {
			return o.Start.Before(d.End.Add(3*time.Minute)) && d.Start.Before(o.End.Add(3*time.Minute))
		}) {
			continue // apart by more than a tick gap, as two real outages are
		}
		down = append(down, d)
		add(events.Event{Type: events.TypeBackendOutage, Start: d.Start, End: d.End, Summary: "generated"})
	}
	// Short silences, 2 or 3 minutes of missing heartbeats: 1 or 2 minutes
	// heard from nobody, never past the grace, so never alerted on, but
	// outages the books count (recorded live after the fact). A stream of
	// their own too.
	rng3 := rand.New(rand.NewPCG(seed, 16))
	for i := 0; i < 1+rng3.IntN(3); i++ {
		s := first.Add(time.Duration(rng3.IntN(46*60)) * time.Minute)
		silent = append(silent, interval.Interval{Start: s, End: s.Add(time.Duration(2+rng3.IntN(2)) * time.Minute)})
	}
	recvOf := func(at time.Time) time.Time {
		r := at.Add(delay)
		for _, d := range down {
			if !r.Before(d.Start) && r.Before(d.End) {
				return d.End.Add(delay)
			}
		}
		return r
	}
	type checkDef struct {
		name, category string
		gpu            int // -1: node-wide
		every          time.Duration
	}
	defs := []checkDef{
		{"gpu.temperature", events.CategoryGPUDegraded, 0, 5 * time.Minute},
		{"gpu.burn.fp32.errors", events.CategoryGPUDegraded, 1, 30 * time.Minute},
		{"gpu.count", events.CategoryGPULost, -1, 5 * time.Minute},
		{"net.gateway.loss", events.CategoryNetwork, -1, 5 * time.Minute},
		{"gpu.bw.h2d", events.CategoryPerformance, 2, 20 * time.Minute},
		{"gpu.model", events.CategoryInventory, 3, 60 * time.Minute},
		{"net.internet", events.CategoryConnectivity, -1, 10 * time.Minute},
	}
	// Each check fails in a few random windows.
	failing := map[string][]interval.Interval{}
	for _, d := range defs {
		for i := 0; i < rng.IntN(3); i++ {
			s := first.Add(time.Duration(rng.IntN(46*60)) * time.Minute)
			failing[d.name] = append(failing[d.name], interval.Interval{Start: s, End: s.Add(time.Duration(1+rng.IntN(180)) * time.Minute)})
		}
	}
	for at := first; at.Before(end); at = at.Add(time.Minute) {
		if isSilent(at) {
			continue
		}
		add(events.Event{Type: events.TypeObservation, Node: node, At: at, ReceivedAt: recvOf(at), Kind: events.KindHeartbeat})
		var checks []events.Check
		for _, d := range defs {
			if at.Sub(first)%d.every != 0 {
				continue
			}
			v := events.Pass
			for _, f := range failing[d.name] {
				if !at.Before(f.Start) && at.Before(f.End) && rng.IntN(5) > 0 {
					v = events.Fail
				}
			}
			c := events.Check{Name: d.name, Category: d.category, Verdict: v, Value: "generated"}
			if d.gpu >= 0 {
				g := d.gpu
				c.GPU = &g
			}
			checks = append(checks, c)
		}
		if len(checks) > 0 {
			add(events.Event{Type: events.TypeObservation, Node: node, At: at, ReceivedAt: recvOf(at), Kind: events.KindCheck, Checks: checks})
		}
	}
	return liveCase{name: node, evs: evs, year: 2026, month: time.March, asOf: end.Add(30 * time.Minute)}
}

// releaseCases are releases the report scenarios do not cover: a node
// given back while unreachable and while a check incident is open, whose
// probe keeps pushing (failing) results afterwards; and one given back
// before the month whose probe still runs in it.
func releaseCases() []liveCase {
	ny := reporttest.NewYork
	var l reporttest.Log
	l.Register("va-10", "us-example", reporttest.Local(ny, "2026-02-27 09:00"), 8)
	rel := reporttest.Local(ny, "2026-03-10 12:00")
	// Down from 11:00 to 13:00, across the release; heartbeats go on after.
	l.Heartbeats("va-10", reporttest.Local(ny, "2026-02-27 09:30"), reporttest.Local(ny, "2026-03-12 00:00"),
		reporttest.Local(ny, "2026-03-10 11:00"), reporttest.Local(ny, "2026-03-10 13:00"))
	// A GPU degraded from 09:00, never passing again; failures after the
	// release too.
	for at := reporttest.Local(ny, "2026-03-10 09:00"); at.Before(reporttest.Local(ny, "2026-03-11 12:00")); at = at.Add(15 * time.Minute) {
		if at.After(reporttest.Local(ny, "2026-03-10 11:00")) && at.Before(reporttest.Local(ny, "2026-03-10 13:00")) {
			continue
		}
		l.GPUCheck("va-10", at, "gpu.temperature", events.CategoryGPUDegraded, events.Fail, 2)
	}
	l.Add(events.Event{Type: events.TypeNodeReleased, Node: "va-10", At: rel})
	// Given back in February; its probe still pushes in March, and fails.
	l.Register("va-11", "us-example", reporttest.Local(ny, "2026-02-01 09:00"), 8)
	l.Heartbeats("va-11", reporttest.Local(ny, "2026-02-01 09:30"), reporttest.Local(ny, "2026-03-03 00:00"),
		reporttest.Local(ny, "2026-03-01 10:00"), reporttest.Local(ny, "2026-03-01 12:00"))
	l.Add(events.Event{Type: events.TypeNodeReleased, Node: "va-11", At: reporttest.Local(ny, "2026-02-20 17:00")})
	for at := reporttest.Local(ny, "2026-03-02 09:00"); at.Before(reporttest.Local(ny, "2026-03-02 12:00")); at = at.Add(15 * time.Minute) {
		l.GPUCheck("va-11", at, "gpu.count", events.CategoryGPULost, events.Fail, 0)
	}
	return []liveCase{{name: "us-released-while-down", evs: l.Events, year: 2026, month: time.March, asOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)}}
}
