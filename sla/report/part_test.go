package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
)

// buildByParts builds the month node by node, as a job over a fleet too
// large for one process does: every node's builder is fed the node's own
// events and the shared ones the router sends it, and judged against the
// fleet the assembling builder computed from every node's figures; the
// assembling builder puts the parts together. The input counts are the
// log's: the shared events once, each node's own.
func buildByParts(t *testing.T, tm []*terms.Terms, opts Options, evs []events.Event, lines int) (*Report, error) {
	t.Helper()
	shared, err := NewBuilder(tm, opts)
	if err != nil {
		t.Fatal(err)
	}
	var (
		r       Router
		order   []string
		own     = map[string][]*events.Event{} // a node's own events
		first   = map[string][]*events.Event{} // what its builder reads before them
		toAll   []*events.Event
		fleetOf []*events.Event
	)
	for i := range evs {
		e := &evs[i]
		node, all, sh := r.Route(e)
		if sh {
			if err := shared.Add(e); err != nil {
				return nil, err
			}
		}
		switch {
		case all:
			toAll = append(toAll, e)
		case node != "" && sh:
			first[node] = append(first[node], e)
		case node != "":
			own[node] = append(own[node], e)
			fleetOf = append(fleetOf, e)
		}
		if _, seen := own[node]; node != "" && !seen {
			own[node] = nil
		}
		if node != "" && len(own[node])+len(first[node]) == 1 {
			order = append(order, node)
		}
	}
	in := shared.Input()
	for _, e := range fleetOf {
		shared.AddFleet(e)
	}
	share := &FleetShare{Result: shared.Fleet()}
	var parts []Part
	for _, id := range order {
		o := opts
		o.FleetShare = share
		nb, err := NewBuilder(tm, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range append(append([]*events.Event{}, toAll...), first[id]...) {
			if err := nb.Add(e); err != nil {
				return nil, err
			}
		}
		before := nb.Input()
		for _, e := range own[id] {
			if err := nb.Add(e); err != nil {
				return nil, err
			}
		}
		after := nb.Input()
		in.Events += after.Events - before.Events
		in.Duplicates += after.Duplicates - before.Duplicates
		in.AfterAsOf += after.AfterAsOf - before.AfterAsOf
		p, err := nb.BuildPart(id)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	in.Lines = lines
	return shared.Assemble(parts, in)
}

// sameByParts fails t unless the month built node by node is whole's, byte
// for byte: every scenario built through buildFrom checks it.
func sameByParts(t *testing.T, tm []*terms.Terms, opts Options, evs []events.Event, whole *Report) {
	t.Helper()
	parts, err := buildByParts(t, tm, opts, evs, whole.Input.Lines)
	if err != nil {
		t.Fatalf("built node by node: %v (whole: no error)", err)
	}
	sameJSON(t, "built node by node", whole, parts)
}

// sameJSON fails t unless got's JSON is whole's, byte for byte.
func sameJSON(t *testing.T, how string, whole, got *Report) {
	t.Helper()
	var a, b bytes.Buffer
	if err := JSON(&a, whole); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&b, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("the month %s differs from the whole log's report:\n--- whole\n%s\n--- %s\n%s", how, a.Bytes(), how, b.Bytes())
	}
}

// Parts come back from workers in whatever order they finish: the report
// is the same whichever order they are given in, and a node given two
// parts (a retried work item counted twice) is refused, never summed twice.
func TestAssembleTakesPartsInAnyOrder(t *testing.T) {
	var l log
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	ids := []string{"n2", "a1", "n10"}
	for _, id := range ids {
		l.Register(id, "cn-example", from.Add(-time.Hour), 8)
	}
	opts := Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 5, 0, 0, 0, 0, time.UTC)}
	tm := loadTerms(t)
	shared, err := NewBuilder(tm, opts)
	if err != nil {
		t.Fatal(err)
	}
	var parts []Part
	for i := range l.Events {
		if err := shared.Add(&l.Events[i]); err != nil {
			t.Fatal(err)
		}
		nb, err := NewBuilder(tm, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := nb.Add(&l.Events[i]); err != nil {
			t.Fatal(err)
		}
		p, err := nb.BuildPart(l.Events[i].Node)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	whole, err := shared.Build()
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := JSON(&want, whole); err != nil {
		t.Fatal(err)
	}
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}} {
		var in []Part
		for _, i := range order {
			in = append(in, parts[i])
		}
		r, err := shared.Assemble(in, whole.Input)
		if err != nil {
			t.Fatalf("order %v: %v", order, err)
		}
		var got bytes.Buffer
		if err := JSON(&got, r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("order %v: the report differs from the whole log's:\n%s\nwant\n%s", order, got.Bytes(), want.Bytes())
		}
	}
	if _, err := shared.Assemble([]Part{parts[0], parts[1], parts[0]}, whole.Input); err == nil || !strings.Contains(err.Error(), "node n2 has two parts") {
		t.Errorf("two parts of n2: err = %v, want it named", err)
	}
}

// sameByJudged builds evs again with every observation judged beforehand,
// its kept checks compacted and copied (as a stored digest holds them),
// and added judged: the report is whole's, byte for byte.
func sameByJudged(t *testing.T, tm []*terms.Terms, opts Options, evs []events.Event, whole *Report) {
	t.Helper()
	b, err := NewBuilder(tm, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		e := &evs[i]
		if e.Type != events.TypeObservation {
			if err := b.Add(e); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var j Judged
		Judge(e, nil, &j)
		j.Compact()
		j.Checks = slices.Clone(j.Checks)
		if len(j.Checks) > len(e.Checks) {
			t.Fatalf("%s: %d checks kept of %d", e.ID, len(j.Checks), len(e.Checks))
		}
		b.AddJudged(&j)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatalf("built from judged observations: %v (whole: no error)", err)
	}
	sameJSON(t, "built from judged observations", whole, r)
}
