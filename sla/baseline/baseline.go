// Package baseline compares each node's stress figures with its siblings:
// the nodes of the same GPU model across the whole fleet. A static threshold
// (the probe's calibrated minimum) catches a card that is far off; a card
// that passes it but runs slower than nearly every other card of its model
// is caught only against the fleet. The package also follows each node's
// figures day by day and flags a sustained drop (a cooling fault that lowers
// clocks a little more every week passes every static test for months).
//
// Everything here is pure: the caller feeds check results (Collector.Add)
// and asks for the distributions, findings and drift of a time window.
//
// On the path from an observation to a report row, this is a step beside
// incidents: the stress readings in the log → the fleet baselines,
// below-fleet findings and drift the report's fleet section lists.
package baseline

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/stat"
)

// Defaults of Options, documented in docs/scorecard.md ("Fleet baselines").
const (
	// DefaultMinNodes: with fewer nodes of a model the fleet says too little
	// about what is normal, and only the static threshold applies.
	DefaultMinNodes = 5
	// DefaultRuns: runs in a row below the fleet threshold that make a
	// finding (one slow run is noise; three are the card).
	DefaultRuns = 3
	// DefaultMargin: the slowest card of any fleet is below its p10 by
	// definition, so a figure must also be this share under the fleet
	// median to count as slower than its siblings.
	DefaultMargin = 0.05
	// DefaultDriftPct and DefaultDriftDays: a drop is sustained when this
	// many days with data in a row are each this share below the node's
	// own first days (DefaultDriftBaseDays of them).
	DefaultDriftPct      = 0.05
	DefaultDriftDays     = 3
	DefaultDriftBaseDays = 3
)

// Options tune the comparison; zero fields take the defaults.
type Options struct {
	MinNodes      int
	Runs          int
	Margin        float64
	DriftPct      float64
	DriftDays     int
	DriftBaseDays int
}

// WithDefaults fills the zero fields with the defaults: what the rule
// actually applies (the live service applies the same).
func (o Options) WithDefaults() Options {
	orDefault(&o.MinNodes, DefaultMinNodes)
	orDefault(&o.Runs, DefaultRuns)
	orDefault(&o.Margin, DefaultMargin)
	orDefault(&o.DriftPct, DefaultDriftPct)
	orDefault(&o.DriftDays, DefaultDriftDays)
	orDefault(&o.DriftBaseDays, DefaultDriftBaseDays)
	return o
}

