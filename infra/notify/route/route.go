// Package route holds the alert channels of a backend and which alerts go
// to which: named channels (Slack, Feishu/Lark, DingTalk, WeCom, a signed
// webhook), and routes that send a message to channels by contract,
// provider, node, incident kind and message kind. It is configuration of
// the renter's operations, not of the contract with the provider, so it
// lives in the backend's config (serve's YAML `alerts:`, the Lambdas' SSM
// parameter), beside the channels' secrets; terms files stay free of both.
//
// A message goes to the union of the channels of every route it matches; one
// that matches no route goes to `default` (every channel when default is not
// given). Follow-ups go where their incident went: a route that takes an
// incident's opening alert (kinds: [unreachable]) also takes its recovered,
// reclassified and update alerts, and one that takes ticket_opened takes
// the ticket's later messages.
//
// Config validation names file:line: field and the offending value.
package route

import (
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/infra/dingtalk"
	"github.com/gpusla/gpusla/infra/feishu"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/webhook"
	"github.com/gpusla/gpusla/infra/wecom"
	"github.com/gpusla/gpusla/internal/yamlpos"
	"github.com/gpusla/gpusla/sla/incident"
)

// Message kinds a route can name: the alert kinds, the ticket kinds
// prefixed "ticket_", the notice kinds (a month's report, a claim
// reminder), and the groups "alerts", "tickets" and "notices".
var alertKinds = []notify.AlertKind{notify.AlertDegraded, notify.AlertUnreachable, notify.AlertRecovered,
	notify.AlertReclassified, notify.AlertUpdate, notify.AlertDeliveryOverdue, notify.AlertDelivered, notify.AlertLimits}

var ticketKinds = []notify.TicketKind{notify.TicketOpened, notify.TicketRecorded, notify.TicketWarning, notify.TicketBreached}

var incidentKinds = []incident.Kind{incident.Unreachable, incident.GPULost, incident.GPUDegraded, incident.NetworkDegraded,
	incident.PerformanceBelowSpec, incident.InventoryMismatch}

func kindNames() []string {
	var out []string
	for _, k := range alertKinds {
		out = append(out, string(k))
	}
	for _, k := range ticketKinds {
		out = append(out, "ticket_"+string(k))
	}
	for _, k := range notify.NoticeKinds {
		out = append(out, string(k))
	}
	return append(out, "alerts", "tickets", "notices")
}

// Channel types.
var channelKeys = map[string][]string{
	"slack":    {"webhook_url", "bot_token", "channel"},
	"feishu":   {"webhook_url", "secret"},
	"dingtalk": {"webhook_url", "secret"},
	"wecom":    {"webhook_url"},
	"webhook":  {"url", "secret"},
}

var channelName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)

// Config is the `alerts:` document. It is decoded from a yaml.Node so that
// every error can name the line it is on.
type Config struct {
	node *yaml.Node
}

// UnmarshalYAML keeps the node; Build reads and checks it.
func (c *Config) UnmarshalYAML(n *yaml.Node) error {
	c.node = n
	return nil
}

// Configured reports whether an alerts section was given.
func (c Config) Configured() bool { return c.node != nil && c.node.Tag != "!!null" }

// Parse reads a standalone document holding the same `alerts:` section as
// serve's config (the Lambdas' SSM parameter), so one block can be pasted
// between them; name is where it came from, for errors.
func Parse(name string, data []byte) (Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return Config{}, yamlpos.Explain(name, nil, err)
	}
	if len(root.Content) == 0 {
		return Config{}, nil
	}
	top, err := mapping(name, root.Content[0], "(document)", []string{"alerts"})
	if err != nil {
		return Config{}, err
	}
	if len(top) == 0 {
		return Config{}, nil
	}
	return Config{node: top[0][1]}, nil
}

// Extra is a channel configured outside the alerts section (serve's
// slack: section and its environment, the Lambdas' Slack parameters), added
// under Name so routes can name it.
type Extra struct {
	Name, Type string
	Notifier   notify.Notifier
	From       string // where it is configured, for errors
}

// rule is one route, checked.
type rule struct {
	channels  []string
	contracts []string
	providers []string
	nodes     []string // path.Match patterns
	incidents []string
	kinds     []string // expanded: no groups
}

// Router picks channels for messages and holds their notifiers.
type Router struct {
	notifiers map[string]notify.Notifier
	types     map[string]string
	rules     []rule
	deflt     []string
}

