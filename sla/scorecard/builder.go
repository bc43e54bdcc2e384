package scorecard

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/calendar"
	accept "github.com/gpusla/gpusla/sla/delivery"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/trial"
)

// The check results a month's report can use: from 14 hours (the widest
// zone offset) and 8 days (the report's lookback for incidents open at the
// month's start) before the UTC month, to 14 hours after it; a day more
// either side for margin.
const (
	checksBefore = 14*time.Hour + 9*24*time.Hour
	checksAfter  = 14*time.Hour + 24*time.Hour
)

// MaxMonths bounds a scorecard: each month is one report's books in memory.
const MaxMonths = 36

// Month is a calendar month.
type Month struct {
	Year  int
	Month time.Month
}

func (m Month) String() string { return fmt.Sprintf("%04d-%02d", m.Year, m.Month) }

func (m Month) next() Month {
	if m.Month == time.December {
		return Month{m.Year + 1, time.January}
	}
	return Month{m.Year, m.Month + 1}
}

func (m Month) before(o Month) bool {
	return m.Year < o.Year || (m.Year == o.Year && m.Month < o.Month)
}

// ParseMonth reads YYYY-MM.
func ParseMonth(s string) (Month, error) {
	t, err := time.Parse("2006-01", s)
	if err != nil {
		return Month{}, fmt.Errorf("%q is not a month: want YYYY-MM", s)
	}
	return Month{t.Year(), t.Month()}, nil
}

// Options choose the months, the as-of instant and what else is compared.
type Options struct {
	From, To Month
	// AsOf: as for the report — what was received later is left out, open
	// incidents and pending tickets are judged at it.
	AsOf time.Time
	// Bill: the provider's bill lines (sla/billing), optional; a line for a
	// month outside From..To is an error naming it.
	Bill     []billing.Line
	Baseline baseline.Options
	// Rates: the renter's exchange rates (ParseRates), optional; without
	// them prices in different currencies are never ranked together.
	Rates *Rates
	// Trial keeps every node's check results the trial page judges
	// (BuildTrial); off, the scorecard of a year does not hold them.
	Trial bool
}

// Builder reads the event log once and feeds every month's report builder
// and the scorecard's own measurements from the same events.
type Builder struct {
	opts    Options
	months  []Month
	reports []*report.Builder
	// checksWin is, per month, the probe times whose check results its
	// report can use (the month in any zone, with the report's lookback);
	// the other months get an observation without its checks, which is
	// all they would look at (coverage and delivery), so that a year is
	// not judged twelve times over.
	checksWin [][2]int64
	contracts map[string]*terms.Terms
	nodes     map[string]*nodeInfo
	perf      baseline.Collector
	net       []netRec
	xids      []xidRec
	events    int
	sink      *sink // files into the builder itself
}

type nodeInfo struct {
	registered bool
	contract   *terms.Terms
	model      string
	gpus       int
	memory     int // MiB per GPU ordered; 0: none named
	// The acceptance test: the node's earliest check results that read
	// its GPUs.
	accAt    int64
	hasAcc   bool
	accFails []failRec
	// accHeld: what of that reading the order is held to
	// (accept.Inventory): the model, count and memory the GPUs reported.
	accHeld []trial.Result
	trial   trialFacts // with Options.Trial
}

type failRec struct{ name, category string }

// netRec is one network measurement (kind: 'r' gateway RTT ms, 'l' gateway
// loss %, 'i' iperf3 share of nominal).
type netRec struct {
	node string
	at   int64
	kind byte
	name string
	val  float64
}

type xidRec struct {
	node string
	at   int64
	gpu  int
}

// NewBuilder starts a scorecard over the given contracts.
func NewBuilder(contracts []*terms.Terms, opts Options) (*Builder, error) {
	if opts.To.before(opts.From) {
		return nil, fmt.Errorf("--to %s is before --from %s", opts.To, opts.From)
	}
	if opts.AsOf.IsZero() {
		return nil, fmt.Errorf("as-of instant missing")
	}
	b := &Builder{opts: opts, contracts: map[string]*terms.Terms{}, nodes: map[string]*nodeInfo{}}
	b.sink = &sink{node: b.node, perf: b.perf.Add, net: &b.net, xids: &b.xids}
	for _, t := range contracts {
		b.contracts[t.Contract] = t
	}
	for m := opts.From; !opts.To.before(m); m = m.next() {
		if len(b.months) == MaxMonths {
			return nil, fmt.Errorf("--from %s --to %s spans more than %d months", opts.From, opts.To, MaxMonths)
		}
		// The months share the scorecard's collector of stress figures
		// (it holds every month's window), instead of each filing its own.
		rb, err := report.NewBuilder(contracts, report.Options{Year: m.Year, Month: m.Month, AsOf: opts.AsOf, Fleet: &b.perf})
		if err != nil {
			return nil, err
		}
		b.months = append(b.months, m)
		b.reports = append(b.reports, rb)
		ms := time.Date(m.Year, m.Month, 1, 0, 0, 0, 0, time.UTC)
		b.checksWin = append(b.checksWin, [2]int64{ms.Add(-checksBefore).UnixNano(), ms.AddDate(0, 1, 0).Add(checksAfter).UnixNano()})
	}
	for _, l := range opts.Bill {
		m, err := ParseMonth(l.Period)
		if err != nil || m.before(opts.From) || opts.To.before(m) {
			return nil, fmt.Errorf("bill line %d: field period: %s is not a month from %s to %s", l.Line, l.Period, opts.From, opts.To)
		}
	}
	return b, nil
}

