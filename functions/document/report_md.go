package document

import (
	"io"
	"strings"
)

// writeMarkdown writes the report as Markdown (for Slack, mail and tickets):
// the claim pages first, then the summary and each node.
func writeMarkdown(w io.Writer, d *doc) error {
	var b strings.Builder
	b.WriteString("# " + mdText(d.Title) + "\n\n")
	if d.Provisional != "" {
		b.WriteString("> **" + mdText(d.Provisional) + "**\n\n")
	}
	b.WriteString(mdText(d.Intro) + "\n\n")
	b.WriteString("**" + mdText(d.TotalLabel+strings.TrimSpace(d.P.Colon())) + "** " + strings.Join(bold(d.Totals), " · ") + "\n")
	if l := d.LeftOut; l != nil {
		b.WriteString("\n## " + mdText(l.Title) + "\n\n**" + mdText(l.Intro) + "**\n\n")
		mdTable(&b, l.Table)
	}
	for _, c := range d.Claims {
		mdClaim(&b, c)
	}
	b.WriteString("\n## " + mdText(d.Contracts.Title) + "\n\n")
	mdTable(&b, d.Contracts)
	b.WriteString("\n")
	mdTable(&b, d.Nodes)
	mdRetro(&b, d.Retro)
	if d.Bill != nil {
		b.WriteString("\n## " + mdText(d.Bill.Title) + "\n\n")
		mdTable(&b, *d.Bill)
	}
	if l := d.Lines; l != nil {
		b.WriteString("\n## " + mdText(l.Title) + "\n\n")
		for _, t := range l.Totals {
			b.WriteString("- " + mdText(t) + "\n")
		}
		b.WriteString("\n")
		mdTable(&b, l.Table)
	}
	for _, s := range d.Status {
		b.WriteString("\n## " + mdText(s.Title) + "\n\n" + mdText(s.Intro) + "\n\n")
		for _, n := range s.Notes {
			b.WriteString("- " + mdText(n) + "\n")
		}
		for _, t := range s.tables() {
			b.WriteString("\n### " + mdText(t.Title) + "\n\n")
			mdTable(&b, t)
		}
	}
	if f := d.Fleet; f != nil {
		b.WriteString("\n## " + mdText(f.Title) + "\n\n" + mdText(f.Intro) + "\n\n")
		mdTable(&b, f.Dists)
		if len(f.Findings) > 0 {
			b.WriteString("\n### " + mdText(f.Slow) + "\n\n")
			for _, x := range f.Findings {
				b.WriteString("- " + mdText(x) + "\n")
			}
		}
		if f.Drift != nil {
			b.WriteString("\n### " + mdText(f.Drift.Title) + "\n\n")
			mdTable(&b, *f.Drift)
		}
	}
	if sc := d.Score; sc != nil {
		b.WriteString("\n## " + mdText(sc.Title) + "\n\n" + mdText(sc.Intro) + "\n")
		for _, w := range sc.Warnings {
			b.WriteString("\n> " + mdText(w) + "\n")
		}
		for _, t := range sc.Tables {
			b.WriteString("\n### " + mdText(t.Title) + "\n\n")
			mdTable(&b, t)
		}
	}
	for _, s := range d.NodeSecs {
		b.WriteString("\n## " + mdText(s.Heading) + " (" + mdInline(s.Sub) + ")\n\n" + mdText(s.Para) + "\n\n")
		for _, c := range s.Cards {
			v := mdInline(c.Value)
			if c.Bad {
				v = "**" + v + "**"
			}
			b.WriteString("- " + mdText(c.Label) + ": " + v + " — " + mdInline(c.Note) + "\n")
		}
		for _, p := range s.Penalties {
			b.WriteString("  - " + mdText(p) + "\n")
		}
		for _, t := range []*table{s.Outages, s.Maint, s.Tickets} {
			if t != nil {
				b.WriteString("\n### " + mdText(t.Title) + "\n\n")
				mdTable(&b, *t)
			}
		}
		if len(s.Quality) > 0 {
			b.WriteString("\n### " + mdText(s.QTitle) + "\n\n")
			for _, q := range s.Quality {
				b.WriteString("- " + mdText(q) + "\n")
			}
		}
		if len(s.Usage) > 0 {
			b.WriteString("\n### " + mdText(s.UTitle) + "\n\n")
			for _, u := range s.Usage {
				b.WriteString("- " + mdText(u) + "\n")
			}
		}
	}
	b.WriteString("\n---\n" + mdText(d.Footer) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// mdClaim writes one claim letter: its head as label and value lines (the
// label's colon the letter's own: "：" in Chinese), the breaches, the
// request, the evidence, the signature block and the appendix.
func mdClaim(b *strings.Builder, c claimPage) {
	b.WriteString("\n## " + mdText(c.Title) + "\n\n")
	for _, f := range c.Fields {
		b.WriteString("- **" + mdText(f.Label+strings.TrimSpace(c.P.Colon())) + "** " + mdInline(f.Value) + "\n")
	}
	b.WriteString("\n")
	mdTable(b, c.Breaches)
	if t := c.Incidents; t != nil {
		b.WriteString("\n### " + mdText(t.Title) + "\n\n")
		mdTable(b, *t)
	}
	b.WriteString("\n" + mdText(c.Request) + "\n\n")
	for i, s := range c.Procedure {
		if i == 0 {
			b.WriteString(mdText(s) + "\n\n")
			continue
		}
		b.WriteString("- " + mdText(s) + "\n")
		if i == len(c.Procedure)-1 {
			b.WriteString("\n")
		}
	}
	for _, s := range c.Approx {
		b.WriteString("**" + mdText(s) + "**\n\n")
	}
	if c.Unverified != "" {
		b.WriteString("**" + mdText(c.Unverified) + "**\n\n")
	}
	for i, f := range c.Evidence {
		b.WriteString("- " + mdText(f.Label+c.P.Colon()) + mdCode(f.Value) + "\n")
		if i == len(c.Evidence)-1 {
			b.WriteString("\n")
		}
	}
	b.WriteString(mdText(c.Note) + "\n\n")
	for _, s := range c.Sign {
		b.WriteString(mdText(s) + "\n\n")
	}
	b.WriteString("### " + mdText(c.Appendix.Title) + "\n\n")
	mdTable(b, c.Appendix)
	b.WriteString("\n" + mdText(c.AppNote) + "\n")
	if t := c.Sources; t != nil {
		b.WriteString("\n### " + mdText(t.Title) + "\n\n")
		mdTable(b, *t)
	}
}

// mdRetro writes the retroactive records section.
func mdRetro(b *strings.Builder, r *retroSec) {
	if r == nil {
		return
	}
	b.WriteString("\n## " + mdText(r.Title) + "\n\n" + mdText(r.Intro) + "\n\n")
	for _, n := range r.Notes {
		b.WriteString("- " + mdText(n) + "\n")
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
	}
	mdTable(b, r.Table)
}

func bold(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = "**" + mdInline(s) + "**"
	}
	return out
}

func mdTable(b *strings.Builder, t table) {
	b.WriteString("|")
	for _, h := range t.Head {
		b.WriteString(" " + mdInline(h) + " |")
	}
	b.WriteString("\n|")
	for i := range t.Head {
		if i < len(t.Num) && t.Num[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + mdCell(c) + " |")
		}
		b.WriteString("\n")
	}
}

// mdCell is a table cell: text through mdInline, except a bare web address
// (a source's URL), which is shown literally as code, so the provider's
// desk can copy it as printed; code is never a link, and an address with a
// space, a backtick or a cell boundary in it is text like any other.
func mdCell(c string) string {
	if (strings.HasPrefix(c, "https://") || strings.HasPrefix(c, "http://")) && !strings.ContainsAny(c, " \t|`") {
		return mdCode(c)
	}
	return mdInline(c) // a cell is never a block: "#2 of 3" stays readable
}
