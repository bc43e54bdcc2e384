// Package yamlpos says where in a YAML file a problem is — the file, the
// line and the field's dotted path ("network.ping[1].host") — so that every
// configuration the project reads (the probe's, serve's, the alert routes,
// the order, the spec database) reports a mistake the same way:
//
//	gpuprobe.yaml:8: network.ping[0].cout: unknown field (fields: count, host, max_avg_ms)
//
// The YAML library (go.yaml.in/yaml/v3) gives lines only inside its error
// strings; Explain is the one place that reads them. Everything else works
// on the parsed node tree, which keeps every key's and value's line.
package yamlpos

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is a problem at a place in a YAML file. Field is the dotted path
// of the field ("backend.url", "alerts.routes[0].incidents[1]"); Line is
// 1-based, 0 when unknown; File may be empty when the caller names it.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

// Error is "file:line: field: message", with the parts that are known.
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		b.WriteString(e.File + ": ")
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// At is the *Error of the node n (its line) under field.
func At(file string, n *yaml.Node, field, format string, args ...any) *Error {
	return &Error{File: file, Line: n.Line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Decode decodes the YAML document raw, read from file, strictly into v (a
// pointer to a struct): a key v has no field for, a value of the wrong
// type and a syntax error are each an *Error with the line and the field.
// It returns the document's top mapping for looking fields up afterwards
// (Line, Lookup); an empty document leaves v as it is and returns nil.
func Decode(file string, raw []byte, v any) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, Explain(file, nil, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: top.Line, Msg: "the top level must be a mapping (key: value)"}
	}
	// Unknown keys first, by the type: the message can then list the
	// fields there are. The decoder's own check stays for what a type
	// that decodes itself finds.
	if err := UnknownField(file, top, v, ""); err != nil {
		return top, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return top, Explain(file, top, err)
	}
	return top, nil
}

var (
	reUnknown = regexp.MustCompile(`^line (\d+): field (\S+) not found in type`)
	reLine    = regexp.MustCompile(`line (\d+): (.*)`)
)

// Explain turns an error of the YAML library into an *Error: its first
// problem, the line it names, and the field at that line in top (the
// document's top node; nil when the document did not parse).
func Explain(file string, top *yaml.Node, err error) *Error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := reUnknown.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		field := m[2]
		if p := KeyPath(top, line, m[2]); p != "" {
			field = p
		}
		return &Error{File: file, Line: line, Field: field, Msg: "unknown field"}
	}
	if m := reLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: line, Field: PathAt(top, line), Msg: strings.TrimPrefix(m[2], "yaml: ")}
	}
	return &Error{File: file, Msg: strings.TrimPrefix(msg, "yaml: ")}
}

// Lookup is the node at path ("network.ping[1].host") below n, nil when a
// part of it is absent. For a mapping or a list the node carries its key's
// line, the line a person looks at; a scalar is the value itself.
func Lookup(n *yaml.Node, path string) *yaml.Node {
	for _, part := range split(path) {
		if n = child(n, part); n == nil {
			return nil
		}
	}
	return n
}

// Line is the line of path below n: of its deepest part that is there
// (the section a missing field belongs in), n's own line for "".
func Line(n *yaml.Node, path string) int {
	if n == nil {
		return 0
	}
	line := n.Line
	for _, part := range split(path) {
		if n = child(n, part); n == nil {
			break
		}
		line = n.Line
	}
	return line
}

// split cuts "a.b[2].c" into "a", "b", "[2]", "c".
func split(path string) []string {
	var out []string
	for _, p := range strings.Split(path, ".") {
		name, idx, ok := strings.Cut(p, "[")
		if name != "" {
			out = append(out, name)
		}
		for ok {
			var i string
			i, idx, _ = strings.Cut(idx, "]")
			out = append(out, "["+i+"]")
			_, idx, ok = strings.Cut(idx, "[")
		}
	}
	return out
}

