package app

import (
	"reflect"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// TestNodeStateClone fills every field of a NodeState by reflection (so a
// field added later is covered without editing this test), clones it, and
// checks that the clone is equal and shares no memory: the embedded store
// hands out clones of its cached state, and an alias would let one ingest
// change another's view.
func TestNodeStateClone(t *testing.T) {
	var st store.NodeState
	fill(reflect.ValueOf(&st).Elem(), 0)
	if len(st.Eval.Checks) == 0 || st.Eval.Unreachable == nil || len(st.Signatures) == 0 {
		t.Fatal("fill left reference fields empty; the test would prove nothing")
	}
	c := st.Clone()
	if !reflect.DeepEqual(st, c) {
		t.Fatalf("clone differs:\n%+v\n%+v", st, c)
	}
	if path := shared(reflect.ValueOf(st), reflect.ValueOf(c), "NodeState"); path != "" {
		t.Fatalf("clone shares memory with the original at %s", path)
	}

	// The zero value and nil references clone to themselves.
	if z := (store.NodeState{}).Clone(); !reflect.DeepEqual(z, store.NodeState{}) {
		t.Fatalf("zero clone = %+v", z)
	}
	st.Eval.Checks["x"] = nil
	if c := st.Clone(); c.Eval.Checks["x"] != nil {
		t.Fatal("nil hysteresis cloned to non-nil")
	}
}

// fill sets every field reachable from v to a non-zero value.
func fill(v reflect.Value, depth int) {
	if depth > 8 {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 30, 10, depth, 0, 0, time.UTC)))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 4) // spare capacity: an append must not reach the original
		for i := 0; i < s.Len(); i++ {
			fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("s")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(depth + 1))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(depth + 1))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(depth) + 0.5)
	}
}

// shared returns the path of the first pointer, slice or map that a and b
// have in common, or "".
func shared(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Struct:
		if a.Type() == reflect.TypeOf(time.Time{}) {
			return "" // immutable value; its *Location is shared by design
		}
		for i := 0; i < a.NumField(); i++ {
			if !a.Type().Field(i).IsExported() {
				continue
			}
			if p := shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
		for i := 0; i < min(a.Len(), b.Len()); i++ {
			if p := shared(a.Index(i), b.Index(i), path+"[]"); p != "" {
				return p
			}
		}
	case reflect.Map:
		if !a.IsNil() && a.Pointer() == b.Pointer() {
			return path
		}
		for _, k := range a.MapKeys() {
			if p := shared(a.MapIndex(k), b.MapIndex(k), path+"[k]"); p != "" {
				return p
			}
		}
	}
	return ""
}
