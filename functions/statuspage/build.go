package statuspage

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// Request says which page to build.
type Request struct {
	Mode Mode
	// Lang is the language asked for (?lang=); "" takes the contracts'
	// report.lang when every node on the page shares one, else the
	// browser's Accept-Language, else English.
	Lang           i18n.Lang
	AcceptLanguage string
}

// Page is what the template draws and the JSON endpoint returns: every
// string already in the page's language and, in the public view, already
// redacted.
type Page struct {
	Mode  Mode      `json:"mode"`
	Lang  i18n.Lang `json:"lang"`
	Title string    `json:"title"`
	// Banner is the whole page's status in one line, as hosted status
	// pages open (banner.go).
	Banner Banner `json:"banner"`
	// Generated is when the page was built, in the zone its nodes share
	// (else UTC), named.
	Generated string     `json:"generated"`
	Feed      string     `json:"-"` // the Atom feed of the incidents (feed.go)
	NowUnixMS int64      `json:"now_unix_ms"`
	Switch    []LangLink `json:"-"`
	Legend    []Legend   `json:"legend"`
	Nodes     []NodeView `json:"nodes"`
	Open      []Incident `json:"open_incidents"`
	History   []Incident `json:"history"`
	// OpenMore and HistoryMore count the incidents past MaxOpenRows and
	// MaxHistoryRows, not listed: the page stays bounded whatever a node
	// sends (docs/security.md, "Bounds").
	OpenMore    int         `json:"open_incidents_not_listed,omitempty"`
	HistoryMore int         `json:"history_not_listed,omitempty"`
	Tickets     []TicketRow `json:"tickets"`
	Reports     []ReportRow `json:"reports,omitempty"`
	// Scorecard is the newest stored provider scorecard; team view only.
	Scorecard *ScoreView `json:"scorecard,omitempty"`
	// Claims is the claims ledger (claims.go); team view only.
	Claims *ClaimsView `json:"claims,omitempty"`
	Notes  []string    `json:"notes,omitempty"`
	// Timer words for the inline script, in the page's language.
	Words TimerWords `json:"-"`
}

// bound keeps the longest open MaxOpenRows and the newest MaxHistoryRows
// incidents (both lists sorted so), counting the rest, and expands the
// newest timelines.
func (p *Page) bound() {
	if len(p.Open) > MaxOpenRows {
		p.Open, p.OpenMore = p.Open[:MaxOpenRows], len(p.Open)-MaxOpenRows
	}
	if len(p.History) > MaxHistoryRows {
		p.History, p.HistoryMore = p.History[:MaxHistoryRows], len(p.History)-MaxHistoryRows
	}
	for i := range p.History {
		p.History[i].Expand = p.History[i].Open || i < expanded
	}
}

// OpenCount is how many incidents are open, listed or not.
func (p *Page) OpenCount() int { return len(p.Open) + p.OpenMore }

// HistoryCount is how many incidents the last Days days hold, listed or not.
func (p *Page) HistoryCount() int { return len(p.History) + p.HistoryMore }

// LangLink is one entry of the language switch.
type LangLink struct {
	Lang    i18n.Lang
	Name    string
	Href    string
	Current bool
}

// Legend explains one bar colour.
type Legend struct {
	Class string `json:"class"`
	Text  string `json:"text"`
}

// TimerWords are the live timers' phrases, a %s for the duration, and the
// duration's units (day, hour, minute, second) with what joins them: 12秒前,
// 剩余 12小时10分14秒; 12s ago, 12h 10m 14s left.
type TimerWords struct {
	Ago, Left, Overdue string
	Open               string // "still open", for the feed's titles
	Units              [4]string
	Join               string
}

