package events

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// fullEvent has every field of Event, its Hardware and one Check set, each
// string to a value of its own, so that a test can tell them apart; it
// returns the path of each string field by its value.
func fullEvent(t *testing.T) (*Event, map[string]string) {
	t.Helper()
	e := &Event{Hardware: &Hardware{}, Checks: []Check{{}}, Components: []string{""}}
	paths := map[string]string{}
	var fill func(v reflect.Value, path string)
	fill = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.String:
			s := fmt.Sprintf("v%d", len(paths))
			v.SetString(s)
			paths[s] = path
		case reflect.Struct:
			for i := range v.NumField() {
				if f := v.Type().Field(i); f.IsExported() {
					fill(v.Field(i), path+"."+f.Name)
				}
			}
		case reflect.Pointer:
			if !v.IsNil() {
				fill(v.Elem(), path)
			}
		case reflect.Slice:
			for i := range v.Len() {
				fill(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	fill(reflect.ValueOf(e).Elem(), "Event")
	return e, paths
}

// Every string of a decoded event goes through own: one it missed would
// still point into goccy's copy of the line, and keep the whole line alive
// for as long as a consumer keeps the string.
func TestOwnCoversEveryString(t *testing.T) {
	e, paths := fullEvent(t)
	seen := map[string]bool{}
	record := func(s string) string { seen[s] = true; return s }
	var d lineDecoder
	d.ownWith(e, record, record)
	for v, path := range paths {
		if !seen[v] {
			t.Errorf("own leaves %s as decoded", path)
		}
	}
}

// The member check knows every field the types have, at every level, and
// nothing else: a line naming each exactly is plain; a misspelt, recased or
// escaped name anywhere is not.
func TestPlainMembers(t *testing.T) {
	e, _ := fullEvent(t)
	e.Checks = append(e.Checks, Check{Name: "b"}, Check{Name: "c"})
	var buf bytes.Buffer
	if err := jsonEncodeAll(&buf, e); err != nil {
		t.Fatal(err)
	}
	line := bytes.TrimSpace(buf.Bytes())
	var sc scan
	if plain := plainMembers(line, &sc); !plain || sc.checks != 3 {
		t.Fatalf("plainMembers(every field) = %v, %d checks; want true, 3\n%s", plain, sc.checks, line)
	}
	for _, c := range []struct{ from, to string }{
		{`"node":`, `"nodes":`}, {`"node":`, `"Node":`}, {`"node":`, `"n\u006fde":`},
		{`"gpu_model":`, `"gpu_modl":`}, {`"gpu_model":`, `"GPU_model":`},
		{`"unit":`, `"units":`}, {`"verdict":`, `"Verdict":`},
	} {
		bad := strings.Replace(string(line), c.from, c.to, 1)
		if plainMembers([]byte(bad), &sc) {
			t.Errorf("%s for %s: plain", c.to, c.from)
		}
	}
	for _, in := range []string{`{}`, `[]`, `"x"`, `{"checks":[]}`, `{"checks":null,"hardware":null}`, ` { "checks" : [ {"name":"a"} , null , 1 ] } `} {
		if !plainMembers([]byte(in), &sc) {
			t.Errorf("plainMembers(%s) = false", in)
		}
	}
	plainMembers([]byte(`{"checks":[{"gpu":1},{}],"checks":[{"number":null},{"name":"x"},"x"],"hardware":{"gpu_count":1}}`), &sc)
	if want := []uint64{gpuBit | numberBit, 1 << fieldIndex[Check]("Name")}; sc.checks != 3 || !reflect.DeepEqual(sc.present, want) {
		t.Errorf("checks = %d, present %b; want the longest array's 3, and %b", sc.checks, sc.present, want)
	}
}

func jsonEncodeAll(buf *bytes.Buffer, e *Event) error {
	w := NewWriter(buf)
	if err := w.enc.Encode(e); err != nil { // every field, valid or not
		return err
	}
	return w.Flush()
}
