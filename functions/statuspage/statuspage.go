// Package statuspage serves the team's read-only status page: every node
// with its state, 90 days of daily uptime bars, open incidents and tickets
// with live timers against their deadlines, and links to the stored monthly
// reports. It is one self-contained HTML page (inline CSS, SVG-free bars
// made of divs, a few lines of inline script for the timers) behind a
// bearer token, mounted by `gpusla serve` and by the reports Lambda's
// Function URL alike.
package statuspage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// Routes.
const (
	PathStatus  = "/status"
	PathReports = "/status/reports/"
	// CookieName holds the token after a ?token= visit, so links on the
	// page work without the token in every URL.
	CookieName = "gpusla_status"
)

// Days is how many days of uptime bars the page shows.
const Days = 90

// Nodes is what the page reads about nodes (app.Store satisfies it).
type Nodes interface {
	ListNodes(ctx context.Context) ([]store.Node, error)
	GetState(ctx context.Context, node string) (store.NodeState, error)
	ListIncidents(ctx context.Context, node string, from, to time.Time) ([]store.Incident, error)
	ListMaintenance(ctx context.Context, from, to time.Time) ([]store.Maintenance, error)
	ListBackendRuns(ctx context.Context, from, to time.Time) ([]store.BackendRun, error)
}

// Tickets is what the page reads about tickets (*app.TicketDesk satisfies it).
type Tickets interface {
	List(ctx context.Context, openOnly bool) ([]store.Ticket, error)
	Timing(t *store.Ticket, asOf time.Time) (ticket.Timing, *terms.Terms, error)
}

// Reports lists and reads stored reports (infra/blob's Dir and S3 satisfy it).
type Reports interface {
	List(ctx context.Context, prefix string) ([]blob.Object, error)
	Get(ctx context.Context, name string) ([]byte, error)
}

// Config wires the page. Token is required: without one the page answers
// 503 rather than being open to anyone who finds the URL.
type Config struct {
	Nodes Nodes
	// Terms looks up a contract's terms (app.TermsBook's entries): every
	// incident is judged by them as the report judges it (counted or not,
	// and why; the uptime bars count what the books count). Without it, or
	// for an unknown contract, the page shows the verdict stored with each
	// incident and counts its whole length.
	Terms   func(contract string) (*terms.Terms, bool)
	Tickets Tickets // optional
	Reports Reports // optional
	Token   string
	Now     func() time.Time
	Log     *slog.Logger
}

// Handler serves the page and the report downloads.
type Handler struct {
	c     Config
	token [32]byte
}

