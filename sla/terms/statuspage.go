package terms

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Public page fields: what the status page's public mode (no token) may
// show of a node besides its label, its state, its bars, its incidents'
// kinds and verdicts and the contract's time zone. Everything else is
// withheld.
const (
	ShowNode     = "node"     // the node's real id (else a label)
	ShowProvider = "provider" // the provider's name
	ShowContract = "contract" // the contract id
	ShowGPUs     = "gpus"     // the ordered GPU model and count
	ShowEvidence = "evidence" // failing checks with measured values, the engine's evidence text (may name addresses)
	ShowTickets  = "tickets"  // ticket ids, the provider's reference and the summary (free text)
)

// ShowFields are every field status_page.show may name.
var ShowFields = []string{ShowNode, ShowProvider, ShowContract, ShowGPUs, ShowEvidence, ShowTickets}

// DefaultShow is what a public node shows when its terms do not say.
var DefaultShow = []string{ShowGPUs}

// StatusPage is the contract's status_page section: whether its nodes are
// on the public page and what of them is shown there. The page with the
// token shows everything regardless.
type StatusPage struct {
	Public bool
	Show   []string // sorted
	// Nodes are per-node overrides, by node id.
	Nodes map[string]NodePage
}

// NodePage overrides the contract's public settings for one node.
type NodePage struct {
	Public *bool    // nil: the contract's
	Label  string   // shown instead of the node id; "" derives one
	Show   []string // nil: the contract's
}

// Public is what the public page may show of one node.
type Public struct {
	Listed bool
	Label  string // the configured label, "" for a derived one
	Show   map[string]bool
}

// For is node's public settings under these terms.
func (s StatusPage) For(node string) Public {
	p := Public{Listed: s.Public, Show: map[string]bool{}}
	show := s.Show
	if n, ok := s.Nodes[node]; ok {
		if n.Public != nil {
			p.Listed = *n.Public
		}
		if n.Show != nil {
			show = n.Show
		}
		p.Label = n.Label
	}
	for _, f := range show {
		p.Show[f] = true
	}
	return p
}

// statusPage reads status_page: {public, show, nodes: {ID: {public, label, show}}}.
func (p *parser) statusPage(o *object, t *Terms) error {
	t.StatusPage = StatusPage{Show: append([]string(nil), DefaultShow...), Nodes: map[string]NodePage{}}
	n, ok := o.vals["status_page"]
	if !ok {
		return nil
	}
	sp, err := p.object(n, "status_page", "public", "show", "nodes")
	if err != nil {
		return err
	}
	if v, ok := sp.vals["public"]; ok {
		if t.StatusPage.Public, err = p.boolean(v, "status_page.public"); err != nil {
			return err
		}
	}
	if v, ok := sp.vals["show"]; ok {
		if t.StatusPage.Show, err = p.showList(v, "status_page.show"); err != nil {
			return err
		}
	}
	v, ok := sp.vals["nodes"]
	if !ok {
		return nil
	}
	nodes, err := p.object(v, "status_page.nodes")
	if err != nil {
		return err
	}
	labels := map[string]string{}
	for _, id := range nodes.keys {
		field := "status_page.nodes." + id
		if !validID(id) {
			return p.err(nodes.vals[id], field, "%q is not a node id (letters, digits, '.', '_', '-'; 1 to 64)", id)
		}
		no, err := p.object(nodes.vals[id], field, "public", "label", "show")
		if err != nil {
			return err
		}
		var np NodePage
		if v, ok := no.vals["public"]; ok {
			b, err := p.boolean(v, field+".public")
			if err != nil {
				return err
			}
			np.Public = &b
		}
		if v, ok := no.vals["label"]; ok {
			if np.Label, err = p.str(v, field+".label"); err != nil {
				return err
			}
			if len(np.Label) > 64 {
				return p.err(v, field+".label", "longer than 64 characters")
			}
			if other, dup := labels[np.Label]; dup {
				return p.err(v, field+".label", "%q is node %s's label already: two nodes would read as one", np.Label, other)
			}
			labels[np.Label] = id
		}
		if v, ok := no.vals["show"]; ok {
			if np.Show, err = p.showList(v, field+".show"); err != nil {
				return err
			}
		}
		t.StatusPage.Nodes[id] = np
	}
	// A label naming another node would show that node's id in public.
	for label, id := range labels {
		if _, isNode := t.StatusPage.Nodes[label]; isNode && label != id {
			return p.err(nodes.vals[id], "status_page.nodes."+id+".label", "%q is another node's id", label)
		}
	}
	return nil
}

func (p *parser) showList(n *yaml.Node, field string) ([]string, error) {
	items, err := p.seq(n, field)
	if err != nil {
		return nil, err
	}
	out := []string{}
	seen := map[string]bool{}
	for i, it := range items {
		f := fmt.Sprintf("%s[%d]", field, i)
		s, err := p.str(it, f)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(ShowFields, s) {
			return nil, p.err(it, f, "%q is not a field the public page can show (%s)", s, strings.Join(ShowFields, ", "))
		}
		if seen[s] {
			return nil, p.err(it, f, "%q given twice", s)
		}
		seen[s] = true
		out = append(out, s)
	}
	sort.Strings(out)
	return out, nil
}
