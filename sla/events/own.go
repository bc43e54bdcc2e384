package events

import "strings"

// goccy's Unmarshal points the strings it decodes into its copy of the line
// instead of copying each. A consumer that keeps one of them (every report
// keeps each event's id, to ignore a repeat) would keep the whole line: a
// year of stress results kept whole is the log's size again. So every
// string is made the event's own before the event is handed on: the few
// that recur on every line (check names, categories, verdicts, units, node
// ids) are interned, one copy for the whole log, and the rest copied.

// maxInterned bounds the interner: past it, strings are copied, not kept.
// A fleet's check names, units and node ids are a few thousand at most.
const maxInterned = 1 << 14

// interner hands out one copy of each string it is given. Not safe for
// concurrent use: each lineDecoder has its own.
type interner struct {
	m map[string]string
	// recent holds the string last handed out for each small hash: the
	// checks of one observation repeat their category, verdict and unit,
	// and a comparison costs less than the map's hash.
	recent [64]string
}

func (in *interner) intern(s string) string {
	if s == "" {
		return ""
	}
	h := (len(s)*7 ^ int(s[0]) ^ int(s[len(s)-1])<<1 ^ int(s[len(s)/2])<<2) & 63
	if r := in.recent[h]; r == s {
		return r
	}
	v, ok := in.m[s]
	if !ok {
		v = strings.Clone(s)
		if in.m == nil {
			in.m = make(map[string]string)
		}
		if len(in.m) < maxInterned {
			in.m[v] = v
		}
	}
	in.recent[h] = v
	return v
}

func clone(s string) string {
	if s == "" {
		return ""
	}
	return strings.Clone(s)
}

// own makes every string of e its own (TestOwnCoversEveryString holds the
// list to the types).
func (d *lineDecoder) own(e *Event) {
	d.ownWith(e, d.names.intern, clone)
}

// ownWith passes every string field of e through intern (those whose
// values recur across lines) or dup (the others).
func (d *lineDecoder) ownWith(e *Event, intern, dup func(string) string) {
	e.Type, e.ID, e.Node, e.Contract = intern(e.Type), dup(e.ID), intern(e.Node), intern(e.Contract)
	e.InstanceID, e.Region = dup(e.InstanceID), intern(e.Region)
	if h := e.Hardware; h != nil {
		h.GPUModel, h.Description = intern(h.GPUModel), dup(h.Description)
	}
	e.Batch, e.Hash, e.Kind = dup(e.Batch), dup(e.Hash), intern(e.Kind)
	for i := range e.Checks {
		c := &e.Checks[i]
		c.Name, c.Category, c.Verdict = intern(c.Name), intern(c.Category), intern(c.Verdict)
		c.Value, c.Criterion, c.Unit = dup(c.Value), intern(c.Criterion), intern(c.Unit)
		c.UUID, c.Detail = intern(c.UUID), dup(c.Detail)
	}
	e.Ticket, e.Priority, e.Category = dup(e.Ticket), intern(e.Priority), intern(e.Category)
	e.ProviderRef, e.Summary = dup(e.ProviderRef), dup(e.Summary)
	e.Reason, e.ExpectedPrev, e.GotPrev = dup(e.Reason), dup(e.ExpectedPrev), dup(e.GotPrev)
	e.Source, e.Format, e.Status, e.Impact = intern(e.Source), intern(e.Format), intern(e.Status), intern(e.Impact)
	e.Link, e.RecordedBy, e.Override, e.Token = dup(e.Link), intern(e.RecordedBy), dup(e.Override), intern(e.Token)
	for i, c := range e.Components {
		e.Components[i] = intern(c)
	}
}
