package statuspage

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/terms"
)

// nodes are the nodes the page draws, in id order, and, for the public
// view, every private string it must not show (secrets).
//
// In the team view every node is drawn, under its id, showing everything.
// In the public view a node is drawn only when its contract's terms list
// it (status_page.public, or the node's override), under its configured
// label or one derived from the id by HMAC under a key from the status
// token: stable while the token is, the same for every visitor, and not
// reversible without the token even by hashing guessed names.
func (h *Handler) nodes(ctx context.Context, all []store.Node, mode Mode) ([]*node, withheld, error) {
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	var out []*node
	for _, n := range all {
		nd := &node{n: n, loc: time.UTC, label: n.ID}
		if h.c.Terms != nil {
			if tm, ok := h.c.Terms(n.Contract); ok {
				nd.tm, nd.loc = tm, tm.Calendar.Loc
			}
		}
		if mode == Private {
			nd.team = true
			nd.pub = terms.Public{Listed: true, Show: map[string]bool{}}
			for _, f := range terms.ShowFields {
				nd.pub.Show[f] = true
			}
			out = append(out, nd)
			continue
		}
		if nd.tm == nil {
			continue // no terms, no public settings: team view only
		}
		nd.pub = nd.tm.StatusPage.For(n.ID)
		if !nd.pub.Listed {
			continue
		}
		out = append(out, nd)
	}
	if mode == Private {
		return out, withheld{}, nil
	}
	h.label(out)
	return out, secretsOf(all, out), nil
}

// label names each public node: its configured label, its id where the
// terms show it, else "node-" and 8 hex digits of the HMAC (16 where two
// nodes' would collide, so no two nodes read as one).
func (h *Handler) label(nodes []*node) {
	taken := map[string]int{}
	derived := func(id string, n int) string {
		m := hmac.New(sha256.New, h.labelKey)
		m.Write([]byte(id))
		return "node-" + hex.EncodeToString(m.Sum(nil))[:n]
	}
	for _, nd := range nodes {
		switch {
		case nd.shows(terms.ShowNode):
			nd.label = nd.n.ID
		case nd.pub.Label != "":
			nd.label = nd.pub.Label
		default:
			nd.label = derived(nd.n.ID, 8)
		}
		taken[nd.label]++
	}
	for _, nd := range nodes {
		if taken[nd.label] > 1 && !nd.shows(terms.ShowNode) {
			nd.label = derived(nd.n.ID, 16)
		}
	}
}

// withheld is what the public page must not show: each value with what it
// is, and the shown values that may contain one (a provider "NVIDIA"
// withheld beside the shown model "NVIDIA H200").
type withheld struct {
	values map[string]string
	// allowed are shown values the guard masks before it looks: the data of
	// the fields the terms show (the GPUs' model, the zone), never a
	// label or free text, which could quote a withheld value.
	allowed []string
	// constants are the page language's argument-free sentences and words
	// (i18n.Printer.Constants): a data-free leaf equal to one is not
	// searched, so a withheld name that is also a word of the page (a
	// provider "Nodes") does not withhold every page.
	constants map[string]bool
}

// secretsOf are the strings the public page must not contain, each with
// what it is: every node's id, provider and contract (of listed nodes and
// unlisted ones alike), except where a listed node shows that very value.
// Ticket and incident texts are never drawn in public unless shown, so they
// are not listed here: the guard checks the values the terms withhold by
// name, which free text could quote.
func secretsOf(all []store.Node, listed []*node) withheld {
	shown := map[string]bool{}
	var allowed []string
	for _, nd := range listed {
		for field, v := range map[string]string{terms.ShowNode: nd.n.ID, terms.ShowProvider: nd.n.Provider, terms.ShowContract: nd.n.Contract} {
			if nd.shows(field) {
				shown[v] = true
			}
		}
		shown[nd.label] = true
		if nd.shows(terms.ShowGPUs) && nd.n.GPUModel != "" {
			allowed = append(allowed, nd.n.GPUModel)
		}
		allowed = append(allowed, nd.loc.String())
	}
	out := withheld{values: map[string]string{}}
	for _, n := range all {
		for what, v := range map[string]string{"node id": n.ID, "provider": n.Provider, "contract": n.Contract} {
			if !shown[v] && len(strings.TrimSpace(v)) >= minSecret {
				out.values[v] = what
			}
		}
	}
	// Longest first, so a model holding a shorter allowed value is masked whole.
	sort.Slice(allowed, func(i, j int) bool { return len(allowed[i]) > len(allowed[j]) })
	for _, a := range allowed {
		for v := range out.values {
			if a != v && strings.Contains(a, v) {
				out.allowed = append(out.allowed, a)
				break
			}
		}
	}
	return out
}

// minSecret is the shortest value the guard looks for: shorter ones (a
// contract called "c") occur in ordinary words and would block every page.
const minSecret = 4

// guard refuses a public page whose data contains a withheld value: the
// page is built from allowed fields alone, and this is the check that it
// stayed so (a label quoting a node id, a translated sentence carrying a
// provider's name). It fails closed: a 500 rather than a leak.
//
// A withheld value is looked for as a whole word: "Ping" inside "Mapping"
// is not a leak (ASCII letters or digits on either side make a match part
// of a longer word; other scripts have no such boundary and always match).
// And the shown values that contain one (withheld.allowed) are masked
// first, so a provider "NVIDIA" kept private does not make the shown "8 ×
// NVIDIA H200" answer 500 to everyone.
func guard(p *Page, w withheld) error {
	raw, err := json.Marshal(struct {
		*Page
		Switch []LangLink
	}{p, p.Switch})
	if err != nil {
		return err
	}
	// Compare decoded text: JSON escapes <, > and & and non-ASCII stays.
	var body strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if w.constants[x] {
				return
			}
			body.WriteString(x)
			body.WriteByte(0)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return err
	}
	walk(tree)
	text := body.String()
	for _, a := range w.allowed {
		text = strings.ReplaceAll(text, a, "\x00")
	}
	for v, what := range w.values {
		if containsWord(text, v) {
			return fmt.Errorf("public page withheld: it would show a %s the terms keep private", what)
		}
	}
	return nil
}

// containsWord says whether v occurs in text other than as part of a
// longer ASCII word.
func containsWord(text, v string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], v)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(v)
		if !(i > 0 && asciiAlnum(text[i-1]) && asciiAlnum(v[0])) && !(j < len(text) && asciiAlnum(text[j]) && asciiAlnum(v[len(v)-1])) {
			return true
		}
		from = i + 1
	}
}

func asciiAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