// errAt is a config error at a node.
func errAt(file string, n *yaml.Node, field, format string, args ...any) error {
	return yamlpos.At(file, n, field, format, args...)
}

// mapping returns the key/value pairs of a mapping node, refusing anything
// else and keys outside allowed (nil: any key).
func mapping(file string, n *yaml.Node, field string, allowed []string) ([][2]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, errAt(file, n, field, "want a mapping")
	}
	var out [][2]*yaml.Node
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			return nil, errAt(file, k, field+"."+k.Value, "unknown field (want one of %s)", strings.Join(allowed, ", "))
		}
		if seen[k.Value] {
			return nil, errAt(file, k, field+"."+k.Value, "given twice")
		}
		seen[k.Value] = true
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out, nil
}

// str reads a scalar string; "${NAME}" is read from the environment, so a
// secret need not sit in the file.
func str(file string, n *yaml.Node, field string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", errAt(file, n, field, "want a string")
	}
	v := n.Value
	if strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}") {
		name := v[2 : len(v)-1]
		env, ok := os.LookupEnv(name)
		if !ok || env == "" {
			return "", errAt(file, n, field, "environment variable %s is not set", name)
		}
		return env, nil
	}
	return v, nil
}

func list(file string, n *yaml.Node, field string) ([]string, error) {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return []string{n.Value}, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, errAt(file, n, field, "want a list")
	}
	var out []string
	for i, e := range n.Content {
		if e.Kind != yaml.ScalarNode || e.Value == "" {
			return nil, errAt(file, e, fmt.Sprintf("%s[%d]", field, i), "want a non-empty string")
		}
		out = append(out, e.Value)
	}
	return out, nil
}

