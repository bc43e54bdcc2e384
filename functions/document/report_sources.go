package document

import (
	"io"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

// leftOutSec names the nodes the report could not judge (report.LeftOut):
// registered under a contract no terms file given defines. It is drawn
// first, above the claims, whenever there is one, so a partial report
// never passes for a whole one.
type leftOutSec struct {
	Title string
	Intro string
	Table table
}

func leftOutSection(p *i18n.Printer, l []report.Skipped) *leftOutSec {
	if len(l) == 0 {
		return nil
	}
	s := &leftOutSec{Title: p.T("Nodes left out of this report"),
		Intro: p.T("This report is partial: %d nodes are registered under a contract that no terms file given defines, so they could not be judged. Their outages, tickets and credits are not in any figure below; report them again with their contract's terms.", len(l)),
		Table: table{Widths: []float64{16, 16, 60}, Head: []string{p.T("node"), p.T("contract"), p.T("why")}}}
	for _, x := range l {
		s.Table.add(x.Node, x.Contract, p.Text(x.Text))
	}
	return s
}

// sourcesTable is the claim appendix's list of the pages the contract's
// figures were read from, each with the clause quoted, so the billing desk
// can check every figure against its own published text; nil when the
// terms cite none.
func sourcesTable(p *i18n.Printer, c *report.Contract) *table {
	if len(c.Sources) == 0 {
		return nil
	}
	t := &table{Title: p.T("Sources: the published text of each term"), Widths: []float64{18, 26, 10, 36, 10},
		Head: []string{p.T("terms"), p.T("page"), p.T("read"), p.T("clause as published"), p.T("provider's own text")}}
	for _, s := range c.Sources {
		t.add(strings.Join(s.Terms, ", "), readable(s.URL), p.Day(s.Read), s.Quote, p.Yes(!s.Secondary))
		t.Bad = append(t.Bad, []bool{false, false, false, false, s.Secondary})
	}
	return t
}

// readable is a page address as its reader types it: the percent-escapes
// of a path in Chinese (…/%E6%9C%8D…) decoded, the address otherwise as
// given (the CSV keeps it as given).
func readable(u string) string {
	if d, err := url.PathUnescape(u); err == nil && utf8.ValidString(d) {
		return d
	}
	return u
}

// unverifiedNote is the claim's sentence naming the terms only a secondary
// source backs: the provider may hold its own text against them.
func unverifiedNote(p *i18n.Printer, c *report.Contract) string {
	if len(c.Unverified) == 0 {
		return ""
	}
	sep := ", "
	if p.Lang == i18n.ZH {
		sep = "、"
	}
	return p.T("Unverified terms: %s. They rest on a secondary source or on none, not on the provider's own published text; the figures resting on them are to be checked against the provider's SLA.", strings.Join(c.Unverified, sep))
}

// csvLeftOut writes the nodes left out as a table of their own, after a
// blank line, when there are any.
func csvLeftOut(w io.Writer, cw sheet, d *doc, l []report.Skipped) error {
	if len(l) == 0 {
		return nil
	}
	cw.Flush()
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	if err := cw.row(csvHead(d, []string{"left_out_node", "contract", "reason"})); err != nil {
		return err
	}
	for _, x := range l {
		why := x.Reason
		if d.P.Lang != "en" {
			why = d.P.Text(x.Text)
		}
		if err := cw.row([]string{x.Node, x.Contract, why}); err != nil {
			return err
		}
	}
	return nil
}

// csvSources writes every contract's sources as a table of their own, so
// a sheet of claims carries which figures are unverified: the terms of a
// secondary source that no primary one backs.
func csvSources(w io.Writer, cw sheet, d *doc, cs []report.Contract) error {
	var rows [][]string
	for _, c := range cs {
		for _, s := range c.Sources {
			var unv []string
			for _, k := range s.Terms {
				if slices.Contains(c.Unverified, k) {
					unv = append(unv, k)
				}
			}
			rows = append(rows, []string{c.Contract, strings.Join(s.Terms, " "), s.URL, s.Read, csvBool(d, s.Secondary), strings.Join(unv, " "), s.Quote})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	cw.Flush()
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	if err := cw.row(csvHead(d, []string{"source_contract", "terms", "url", "read", "secondary", "unverified_terms", "quote"})); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.row(r); err != nil {
			return err
		}
	}
	return nil
}