// child is the entry part ("key" or "[i]") of n.
func child(n *yaml.Node, part string) *yaml.Node {
	n = deref(n)
	if n == nil {
		return nil
	}
	if strings.HasPrefix(part, "[") {
		i, err := strconv.Atoi(strings.Trim(part, "[]"))
		if n.Kind != yaml.SequenceNode || err != nil || i < 0 || i >= len(n.Content) {
			return nil
		}
		return n.Content[i]
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != part {
			continue
		}
		v := deref(n.Content[i+1])
		if v.Kind == yaml.ScalarNode {
			return v
		}
		// A container at its key's line: that is where a person looks.
		k := *n.Content[i]
		k.Kind, k.Tag, k.Content = v.Kind, v.Tag, v.Content
		return &k
	}
	return nil
}

func deref(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode {
		return n.Alias
	}
	return n
}

// KeyPath is the full path of the mapping key named key on line below n,
// "" when there is none.
func KeyPath(n *yaml.Node, line int, key string) string {
	return find(n, "", func(k, _ *yaml.Node) bool { return k != nil && k.Line == line && k.Value == key })
}

// PathAt is the path of the field whose key or scalar value is on line
// below n, "" when there is none.
func PathAt(n *yaml.Node, line int) string {
	return find(n, "", func(k, v *yaml.Node) bool {
		return k != nil && k.Line == line || v.Line == line && v.Kind == yaml.ScalarNode
	})
}

// find walks n depth first in document order and returns the path of the
// first entry hit says yes to (k is nil for a list's element).
func find(n *yaml.Node, prefix string, hit func(k, v *yaml.Node) bool) string {
	if n == nil {
		return ""
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := join(prefix, k.Value)
			if hit(k, v) {
				return p
			}
			if r := find(v, p, hit); r != "" {
				return r
			}
		}
	case yaml.SequenceNode:
		for i, v := range n.Content {
			p := fmt.Sprintf("%s[%d]", prefix, i)
			if hit(nil, v) {
				return p
			}
			if r := find(v, p, hit); r != "" {
				return r
			}
		}
	}
	return ""
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// UnknownField is the first key below n (document order) that the Go type
// of v has no field for, as an *Error naming its line, its path below
// prefix and the fields there are; nil when every key is known. It is the
// strictness of Decode for a part of a document (a section another
// program shares, a node decoded on its own). A value whose type decodes
// itself (yaml.Unmarshaler) is not looked into; a value of the wrong kind
// is left to the decoding to refuse.
func UnknownField(file string, n *yaml.Node, v any, prefix string) error {
	if e := unknown(n, reflect.TypeOf(v), prefix); e != nil {
		e.File = file
		return e
	}
	return nil
}

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

func unknown(n *yaml.Node, t reflect.Type, path string) *Error {
	n = deref(n)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n == nil || reflect.PointerTo(t).Implements(unmarshaler) {
		return nil
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		return unknownKeys(n, fields(t), path)
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && n.Kind == yaml.SequenceNode:
		for i, e := range n.Content {
			if err := unknown(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := unknown(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value)); err != nil {
				return err
			}
		}
	}
	return nil
}

// unknownKeys checks a struct's mapping, merge keys ("<<: *base") included.
func unknownKeys(n *yaml.Node, known map[string]reflect.Type, path string) *Error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Tag == "!!merge" {
			for _, m := range append([]*yaml.Node{v}, deref(v).Content...) {
				if m = deref(m); m.Kind == yaml.MappingNode {
					if err := unknownKeys(m, known, path); err != nil {
						return err
					}
				}
			}
			continue
		}
		ft, ok := known[k.Value]
		if !ok {
			ft, ok = known[anyKey]
		}
		if !ok {
			return &Error{Line: k.Line, Field: join(path, k.Value),
				Msg: "unknown field (fields: " + names(known) + ")"}
		}
		if err := unknown(v, ft, join(path, k.Value)); err != nil {
			return err
		}
	}
	return nil
}

// fields are a struct's YAML names and types, as the library decodes them:
// the tag's name or the lowercased field name, ",inline" structs merged,
// "-" and unexported fields left out.
func fields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if slices.Contains(strings.Split(opts, ","), "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch ft.Kind() {
			case reflect.Struct:
				maps.Copy(out, fields(ft))
			case reflect.Map:
				out[anyKey] = ft.Elem() // every other key goes into the map
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

// anyKey stands in fields for an ",inline" map, which takes every key.
const anyKey = "\x00"

// names are the field names for a message, sorted.
func names(known map[string]reflect.Type) string {
	var out []string
	for k := range known {
		if k != anyKey {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
