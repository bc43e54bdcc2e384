package document

import (
	"io"
	"strings"
)

// writeMarkdown writes the report as Markdown (for Slack, mail and tickets):
// the claim pages first, then the summary and each node.
func writeMarkdown(w io.Writer, d *doc) error {
	var b strings.Builder
	b.WriteString("# " + d.Title + "\n\n" + d.Intro + "\n\n")
	b.WriteString("**" + d.P.T("Total claim") + strings.TrimSpace(d.P.Colon()) + "** " + strings.Join(bold(d.Totals), " · ") + "\n")
	if l := d.LeftOut; l != nil {
		b.WriteString("\n## " + l.Title + "\n\n**" + mdCell(l.Intro) + "**\n\n")
		mdTable(&b, l.Table)
	}
	for _, c := range d.Claims {
		mdClaim(&b, c)
	}
	b.WriteString("\n## " + d.Contracts.Title + "\n\n")
	mdTable(&b, d.Contracts)
	b.WriteString("\n")
	mdTable(&b, d.Nodes)
	mdRetro(&b, d.Retro)
	if d.Bill != nil {
		b.WriteString("\n## " + d.Bill.Title + "\n\n")
		mdTable(&b, *d.Bill)
	}
	if l := d.Lines; l != nil {
		b.WriteString("\n## " + l.Title + "\n\n")
		for _, t := range l.Totals {
			b.WriteString("- " + mdCell(t) + "\n")
		}
		b.WriteString("\n")
		mdTable(&b, l.Table)
	}
	for _, s := range d.Status {
		b.WriteString("\n## " + s.Title + "\n\n" + mdCell(s.Intro) + "\n\n")
		for _, n := range s.Notes {
			b.WriteString("- " + mdCell(n) + "\n")
		}
		for _, t := range s.tables() {
			b.WriteString("\n### " + t.Title + "\n\n")
			mdTable(&b, t)
		}
	}
	if f := d.Fleet; f != nil {
		b.WriteString("\n## " + f.Title + "\n\n" + f.Intro + "\n\n")
		mdTable(&b, f.Dists)
		if len(f.Findings) > 0 {
			b.WriteString("\n### " + f.Slow + "\n\n")
			for _, x := range f.Findings {
				b.WriteString("- " + mdCell(x) + "\n")
			}
		}
		if f.Drift != nil {
			b.WriteString("\n### " + f.Drift.Title + "\n\n")
			mdTable(&b, *f.Drift)
		}
	}
	if sc := d.Score; sc != nil {
		b.WriteString("\n## " + sc.Title + "\n\n" + sc.Intro + "\n")
		for _, t := range sc.Tables {
			b.WriteString("\n### " + t.Title + "\n\n")
			mdTable(&b, t)
		}
	}
	for _, s := range d.NodeSecs {
		b.WriteString("\n## " + s.Heading + " (" + mdCell(s.Sub) + ")\n\n" + s.Para + "\n\n")
		for _, c := range s.Cards {
			v := c.Value
			if c.Bad {
				v = "**" + v + "**"
			}
			b.WriteString("- " + c.Label + ": " + v + " — " + mdCell(c.Note) + "\n")
		}
		for _, p := range s.Penalties {
			b.WriteString("  - " + mdCell(p) + "\n")
		}
		for _, t := range []*table{s.Outages, s.Maint, s.Tickets} {
			if t != nil {
				b.WriteString("\n### " + t.Title + "\n\n")
				mdTable(&b, *t)
			}
		}
		if len(s.Quality) > 0 {
			b.WriteString("\n### " + s.QTitle + "\n\n")
			for _, q := range s.Quality {
				b.WriteString("- " + mdCell(q) + "\n")
			}
		}
		if len(s.Usage) > 0 {
			b.WriteString("\n### " + s.UTitle + "\n\n")
			for _, u := range s.Usage {
				b.WriteString("- " + mdCell(u) + "\n")
			}
		}
	}
	b.WriteString("\n---\n" + d.Footer + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// mdClaim writes one claim letter: its head as label and value lines (the
// label's colon the letter's own: "：" in Chinese), the breaches, the
// request, the evidence, the signature block and the appendix.
func mdClaim(b *strings.Builder, c claimPage) {
	b.WriteString("\n## " + c.Title + "\n\n")
	for _, f := range c.Fields {
		b.WriteString("- **" + f.Label + strings.TrimSpace(c.P.Colon()) + "** " + mdCell(f.Value) + "\n")
	}
	b.WriteString("\n")
	mdTable(b, c.Breaches)
	b.WriteString("\n" + c.Request + "\n\n")
	if c.Unverified != "" {
		b.WriteString("**" + mdCell(c.Unverified) + "**\n\n")
	}
	for i, f := range c.Evidence {
		b.WriteString("- " + f.Label + c.P.Colon() + "`" + f.Value + "`\n")
		if i == len(c.Evidence)-1 {
			b.WriteString("\n")
		}
	}
	b.WriteString(c.Note + "\n\n")
	for _, s := range c.Sign {
		b.WriteString(mdCell(s) + "\n\n")
	}
	b.WriteString("### " + c.Appendix.Title + "\n\n")
	mdTable(b, c.Appendix)
	b.WriteString("\n" + c.AppNote + "\n")
	if t := c.Sources; t != nil {
		b.WriteString("\n### " + t.Title + "\n\n")
		mdTable(b, *t)
	}
}

// mdRetro writes the retroactive records section.
func mdRetro(b *strings.Builder, r *retroSec) {
	if r == nil {
		return
	}
	b.WriteString("\n## " + r.Title + "\n\n" + mdCell(r.Intro) + "\n\n")
	for _, n := range r.Notes {
		b.WriteString("- " + mdCell(n) + "\n")
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
	}
	mdTable(b, r.Table)
}

func bold(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = "**" + s + "**"
	}
	return out
}

func mdCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}

func mdTable(b *strings.Builder, t table) {
	b.WriteString("|")
	for _, h := range t.Head {
		b.WriteString(" " + mdCell(h) + " |")
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
