package replacement

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/terms"
)

// TextInput is what a ticket text is made from.
type TextInput struct {
	Evidence *Evidence
	Terms    *terms.Terms // the node's contract; nil: not loaded (no clause cited)
	// Due is the replacement deadline the ticket desk computed for the
	// ticket (zero: none), so the text and the clock agree by construction.
	Due   time.Time
	Pack  string // the pack's file name
	KeyID string // the signing key's fingerprint (KeyID)
}

// maxLines caps the failing checks and stress results listed in the text
// (the pack has all of them): a ticket form is read by a person.
const maxLines = 12

// Text renders the ticket text in lang. Every sentence is one entry of the
// message catalog (sla/i18n, keyed by the English sentence); the
// values in it (ids, measured values, criteria) are the probe's own and
// stay as measured.
func Text(in TextInput, lang Lang) (string, error) {
	var parts []string
	for _, p := range lang.printers() {
		parts = append(parts, text(p, in))
		if miss := p.Missing(); len(miss) > 0 {
			return "", fmt.Errorf("ticket text (%s): no translation for %q", p.Lang, miss)
		}
	}
	return strings.Join(parts, "\n----------------------------------------\n\n"), nil
}

func text(p *i18n.Printer, in TextInput) string {
	ev := in.Evidence
	loc := time.UTC
	if in.Terms != nil && in.Terms.TimeZone != "" {
		if l, err := time.LoadLocation(in.Terms.TimeZone); err == nil {
			loc = l
		}
	}
	// The zone is named once, in the lines that open the text and in the
	// deadline; the lists give the clock alone.
	ts := func(t time.Time) string { return p.At(t, loc, false) }
	tc := func(t time.Time) string { return p.Clock(t.In(loc), false) }
	var b strings.Builder
	line := func(key string, args ...any) { b.WriteString(p.T(key, args...) + "\n") }
	n, inc := ev.Node, ev.Incident
	// checkLine: the sentence with the GPU when the check names one.
	checkLine := func(c Check, withGPU, without string, rest ...any) {
		if c.Check.GPU != nil {
			line(withGPU, append([]any{tc(c.At), c.Check.Name, *c.Check.GPU}, rest...)...)
			return
		}
		line(without, append([]any{tc(c.At), c.Check.Name}, rest...)...)
	}

	line("[Hardware fault: please replace the physical machine] node %s", n.ID)
	b.WriteString("\n")
	ordered := fmt.Sprintf("%d × %s", n.GPUCount, n.GPUModel)
	if n.GPUMemoryMiB > 0 {
		ordered += fmt.Sprintf(" %d GiB", n.GPUMemoryMiB/1024)
	}
	line("Ordered: %s (%s, contract %s, ordered %s)", ordered, n.Provider, n.Contract, ts(n.OrderedAt))
	line("Fault: %s (incident %s)", msg.Word(inc.Kind), inc.ID)
	if inc.Open() {
		line("Since: %s, still failing (%s so far)", ts(inc.Start), ev.AsOf.Sub(inc.Start).Round(time.Minute))
	} else {
		line("Since: %s; recovered at %s, but the fault may recur", ts(inc.Start), ts(inc.End))
	}

	b.WriteString("\n")
	line("Times below are in %s.", p.ZoneName(loc, ev.AsOf, ev.AsOf))
	groups := groupChecks(ev.Failing)
	line("Measured (%d failing checks, %d results):", len(groups), len(ev.Failing))
	for _, g := range lastGroups(groups, maxLines) {
		k := g.last.Check
		checkLine(g.last, "- %s %s (GPU %d): measured %s, criterion %s, verdict: %s", "- %s %s: measured %s, criterion %s, verdict: %s",
			dash(k.Value), dash(k.Criterion), msg.Word(k.Verdict))
		if g.n > 1 {
			line("  %d results from %s to %s", g.n, tc(g.first), tc(g.last.At))
		}
		if k.Detail != "" && !(strings.HasPrefix(k.Name, "gpu.xid") && len(ev.Kernel) > 0) {
			line("  detail: %s", k.Detail) // an XID check's lines are listed on their own below
		}
	}
	if len(ev.Kernel) > 0 {
		b.WriteString("\n")
		line("Kernel log (XID):")
		for _, l := range ev.Kernel {
			b.WriteString("  " + l + "\n")
		}
	}
	if len(ev.Stress) > 0 {
		b.WriteString("\n")
		line("Stress results:")
		for _, c := range lastOf(ev.Stress, maxLines) {
			checkLine(c, "- %s %s (GPU %d): %s (criterion %s, %s)", "- %s %s: %s (criterion %s, %s)",
				dash(c.Check.Value), dash(c.Check.Criterion), msg.Word(c.Check.Verdict))
		}
	}
	if len(ev.First) > 0 {
		bad := 0
		for _, c := range ev.First {
			if c.Check.Verdict == "warn" || c.Check.Verdict == "fail" {
				bad++
			}
		}
		b.WriteString("\n")
		line("First checks at delivery: %s, %d checks, %d not passing", tc(ev.First[0].At), len(ev.First), bad)
	}

	b.WriteString("\n")
	switch {
	case in.Terms == nil || in.Terms.Replacement.Within <= 0:
		line("Request: please replace the physical machine. Contract %s sets no replacement time; please tell us when the machine will be replaced.", n.Contract)
	case in.Due.IsZero():
		r := in.Terms.Replacement
		line("Request: please replace the physical machine. Under %s of contract %s (hardware replacement within %s, %s clock), the replacement time runs from this ticket.",
			clause(p, in.Terms), n.Contract, r.Within, msg.Word(r.Clock))
	default:
		r := in.Terms.Replacement
		line("Request: please replace the physical machine. Under %s of contract %s (hardware replacement within %s, %s clock), the replacement time runs from this ticket: it is due by %s.",
			clause(p, in.Terms), n.Contract, r.Within, msg.Word(r.Clock), ts(in.Due))
	}
	line("Evidence pack: %s, with the raw check data and an ed25519-signed manifest (key fingerprint %s); check it with gpusla verify.", in.Pack, in.KeyID)
	return b.String()
}

// clause names the contract's hardware replacement clause by its own
// number (第6条); the terms file and line are the pack's, not the ticket's.
func clause(p *i18n.Printer, t *terms.Terms) string {
	if id := t.Clause("hardware_replacement").ID; id != "" {
		return p.T("clause %s", id)
	}
	return p.T("the hardware replacement clause")
}

// checkGroup is one check (name and GPU) failing one or more times.
type checkGroup struct {
	first time.Time
	last  Check
	n     int
}

// groupChecks folds the failing results by check, in order of first
// failure: a ticket lists each failing check once, with how often.
func groupChecks(cs []Check) []checkGroup {
	var out []checkGroup
	at := map[string]int{}
	for _, c := range cs {
		key := c.Check.Name
		if c.Check.GPU != nil {
			key += fmt.Sprintf("#%d", *c.Check.GPU)
		}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, checkGroup{first: c.At})
		}
		out[i].last = c
		out[i].n++
	}
	return out
}

func lastGroups(g []checkGroup, max int) []checkGroup {
	if len(g) > max {
		return g[len(g)-max:]
	}
	return g
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// lastOf is the newest max of s (s is oldest first).
func lastOf(s []Check, max int) []Check {
	if len(s) > max {
		return s[len(s)-max:]
	}
	return s
}
