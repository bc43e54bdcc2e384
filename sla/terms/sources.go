package terms

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/sla/calendar"
)

// Source is where a contract's figures were read: the provider's published
// page (or, marked Secondary, someone else's account of it), the day it was
// read and the clause quoted word for word, so a claim can show the
// provider its own text. A claim resting on a figure no primary source
// backs says that the term is unverified (Terms.Unverified).
type Source struct {
	Terms     []string // the term keys it backs: "uptime.target", "credits.downtime[0]"
	URL       string   // https, naming the page's host
	Read      calendar.Date
	Quote     string // the clause as published, in its own language
	Secondary bool   // not the provider's own text
	Line      int    // of the entry in the terms file
}

// FigureKeys are the terms fields that carry a provider's published figure
// or rule. A contract that cites sources must back each one it gives with
// the provider's own page, or the claim calls it unverified. The price,
// billing and business hours are the renter's order and invoice, the
// detection settings gpusla's; "maintenance: none" is the absence of an
// exclusion, with no clause to quote.
var FigureKeys = []string{"uptime.target", "uptime.unavailable", "uptime.minimum_outage", "uptime.downtime_period",
	"uptime.denominator", "uptime.partial_month", "uptime.tiers", "uptime.credit_cap", "uptime.minimum_credit", "maintenance", "claim", "credits", "support",
	"hardware_replacement", "delivery", "billing.clock_hour_rule", "network.internal_mbps"}

// sources reads the contract's sources: list and checks each term key
// names a field the contract gives (root is the contract's mapping). It
// notes which FigureKeys the contract gives, for Unverified.
func (p *parser) sources(root *yaml.Node, o *object, t *Terms) error {
	for _, k := range FigureKeys {
		if n := pathNode(root, k); n != nil && !(k == "maintenance" && n.Kind == yaml.ScalarNode && n.Value == "none") {
			t.figures = append(t.figures, k)
		}
	}
	n, ok := o.vals["sources"]
	if !ok {
		return nil
	}
	t.sourced = true
	items, err := p.seq(n, "sources")
	if err != nil {
		return err
	}
	for i, it := range items {
		f := fmt.Sprintf("sources[%d]", i)
		s, err := p.source(root, it, f)
		if err != nil {
			return err
		}
		t.Sources = append(t.Sources, s)
	}
	return nil
}

func (p *parser) source(root, it *yaml.Node, f string) (Source, error) {
	so, err := p.object(it, f, "terms", "url", "read", "quote", "secondary")
	if err != nil {
		return Source{}, err
	}
	s := Source{Line: it.Line}
	for _, k := range []string{"terms", "url", "read", "quote"} {
		if _, err := p.require(so, k); err != nil {
			return Source{}, err
		}
	}
	keys, err := p.seq(so.vals["terms"], f+".terms")
	if err != nil {
		return Source{}, err
	}
	if len(keys) == 0 {
		return Source{}, p.err(so.vals["terms"], f+".terms", "names no term: list the fields this page backs")
	}
	for j, kn := range keys {
		kf := fmt.Sprintf("%s.terms[%d]", f, j)
		k, err := p.str(kn, kf)
		if err != nil {
			return Source{}, err
		}
		if k == "sources" || strings.HasPrefix(k, "sources.") || strings.HasPrefix(k, "sources[") || !hasPath(root, k) {
			return Source{}, p.err(kn, kf, "%q is not a field of this contract (a source backs a field the file gives, e.g. uptime.tiers)", k)
		}
		s.Terms = append(s.Terms, k)
	}
	if s.URL, err = p.pageURL(so.vals["url"], f+".url"); err != nil {
		return Source{}, err
	}
	if s.Read, err = p.date(so.vals["read"], f+".read"); err != nil {
		return Source{}, err
	}
	if s.Quote, err = p.str(so.vals["quote"], f+".quote"); err != nil {
		return Source{}, err
	}
	if v, ok := so.vals["secondary"]; ok {
		if s.Secondary, err = p.boolean(v, f+".secondary"); err != nil {
			return Source{}, err
		}
	}
	return s, nil
}

// notPublic are host labels of test, staging and preview deployments: a
// page there is not what the provider publishes to its customers.
var notPublic = regexp.MustCompile(`^(test|testing|staging|stage|stg|dev|sandbox|preview|preprod|uat|qa)[0-9]*$`)

// reservedHosts are names that never belong to a provider (RFC 2606, 6761).
var reservedHosts = []string{"localhost", "example.com", "example.net", "example.org"}

