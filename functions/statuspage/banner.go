package statuspage

import (
	"strings"

	"github.com/gpusla/gpusla/sla/i18n"
)

// Banner is the page's overall status, the line hosted status pages open
// with: every node up; some degraded; some down or unreachable; none in
// service yet. Nodes still awaiting delivery, and those given back
// (released), are not counted against it and are named apart.
type Banner struct {
	Class string `json:"class"` // ok, degraded, down, none
	Text  string `json:"text"`
	Sub   string `json:"sub,omitempty"`
}

// banner judges p's nodes, already drawn with their states.
func banner(pr *i18n.Printer, p *Page) Banner {
	down, degraded, waiting, released := 0, 0, 0, 0
	for _, n := range p.Nodes {
		switch n.State {
		case "down", "unreachable":
			down++
		case "degraded":
			degraded++
		case "waiting":
			waiting++
		case "released":
			released++
		}
	}
	inService := len(p.Nodes) - waiting - released
	// The public page draws only the nodes whose terms list them, so with
	// none of those in service it can say nothing of the rest: a node in
	// service kept off it must not read as released. Its words are the same
	// whether such nodes exist or not, so they tell a visitor nothing of them.
	public := p.Mode == Public
	b := Banner{Class: "ok", Text: pr.T("All nodes operational")}
	var sub []string
	switch {
	case inService == 0 && released > 0 && waiting == 0 && public:
		b = Banner{Class: "none", Text: pr.T("No node on the public page is in service: every node shown here was released")}
	case inService == 0 && released > 0 && waiting == 0:
		b = Banner{Class: "none", Text: pr.T("No node in service: every node was released")}
	case inService == 0 && public:
		b = Banner{Class: "none", Text: pr.T("No node on the public page is in service yet")}
	case inService == 0:
		b = Banner{Class: "none", Text: pr.T("No node in service yet")}
	case down > 0:
		b = Banner{Class: "down", Text: pr.T("Outage: %d of %d nodes down or unreachable", down, inService)}
	case degraded > 0:
		b = Banner{Class: "degraded", Text: pr.T("Degraded: %d of %d nodes", degraded, inService)}
	}
	if inService == 0 && public {
		sub = append(sub, pr.T("nodes whose terms keep them off the public page are shown only in the team view"))
	}
	if len(p.Open) > 0 || len(p.Tickets) > 0 {
		sub = append(sub, pr.T("%d open incident(s), %d open ticket(s)", len(p.Open), len(p.Tickets)))
	}
	if waiting > 0 && inService > 0 {
		sub = append(sub, pr.T("%d node(s) awaiting delivery", waiting))
	}
	if released > 0 && inService > 0 {
		sub = append(sub, pr.T("%d node(s) released", released))
	}
	b.Sub = strings.Join(sub, sep(pr))
	return b
}

func sep(pr *i18n.Printer) string {
	if pr.Lang == i18n.ZH {
		return "；"
	}
	return "; "
}