func orDefault[T int | float64](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// FigureOf says whether a check result is a stress figure the fleet is
// compared on, and under which name: a burn's throughput per precision
// (gpu.burn.<precision>, TFLOP/s), a copy bandwidth (gpu.bw.<test>, GB/s;
// the per-pair peer copies gpu.bw.p2p.<a>-<b> fold into gpu.bw.p2p) and the
// mean power the power test holds at the cap (gpu.power, W). Only results
// of the performance category with a number count: a skipped or broken run
// measured nothing.
func FigureOf(c *events.Check) (string, bool) {
	if c.Number == nil || c.Category != events.CategoryPerformance || c.Verdict == events.Skipped {
		return "", false
	}
	n := c.Name
	switch {
	case n == "gpu.power":
		return n, true
	case strings.HasPrefix(n, "gpu.bw.p2p."):
		return "gpu.bw.p2p", true
	}
	for _, p := range []string{"gpu.burn.", "gpu.bw."} {
		// gpu.burn.fp32 yes; gpu.burn.fp32.power (watts during a burn) no.
		if rest, ok := strings.CutPrefix(n, p); ok && rest != "" && !strings.Contains(rest, ".") {
			return n, true
		}
	}
	return "", false
}

// Drifting says whether a figure is followed day by day: burn throughput
// and the copy bandwidths to and from the host and on the card.
func Drifting(figure string) bool {
	return strings.HasPrefix(figure, "gpu.burn.") || figure == "gpu.bw.h2d" || figure == "gpu.bw.d2h" || figure == "gpu.bw.d2d"
}

// Collector keeps the stress figures of a log compactly: a year of daily
// runs on a hundred 8-GPU nodes is about two million readings.
type Collector struct {
	nodes  []string
	nodeIx map[string]int32
	figs   []figure
	figIx  map[string]int16
	// Readings are filed by series as they come, so that computing a
	// window (once per month report) does not sort millions of them.
	index map[skey]*series
	all   []*series
	n     int
}

type figure struct{ name, unit string }

type skey struct {
	node int32
	fig  int16
	gpu  int16
}

// Add keeps the stress figures among checks, observed on node at at
// (skew-corrected probe time). Repeated readings (a log read twice) are
// merged when the window is computed.
func (c *Collector) Add(node string, at time.Time, checks []events.Check) {
	ni := int32(-1)
	for i := range checks {
		ch := &checks[i]
		name, ok := FigureOf(ch)
		if !ok || math.IsNaN(*ch.Number) || math.IsInf(*ch.Number, 0) {
			continue
		}
		if c.nodeIx == nil {
			c.nodeIx, c.figIx, c.index = map[string]int32{}, map[string]int16{}, map[skey]*series{}
		}
		if ni < 0 {
			if ni, ok = c.nodeIx[node]; !ok {
				ni = int32(len(c.nodes))
				c.nodes = append(c.nodes, node)
				c.nodeIx[node] = ni
			}
		}
		fi, ok := c.figIx[name]
		if !ok {
			fi = int16(len(c.figs))
			c.figs = append(c.figs, figure{name, ch.Unit})
			c.figIx[name] = fi
		}
		gpu := int16(-1)
		if ch.GPU != nil {
			gpu = int16(*ch.GPU)
		}
		k := skey{ni, fi, gpu}
		sr := c.index[k]
		if sr == nil {
			sr = &series{node: ni, fig: fi, gpu: gpu, ordered: true}
			c.index[k] = sr
			c.all = append(c.all, sr)
		}
		ns := at.UnixNano()
		if l := len(sr.at); l > 0 && ns <= sr.at[l-1] {
			sr.ordered = false
		}
		sr.at, sr.val = append(sr.at, ns), append(sr.val, *ch.Number)
		c.n++
	}
}

// Len is how many readings are held.
func (c *Collector) Len() int { return c.n }

// Seal puts every series in order once, after the last Add, so that
// Compute only reads the collector and may run on several goroutines at
// once (the scorecard's month reports share one). Compute seals what is
// not sealed itself, so calling Seal is needed only for that.
func (c *Collector) Seal() {
	for _, sr := range c.all {
		if !sr.ordered {
			sr.order()
		}
	}
}

// Trim drops the readings before from, so that a collector the live
// service keeps for a trailing window stays the size of that window.
func (c *Collector) Trim(from time.Time) {
	lo := from.UnixNano()
	for _, sr := range c.all {
		if !sr.ordered {
			sr.order()
		}
		i, _ := slices.BinarySearch(sr.at, lo)
		if i > 0 {
			c.n -= i
			sr.at, sr.val = slices.Clone(sr.at[i:]), slices.Clone(sr.val[i:])
		}
	}
}

// Any says whether a reading lies in [from, to) (Unix nanoseconds); the
// collector must be sealed.
func (c *Collector) Any(from, to int64) bool {
	for _, sr := range c.all {
		i, _ := slices.BinarySearch(sr.at, from)
		if i < len(sr.at) && sr.at[i] < to {
			return true
		}
	}
	return false
}

// Dist is the fleet's distribution of one figure for one model: each
// node's GPU contributes the median of its runs in the window, so a node
// that ran more often does not weigh more.
type Dist struct {
	Model  string  `json:"gpu_model"`
	Figure string  `json:"figure"`
	Unit   string  `json:"unit"`
	Nodes  int     `json:"nodes"`
	GPUs   int     `json:"gpus"`
	Runs   int     `json:"runs"`
	P10    float64 `json:"p10"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// Threshold is what a run must fall below to count as slower than the
	// siblings: min(p10, p50 × (1 − margin)). Zero when StaticOnly.
	Threshold float64 `json:"threshold,omitempty"`
	// StaticOnly: fewer nodes than Options.MinNodes; no fleet verdict.
	StaticOnly bool `json:"static_only"`
}

// Finding is one streak of runs below the fleet on one node's GPU: it opens
// a performance_below_spec incident from Start (the first slow run) to End
// (the first run back at or above the threshold; zero while still slow).
type Finding struct {
	Node      string    `json:"node"`
	Model     string    `json:"gpu_model"`
	Figure    string    `json:"figure"`
	Unit      string    `json:"unit"`
	GPU       int       `json:"gpu"` // -1: the figure names no GPU
	Start     time.Time `json:"start"`
	Confirmed time.Time `json:"confirmed"` // the run that made it Options.Runs in a row
	End       time.Time `json:"end,omitzero"`
	Runs      int       `json:"runs"`   // slow runs in the streak
	Values    []float64 `json:"values"` // the streak's values, in time order
	// Against says what the series was judged against (AgainstOtherNodes,
	// AgainstNodeGPUs); Dist is that bar, never including the node itself.
	Against string  `json:"against"`
	Dist    Dist    `json:"fleet"`
	Margin  float64 `json:"margin"`
}

// Streak is the rule "slower than its siblings" on one series (a node's
// GPU and figure): Options.Runs runs in a row below the fleet threshold
// open a finding, backdated to the first of them; the first run back at or
// above the threshold ends it. The monthly report runs it over a window's
// runs (Collector.Compute), the live service over each run as it arrives
// (its state stored with the node's), so both open and close at the same
// instants for the same runs and thresholds. The zero value is a series
// with no slow run.
type Streak struct {
	// Runs counts the slow runs in a row so far, Start is the first of
	// them; Values are the first Options.Runs of their values, what the
	// evidence names.
	Runs   int       `json:"runs,omitempty"`
	Start  time.Time `json:"start,omitzero"`
	Values []float64 `json:"values,omitempty"`
	// Open: Runs reached the rule's count; a finding is open.
	Open bool `json:"open,omitempty"`
	// Last is the newest run fed: an older one, or the same run again,
	// is ignored (the live service sees runs in receive order).
	Last time.Time `json:"last,omitzero"`
}

// StreakOp is what one run did to a streak.
type StreakOp int

// What a run did: nothing new, opened a finding, or ended one.
const (
	StreakNone StreakOp = iota
	StreakOpened
	StreakClosed
)

// Step feeds one run's value at at against the fleet threshold, with runs
// slow runs in a row making a finding.
func (s *Streak) Step(threshold float64, runs int, at time.Time, v float64) StreakOp {
	if !s.Last.IsZero() && !at.After(s.Last) {
		return StreakNone
	}
	s.Last = at
	if v < threshold {
		if s.Runs == 0 {
			s.Start, s.Values = at, s.Values[:0]
		}
		s.Runs++
		if len(s.Values) < runs {
			s.Values = append(s.Values, v)
		}
		if !s.Open && s.Runs >= runs {
			s.Open = true
			return StreakOpened
		}
		return StreakNone
	}
	was := s.Open
	s.Runs, s.Start, s.Values, s.Open = 0, time.Time{}, nil, false
	if was {
		return StreakClosed
	}
	return StreakNone
}

// CheckKey names a finding's series as an incident's check: the figure
// and its GPU ("gpu.burn.fp32/gpu0", as incident.CheckKey names the
// static check), prefixed "fleet:" so that the finding and the probe's own
// verdict on the same figure are two incidents, never one hysteresis.
func CheckKey(figure string, gpu int) string {
	if gpu < 0 {
		return "fleet:" + figure
	}
	return "fleet:" + figure + "/gpu" + strconv.Itoa(gpu)
}

// Evidence is the finding in words, naming the fleet figures.
func (f *Finding) Evidence() string { return f.Text().String() }

// Text is Evidence as a translatable sentence (sla/msg).
func (f *Finding) Text() msg.Text {
	gpu := msg.Plain("")
	if f.GPU >= 0 {
		gpu = msg.New(" on GPU %d", f.GPU)
	}
	vals := make([]string, 0, len(f.Values))
	for i, v := range f.Values {
		if i == 5 {
			break
		}
		vals = append(vals, num(v))
	}
	if f.Runs > len(vals) {
		vals = append(vals, fmt.Sprintf("… (%d in all)", f.Runs))
	}
	d := f.Dist
	if f.Against == AgainstNodeGPUs {
		return msg.New("slower than the other GPUs of its node: %s%s %d runs in a row below them (%s %s); the node's other %d GPUs: median %s %s; threshold %s = at least %.0f %% under their median",
			msg.Plain(f.Figure), gpu, f.Runs, msg.Plain(strings.Join(vals, ", ")), msg.Plain(f.Unit), d.GPUs, num(d.P50), d.Unit, num(d.Threshold), 100*f.Margin)
	}
	return msg.New("slower than its siblings: %s%s %d runs in a row below the other nodes (%s %s); the other %d %s nodes (%d GPUs): p10 %s, median %s %s; threshold %s = below p10 and at least %.0f %% under the median",
		msg.Plain(f.Figure), gpu, f.Runs, msg.Plain(strings.Join(vals, ", ")), msg.Plain(f.Unit), d.Nodes, d.Model, d.GPUs, num(d.P10), num(d.P50), d.Unit, num(d.Threshold), 100*f.Margin)
}

func num(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// Day is one day of a node's figure: the median of its GPUs' runs that day
// (UTC date).
type Day struct {
	Date  string  `json:"date"`
	Value float64 `json:"value"`
}

// Drift is one node's figure day by day, with a sustained drop if one shows.
type Drift struct {
	Node     string  `json:"node"`
	Model    string  `json:"gpu_model"`
	Figure   string  `json:"figure"`
	Unit     string  `json:"unit"`
	Days     []Day   `json:"days"`
	Baseline float64 `json:"baseline"` // median of the first DriftBaseDays days
	// Dropped: DriftDays days with data in a row, each DriftPct or more
	// below Baseline. Since is the first of them, WorstPct the deepest
	// drop below the baseline in percent.
	Dropped  bool    `json:"sustained_drop"`
	Since    string  `json:"since,omitempty"`
	Until    string  `json:"until,omitempty"` // last day of the drop; empty while it lasts to the end of the series
	WorstPct float64 `json:"worst_drop_percent,omitempty"`
}

// Result is what one window shows.
type Result struct {
	Dists    []Dist    `json:"baselines"`
	Findings []Finding `json:"below_siblings"`
	Drift    []Drift   `json:"drift"`
	// Series is every GPU's median per figure, what the distributions are
	// made of (for callers that compare groups of nodes with the fleet).
	Series []Series `json:"-"`
	// Bars: the threshold each node's GPU is judged against, from the
	// other nodes and the node's other GPUs (the live service judges each
	// run as it arrives against them).
	Bars *Bars `json:"-"`
}

// Series is one GPU's figure over the window.
type Series struct {
	Node, Model, Figure, Unit string
	GPU                       int
	Runs                      int
	Median                    float64
}

// series is one (node, gpu, figure) in time order.
type series struct {
	node    int32
	fig     int16
	gpu     int16
	ordered bool // at (then val) ascending, one reading per instant
	at      []int64
	val     []float64
}

// order sorts the series by time (it is nearly always in order already) and
// keeps one reading per instant: the same run read twice, or the peer
// copies of one GPU folded into one figure.
func (s *series) order() {
	sorted := true
	for i := 1; i < len(s.at); i++ {
		if s.at[i] < s.at[i-1] || (s.at[i] == s.at[i-1] && s.val[i] < s.val[i-1]) {
			sorted = false
			break
		}
	}
	if !sorted {
		idx := make([]int, len(s.at))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool {
			if s.at[idx[a]] != s.at[idx[b]] {
				return s.at[idx[a]] < s.at[idx[b]]
			}
			return s.val[idx[a]] < s.val[idx[b]]
		})
		at, val := make([]int64, len(idx)), make([]float64, len(idx))
		for i, j := range idx {
			at[i], val[i] = s.at[j], s.val[j]
		}
		s.at, s.val = at, val
	}
	w := 0
	for i := range s.at {
		if w > 0 && s.at[w-1] == s.at[i] {
			continue
		}
		s.at[w], s.val[w] = s.at[i], s.val[i]
		w++
	}
	s.at, s.val = s.at[:w], s.val[:w]
	s.ordered = true
}

// dayReading is a reading with its day, counted from the Unix epoch.
type dayReading struct {
	day int64
	v   float64
}

// eachDay calls fn for each day of rs, in day order, with that day's
// readings in their order in rs. The days are counted into place (a
// month's or a year's readings span a few hundred days), or, for readings
// years apart, sorted stably.
func eachDay(rs []dayReading, fn func(day int64, vs []float64)) {
	if len(rs) == 0 {
		return
	}
	lo, hi := rs[0].day, rs[0].day
	for _, r := range rs {
		lo, hi = min(lo, r.day), max(hi, r.day)
	}
	if hi-lo <= int64(4*len(rs)+1024) {
		start := make([]int, hi-lo+2) // start[d-lo]: where day d's readings begin in vals
		for _, r := range rs {
			start[r.day-lo+1]++
		}
		for i := 1; i < len(start); i++ {
			start[i] += start[i-1]
		}
		vals := make([]float64, len(rs))
		next := slices.Clone(start[:len(start)-1])
		for _, r := range rs {
			vals[next[r.day-lo]] = r.v
			next[r.day-lo]++
		}
		for d := range len(start) - 1 {
			if start[d] < start[d+1] {
				fn(lo+int64(d), vals[start[d]:start[d+1]])
			}
		}
		return
	}
	slices.SortStableFunc(rs, func(a, b dayReading) int { return cmp.Compare(a.day, b.day) })
	var vals []float64
	for i := 0; i < len(rs); {
		vals = vals[:0]
		j := i
		for ; j < len(rs) && rs[j].day == rs[i].day; j++ {
			vals = append(vals, rs[j].v)
		}
		fn(rs[i].day, vals)
		i = j
	}
}

// Compute takes the readings in [from, to) of the nodes model names (nodes
// it does not know are left out), and returns the fleet's distributions per
// model and figure, the streaks below the fleet and each node's drift.
func (c *Collector) Compute(model func(node string) (string, bool), from, to time.Time, opt Options) Result {
	w := c.cut(model, from, to, opt.WithDefaults())
	// Empty lists are [] in JSON, as docs/scorecard.md promises.
	res := Result{Dists: []Dist{}, Findings: []Finding{}, Drift: []Drift{}}
	w.distributions(&res)
	res.Bars = newBars(c.nodes, res.Series, w.opt)
	res.Findings = w.findings(res.Bars, res.Findings)
	res.Drift = append(res.Drift, w.drift()...)
	return res
}

// window is one window being computed: the series of known nodes cut to
// it, in node, figure and GPU order, each node's model (by node index) and
// the options with their defaults.
type window struct {
	c      *Collector
	ss     []*series
	models []string
	opt    Options
}

// cut cuts every series of a node model knows to [from, to), ordering
// a series first if it has not been.
func (c *Collector) cut(model func(node string) (string, bool), from, to time.Time, opt Options) window {
	lo, hi := from.UnixNano(), to.UnixNano()
	models := make([]string, len(c.nodes))
	known := make([]bool, len(c.nodes))
	for i, n := range c.nodes {
		models[i], known[i] = model(n)
	}
	var ss []*series
	for _, sr := range c.all {
		if !known[sr.node] {
			continue
		}
		if !sr.ordered {
			sr.order()
		}
		i, _ := slices.BinarySearch(sr.at, lo)
		j, _ := slices.BinarySearch(sr.at, hi)
		if i < j {
			ss = append(ss, &series{node: sr.node, fig: sr.fig, gpu: sr.gpu, at: sr.at[i:j], val: sr.val[i:j]})
		}
	}
	sort.Slice(ss, func(i, j int) bool {
		a, b := ss[i], ss[j]
		if a.node != b.node {
			return c.nodes[a.node] < c.nodes[b.node]
		}
		if a.fig != b.fig {
			return c.figs[a.fig].name < c.figs[b.fig].name
		}
		return a.gpu < b.gpu
	})
	return window{c: c, ss: ss, models: models, opt: opt}
}

// distKey is one distribution: a GPU model's figure.
type distKey struct {
	model string
	fig   int16
}

// distributions files each GPU's median (res.Series) under its model and
// figure, and makes a distribution of each (res.Dists, in model and figure
// order) with its fleet threshold, or none when too few nodes have it: what
// the fleet looks like; each node is judged against the others (Bars).
func (w window) distributions(res *Result) {
	type acc struct {
		medians []float64
		nodes   map[int32]bool
		runs    int
	}
	c := w.c
	accs := map[distKey]*acc{}
	for _, s := range w.ss {
		k := distKey{w.models[s.node], s.fig}
		a := accs[k]
		if a == nil {
			a = &acc{nodes: map[int32]bool{}}
			accs[k] = a
		}
		med := stat.Median(s.val)
		a.medians = append(a.medians, med)
		res.Series = append(res.Series, Series{Node: c.nodes[s.node], Model: k.model, Figure: c.figs[s.fig].name,
			Unit: c.figs[s.fig].unit, GPU: int(s.gpu), Runs: len(s.val), Median: med})
		a.nodes[s.node] = true
		a.runs += len(s.val)
	}
	for k, a := range accs {
		q := stat.Quantiles(a.medians, 0.1, 0.5, 0.9)
		d := Dist{Model: k.model, Figure: c.figs[k.fig].name, Unit: c.figs[k.fig].unit, Nodes: len(a.nodes), GPUs: len(a.medians),
			Runs: a.runs, P10: q[0], P50: q[1], P90: q[2], Min: slices.Min(a.medians), Max: slices.Max(a.medians)}
		if d.Nodes < w.opt.MinNodes {
			d.StaticOnly = true
		} else {
			d.Threshold = math.Min(d.P10, d.P50*(1-w.opt.Margin))
		}
		res.Dists = append(res.Dists, d)
	}
	sort.Slice(res.Dists, func(i, j int) bool {
		if res.Dists[i].Model != res.Dists[j].Model {
			return res.Dists[i].Model < res.Dists[j].Model
		}
		return res.Dists[i].Figure < res.Dists[j].Figure
	})
}

// findings are the streaks below each series' bar (Bars.For: the other
// nodes, the node's other GPUs): the same rule, run by run, as the live
// service applies (Streak), over each series that has a bar.
func (w window) findings(bars *Bars, out []Finding) []Finding {
	for _, s := range w.ss {
		bar, ok := bars.For(w.c.nodes[s.node], w.models[s.node], w.c.figs[s.fig].name, int(s.gpu))
		if !ok {
			continue
		}
		out = w.streaks(s, bar, out)
	}
	return out
}

// streaks appends to out the findings of one series against its bar:
// each streak from the run that confirmed it to the first run back above,
// or still open at the window's end.
func (w window) streaks(s *series, bar Bar, out []Finding) []Finding {
	d := bar.Dist
	opt := w.opt
	var st Streak
	var cur *Finding
	for i, v := range s.val {
		at := time.Unix(0, s.at[i]).UTC()
		switch st.Step(d.Threshold, opt.Runs, at, v) {
		case StreakOpened:
			cur = &Finding{Node: w.c.nodes[s.node], Model: d.Model, Figure: d.Figure, Unit: d.Unit, GPU: int(s.gpu), Start: st.Start,
				Confirmed: at, Against: bar.Against, Dist: d, Margin: opt.Margin, Values: slices.Clone(st.Values)}
		case StreakClosed:
			cur.End = at
			out = append(out, *cur)
			cur = nil
		}
		if cur != nil && st.Runs > opt.Runs {
			cur.Values = append(cur.Values, v)
		}
		if cur != nil {
			cur.Runs = st.Runs
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// drift is, per node and drifting figure, the day's median over its GPUs'
// runs, judged for a sustained drop; in node and figure order.
func (w window) drift() []Drift {
	type dkey struct {
		node int32
		fig  int16
	}
	c := w.c
	// Days are counted from the Unix epoch (UTC dates) and named once each.
	// A node's readings of a figure are gathered with their days and
	// grouped by day (eachDay), each day's in the order a map of days would
	// have appended them: the median of the same values in the same order.
	// A map of slices per node and figure was a tenth of a year's scorecard.
	const day = int64(24 * time.Hour)
	days := map[dkey][]dayReading{}
	for _, s := range w.ss {
		if !Drifting(c.figs[s.fig].name) {
			continue
		}
		k := dkey{s.node, s.fig}
		rs := days[k]
		for i, v := range s.val {
			d := s.at[i] / day
			if s.at[i] < 0 && s.at[i]%day != 0 {
				d-- // floor, for instants before 1970
			}
			rs = append(rs, dayReading{d, v})
		}
		days[k] = rs
	}
	dates := map[int64]string{}
	var out []Drift
	for k, rs := range days {
		dr := Drift{Node: c.nodes[k.node], Model: w.models[k.node], Figure: c.figs[k.fig].name, Unit: c.figs[k.fig].unit}
		eachDay(rs, func(d int64, vs []float64) {
			date, ok := dates[d]
			if !ok {
				date = time.Unix(d*day/int64(time.Second), 0).UTC().Format(time.DateOnly)
				dates[d] = date
			}
			dr.Days = append(dr.Days, Day{Date: date, Value: stat.Median(vs)})
		})
		judgeDrift(&dr, w.opt)
		out = append(out, dr)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Node != out[j].Node {
			return out[i].Node < out[j].Node
		}
		return out[i].Figure < out[j].Figure
	})
	return out
}

// judgeDrift sets the baseline (median of the first days) and the latest
// sustained drop below it, if any.
func judgeDrift(dr *Drift, opt Options) {
	if len(dr.Days) < opt.DriftBaseDays+opt.DriftDays {
		if len(dr.Days) > 0 {
			dr.Baseline = dr.Days[0].Value
		}
		return // too short a series to tell a drop from the first days
	}
	base := make([]float64, opt.DriftBaseDays)
	for i := range base {
		base[i] = dr.Days[i].Value
	}
	dr.Baseline = stat.Median(base)
	limit := dr.Baseline * (1 - opt.DriftPct)
	run := 0
	for i := opt.DriftBaseDays; i < len(dr.Days); i++ {
		d := dr.Days[i]
		if d.Value > limit {
			if run >= opt.DriftDays {
				dr.Until = dr.Days[i-1].Date
			}
			run = 0
			continue
		}
		run++
		// A later sustained drop supersedes an earlier one that ended.
		if run == opt.DriftDays {
			dr.Dropped, dr.Since, dr.Until = true, dr.Days[i-run+1].Date, ""
			dr.WorstPct = 0
			for j := i - run + 1; j <= i; j++ {
				dr.WorstPct = math.Max(dr.WorstPct, 100*(1-dr.Days[j].Value/dr.Baseline))
			}
		} else if run > opt.DriftDays {
			dr.WorstPct = math.Max(dr.WorstPct, 100*(1-d.Value/dr.Baseline))
		}
	}
	dr.WorstPct = math.Round(dr.WorstPct*10) / 10
}
