package terms

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Languages a report can be written in (report.lang, gpusla report --lang).
var Languages = []string{"en", "zh"}

// Clause keys: the parts of a contract a claim rests on. Each is a section
// (or a part of one) of the terms file; a claim cites the clause id the
// contract gives it under clauses:, and always the file and line.
var ClauseKeys = []string{"uptime", "uptime.tiers", "uptime.credit_cap", "maintenance", "support.response",
	"support.resolution", "support.late_response_penalty", "hardware_replacement", "delivery", "claim", "billing", "credits"}

// Paperwork is what a claim document needs beyond the numbers.
type Paperwork struct {
	Renter         string // the customer filing the claim
	ContractNumber string // the provider's contract or order number
	Lang           string // report.lang: the language documents default to
	// Clauses are where each clause key is: the contract's own clause id
	// (clauses:) and the terms file line.
	Clauses map[string]Clause
}

// Clause is one clause a claim cites.
type Clause struct {
	ID   string // the contract's clause number, e.g. "§4.2"; may be empty
	File string // the terms file's base name
	Line int    // 0 when the terms leave the section out (defaults apply)
}

// String is "§4.2 (cn-example.yaml:43)", or the file and line alone (the
// file alone for a section the terms leave out, whose defaults apply).
func (c Clause) String() string {
	where := c.File
	if c.Line > 0 {
		where = fmt.Sprintf("%s:%d", c.File, c.Line)
	}
	switch {
	case c.ID != "" && c.Line > 0:
		return c.ID + " (" + where + ")"
	case c.ID != "":
		return c.ID
	}
	return where
}

// Clause is where key (one of ClauseKeys) is in the contract; a key without
// a line of its own cites its section.
func (t *Terms) Clause(key string) Clause {
	if c, ok := t.Paperwork.Clauses[key]; ok && (c.Line > 0 || c.ID != "") {
		return c
	}
	if sec, _, ok := strings.Cut(key, "."); ok {
		return t.Clause(sec)
	}
	return Clause{File: filepath.Base(t.File)}
}

// paperwork reads renter, contract_number, report and clauses, and notes
// the line of every clause key.
func (p *parser) paperwork(root *yaml.Node, o *object, t *Terms) error {
	w := Paperwork{Lang: "en", Clauses: map[string]Clause{}}
	base := filepath.Base(p.file)
	for _, k := range ClauseKeys {
		w.Clauses[k] = Clause{File: base, Line: keyLine(root, strings.Split(k, ".")...)}
	}
	for key, dst := range map[string]*string{"renter": &w.Renter, "contract_number": &w.ContractNumber} {
		if n, ok := o.vals[key]; ok {
			s, err := p.str(n, key)
			if err != nil {
				return err
			}
			*dst = s
		}
	}
	if n, ok := o.vals["report"]; ok {
		r, err := p.object(n, "report", "lang")
		if err != nil {
			return err
		}
		if v, ok := r.vals["lang"]; ok {
			s, err := p.scalar(v, "report.lang")
			if err != nil {
				return err
			}
			if !slices.Contains(Languages, s) {
				return p.err(v, "report.lang", "%q is not a language reports are written in (%s)", s, strings.Join(Languages, ", "))
			}
			w.Lang = s
		}
	}
	if n, ok := o.vals["clauses"]; ok {
		c, err := p.object(n, "clauses", ClauseKeys...)
		if err != nil {
			return err
		}
		for _, k := range c.keys {
			id, err := p.str(c.vals[k], "clauses."+k)
			if err != nil {
				return err
			}
			cl := w.Clauses[k]
			cl.ID = id
			w.Clauses[k] = cl
		}
	}
	t.Paperwork = w
	return nil
}

// keyLine is the line of the key at path in the mapping root; 0 if absent.
func keyLine(root *yaml.Node, path ...string) int {
	n := root
	line := 0
	for _, k := range path {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n.Kind != yaml.MappingNode {
			return 0
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				line, n, found = n.Content[i].Line, n.Content[i+1], true
				break
			}
		}
		if !found {
			return 0
		}
	}
	return line
}