// pageURL reads a source's address: https, a public host name, no user,
// password or port: the page a provider's billing desk can open itself.
func (p *parser) pageURL(n *yaml.Node, field string) (string, error) {
	s, err := p.str(n, field)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		return "", p.err(n, field, "%q is not an https address naming a host", s)
	}
	if u.User != nil || u.Port() != "" {
		return "", p.err(n, field, "%q carries a user or a port: give the page's public address", s)
	}
	host := strings.ToLower(u.Hostname())
	if net.ParseIP(host) != nil {
		return "", p.err(n, field, "%q names an IP address, not the provider's host", s)
	}
	for _, r := range reservedHosts {
		if host == r || strings.HasSuffix(host, "."+r) {
			return "", p.err(n, field, "%q is a reserved example host, not a provider's page", s)
		}
	}
	labels := strings.Split(host, ".")
	if len(labels) < 2 {
		return "", p.err(n, field, "%q names no public host", s)
	}
	switch labels[len(labels)-1] {
	case "test", "example", "invalid", "localhost", "local", "internal":
		return "", p.err(n, field, "%q is under a reserved top-level domain, not a provider's page", s)
	}
	for _, l := range labels[:len(labels)-1] {
		if notPublic.MatchString(l) {
			return "", p.err(n, field, "%q is a test or staging host (%q): cite the page the provider publishes", s, l)
		}
	}
	return s, nil
}

// hasPath reports whether the mapping root has the field at key: dotted
// names, each optionally indexed into a list ("credits.downtime[0]").
func hasPath(root *yaml.Node, key string) bool { return pathNode(root, key) != nil }

// pathNode is the value at key in the mapping root, nil when absent.
func pathNode(root *yaml.Node, key string) *yaml.Node {
	n := root
	for _, seg := range strings.Split(key, ".") {
		name, idx := seg, -1
		if i := strings.IndexByte(seg, '['); i > 0 && strings.HasSuffix(seg, "]") {
			v, err := strconv.Atoi(seg[i+1 : len(seg)-1])
			if err != nil || v < 0 {
				return nil
			}
			name, idx = seg[:i], v
		}
		if n = child(n, name); n == nil {
			return nil
		}
		if idx >= 0 {
			if n.Kind != yaml.SequenceNode || idx >= len(n.Content) {
				return nil
			}
			n = n.Content[idx]
		}
	}
	return n
}

// child is the value under key in mapping n, nil when absent.
func child(n *yaml.Node, key string) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode || key == "" {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			v := n.Content[i+1]
			if v.Kind == yaml.AliasNode {
				v = v.Alias
			}
			return v
		}
	}
	return nil
}

// Covers reports whether the source backs key: the key itself, a field
// inside it, or the section or list it belongs to ("uptime" backs
// "uptime.tiers"; "uptime.tiers" backs "uptime.tiers[1].credit").
func (s Source) Covers(key string) bool {
	for _, k := range s.Terms {
		if k == key || strings.HasPrefix(key, k+".") || strings.HasPrefix(key, k+"[") {
			return true
		}
	}
	return false
}

// Verified reports whether a primary source (the provider's own page)
// backs key.
func (t *Terms) Verified(key string) bool {
	for _, s := range t.Sources {
		if !s.Secondary && s.Covers(key) {
			return true
		}
	}
	return false
}

// Unverified lists, sorted, the term keys a claim must say it could not
// check against the provider's own text: those cited only by secondary
// sources and, in a contract that cites sources at all, each of its
// FigureKeys no source backs. A contract without sources: (a signed
// contract, which is its own source) has none; one with "sources: []"
// says no published text was found, and every figure it gives is
// unverified.
func (t *Terms) Unverified() []string {
	if !t.sourced {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, k := range t.figures {
		cited := false
		for _, s := range t.Sources {
			cited = cited || s.Covers(k)
		}
		if !cited {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, s := range t.Sources {
		if !s.Secondary {
			continue
		}
		for _, k := range s.Terms {
			if !seen[k] && !t.Verified(k) {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Gives reports whether the first contract of a terms file's text has the
// field at key (dotted names, a list entry by index: "claim.within_days",
// "uptime.tiers[1]"), as sources: and approximations: name them. A pack's
// conformance table is held to it.
func Gives(data []byte, key string) bool {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return false
	}
	return hasPath(doc.Content[0], key)
}
