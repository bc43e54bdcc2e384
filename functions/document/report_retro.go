package document

import (
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

// retroSec is the report's retroactive records (report.Retroactive): every
// maintenance notice, release and ticket time dated before the moment the
// backend recorded it, who recorded it, whether the books take it as
// dated, and what it moved. It is always drawn, "none" included: a claim
// says outright that nothing in its books was entered after the fact.
type retroSec struct {
	Title string
	Intro string
	Notes []string
	Table table
}

func retroSection(p *i18n.Printer, rs report.Retroactive) *retroSec {
	s := &retroSec{Title: p.T("Retroactive records"),
		Intro: p.T("Administrative records — maintenance notices, releases, ticket times — dated before the backend recorded them, with who recorded them and what they changed. A notice recorded after its start, or after an outage it covers began, takes out nothing before its recording nor of an outage already under way, unless an administrator gave an override; releases and ticket times are taken as dated and listed here, so the provider can hold them to its own records.")}
	if rs.Unrecorded > 0 {
		s.Notes = append(s.Notes, p.T("%d records carry no recording time (a log exported before recording times were kept): they are taken as they claim.", rs.Unrecorded))
	}
	s.Table = table{Widths: []float64{9, 14, 12, 12, 11, 7, 12, 6, 7, 20}, Num: []bool{false, false, false, false, false, true, false, false, true},
		Head: []string{p.T("node"), p.T("record"), p.T("dated"), p.T("head:recorded"), p.T("by"), p.T("late"), p.T("override"),
			p.T("honoured"), p.T("at stake"), p.T("effect")}}
	for _, x := range rs.Records {
		what := p.Word(x.Kind)
		if x.Ticket != "" {
			what += " " + x.Ticket
		}
		s.Table.add(x.Node, what, p.Stamp(x.ClaimedAt), p.Stamp(x.RecordedAt), orDash(x.RecordedBy), p.Secs(x.LateSeconds),
			orDash(x.Override), p.Yes(x.Honoured), p.Secs(x.AtStakeSeconds), p.Text(x.EffectText))
		s.Table.Bad = append(s.Table.Bad, []bool{false, false, false, false, false, false, false, x.Honoured && x.AtStakeSeconds > 0})
	}
	if len(rs.Records) == 0 {
		s.Table.add(p.T("none"), "", "", "", "", "", "", "", "", "")
	}
	return s
}
