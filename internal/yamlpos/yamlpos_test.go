package yamlpos

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

type ping struct {
	Host  string `yaml:"host"`
	Count int    `yaml:"count"`
}

type network struct {
	Ping []ping `yaml:"ping"`
}

type base struct {
	Node string `yaml:"node"`
}

type self struct{ raw string }

func (s *self) UnmarshalYAML(n *yaml.Node) error { s.raw = n.Value; return nil }

type config struct {
	base    `yaml:",inline"`
	Network network            `yaml:"network"`
	Every   time.Duration      `yaml:"every"`
	Labels  map[string]ping    `yaml:"labels"`
	Own     self               `yaml:"own"`
	Skip    string             `yaml:"-"`
	Plain   string             // no tag: "plain"
	Extra   map[string]float64 `yaml:"extra,omitempty"`
	hidden  int                //lint:ignore U1000 an unexported field the decoding must not take
}

const doc = `node: gz-01
network:
  ping:
    - host: 10.0.0.1
      count: 3
    - host: 10.0.0.2
every: 30s
labels:
  a: {host: x}
own: [anything, goes]
`

// Decode names the file, line and full path of each kind of mistake the
// YAML library reports: an unknown key deep in a list, a value of the wrong
// type, bad syntax, a top level that is not a mapping.
func TestDecodeNamesFileLineField(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{doc + "netwerk: {}\n", "c.yaml:11: netwerk: unknown field"},
		{strings.Replace(doc, "      count: 3", "      cout: 3", 1), "c.yaml:5: network.ping[0].cout: unknown field"},
		{strings.Replace(doc, "count: 3", "count: three", 1), "c.yaml:5: network.ping[0].count: cannot unmarshal !!str `three` into int"},
		{strings.Replace(doc, "every: 30s", "every: soon", 1), "c.yaml:7: every: "},
		{"node: [unclosed\n", "c.yaml:"},
		{"- a\n- b\n", "c.yaml:1: the top level must be a mapping (key: value)"},
		{"hidden: 1\n", "c.yaml:1: hidden: unknown field"},
		{"skip: 1\n", "c.yaml:1: skip: unknown field"},
	} {
		var c0 config
		_, err := Decode("c.yaml", []byte(c.in), &c0)
		var e *Error
		if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s…", c.in, err, c.want)
		}
	}
}

// A good document decodes; the top node finds each field's line.
func TestDecodeAndLookUp(t *testing.T) {
	var c config
	top, err := Decode("c.yaml", []byte(doc+"plain: p\n"), &c)
	if err != nil {
		t.Fatal(err)
	}
	if c.Node != "gz-01" || len(c.Network.Ping) != 2 || c.Every != 30*time.Second || c.Plain != "p" || c.Own.raw != "" {
		t.Fatalf("decoded %+v", c)
	}
	for path, want := range map[string]int{
		"":                      1,
		"node":                  1,
		"network":               2,
		"network.ping":          3,
		"network.ping[1]":       6,
		"network.ping[1].host":  6,
		"network.ping[0].count": 5,
		"network.ping[7].host":  3, // the deepest part that is there
		"labels.a.host":         9,
		"nothing.here":          1,
	} {
		if got := Line(top, path); got != want {
			t.Errorf("Line(%q) = %d, want %d", path, got, want)
		}
	}
	if n := Lookup(top, "network.ping[1].host"); n == nil || n.Value != "10.0.0.2" {
		t.Errorf("Lookup found %v", n)
	}
	if Lookup(top, "network.ping[x]") != nil || Lookup(top, "node.deeper") != nil {
		t.Error("Lookup found a path that is not there")
	}
	if p := PathAt(top, 6); p != "network.ping[1].host" {
		t.Errorf("PathAt(6) = %q", p)
	}
	if p := PathAt(top, 7); p != "every" {
		t.Errorf("PathAt(7) = %q", p)
	}
	if p := KeyPath(top, 9, "host"); p != "labels.a.host" {
		t.Errorf("KeyPath = %q", p)
	}
	if _, err := Decode("c.yaml", nil, &c); err != nil {
		t.Errorf("empty document: %v", err)
	}
}

// UnknownField holds a node to a type as strictly as Decode holds a file:
// struct fields by tag, inline structs, list elements, map values, merge
// keys; an inline map takes any key; a type that decodes itself is not
// looked into.
func TestUnknownField(t *testing.T) {
	type withMap struct {
		Name string             `yaml:"name"`
		Rest map[string]float64 `yaml:",inline"`
	}
	for _, c := range []struct {
		in   string
		v    any
		want string
	}{
		{doc, &config{}, ""},
		{doc + "netwerk: 1\n", &config{}, "f:11: s.netwerk: unknown field (fields: every, extra, labels, network, node, own, plain)"},
		{"labels:\n  a: {hots: x}\n", &config{}, "f:2: s.labels.a.hots: unknown field (fields: count, host)"},
		{"network:\n  ping:\n    - host: a\n    - {host: b, cnt: 1}\n", &config{}, "f:4: s.network.ping[1].cnt: unknown field"},
		{"b: &b {host: a}\nlabels:\n  x:\n    <<: *b\n    count: 2\n", &struct {
			B      ping            `yaml:"b"`
			Labels map[string]ping `yaml:"labels"`
		}{}, ""},
		{"b: &b {hots: a}\nlabels:\n  x:\n    <<: *b\n", &struct {
			B      map[string]string `yaml:"b"`
			Labels map[string]ping   `yaml:"labels"`
		}{}, "f:1: s.labels.x.hots: unknown field"},
		{"name: n\nanything: 1\n", &withMap{}, ""},
		{"own: {whatever: [1]}\n", &config{}, ""},
		{"network: 5\n", &config{}, ""}, // the wrong kind is the decoder's to refuse
	} {
		var top yaml.Node
		if err := yaml.Unmarshal([]byte(c.in), &top); err != nil {
			t.Fatal(err)
		}
		err := UnknownField("f", top.Content[0], c.v, "s")
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("%q: got %v, want %q", c.in, err, c.want)
		}
	}
}

// The error's form without a file or a line.
func TestErrorForms(t *testing.T) {
	for _, c := range []struct {
		e    Error
		want string
	}{
		{Error{File: "f", Line: 3, Field: "a.b", Msg: "m"}, "f:3: a.b: m"},
		{Error{File: "f", Msg: "empty file"}, "f: empty file"},
		{Error{Line: 3, Field: "a", Msg: "m"}, "line 3: a: m"},
		{Error{Msg: "m"}, "m"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}