// Build checks the config and builds the channels' notifiers; file names
// the config in errors ("gpusla.yaml", "ssm:/gpusla/alerts").
func (c Config) Build(file string, extra ...Extra) (*Router, error) {
	r := &Router{notifiers: map[string]notify.Notifier{}, types: map[string]string{}}
	if !c.Configured() {
		return nil, fmt.Errorf("%s: alerts: no channels configured", file)
	}
	top, err := mapping(file, c.node, "alerts", []string{"channels", "routes", "default"})
	if err != nil {
		return nil, err
	}
	var routesNode, defaultNode *yaml.Node
	for _, kv := range top {
		switch kv[0].Value {
		case "channels":
			if err := r.channels(file, kv[1]); err != nil {
				return nil, err
			}
		case "routes":
			routesNode = kv[1]
		case "default":
			defaultNode = kv[1]
		}
	}
	for _, e := range extra {
		if _, dup := r.notifiers[e.Name]; dup {
			return nil, errAt(file, c.node, "alerts.channels."+e.Name, "the name is taken by the channel from %s", e.From)
		}
		for name, typ := range r.types {
			if e.Type == "slack" && typ == "slack" {
				return nil, errAt(file, c.node, "alerts.channels."+name, "Slack is also configured in %s; configure it in one place", e.From)
			}
		}
		r.notifiers[e.Name], r.types[e.Name] = e.Notifier, e.Type
	}
	if len(r.notifiers) == 0 {
		return nil, errAt(file, c.node, "alerts.channels", "no channels configured")
	}
	if routesNode != nil {
		if routesNode.Kind != yaml.SequenceNode {
			return nil, errAt(file, routesNode, "alerts.routes", "want a list")
		}
		for i, rn := range routesNode.Content {
			ru, err := r.route(file, rn, fmt.Sprintf("alerts.routes[%d]", i))
			if err != nil {
				return nil, err
			}
			r.rules = append(r.rules, ru)
		}
	}
	r.deflt = r.Names()
	if defaultNode != nil {
		if defaultNode.Kind == yaml.SequenceNode && len(defaultNode.Content) == 0 {
			r.deflt = nil // explicitly nowhere
		} else if r.deflt, err = r.channelList(file, defaultNode, "alerts.default"); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *Router) channels(file string, n *yaml.Node) error {
	entries, err := mapping(file, n, "alerts.channels", nil)
	if err != nil {
		return err
	}
	slacks := 0
	for _, kv := range entries {
		name, field := kv[0].Value, "alerts.channels."+kv[0].Value
		if !channelName.MatchString(name) {
			return errAt(file, kv[0], field, "channel name %q: use 1-40 of a-z, 0-9, '-', '_'", name)
		}
		var typ string
		for i := 0; i+1 < len(kv[1].Content); i += 2 {
			if kv[1].Content[i].Value == "type" {
				typ = kv[1].Content[i+1].Value
			}
		}
		keys, ok := channelKeys[typ]
		if !ok {
			return errAt(file, kv[1], field+".type", "%q: want one of slack, feishu, dingtalk, wecom, webhook", typ)
		}
		fields, err := mapping(file, kv[1], field, append([]string{"type"}, keys...))
		if err != nil {
			return err
		}
		v := map[string]string{}
		lines := map[string]*yaml.Node{}
		for _, f := range fields {
			if f[0].Value == "type" {
				continue
			}
			if v[f[0].Value], err = str(file, f[1], field+"."+f[0].Value); err != nil {
				return err
			}
			lines[field+"."+f[0].Value] = f[0]
		}
		nt, err := build(typ, v, field)
		if err != nil {
			// The adapters name the field ("alerts.channels.ops.secret: …");
			// point at its line, or the channel's when it is missing.
			at := kv[0]
			for f, k := range lines {
				if strings.HasPrefix(err.Error(), f+":") {
					at = k
				}
			}
			return fmt.Errorf("%s:%d: %w", file, at.Line, err)
		}
		if typ == "slack" {
			// A ticket's thread is one Slack message; two Slack channels
			// would reply into each other's threads.
			if slacks++; slacks > 1 {
				return errAt(file, kv[0], field, "a second slack channel; one is allowed")
			}
		}
		r.notifiers[name], r.types[name] = nt, typ
	}
	return nil
}

// build makes the notifier of one channel from its checked fields.
func build(typ string, v map[string]string, field string) (notify.Notifier, error) {
	switch typ {
	case "slack":
		c := slack.Config{WebhookURL: v["webhook_url"], BotToken: v["bot_token"], Channel: v["channel"]}
		if err := c.Validate(); err != nil {
			// slack names its fields "slack.…"; say where this one sits.
			return nil, errors.New(field + strings.TrimPrefix(err.Error(), "slack"))
		}
		return slack.New(c)
	case "feishu":
		c := feishu.Config{WebhookURL: v["webhook_url"], Secret: v["secret"]}
		if err := c.Validate(field); err != nil {
			return nil, err
		}
		return feishu.New(c)
	case "dingtalk":
		c := dingtalk.Config{WebhookURL: v["webhook_url"], Secret: v["secret"]}
		if err := c.Validate(field); err != nil {
			return nil, err
		}
		return dingtalk.New(c)
	case "wecom":
		c := wecom.Config{WebhookURL: v["webhook_url"]}
		if err := c.Validate(field); err != nil {
			return nil, err
		}
		return wecom.New(c)
	default: // webhook
		c := webhook.Config{URL: v["url"], Secret: v["secret"]}
		if err := c.Validate(field); err != nil {
			return nil, err
		}
		return webhook.New(c)
	}
}

func (r *Router) channelList(file string, n *yaml.Node, field string) ([]string, error) {
	names, err := list(file, n, field)
	if err != nil {
		return nil, err
	}
	for i, name := range names {
		if _, ok := r.notifiers[name]; !ok {
			return nil, errAt(file, n, fmt.Sprintf("%s[%d]", field, i), "no channel named %q (have %s)", name, strings.Join(r.Names(), ", "))
		}
	}
	return names, nil
}

func (r *Router) route(file string, n *yaml.Node, field string) (rule, error) {
	var ru rule
	fields, err := mapping(file, n, field, []string{"channels", "contracts", "providers", "nodes", "incidents", "kinds"})
	if err != nil {
		return ru, err
	}
	for _, kv := range fields {
		f := field + "." + kv[0].Value
		if kv[0].Value == "channels" {
			if ru.channels, err = r.channelList(file, kv[1], f); err != nil {
				return ru, err
			}
			continue
		}
		vals, err := list(file, kv[1], f)
		if err != nil {
			return ru, err
		}
		switch kv[0].Value {
		case "contracts":
			ru.contracts = vals
		case "providers":
			ru.providers = vals
		case "nodes":
			for i, p := range vals {
				if _, err := path.Match(p, ""); err != nil {
					return ru, errAt(file, kv[1], fmt.Sprintf("%s[%d]", f, i), "%q: not a pattern (path.Match: %v)", p, err)
				}
			}
			ru.nodes = vals
		case "incidents":
			for i, k := range vals {
				if !slices.Contains(incidentKinds, incident.Kind(k)) {
					return ru, errAt(file, kv[1], fmt.Sprintf("%s[%d]", f, i), "unknown incident kind %q (want one of %s)", k, joinKinds())
				}
			}
			ru.incidents = vals
		case "kinds":
			for i, k := range vals {
				switch {
				case k == "alerts":
					for _, a := range alertKinds {
						ru.kinds = append(ru.kinds, string(a))
					}
				case k == "tickets":
					for _, t := range ticketKinds {
						ru.kinds = append(ru.kinds, "ticket_"+string(t))
					}
				case k == "notices":
					for _, n := range notify.NoticeKinds {
						ru.kinds = append(ru.kinds, string(n))
					}
				case slices.Contains(kindNames(), k):
					ru.kinds = append(ru.kinds, k)
				default:
					return ru, errAt(file, kv[1], fmt.Sprintf("%s[%d]", f, i), "unknown kind %q (want one of %s)", k, strings.Join(kindNames(), ", "))
				}
			}
		}
	}
	if len(ru.channels) == 0 {
		return ru, errAt(file, n, field+".channels", "required: which channels this route sends to")
	}
	return ru, nil
}

func joinKinds() string {
	var s []string
	for _, k := range incidentKinds {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// Names lists the channels, sorted.
func (r *Router) Names() []string {
	var out []string
	for n := range r.notifiers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Notifier returns the channel's notifier.
func (r *Router) Notifier(name string) (notify.Notifier, bool) {
	n, ok := r.notifiers[name]
	return n, ok
}

// Type returns the channel's type ("slack", "feishu", …).
func (r *Router) Type(name string) string { return r.types[name] }

// subject is what a route matches against.
type subject struct {
	contract, provider, node, incident string
	kind, opening                      string // opening: the kind that started it ("" for an opening)
}

func (ru rule) matches(s subject) bool {
	in := func(set []string, v string) bool { return len(set) == 0 || slices.Contains(set, v) }
	if !in(ru.contracts, s.contract) || !in(ru.providers, s.provider) {
		return false
	}
	if len(ru.incidents) > 0 && (s.incident == "" || !slices.Contains(ru.incidents, s.incident)) {
		return false
	}
	if len(ru.nodes) > 0 && !slices.ContainsFunc(ru.nodes, func(p string) bool { ok, _ := path.Match(p, s.node); return ok }) {
		return false
	}
	return len(ru.kinds) == 0 || slices.Contains(ru.kinds, s.kind) || s.opening != "" && slices.Contains(ru.kinds, s.opening)
}

func (r *Router) pick(s subject) []string {
	var out []string
	for _, ru := range r.rules {
		if ru.matches(s) {
			out = append(out, ru.channels...)
		}
	}
	if len(out) == 0 { // every route has channels: none matched
		out = r.deflt
	}
	out = slices.Clone(out)
	sort.Strings(out)
	return slices.Compact(out)
}

// AlertChannels names the channels an alert about a node bought under
// contract goes to.
func (r *Router) AlertChannels(contract string, a notify.Alert) []string {
	s := subject{contract: contract, provider: a.Provider, node: a.Node, incident: a.IncidentKind, kind: string(a.Kind)}
	switch {
	case a.Kind == notify.AlertDelivered:
		s.opening = string(notify.AlertDeliveryOverdue) // it follows the overdue alert, if one was sent
	case notify.IsDelivery(a), a.Kind == notify.AlertDegraded, a.Kind == notify.AlertUnreachable, a.Kind == notify.AlertLimits:
	default:
		s.opening = string(notify.AlertDegraded)
		if a.IncidentKind == string(incident.Unreachable) {
			s.opening = string(notify.AlertUnreachable)
		}
	}
	return r.pick(s)
}

// TicketChannels names the channels a ticket message goes to.
func (r *Router) TicketChannels(contract string, m notify.TicketMessage) []string {
	s := subject{contract: contract, provider: m.Provider, node: m.Node, kind: "ticket_" + string(m.Kind)}
	if m.Kind != notify.TicketOpened {
		s.opening = "ticket_" + string(notify.TicketOpened)
	}
	return r.pick(s)
}

// NoticeChannels names the channels a notice about a contract goes to: the
// routes that match its contract, provider and kind, or default.
func (r *Router) NoticeChannels(contract string, n notify.Notice) []string {
	return r.pick(subject{contract: contract, provider: n.Provider, kind: string(n.Kind)})
}

// NoticePoster returns the channel's notice poster; every channel type
// has one.
func (r *Router) NoticePoster(name string) (notify.NoticePoster, bool) {
	n, ok := r.notifiers[name]
	if !ok {
		return nil, false
	}
	p, ok := n.(notify.NoticePoster)
	return p, ok
}