// NodeView is one node's row. Provider, Contract and GPUs are empty where
// the public view withholds them; Node is the id or, in public, the label.
type NodeView struct {
	Node     string `json:"node"`
	Provider string `json:"provider,omitempty"`
	Contract string `json:"contract,omitempty"`
	GPUs     string `json:"gpus,omitempty"`
	Zone     string `json:"time_zone"`
	// ZoneName is the zone as readers name it (北京时间, US Eastern Time),
	// what the page shows; Zone stays the IANA name for machines.
	ZoneName   string `json:"-"`
	State      string `json:"state"` // up, unreachable, down, degraded, waiting, released
	StateText  string `json:"state_text"`
	StateLabel string `json:"state_label"`
	// Delivery is the node's delivery as the report judges it (team view
	// only): when it was delivered under the contract's counts_until, how
	// long after the order, against the target; or how long it is awaited.
	Delivery    string `json:"delivery,omitempty"`
	LastHeard   string `json:"last_heard,omitempty"`
	LastHeardMS int64  `json:"last_heard_unix_ms,omitempty"`
	Uptime      string `json:"uptime_90d"`
	// UptimePct is absent for a node not in service yet (never heard
	// from), whose uptime is "—" and UptimeNote says why.
	UptimePct  *float64  `json:"uptime_90d_percent,omitempty"`
	UptimeNote string    `json:"uptime_note,omitempty"`
	Days       []DayView `json:"days"`
}

// DayView is one day's bar.
type DayView struct {
	Date    string  `json:"date"`
	Class   string  `json:"class"` // ok, minor, major, down, none
	Percent float64 `json:"percent"`
	Title   string  `json:"title"`
}

// Incident is one incident with its verdict and timeline.
type Incident struct {
	ID       string `json:"id"` // kind and start: names no node
	Node     string `json:"node"`
	Kind     string `json:"kind"`
	KindText string `json:"kind_text"`
	Cause    string `json:"cause,omitempty"`
	Zone     string `json:"time_zone"`
	Start    string `json:"start"`
	StartMS  int64  `json:"start_unix_ms"`
	End      string `json:"end,omitempty"`
	Open     bool   `json:"open"`
	Duration string `json:"duration"`
	// The verdict: account.Judge's, as the report and the API give it.
	Counted        bool   `json:"counted"`
	CountedSeconds int64  `json:"counted_seconds"`
	Verdict        string `json:"verdict"`
	Reason         string `json:"reason,omitempty"`
	Detail         string `json:"detail,omitempty"`
	Timeline       []Step `json:"timeline"`
	Expand         bool   `json:"-"` // the timeline is shown unfolded
	start          time.Time
}

// Step is one moment of an incident's timeline.
type Step struct {
	At   string `json:"at"`
	What string `json:"what"`
	at   time.Time
}

// TicketRow is one open ticket with its nearest pending deadline.
type TicketRow struct {
	ID string `json:"id,omitempty"`
	// ProviderRef is the provider's own ticket number (team view only).
	ProviderRef string `json:"provider_ref,omitempty"`
	Node        string `json:"node"`
	Priority    string `json:"priority"`
	Summary     string `json:"summary,omitempty"`
	OffHours    bool   `json:"off_hours"`
	Opened      string `json:"opened"`
	Target      string `json:"target,omitempty"`
	Deadline    string `json:"deadline,omitempty"`
	DeadlineMS  int64  `json:"deadline_unix_ms,omitempty"`
	Overdue     bool   `json:"overdue"`
	Status      string `json:"status"`
	opened      time.Time
}

// node is one node being drawn, with what the page needs to know of it.
type node struct {
	n     store.Node
	tm    *terms.Terms // nil: unknown contract
	loc   *time.Location
	pub   terms.Public
	label string // what the page calls it
	team  bool   // drawn for the team view
	first time.Time
	// maint and backend are what the books take out or charge nobody
	// for: maintenance notices (of every node; those covering this one
	// apply) and the backend's own downtime.
	maint   []store.Maintenance
	backend interval.Set
	notices []time.Time // when tickets on the node were opened
}

// judging is what nd's incidents are judged with over [from, to).
func (nd *node) judging(from, to time.Time) app.Judging {
	return app.Judging{Node: nd.n, FirstHeartbeat: nd.first, Maintenance: nd.maint, Backend: nd.backend, Notices: nd.notices, From: from, To: to}
}

func (nd *node) shows(field string) bool { return nd.pub.Show[field] }

// The most incidents the page (and the feed, drawn from its history) lists:
// a fleet's real quarter is far fewer; a node that opens incidents as fast
// as app.MaxOpenedPerHour lets it is summed up in a line instead of a page
// of megabytes. Every incident is in the books (GET /v1/incidents, the
// export) and in each node's uptime bars.
const (
	MaxOpenRows    = 200
	MaxHistoryRows = 500
)

// expanded is how many of the newest incidents show their timeline
// unfolded; older ones fold theirs.
const expanded = 10

