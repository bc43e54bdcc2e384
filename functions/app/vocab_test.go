package app_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

// The probe's wire format (probe/wire) and the SLA engine's event log
// (sla/events) spell the same words twice, because neither side may import
// the other. These tests tie the two vocabularies together so that a word
// added, renamed or dropped on one side fails here, not in a verdict.

// constBlocks reads the string constants of a package's source, grouped by
// the const block they are declared in, keyed by one member's name.
func constBlocks(t *testing.T, dir string, members ...string) map[string]map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			block := map[string]string{}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, err := strconv.Unquote(lit.Value)
						if err != nil {
							t.Fatal(err)
						}
						block[n.Name] = v
					}
				}
			}
			for _, m := range members {
				if _, ok := block[m]; ok {
					out[m] = block
				}
			}
		}
	}
	for _, m := range members {
		if out[m] == nil {
			t.Fatalf("%s: no const block declares %s", dir, m)
		}
	}
	return out
}

// vocab names each vocabulary by a member both sides declare.
var vocab = map[string]string{"kinds": "KindHeartbeat", "verdicts": "Pass", "categories": "CategoryGPULost"}

// vocabularies are the wire's and the event log's const blocks, as declared
// in their source.
func vocabularies(t *testing.T) (w, e map[string]map[string]string) {
	var members []string
	for _, m := range vocab {
		members = append(members, m)
	}
	w = constBlocks(t, filepath.Join("..", "..", "probe", "wire"), members...)
	e = constBlocks(t, filepath.Join("..", "..", "sla", "events"), members...)
	return w, e
}

func TestWireAndEventVocabulariesAreTheSame(t *testing.T) {
	w, e := vocabularies(t)
	for what, m := range vocab {
		if !reflect.DeepEqual(w[m], e[m]) {
			t.Errorf("%s differ:\n  probe/wire  %v\n  sla/events  %v", what, w[m], e[m])
		}
		if len(w[m]) < 2 {
			t.Errorf("%s: only %v found; the const block was not read", what, w[m])
		}
	}
}

// Every word the probe may send passes the wire's validation, comes through
// ingest's conversion and passes the event log's validation; a word either
// side does not know is refused by both.
func TestEveryWireWordIsAValidEvent(t *testing.T) {
	w, e := vocabularies(t)
	words := func(what string) []string {
		set := map[string]bool{"bogus": true, "": true}
		for _, v := range w[vocab[what]] {
			set[v] = true
		}
		for _, v := range e[vocab[what]] {
			set[v] = true
		}
		var out []string
		for v := range set {
			out = append(out, v)
		}
		sort.Strings(out)
		return out
	}
	known := func(what, v string) bool {
		for _, x := range w[vocab[what]] {
			if x == v {
				return true
			}
		}
		return false
	}
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	try := func(kind, category, verdict string) (wireErr, eventErr error) {
		b := &wire.Batch{V: wire.Version, ID: "b1", Node: "n1", Probe: "test", Seq: 1, CreatedAt: at,
			Observations: []wire.Observation{{At: at, Kind: kind,
				Checks: []wire.Check{{Name: "x.y", Category: category, Verdict: verdict}}}}}
		wireErr = b.Validate()
		for _, ev := range app.ObservationEvents(&store.Node{ID: "n1", CreatedAt: at}, b, strings.Repeat("0", 64), at.Add(time.Second)) {
			if err := ev.Validate(); err != nil {
				eventErr = err
			}
		}
		return wireErr, eventErr
	}
	check := func(what, v string, wireErr, eventErr error) {
		t.Helper()
		if (wireErr == nil) != (eventErr == nil) {
			t.Errorf("%s %q: wire says %v, event log says %v", what, v, wireErr, eventErr)
		}
		if ok := known(what, v); ok != (wireErr == nil) {
			t.Errorf("%s %q: declared by the wire %v, but its validation says %v", what, v, ok, wireErr)
		}
	}
	for _, k := range words("kinds") {
		we, ee := try(k, wire.CategoryHost, wire.Pass)
		check("kinds", k, we, ee)
	}
	for _, c := range words("categories") {
		we, ee := try(wire.KindCheck, c, wire.Pass)
		check("categories", c, we, ee)
	}
	for _, v := range words("verdicts") {
		we, ee := try(wire.KindCheck, wire.CategoryHost, v)
		check("verdicts", v, we, ee)
	}
}

// A check is copied field for field from the wire into the event log, so
// the two structs must carry the same fields under the same JSON names.
func TestWireCheckIsEventCheck(t *testing.T) {
	fields := func(v any) []string {
		rt := reflect.TypeOf(v)
		var out []string
		for i := 0; i < rt.NumField(); i++ {
			f := rt.Field(i)
			out = append(out, f.Name+" "+f.Type.String()+" "+f.Tag.Get("json"))
		}
		return out
	}
	w, e := fields(wire.Check{}), fields(events.Check{})
	if !reflect.DeepEqual(w, e) {
		t.Errorf("wire.Check and events.Check differ:\n  wire   %v\n  events %v", w, e)
	}
}

// Node ids: what the probe may call itself the event log must accept, and
// the other way round.
func TestNodeIDRulesAgree(t *testing.T) {
	ids := []string{"", ".", "..", "...", strings.Repeat("a", 64), strings.Repeat("a", 65), "node-01", "a.b_c-D9"}
	for c := 0; c < 256; c++ {
		ids = append(ids, string([]byte{byte(c)}), "n"+string([]byte{byte(c)}))
	}
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, id := range ids {
		ev := events.Event{Type: events.TypeObservation, ID: "x", Node: id, At: at, ReceivedAt: at, Kind: events.KindHeartbeat}
		if w, e := wire.ValidNodeID(id), ev.Validate() == nil; w != e {
			t.Errorf("node id %q: wire accepts %v, event log accepts %v", id, w, e)
		}
	}
}
