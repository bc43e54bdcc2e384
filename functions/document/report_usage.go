package document

import (
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

// usageLines are what the node's probe measured of what a bill charges
// besides GPU time, as a renter holds the bill's lines to it: each disk,
// the traffic out's bounds, the boots.
func usageLines(p *i18n.Printer, n *report.Node) []string {
	u := n.Usage
	if u == nil {
		return nil
	}
	loc, err := time.LoadLocation(n.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	stamp := func(t time.Time) string { return p.Stamp(t.In(loc).Format(time.RFC3339)) }
	gb := func(b uint64) string { return p.Num(float64(b)/1e9, 3) }
	var out []string
	for _, d := range u.Disks {
		class := p.T("not rotational (SSD)")
		switch {
		case d.Rotational && d.Virtual:
			class = p.T("rotational flag set by the hypervisor (medium unknown)")
		case d.Rotational:
			class = p.T("rotational (HDD)")
		}
		if d.System {
			class += p.T(", system disk")
		}
		out = append(out, p.T("disk %s: %s GB (%s GiB), %s", d.Name, gb(d.SizeBytes), p.Num(float64(d.SizeBytes)/(1<<30), 3), class))
	}
	if tr := u.Traffic; tr != nil {
		upper := p.T("at most %s GB (%s)", gb(tr.Tx.Upper), strings.Join(tr.UpperIfaces, ", "))
		if tr.Tx.Unbounded {
			upper = p.T("at most: open (part of the period is covered by no reading and the link speed is unknown)")
		}
		out = append(out, p.T("traffic out %s – %s: at least %s GB (%s); %s", stamp(tr.From), stamp(tr.To), gb(tr.Tx.Lower),
			strings.Join(tr.LowerIfaces, ", "), upper))
		for _, i := range tr.Ifaces {
			for _, s := range i.Unobserved {
				out = append(out, p.T("%s not covered %s – %s: %s", i.Name, stamp(s.From), stamp(s.To), p.T(s.Why)))
			}
		}
	}
	out = append(out, p.T("%d reading(s), %d boot(s); last reading %s", u.Readings, len(u.Boots), stamp(u.Last)))
	return out
}