var errNoPublicNode = errors.New("no node is on the public page")

// Build gathers the page's data.
func (h *Handler) Build(ctx context.Context, req Request) (*Page, error) {
	now := h.c.Now().UTC()
	if req.Mode == "" {
		req.Mode = Private
	}
	all, err := h.c.Nodes.ListNodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	nodes, secrets, err := h.nodes(ctx, all, req.Mode)
	if err != nil {
		return nil, err
	}
	if req.Mode == Public && len(nodes) == 0 {
		return nil, errNoPublicNode
	}
	lang := req.Lang
	if lang == "" {
		lang = defaultLang(nodes, req.AcceptLanguage)
	}
	pr := i18n.New(lang)
	p := &Page{Mode: req.Mode, Lang: lang, Title: pr.T("gpusla status"), Generated: pr.Zoned(now, pageZone(nodes)), NowUnixMS: now.UnixMilli(), Feed: PathFeed + "?lang=" + string(lang),
		Words: timerWords(pr)}
	p.Switch, p.Legend = langSwitch(lang), legend(pr)
	// One read covers every zone's 90 local days.
	incs, err := h.c.Nodes.ListIncidents(ctx, "", now.AddDate(0, 0, -(Days+1)), now.Add(time.Second))
	if err != nil {
		return nil, fmt.Errorf("list incidents: %w", err)
	}
	byNode := map[string][]store.Incident{}
	for _, inc := range incs {
		byNode[inc.Node] = append(byNode[inc.Node], inc)
	}
	wfrom := now.AddDate(0, 0, -(Days + 1))
	maint, err := h.c.Nodes.ListMaintenance(ctx, wfrom, now.Add(time.Second))
	if err != nil {
		return nil, fmt.Errorf("list maintenance: %w", err)
	}
	runs, err := h.c.Nodes.ListBackendRuns(ctx, wfrom.Add(-24*time.Hour), now.Add(time.Second))
	if err != nil {
		return nil, fmt.Errorf("list backend runs: %w", err)
	}
	var backend interval.Set
	for _, o := range app.BackendOutages(runs, wfrom.Add(-24*time.Hour), now.Add(time.Second)) {
		backend = backend.Or(interval.Set{{Start: o.Start, End: o.End}})
	}
	for _, nd := range nodes {
		nd.maint, nd.backend = maint, backend
	}
	var tickets []store.Ticket
	if h.c.Tickets != nil {
		if tickets, err = h.c.Tickets.List(ctx, false); err != nil {
			return nil, fmt.Errorf("list tickets: %w", err)
		}
	}
	for _, t := range tickets {
		for _, nd := range nodes {
			if nd.n.ID == t.Node {
				nd.notices = append(nd.notices, t.Opened)
			}
		}
	}
	for _, nd := range nodes {
		nv, open, hist, err := h.nodeView(ctx, pr, nd, byNode[nd.n.ID], tickets, now)
		if err != nil {
			return nil, err
		}
		p.Nodes = append(p.Nodes, nv)
		p.Open = append(p.Open, open...)
		p.History = append(p.History, hist...)
	}
	sort.SliceStable(p.Open, func(i, j int) bool { return p.Open[i].start.Before(p.Open[j].start) })
	sort.SliceStable(p.History, func(i, j int) bool { return p.History[i].start.After(p.History[j].start) })
	p.bound()
	p.Tickets = h.ticketRows(pr, nodes, tickets, now, p)
	p.Banner = banner(pr, p)
	if req.Mode == Private && h.c.Reports != nil {
		// The stored months and the newest scorecard: team view only (they
		// name every node, provider and contract).
		if objs, err := h.c.Reports.List(ctx, ""); err != nil {
			p.Notes = append(p.Notes, "reports: "+err.Error())
		} else {
			p.Reports = h.reports(ctx, pr, p, objs)
			p.Scorecard = h.scorecardView(ctx, pr, p, objs)
		}
	}
	if req.Mode == Private && h.c.Claims != nil {
		p.Claims = h.claimsView(ctx, pr, p)
	}
	if req.Mode == Public {
		secrets.constants = i18n.Constants()
		if err := guard(p, secrets); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// langSwitch is the page's language links, the current one marked.
func langSwitch(lang i18n.Lang) []LangLink {
	var out []LangLink
	for _, l := range i18n.Langs {
		out = append(out, LangLink{Lang: l, Name: map[i18n.Lang]string{i18n.EN: "English", i18n.ZH: "中文"}[l],
			Href: PathStatus + "?lang=" + string(l), Current: l == lang})
	}
	return out
}

// legend explains the bars' colours.
func legend(pr *i18n.Printer) []Legend {
	var out []Legend
	for _, c := range []struct{ class, text string }{{"ok", "no counted outage"}, {"minor", "at least 99.9 %% up"},
		{"major", "at least 99 %% up"}, {"down", "below 99 %% up"}, {"none", "no data (not yet in service)"}} {
		out = append(out, Legend{Class: c.class, Text: pr.T(c.text)})
	}
	return out
}

// pageZone is the zone every node on the page is kept in, else UTC: the
// page's own times (when it was built) are in it.
func pageZone(nodes []*node) *time.Location {
	var loc *time.Location
	for _, nd := range nodes {
		switch {
		case loc == nil:
			loc = nd.loc
		case loc.String() != nd.loc.String():
			return time.UTC
		}
	}
	if loc == nil {
		return time.UTC
	}
	return loc
}

// timerWords are the script's words in pr's language.
func timerWords(pr *i18n.Printer) TimerWords {
	w := TimerWords{Ago: pr.T("%s ago", "%s"), Left: pr.T("%s left", "%s"), Overdue: pr.T("overdue by %s", "%s"), Open: pr.T("still open"),
		Units: [4]string{"d", "h", "m", "s"}, Join: " "}
	if pr.Lang == i18n.ZH {
		// 12小时10分14秒: 分 before seconds, as a clock reads.
		w.Units, w.Join = [4]string{"天", "小时", "分", "秒"}, ""
	}
	return w
}

// defaultLang is the contracts' shared report.lang, else the first of
// Accept-Language's languages the catalog has, else English.
func defaultLang(nodes []*node, accept string) i18n.Lang {
	shared := ""
	for i, nd := range nodes {
		l := "en"
		if nd.tm != nil && nd.tm.Paperwork.Lang != "" {
			l = nd.tm.Paperwork.Lang
		}
		if i == 0 {
			shared = l
		} else if l != shared {
			shared = ""
			break
		}
	}
	if l, err := i18n.Parse(shared); err == nil {
		return l
	}
	return acceptLang(accept)
}

// acceptLang is the first of Accept-Language's languages the catalog has,
// else English.
func acceptLang(accept string) i18n.Lang {
	for _, part := range strings.Split(accept, ",") {
		tag, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		base, _, _ := strings.Cut(strings.ToLower(tag), "-")
		if l, err := i18n.Parse(base); err == nil {
			return l
		}
	}
	return i18n.EN
}

func (h *Handler) nodeView(ctx context.Context, pr *i18n.Printer, nd *node, incs []store.Incident, tickets []store.Ticket, now time.Time) (NodeView, []Incident, []Incident, error) {
	n := nd.n
	nv := NodeView{Node: nd.label, Zone: nd.loc.String(), ZoneName: pr.ZoneName(nd.loc, now, now)}
	if nd.shows(terms.ShowProvider) {
		nv.Provider = n.Provider
	}
	if nd.shows(terms.ShowContract) {
		nv.Contract = n.Contract
	}
	if nd.shows(terms.ShowGPUs) && n.GPUCount > 0 {
		nv.GPUs = fmt.Sprintf("%d × %s", n.GPUCount, n.GPUModel)
	}
	st, err := h.c.Nodes.GetState(ctx, n.ID)
	waiting := errors.Is(err, store.ErrNotFound)
	if err != nil && !waiting {
		return nv, nil, nil, fmt.Errorf("state of %s: %w", n.ID, err)
	}
	if !waiting {
		nv.LastHeard, nv.LastHeardMS = pr.Zoned(st.LastReceivedAt, nd.loc), st.LastReceivedAt.UnixMilli()
	}
	nd.first = st.FirstHeartbeatAt
	if nd.team && nd.tm != nil {
		if waiting {
			st.AcceptanceKnown = true // never heard from: nothing accepted yet
		}
		nv.Delivery = deliveryText(pr, nd, &st, now)
	}
	// The window: the last Days calendar days in the contract's zone.
	local := now.In(nd.loc)
	from := dayStart(local, -(Days - 1))
	var inWindow []store.Incident
	for _, inc := range incs {
		if inc.Open() || inc.End.After(from) {
			inWindow = append(inWindow, inc)
		}
	}
	verdicts := h.judge(nd, inWindow, from, now)
	nv.State, nv.StateText = nodeState(pr, nd, waiting, inWindow, verdicts)
	if r := n.ReleasedAt; !r.IsZero() && !now.Before(r) {
		// Given back: no longer watched, so neither up nor an outage.
		nv.State, nv.StateText = "released", pr.T("released %s", pr.Zoned(r, nd.loc))
	}
	nv.StateLabel = pr.T(nv.State)
	if nv.State == string(incident.Unreachable) {
		nv.StateLabel = pr.Word(nv.State)
	}
	var down interval.Set
	if nd.tm != nil {
		books, _ := app.JudgeIncidents(nd.tm, nd.judging(from, now), inWindow)
		down = books.Claimable
	} else {
		for _, v := range verdicts {
			down = down.Or(v.claimed)
		}
	}
	var up float64
	nv.Days, up = dayBars(pr, down, nd.loc, now, nd.first)
	if nd.first.IsZero() {
		// Never heard from: no day was in service, so there is no uptime
		// (0.000 % would read as a total outage).
		nv.Uptime, nv.UptimeNote = "—", pr.T("not in service yet: no heartbeat received")
	} else {
		nv.Uptime, nv.UptimePct = pr.Num(up, 3)+" %", &up
	}
	var open, hist []Incident
	for i, inc := range inWindow {
		iv := h.incidentView(ctx, pr, nd, inc, verdicts[i], tickets, now)
		if inc.Open() {
			open = append(open, iv)
		}
		hist = append(hist, iv)
	}
	return nv, open, hist, nil
}

// verdict is one incident's counted-or-not as the page shows it.
type verdict struct {
	Counted        bool
	CountedSeconds int64
	Reason         msg.Text
	stored         string // the reason recorded with the incident (no terms)
	claimed        interval.Set
}

// judge is account.Judge's verdict on each incident over the window,
// under the node's contract, exactly as the report and the live API give
// it (app.JudgeIncidents). Without terms the page can only repeat what
// the live service recorded when the incident opened.
func (h *Handler) judge(nd *node, incs []store.Incident, from, now time.Time) []verdict {
	out := make([]verdict, len(incs))
	if nd.tm == nil {
		for i, inc := range incs {
			o := inc.Outage(now)
			out[i] = verdict{Counted: inc.Counted, stored: inc.Reason}
			if inc.Counted {
				out[i].CountedSeconds = int64(o.Span.Duration() / time.Second)
				out[i].claimed = interval.Set{o.Span}
			}
		}
		return out
	}
	// An unreachable incident cut by cause is judged part by part; the page
	// shows it whole: counted if any part is, the parts' counted seconds,
	// and the reason of the first part not counted in full.
	_, parts := app.JudgeIncidents(nd.tm, nd.judging(from, now), incs)
	for _, p := range parts {
		v := &out[p.Index]
		v.Counted = v.Counted || p.Verdict.Counted
		v.CountedSeconds += p.CountedSeconds
		if v.Reason.IsZero() {
			v.Reason = p.Reason
		}
	}
	return out
}

func (v verdict) reason(pr *i18n.Printer) string {
	if !v.Reason.IsZero() {
		return pr.Text(v.Reason)
	}
	return v.stored
}

// nodeState is the worst open incident: unreachable, or an incident the
// contract counts, is down; anything else open is degraded.
func nodeState(pr *i18n.Printer, nd *node, waiting bool, incs []store.Incident, vs []verdict) (string, string) {
	worst, text := "", ""
	for i, inc := range incs {
		if !inc.Open() {
			continue
		}
		since := pr.T("%s since %s", pr.Word(inc.Kind), pr.Zoned(inc.Start, nd.loc))
		counted, _ := account.Counts(termsOr(nd.tm), incident.Kind(inc.Kind), inc.Cause)
		if nd.tm == nil {
			counted = vs[i].Counted
		}
		switch {
		case inc.Kind == string(incident.Unreachable):
			return "unreachable", since
		case counted:
			worst, text = "down", since
		case worst == "":
			worst, text = "degraded", since
		}
	}
	if worst != "" {
		return worst, text
	}
	if waiting {
		return "waiting", pr.T("never heard from")
	}
	return "up", pr.T("up")
}

// termsOr keeps account.Counts callable for a node without terms (its
// result is then not used).
func termsOr(tm *terms.Terms) *terms.Terms {
	if tm != nil {
		return tm
	}
	return &terms.Terms{}
}

// dayStart is the first instant of the calendar day n days after t's, in
// t's zone. Each day is computed from its date, not by adding days to the
// previous start, and where the zone's clocks skip midnight (Santiago's
// day of DST starts at 01:00) time.Date may answer an instant of the day
// before: the start then moves forward to the day's first instant.
func dayStart(t time.Time, n int) time.Time {
	noon := time.Date(t.Year(), t.Month(), t.Day()+n, 12, 0, 0, 0, t.Location())
	s := time.Date(noon.Year(), noon.Month(), noon.Day(), 0, 0, 0, 0, t.Location())
	for s.Day() != noon.Day() && s.Before(noon) {
		s = s.Add(15 * time.Minute)
	}
	return s
}

// dayBars is each local day's share of time not in counted outage (down:
// the claimable outage of the books, as the report counts it) and the
// window's uptime. Days run midnight to midnight in loc, so a DST day is
// 23 or 25 hours, as in the monthly report.
func dayBars(pr *i18n.Printer, down interval.Set, loc *time.Location, now, first time.Time) ([]DayView, float64) {
	var out []DayView
	var upSum, totSum time.Duration
	local := now.In(loc)
	for i := -(Days - 1); i <= 0; i++ {
		d, de := dayStart(local, i), dayStart(local, i+1)
		if de.After(now) {
			de = now
		}
		dv := DayView{Date: d.Format("2006-01-02")}
		start := d
		if !first.IsZero() && first.After(start) {
			start = first
		}
		if first.IsZero() || !de.After(start) {
			dv.Class, dv.Title = "none", pr.T("%s: no data", pr.Date(d))
			out = append(out, dv)
			continue
		}
		span := de.Sub(start)
		dn := down.Overlap(interval.Interval{Start: start, End: de})
		dv.Percent = 100 * float64(span-dn) / float64(span)
		upSum += span - dn
		totSum += span
		switch {
		case dn == 0:
			dv.Class = "ok"
		case dv.Percent >= 99.9:
			dv.Class = "minor"
		case dv.Percent >= 99:
			dv.Class = "major"
		default:
			dv.Class = "down"
		}
		dv.Title = pr.T("%s: %s %% up, %s counted down", pr.Date(d)+" ("+loc.String()+")", pr.Num(dv.Percent, 3), pr.Dur(dn.Round(time.Second)))
		out = append(out, dv)
	}
	if totSum == 0 {
		return out, 0
	}
	return out, 100 * float64(upSum) / float64(totSum)
}

// deliveryText is the node's delivery under its contract as of now
// (app.JudgeDelivery, the report's rule): delivered when, how long after
// the order, met or breached against the target; or not delivered yet,
// with the target's due time. Empty where it cannot be judged.
func deliveryText(pr *i18n.Printer, nd *node, st *store.NodeState, now time.Time) string {
	d, ok := app.JudgeDelivery(nd.tm, nd.n, st, now)
	if !ok {
		return ""
	}
	at, v, ordered := d.DeliveredAt, d.Verdict, nd.n.OrderedAt
	switch {
	case !at.IsZero() && v.Due.IsZero():
		return pr.T("delivered %s, %s after the order", pr.Zoned(at, nd.loc), pr.Elapsed(v.Took))
	case !at.IsZero():
		return pr.T("delivered %s, %s after the order (target %s): %s", pr.Zoned(at, nd.loc), pr.Elapsed(v.Took), pr.Dur(v.Due.Sub(ordered)), pr.T(v.Status))
	case v.Due.IsZero():
		return pr.T("not delivered: ordered %s", pr.Zoned(ordered, nd.loc))
	case v.Status == ticket.Breached:
		return pr.T("not delivered: ordered %s, due %s, overdue by %s", pr.Zoned(ordered, nd.loc), pr.Zoned(v.Due, nd.loc), pr.Dur(v.Late))
	}
	return pr.T("not delivered: ordered %s, due %s", pr.Zoned(ordered, nd.loc), pr.Zoned(v.Due, nd.loc))
}
