package incident

import (
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

// stepNodeWidePassesByScan is the rule as first written: for each
// node-wide pass, every key of the node's checks in order, those beginning
// name + "/gpu" that the observation did not report itself. The index gives
// the same transitions without looking at every key.
func (s *State) stepNodeWidePassesByScan(th Thresholds, at time.Time, vs []Verdict, out []Transition) []Transition {
	for _, v := range vs {
		if v.Fail || v.Check != v.Name {
			continue
		}
		prefix := v.Name + "/gpu"
		for _, key := range slices.Sorted(maps.Keys(s.Checks)) {
			if !strings.HasPrefix(key, prefix) || slices.ContainsFunc(vs, func(u Verdict) bool { return u.Key() == key }) {
				continue
			}
			if t, ok := s.Checks[key].Step(th, at, Verdict{Kind: v.Kind, Check: key, Name: v.Name}); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// TestNodeWidePassesByIndex: random observations of node-wide and per-GPU
// results of names that are prefixes of one another ("a", "a/gpu0" as a
// name of its own, "a.b"), fed to two states, one stepping node-wide passes
// through the index (kept across observations, and rebuilt after a clone
// as after a store read), one by scanning every key: the same transitions
// in the same order, and the same states.
func TestNodeWidePassesByIndex(t *testing.T) {
	th := Thresholds{Grace: time.Minute, FailureThreshold: 2, SuccessThreshold: 2}
	names := []string{"a", "a.b", "a/gpu0", "b", "gpu.x"}
	rng := rand.New(rand.NewPCG(7, 9))
	var idx, scan State
	for i := 0; i < 3000; i++ {
		at := t0.Add(time.Duration(i) * time.Second)
		var cs []events.Check
		for range 1 + rng.IntN(6) {
			c := events.Check{Name: names[rng.IntN(len(names))], Category: events.CategoryGPUDegraded, Verdict: events.Pass}
			if rng.IntN(3) == 0 {
				c.Verdict = events.Fail
			}
			if rng.IntN(2) == 0 {
				g := rng.IntN(12)
				c.GPU = &g
			}
			cs = append(cs, c)
		}
		vs := Verdicts(cs)
		got := idx.stepNodeWidePasses(th, at, vs, idx.stepChecks(th, at, vs, nil))
		want := scan.stepNodeWidePassesByScan(th, at, vs, scan.stepChecks(th, at, vs, nil))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("observation %d %+v:\n index %+v\n scan  %+v", i, cs, got, want)
		}
		if i%500 == 499 {
			idx = idx.Clone()
		}
	}
	idx.perGPU = nil
	if !reflect.DeepEqual(idx, scan) {
		t.Fatal("the states differ")
	}
}