// New returns the handler.
func New(c Config) *Handler {
	if c.Now == nil {
		c.Now = func() time.Time { return time.Now().UTC() }
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	return &Handler{c: c, token: sha256.Sum256([]byte(c.Token))}
}

// Register mounts the page on mux.
func (h *Handler) Register(mux *http.ServeMux) {
	mux.Handle("GET "+PathStatus, h)
	mux.Handle("GET "+PathReports, h)
}

// authorized checks the token (header, cookie or query) in constant time
// before anything is read from the store.
func (h *Handler) authorized(r *http.Request) (ok, fromQuery bool) {
	if h.c.Token == "" {
		return false, false
	}
	try := func(s string) bool {
		if s == "" || len(s) > 256 {
			return false
		}
		sum := sha256.Sum256([]byte(s))
		return subtle.ConstantTimeCompare(sum[:], h.token[:]) == 1
	}
	if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && try(v) {
		return true, false
	}
	if c, err := r.Cookie(CookieName); err == nil && try(c.Value) {
		return true, false
	}
	if try(r.URL.Query().Get("token")) {
		return true, true
	}
	return false, false
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if h.c.Token == "" {
		http.Error(w, "status page disabled: no token configured (GPUSLA_STATUS_TOKEN)", http.StatusServiceUnavailable)
		return
	}
	ok, fromQuery := h.authorized(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="gpusla status"`)
		http.Error(w, "unauthorized: give the status token as Authorization: Bearer TOKEN or ?token=TOKEN", http.StatusUnauthorized)
		return
	}
	if fromQuery {
		// Keep the token out of the address bar and of shared links.
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: r.URL.Query().Get("token"), Path: PathStatus,
			HttpOnly: true, Secure: r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https", SameSite: http.SameSiteStrictMode})
	}
	if name, isReport := strings.CutPrefix(r.URL.Path, PathReports); isReport {
		h.report(w, r, name)
		return
	}
	if r.URL.Path != PathStatus {
		http.NotFound(w, r)
		return
	}
	page, err := h.Build(r.Context())
	if err != nil {
		h.c.Log.Error("status page", "err", err)
		http.Error(w, "status page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, page); err != nil {
		h.c.Log.Error("status page template", "err", err)
		http.Error(w, "status page: render failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'")
	_, _ = w.Write(buf.Bytes())
}

func (h *Handler) report(w http.ResponseWriter, r *http.Request, name string) {
	if h.c.Reports == nil {
		http.NotFound(w, r)
		return
	}
	if err := blob.CheckName(name); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	data, err := h.c.Reports.Get(r.Context(), name)
	if errors.Is(err, blob.ErrNotFound) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		h.c.Log.Error("status page report", "name", name, "err", err)
		http.Error(w, "report: read failed", http.StatusInternalServerError)
		return
	}
	ct := map[string]string{".html": "text/html; charset=utf-8", ".json": "application/json", ".md": "text/markdown; charset=utf-8",
		".csv": "text/csv; charset=utf-8", ".pdf": "application/pdf", ".zip": "application/zip"}[path.Ext(name)]
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	if ct == "application/zip" || ct == "application/pdf" {
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", path.Base(name)))
	}
	// A stored HTML report is self-contained: no script, nothing to fetch.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox")
	_, _ = w.Write(data)
}

// Page is what the template draws.
type Page struct {
	Now       time.Time
	NowUnixMS int64
	Nodes     []NodeView
	Incidents []IncidentView
	Tickets   []TicketView
	Reports   []ReportLink
	DayLabels []string
	Notes     []string
}

// NodeView is one node's row.
type NodeView struct {
	ID, Provider, Contract, GPUs string
	State                        string // up, unreachable, degraded, waiting
	StateText                    string
	LastHeard                    time.Time
	LastHeardMS                  int64
	Uptime90                     float64
	Days                         []DayView
}

// DayView is one day's bar.
type DayView struct {
	Date    string
	Class   string // ok, minor, major, down, none
	Percent float64
	Title   string
}

// IncidentView is one open incident.
type IncidentView struct {
	Node, Kind, Cause, Detail string
	Counted                   bool
	Reason                    string // why it does not count, when not
	Since                     time.Time
	SinceMS                   int64
}

// TicketView is one open ticket with its nearest pending deadline.
type TicketView struct {
	ID, Node, Priority, Summary, Target string
	OffHours                            bool
	Opened                              time.Time
	Deadline                            time.Time
	DeadlineMS                          int64
	Status                              string
}

// ReportLink is one stored report file.
type ReportLink struct {
	Name, Href string
	Size       int64
	Modified   time.Time
}

// Build gathers the page's data.
func (h *Handler) Build(ctx context.Context) (*Page, error) {
	now := h.c.Now().UTC()
	p := &Page{Now: now, NowUnixMS: now.UnixMilli()}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	from := today.AddDate(0, 0, -(Days - 1))
	for d := from; !d.After(today); d = d.AddDate(0, 0, 1) {
		p.DayLabels = append(p.DayLabels, d.Format("2006-01-02"))
	}
	nodes, err := h.c.Nodes.ListNodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	all, err := h.c.Nodes.ListIncidents(ctx, "", from, now.Add(time.Second))
	if err != nil {
		return nil, fmt.Errorf("list incidents: %w", err)
	}
	maint, err := h.c.Nodes.ListMaintenance(ctx, from, now.Add(time.Second))
	if err != nil {
		return nil, fmt.Errorf("list maintenance: %w", err)
	}
	runs, err := h.c.Nodes.ListBackendRuns(ctx, from.Add(-24*time.Hour), now.Add(time.Second))
	if err != nil {
		return nil, fmt.Errorf("list backend runs: %w", err)
	}
	var backend interval.Set
	for _, o := range app.BackendOutages(runs, from.Add(-24*time.Hour), now.Add(time.Second)) {
		backend = backend.Or(interval.Set{{Start: o.Start, End: o.End}})
	}
	byNode := map[string][]store.Incident{}
	for _, inc := range all {
		byNode[inc.Node] = append(byNode[inc.Node], inc)
	}
	for _, n := range nodes {
		nv := NodeView{ID: n.ID, Provider: n.Provider, Contract: n.Contract}
		if n.GPUCount > 0 {
			nv.GPUs = fmt.Sprintf("%d × %s", n.GPUCount, n.GPUModel)
		}
		st, err := h.c.Nodes.GetState(ctx, n.ID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			nv.State, nv.StateText = "waiting", "never heard from"
		case err != nil:
			return nil, fmt.Errorf("state of %s: %w", n.ID, err)
		default:
			nv.LastHeard = st.LastReceivedAt
			nv.LastHeardMS = st.LastReceivedAt.UnixMilli()
		}
		incs := byNode[n.ID]
		var tm *terms.Terms
		if h.c.Terms != nil {
			tm, _ = h.c.Terms(n.Contract)
		}
		first := firstDay(n, st)
		counts := func(inc store.Incident) (bool, string) {
			if tm == nil {
				return inc.Counted, inc.Reason
			}
			ok, why := account.Counts(tm, incident.Kind(inc.Kind), inc.Cause)
			return ok, why.String()
		}
		var down interval.Set
		if tm != nil {
			books, _ := app.JudgeIncidents(tm, app.Judging{Node: n, FirstHeartbeat: first, Maintenance: maint, Backend: backend, From: from, To: now}, incs)
			down = books.Claimable
		} else {
			for _, inc := range incs {
				if inc.Counted {
					down = down.Or(interval.Set{inc.Outage(now).Span})
				}
			}
		}
		nv.State, nv.StateText = nodeState(nv.State, incs, counts)
		nv.Days, nv.Uptime90 = dayBars(down, from, today, now, first)
		for _, inc := range incs {
			if !inc.Open() {
				continue
			}
			iv := IncidentView{Node: n.ID, Kind: inc.Kind, Cause: inc.Cause, Since: inc.Start, SinceMS: inc.Start.UnixMilli()}
			iv.Counted, iv.Reason = counts(inc)
			var fails []string
			for _, f := range inc.Failed {
				s := f.Name + " " + f.Verdict
				if f.Value != "" {
					s += ": " + f.Value
				}
				fails = append(fails, s)
			}
			iv.Detail = strings.Join(fails, "; ")
			if iv.Detail == "" {
				iv.Detail = inc.Evidence
			}
			p.Incidents = append(p.Incidents, iv)
		}
		p.Nodes = append(p.Nodes, nv)
	}
	sort.Slice(p.Incidents, func(i, j int) bool { return p.Incidents[i].Since.Before(p.Incidents[j].Since) })

	if h.c.Tickets != nil {
		ts, err := h.c.Tickets.List(ctx, true)
		if err != nil {
			return nil, fmt.Errorf("list tickets: %w", err)
		}
		for i := range ts {
			t := &ts[i]
			tv := TicketView{ID: t.ID, Node: t.Node, Priority: t.Priority, Summary: t.Summary, Opened: t.Opened, Status: "no target"}
			tim, _, err := h.c.Tickets.Timing(t, now)
			if err != nil {
				p.Notes = append(p.Notes, fmt.Sprintf("ticket %s: %v", t.ID, err))
			} else {
				tv.OffHours = tim.OffHours
				// The nearest deadline still pending, else the first breached.
				for _, c := range []struct {
					name string
					c    *ticket.Clock
				}{{"response", tim.Response}, {"resolution", tim.Resolution}, {"replacement", tim.Replacement}} {
					if c.c == nil || c.c.Deadline.IsZero() || c.c.Status == ticket.Met {
						continue
					}
					if tv.Deadline.IsZero() || (c.c.Status == ticket.Pending && (tv.Status != ticket.Pending || c.c.Deadline.Before(tv.Deadline))) {
						tv.Target, tv.Deadline, tv.Status = c.name, c.c.Deadline, c.c.Status
					}
				}
				tv.DeadlineMS = tv.Deadline.UnixMilli()
			}
			p.Tickets = append(p.Tickets, tv)
		}
	}
	if h.c.Reports != nil {
		objs, err := h.c.Reports.List(ctx, "")
		if err != nil {
			p.Notes = append(p.Notes, "reports: "+err.Error())
		}
		sort.Slice(objs, func(i, j int) bool { return objs[i].Name > objs[j].Name })
		for i, o := range objs {
			if i >= 60 {
				break
			}
			p.Reports = append(p.Reports, ReportLink{Name: o.Name, Href: PathReports + o.Name, Size: o.Size, Modified: o.Modified})
		}
	}
	return p, nil
}

func firstDay(n store.Node, st store.NodeState) time.Time {
	if !st.FirstHeartbeatAt.IsZero() {
		return st.FirstHeartbeatAt
	}
	return time.Time{}
}

// nodeState is the worst open incident: unreachable, or an incident the
// contract counts, is down; anything else open is degraded.
func nodeState(state string, incs []store.Incident, counts func(store.Incident) (bool, string)) (string, string) {
	worst, text := "", ""
	for _, inc := range incs {
		if !inc.Open() {
			continue
		}
		counted, _ := counts(inc)
		switch {
		case inc.Kind == string(incident.Unreachable):
			return "unreachable", "unreachable since " + inc.Start.Format("2006-01-02 15:04 UTC")
		case counted:
			worst, text = "down", inc.Kind+" since "+inc.Start.Format("2006-01-02 15:04 UTC")
		case worst == "":
			worst, text = "degraded", inc.Kind+" since "+inc.Start.Format("2006-01-02 15:04 UTC")
		}
	}
	if worst != "" {
		return worst, text
	}
	if state == "waiting" {
		return state, "never heard from"
	}
	return "up", "up"
}

// dayBars is each UTC day's share of time not in counted outage (down: the
// claimable outage of the books, as the report counts it; the monthly
// report, with late data, maintenance and the contract's zone, is the
// authority).
func dayBars(down interval.Set, from, today, now, first time.Time) ([]DayView, float64) {
	var out []DayView
	var upSum, totSum time.Duration
	for d := from; !d.After(today); d = d.AddDate(0, 0, 1) {
		de := d.AddDate(0, 0, 1)
		if de.After(now) {
			de = now
		}
		dv := DayView{Date: d.Format("2006-01-02")}
		start := d
		if !first.IsZero() && first.After(start) {
			start = first
		}
		if first.IsZero() || !de.After(start) {
			dv.Class, dv.Title = "none", dv.Date+": no data"
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
		dv.Title = fmt.Sprintf("%s: %.3f %% up, %s counted down (UTC day)", dv.Date, dv.Percent, dn.Round(time.Second))
		out = append(out, dv)
	}
	if totSum == 0 {
		return out, 0
	}
	return out, 100 * float64(upSum) / float64(totSum)
}

//go:embed page.html.tmpl
var pageHTML string

var pageTmpl = template.Must(template.New("status").Funcs(template.FuncMap{
	"ts": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"pct":   func(v float64) string { return fmt.Sprintf("%.3f", v) },
	"since": func(now, t time.Time) string { return durShort(now.Sub(t)) },
	"until": func(now, t time.Time) string {
		if t.Before(now) {
			return "overdue by " + durShort(now.Sub(t))
		}
		return durShort(t.Sub(now)) + " left"
	},
	"kb": func(n int64) string { return fmt.Sprintf("%.1f KB", float64(n)/1024) },
}).Parse(pageHTML))

func durShort(d time.Duration) string {
	d = d.Round(time.Second)
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	h, m, s := d/time.Hour, (d%time.Hour)/time.Minute, (d%time.Minute)/time.Second
	if days > 0 {
		return fmt.Sprintf("%dd %02dh %02dm %02ds", days, h, m, s)
	}
	return fmt.Sprintf("%02dh %02dm %02ds", h, m, s)
}
