package document

import (
	"strings"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

// statusSec is a contract's comparison with the provider's own status
// page (report.ProviderStatus): the rule and what it never changes, when
// the page was read, then three lists — measured outages the provider
// acknowledged, those it never did, its incidents the probes did not see —
// and every incident of the page in the month.
type statusSec struct {
	Title   string
	Intro   string
	Notes   []string
	Lists   []table
	Listing table
}

// tables are the lists then the listing, as Markdown and PDF draw them.
func (s *statusSec) tables() []table { return append(append([]table(nil), s.Lists...), s.Listing) }

// statusSections lays out every contract that has a page.
func statusSections(p *i18n.Printer, r *report.Report) []statusSec {
	var out []statusSec
	for i := range r.Contracts {
		if r.Contracts[i].ProviderStatus != nil {
			out = append(out, statusSection(p, &r.Contracts[i]))
		}
	}
	return out
}

func statusSection(p *i18n.Printer, c *report.Contract) statusSec {
	ps := c.ProviderStatus
	s := statusSec{Title: p.T("Provider status page: %s (%s)", c.Provider, c.Contract),
		Intro: p.T("%s (%s). A counted outage is acknowledged when one of the provider's incidents, widened by %s on both sides, overlaps it. Acknowledgement is listed only: it never changes what is counted or claimed.",
			ps.URL, ps.Format, p.Secs(ps.SlackSeconds))}
	if pl := ps.Polled; pl != nil {
		s.Notes = append(s.Notes, p.T("The page was read from %s to %s (%s fetches, %s failed).", p.Stamp(pl.From), p.Stamp(pl.To),
			p.Num(float64(pl.Fetches), 0), p.Num(float64(pl.Failures), 0)))
	} else {
		s.Notes = append(s.Notes, p.T("The log has no record of the page being read: an outage listed as never acknowledged may only mean the page was not watched."))
	}
	if ps.Ignored > 0 {
		s.Notes = append(s.Notes, p.T("Incidents on the page that matched none of the keywords (%s), left out: %s.", strings.Join(ps.Keywords, ", "), p.Num(float64(ps.Ignored), 0)))
	}
	titles := map[string]string{}
	for _, in := range ps.Incidents {
		titles[in.ID] = in.Title
	}
	outages := func(title string, l []report.OutageAck, withBy bool) table {
		t := table{Title: p.T(title) + " (" + p.Num(float64(len(l)), 0) + ")", Widths: []float64{12, 14, 18, 18, 10, 28},
			Head: []string{p.T("node"), p.T("kind"), p.T("start"), p.T("end"), p.T("counted"), p.T("provider incidents")},
			Num:  []bool{false, false, false, false, true, false}}
		if !withBy {
			t.Head, t.Widths, t.Num = t.Head[:5], t.Widths[:5], t.Num[:5]
		}
		for _, a := range l {
			kind := p.Word(a.Kind)
			if a.Check != "" {
				kind += " " + a.Check
			}
			row := []string{a.Node, kind, p.Stamp(a.Start), p.Stamp(a.End), p.Secs(a.CountedSeconds)}
			if withBy {
				var by []string
				for _, id := range a.Incidents {
					by = append(by, id+" "+titles[id])
				}
				row = append(row, strings.Join(by, "\n"))
			}
			t.add(row...)
			t.Bad = append(t.Bad, []bool{!withBy})
		}
		if len(l) == 0 {
			t.add(append([]string{p.T("none")}, make([]string, len(t.Head)-1)...)...)
		}
		return t
	}
	s.Lists = append(s.Lists, outages("Counted outages the provider acknowledged", ps.Acknowledged, true),
		outages("Counted outages the provider never acknowledged", ps.Unacknowledged, false))
	unseen := table{Title: p.T("Provider incidents the probes did not see") + " (" + p.Num(float64(len(ps.Unseen)), 0) + ")",
		Widths: []float64{16, 40, 22, 22}, Head: []string{p.T("incident"), p.T("title"), p.T("start"), p.T("resolved")}}
	listing := table{Title: p.T("Incidents on the provider's page this month"), Widths: []float64{14, 30, 12, 16, 16, 8, 8},
		Head: []string{p.T("incident"), p.T("title"), p.T("status"), p.T("start"), p.T("resolved"), p.T("node in service"), p.T("outages overlapping")},
		Num:  []bool{false, false, false, false, false, false, true}}
	for _, in := range ps.Incidents {
		end := p.T("not resolved")
		switch {
		case in.End != "":
			end = p.Stamp(in.End)
		case in.ResolvedAfterAsOf:
			end = p.T("resolved after the as-of instant")
		case in.Status == "":
			end = p.T("not said (last update %s)", p.Stamp(in.Updated))
		}
		status := p.Word(in.Status)
		if status == "" {
			status = "—"
		}
		listing.add(in.ID, in.Title, status, p.Stamp(in.Start), end, p.Yes(in.Watched), p.Num(float64(in.Outages), 0))
		for _, id := range ps.Unseen {
			if id == in.ID {
				unseen.add(in.ID, in.Title, p.Stamp(in.Start), end)
			}
		}
	}
	if len(ps.Unseen) == 0 {
		unseen.add(p.T("none"), "", "", "")
	}
	if len(ps.Incidents) == 0 {
		listing.add(p.T("none"), "", "", "", "", "", "")
	}
	s.Lists = append(s.Lists, unseen)
	s.Listing = listing
	return s
}
