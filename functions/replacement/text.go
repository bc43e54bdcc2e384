package replacement

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/terms"
)

// ticketData is what the catalog's templates read.
type ticketData struct {
	Node, Provider, Contract, Ordered, OrderedAt string
	Incident, KindZh, KindEn                     string
	Since, Ended, For                            string
	Failing, Stress                              []checkLine
	Kernel                                       []string
	FirstChecks                                  *firstLine
	First                                        string // set per language by render
	Within, ClockZh, ClockEn, Due                string
	Pack, KeyID                                  string
}

type checkLine struct {
	At, Check, GPU, Value, Criterion, Verdict, Detail string
}

type firstLine struct {
	At                string
	Total, NotPassing int
}

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

// maxFailingLines caps the failing checks listed in the text (the pack
// has all of them): a ticket form is read by a person.
const maxFailingLines = 12

// Text renders the ticket text in lang.
func Text(in TextInput, lang Lang) (string, error) {
	ev := in.Evidence
	loc := time.UTC
	if in.Terms != nil && in.Terms.TimeZone != "" {
		if l, err := time.LoadLocation(in.Terms.TimeZone); err == nil {
			loc = l
		}
	}
	ts := func(t time.Time) string { return t.In(loc).Format("2006-01-02 15:04:05 MST") }
	n := ev.Node
	ordered := fmt.Sprintf("%d × %s", n.GPUCount, n.GPUModel)
	if n.GPUMemoryMiB > 0 {
		ordered += fmt.Sprintf(" %d GiB", n.GPUMemoryMiB/1024)
	}
	k := kindNames[ev.Incident.Kind]
	d := ticketData{Node: n.ID, Provider: n.Provider, Contract: n.Contract, Ordered: ordered, OrderedAt: ts(n.OrderedAt),
		Incident: ev.Incident.ID, KindZh: k[0], KindEn: k[1], Since: ts(ev.Incident.Start),
		For: shortDuration(ev.AsOf.Sub(ev.Incident.Start).Round(time.Minute)), Kernel: ev.Kernel, Pack: in.Pack, KeyID: in.KeyID}
	if !ev.Incident.Open() {
		d.Ended = ts(ev.Incident.End)
	}
	line := func(c Check) checkLine {
		l := checkLine{At: ts(c.At), Check: c.Check.Name, Value: c.Check.Value, Criterion: c.Check.Criterion, Verdict: c.Check.Verdict, Detail: c.Check.Detail}
		if c.Check.GPU != nil {
			l.GPU = strconv.Itoa(*c.Check.GPU)
		}
		if l.Value == "" {
			l.Value = "-"
		}
		if l.Criterion == "" {
			l.Criterion = "-"
		}
		return l
	}
	failing := lastOf(ev.Failing, maxFailingLines)
	for _, c := range failing {
		l := line(c)
		if strings.HasPrefix(c.Check.Name, "gpu.xid") && len(ev.Kernel) > 0 {
			l.Detail = "" // its XID lines are listed on their own below
		}
		d.Failing = append(d.Failing, l)
	}
	for _, c := range lastOf(ev.Stress, maxFailingLines) {
		l := line(c)
		l.Detail = ""
		d.Stress = append(d.Stress, l)
	}
	if len(ev.First) > 0 {
		f := &firstLine{At: ts(ev.First[0].At), Total: len(ev.First)}
		for _, c := range ev.First {
			if c.Check.Verdict == "warn" || c.Check.Verdict == "fail" {
				f.NotPassing++
			}
		}
		d.FirstChecks = f
	}
	if in.Terms != nil && in.Terms.Replacement.Within > 0 {
		r := in.Terms.Replacement
		d.Within = shortDuration(r.Within)
		c := clockNames[string(r.Clock)]
		d.ClockZh, d.ClockEn = c[0], c[1]
		if !in.Due.IsZero() {
			d.Due = ts(in.Due)
		}
	}
	return render(d, lang)
}

// lastOf is the newest max of s (s is oldest first).
func lastOf(s []Check, max int) []Check {
	if len(s) > max {
		return s[len(s)-max:]
	}
	return s
}

// shortDuration is d without zero tails: 4h, 1h30m, 2m.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