// Skipped names the nodes left out because no terms define their
// contract (report.Builder.Skipped; every month sees the same
// registrations). Call it before Build.
func (b *Builder) Skipped() []report.Skipped {
	if len(b.reports) == 0 || b.reports[0] == nil {
		return nil
	}
	return b.reports[0].Skipped()
}

// ReadLog streams an event log in (events.ReadLog: a malformed line fails
// the whole read, naming name:line).
func (b *Builder) ReadLog(name string, r io.Reader) error {
	lines, err := events.ReadLog(name, r, b.Add)
	for _, rb := range b.reports {
		rb.CountLines(lines)
	}
	return err
}

// Add takes one event.
func (b *Builder) Add(e *events.Event) error {
	b.events++
	var bare *events.Event
	for i, rb := range b.reports {
		in := e
		if e.Type == events.TypeObservation && len(e.Checks) > 0 {
			if at := e.TrueAt().UnixNano(); at < b.checksWin[i][0] || at >= b.checksWin[i][1] {
				if bare == nil {
					c := *e
					c.Checks = nil
					bare = &c
				}
				in = bare
			}
		}
		if err := rb.Add(in); err != nil {
			return err
		}
	}
	b.own(e, b.sink)
	return nil
}

// sink is where the scorecard's own reading of an event files what it
// finds: the builder's (the whole log, or events read apart) or a node
// part's (one node's records, read on a worker of its own).
type sink struct {
	node func(id string) *nodeInfo
	perf func(node string, at time.Time, checks []events.Check)
	net  *[]netRec
	xids *[]xidRec
}

// own is what the scorecard itself reads of e, beside the month reports:
// registrations, and check results received by the as-of instant.
func (b *Builder) own(e *events.Event, s *sink) {
	switch e.Type {
	case events.TypeNodeRegistered:
		if _, ok := b.contracts[e.Contract]; !ok {
			return // left out of every month's report, which names it (Skipped)
		}
		n := s.node(e.Node)
		if !n.registered {
			n.registered, n.contract, n.model, n.gpus, n.memory = true, b.contracts[e.Contract], e.Hardware.GPUModel, e.Hardware.GPUCount, e.Hardware.GPUMemoryMiB
		}
	case events.TypeObservation:
		if len(e.Checks) == 0 || e.ReceivedAt.After(b.opts.AsOf) {
			return
		}
		b.observe(e, s)
	}
}

func (b *Builder) node(id string) *nodeInfo {
	n := b.nodes[id]
	if n == nil {
		n = &nodeInfo{}
		b.nodes[id] = n
	}
	return n
}

// iperfNominal reads the nominal rate from an iperf3 result's criterion,
// which the probe writes as "≥ 70 % of 10000 Mbit/s" (probe/netcheck).
var iperfNominal = regexp.MustCompile(`of ([0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?) Mbit/s`)

func (b *Builder) observe(e *events.Event, s *sink) {
	at := e.TrueAt()
	ns := at.UnixNano()
	n := s.node(e.Node)
	if b.opts.Trial {
		n.trial.observe(e, at)
	}
	if readsGPUs(e.Checks) && (!n.hasAcc || ns < n.accAt) {
		n.hasAcc, n.accAt, n.accFails, n.accHeld = true, ns, n.accFails[:0], accept.Inventory(e.Checks)
		for i := range e.Checks {
			c := &e.Checks[i]
			if c.Verdict == events.Fail {
				n.accFails = append(n.accFails, failRec{c.Name, c.Category})
			}
		}
	}
	s.perf(e.Node, at, e.Checks)
	for i := range e.Checks {
		c := &e.Checks[i]
		switch {
		case c.Verdict == events.Fail && (strings.HasPrefix(c.Name, "gpu.xid.") || strings.HasSuffix(c.Name, ".xid")):
			gpu := -1
			if c.GPU != nil {
				gpu = *c.GPU
			}
			*s.xids = append(*s.xids, xidRec{e.Node, ns, gpu})
		case c.Number == nil || math.IsNaN(*c.Number) || c.Verdict == events.Skipped:
		case c.Name == "net.gateway.rtt":
			*s.net = append(*s.net, netRec{e.Node, ns, 'r', c.Name, *c.Number})
		case c.Name == "net.gateway.loss":
			*s.net = append(*s.net, netRec{e.Node, ns, 'l', c.Name, *c.Number})
		case strings.HasPrefix(c.Name, "net.iperf3."):
			m := iperfNominal.FindStringSubmatch(c.Criterion)
			if m == nil {
				continue // no nominal rate to compare with
			}
			nominal, err := strconv.ParseFloat(m[1], 64)
			if err != nil || nominal <= 0 {
				continue
			}
			*s.net = append(*s.net, netRec{e.Node, ns, 'i', c.Name, *c.Number / nominal})
		}
	}
}

// window is the node's months From..To in its contract's zone.
func (b *Builder) window(n *nodeInfo) (int64, int64) {
	loc := n.contract.Calendar.Loc
	s, _ := calendar.MonthBounds(b.opts.From.Year, b.opts.From.Month, loc)
	_, e := calendar.MonthBounds(b.opts.To.Year, b.opts.To.Month, loc)
	return s.UnixNano(), e.UnixNano()
}
