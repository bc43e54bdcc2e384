package terms

import (
	"reflect"
	"testing"
)

func TestStatusPage(t *testing.T) {
	ts, err := Parse("c.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if p := ts[0].StatusPage.For("n1"); p.Listed || !reflect.DeepEqual(p.Show, map[string]bool{ShowGPUs: true}) {
		t.Fatalf("default: %+v, want unlisted, showing the GPUs alone", p)
	}
	src := minimal + `status_page:
  public: true
  show: [provider, gpus]
  nodes:
    gz-01: {label: "Guangzhou 1", show: []}
    gz-02: {public: false}
`
	if ts, err = Parse("c.yaml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	sp := ts[0].StatusPage
	if p := sp.For("other"); !p.Listed || p.Label != "" || !reflect.DeepEqual(p.Show, map[string]bool{ShowGPUs: true, ShowProvider: true}) {
		t.Errorf("a node without overrides: %+v", p)
	}
	if p := sp.For("gz-01"); !p.Listed || p.Label != "Guangzhou 1" || len(p.Show) != 0 {
		t.Errorf("gz-01: %+v, want listed as Guangzhou 1 showing nothing", p)
	}
	if p := sp.For("gz-02"); p.Listed {
		t.Errorf("gz-02: %+v, want unlisted", p)
	}
}

func TestStatusPageErrors(t *testing.T) {
	checkErrors(t, minimal+"status_page: {public: true}\n", []errCase{
		{"not a bool", "public: true}", "public: yes}", 16, "status_page.public", "neither true nor false"},
		{"unknown field", "public: true}", "public: true, colour: red}", 16, "status_page.colour", "unknown field"},
		{"unknown show", "public: true}", "public: true, show: [gpus, ip]}", 16, "status_page.show[1]", "not a field"},
		{"show twice", "public: true}", "public: true, show: [gpus, gpus]}", 16, "status_page.show[1]", "given twice"},
		{"bad node id", "public: true}", "public: true, nodes: {'a b': {public: true}}}", 16, "status_page.nodes.a b", "not a node id"},
		{"empty label", "public: true}", "public: true, nodes: {a: {label: ''}}}", 16, "status_page.nodes.a.label", "must not be empty"},
		{"same label", "public: true}", "public: true, nodes: {a: {label: X}, b: {label: X}}}", 16, "status_page.nodes.b.label", "label already"},
		{"label is a node", "public: true}", "public: true, nodes: {a: {label: b}, b: {public: false}}}", 16, "status_page.nodes.a.label", "another node's id"},
		{"unknown node field", "public: true}", "public: true, nodes: {a: {host: x}}}", 16, "status_page.nodes.a.host", "unknown field"},
	})
}
