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
func (h *Handler) nodes(ctx context.Context, all []store.Node, mode Mode) ([]*node, map[string]string, error) {
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
		return out, nil, nil
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

// secretsOf are the strings the public page must not contain, each with
// what it is: every node's id, provider and contract (of listed nodes and
// unlisted ones alike), except where a listed node shows that very value.
// Ticket and incident texts are never drawn in public unless shown, so they
// are not listed here: the guard checks the values the terms withhold by
// name, which free text could quote.
func secretsOf(all []store.Node, listed []*node) map[string]string {
	shown := map[string]bool{}
	for _, nd := range listed {
		for field, v := range map[string]string{terms.ShowNode: nd.n.ID, terms.ShowProvider: nd.n.Provider, terms.ShowContract: nd.n.Contract} {
			if nd.shows(field) {
				shown[v] = true
			}
		}
		shown[nd.label] = true
	}
	out := map[string]string{}
	for _, n := range all {
		for what, v := range map[string]string{"node id": n.ID, "provider": n.Provider, "contract": n.Contract} {
			if !shown[v] && len(strings.TrimSpace(v)) >= minSecret {
				out[v] = what
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
func guard(p *Page, secrets map[string]string) error {
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
	for v, what := range secrets {
		if strings.Contains(text, v) {
			return fmt.Errorf("public page withheld: it would show a %s the terms keep private", what)
		}
	}
	return nil
}
