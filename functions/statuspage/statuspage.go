// Package statuspage serves the status page in two modes. The team view
// (a bearer token) shows every node with its state, 90 days of daily
// uptime bars in its contract's time zone, open incidents, the history of
// past incidents with their timelines, open tickets with live timers
// against their deadlines, and links to the stored monthly reports. The
// public view (no token) shows only the nodes whose contract's terms put
// them there (status_page), each under a label, with what the terms let
// it show and nothing else: no node name, provider, contract, address,
// evidence text or ticket reference, in the HTML, its JSON or any link.
// Both are written in English or Chinese (sla/i18n). One
// self-contained HTML page (inline CSS, bars made of divs, a few lines of
// inline script for the timers) and its data as JSON, mounted by `gpusla
// serve` and by the status Lambda's Function URL alike.
package statuspage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// Routes.
const (
	PathStatus  = "/status"
	PathJSON    = "/status/page.json"
	PathReports = "/status/reports/"
	// CookieName holds the token after a ?token= visit, so links on the
	// page work without the token in every URL.
	CookieName = "gpusla_status"
)

// Days is how many days of uptime bars and incident history the page shows.
const Days = 90

// Nodes is what the page reads about nodes: a read-only role the stores
// (infra/store/bolt, infra/store/dynamo) satisfy, so the page can show
// nothing it could change.
type Nodes interface {
	ListNodes(ctx context.Context) ([]store.Node, error)
	GetState(ctx context.Context, node string) (store.NodeState, error)
	ListIncidents(ctx context.Context, node string, from, to time.Time) ([]store.Incident, error)
	GetAlert(ctx context.Context, node, incidentID string, kind notify.AlertKind, channel string) (store.AlertRecord, error)
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
// 503 rather than being open to anyone who finds the URL (the public view
// derives its node labels from it too).
type Config struct {
	Nodes Nodes
	// Terms looks up a contract's terms (app.TermsBook's entries): every
	// incident is judged by them as the report judges it (counted or not,
	// and why; the uptime bars count what the books count), times are
	// shown in the contract's zone, the page speaks the contract's
	// language unless asked otherwise, and its status_page section says
	// what the public view shows. Without it, or for an unknown contract,
	// the page shows the verdict stored with each incident, counts its
	// whole length, shows UTC, and lists the node on the team view alone.
	Terms   func(contract string) (*terms.Terms, bool)
	Tickets Tickets // optional
	Reports Reports // optional
	// Claims is the claims ledger, shown on the team view (optional).
	Claims Claims
	// Channels names where an incident's alert went (the service's
	// routes); nil: the one notifier ("").
	Channels app.Channels
	Token    string
	// HTTPS says the page is only ever reached over https (the Lambda's
	// Function URL): the token cookie is always Secure.
	HTTPS bool
	// TrustedProxies are the reverse proxies whose X-Forwarded-Proto is
	// believed (GPUSLA_TRUSTED_PROXIES); anyone else's is ignored, so a
	// client cannot talk serve into anything, and a request from a
	// trusted proxy saying https gets a Secure cookie.
	TrustedProxies []netip.Prefix
	Now            func() time.Time
	Log            *slog.Logger
}

// Handler serves the page, its JSON and the report downloads.
type Handler struct {
	c     Config
	cache publicCache
	token [32]byte
	// labelKey keys the public labels: without the token nobody can tell
	// which node id a label stands for, even by trying guessed names.
	labelKey []byte
}

// New returns the handler.
func New(c Config) *Handler {
	if c.Now == nil {
		c.Now = func() time.Time { return time.Now().UTC() }
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	key := sha256.Sum256([]byte("gpusla status page labels\x00" + c.Token))
	return &Handler{c: c, token: sha256.Sum256([]byte(c.Token)), labelKey: key[:]}
}

// Register mounts the page on mux.
func (h *Handler) Register(mux *http.ServeMux) {
	mux.Handle("GET "+PathStatus, h)
	mux.Handle("GET "+PathJSON, h)
	mux.Handle("GET "+PathFeed, h)
	mux.Handle("GET "+PathReports, h)
}

// Mode is which view a request gets.
type Mode string

// Modes.
const (
	Private Mode = "private" // the team view, with the token
	Public  Mode = "public"  // no token: redacted as the terms say
)

// credentials checks the token (header, cookie or query) in constant time
// before anything is read from the store. given says some token was
// presented: a wrong one is refused, never downgraded to the public view,
// so a mistyped token does not look like a working one.
func (h *Handler) credentials(r *http.Request) (ok, given, fromQuery bool) {
	try := func(s string) bool {
		if len(s) > 256 {
			return false
		}
		sum := sha256.Sum256([]byte(s))
		return subtle.ConstantTimeCompare(sum[:], h.token[:]) == 1
	}
	if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && v != "" {
		return try(v), true, false
	}
	if c, err := r.Cookie(CookieName); err == nil && c.Value != "" {
		return try(c.Value), true, false
	}
	if v := r.URL.Query().Get("token"); v != "" {
		return try(v), true, true
	}
	return false, r.Header.Get("Authorization") != "", false
}

// https says whether the browser reached the page over https: serve's own
// TLS, an https-only deployment, or a trusted proxy's X-Forwarded-Proto
// (its last value: the one the nearest proxy set).
func (h *Handler) https(r *http.Request) bool {
	if r.TLS != nil || h.c.HTTPS {
		return true
	}
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	from := ap.Addr().Unmap()
	trusted := false
	for _, p := range h.c.TrustedProxies {
		trusted = trusted || p.Contains(from)
	}
	vals := r.Header.Values("X-Forwarded-Proto")
	if !trusted || len(vals) == 0 {
		return false
	}
	last := vals[len(vals)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return strings.EqualFold(strings.TrimSpace(last), "https")
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if h.c.Token == "" {
		http.Error(w, "status page disabled: no token configured (GPUSLA_STATUS_TOKEN)", http.StatusServiceUnavailable)
		return
	}
	ok, given, fromQuery := h.credentials(r)
	mode := Private
	switch {
	case ok:
	case given:
		h.unauthorized(w, "unauthorized: the status token given is wrong")
		return
	default:
		mode = Public
	}
	if mode == Private && fromQuery {
		// Keep the token out of the address bar and of shared links.
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: r.URL.Query().Get("token"), Path: PathStatus,
			HttpOnly: true, Secure: h.https(r), SameSite: http.SameSiteStrictMode})
	}
	if name, isReport := strings.CutPrefix(r.URL.Path, PathReports); isReport {
		if mode != Private {
			// Reports name every node, provider and contract: team view only.
			h.unauthorized(w, "unauthorized: reports need the status token (Authorization: Bearer TOKEN or ?token=TOKEN)")
			return
		}
		h.report(w, r, name)
		return
	}
	if r.URL.Path != PathStatus && r.URL.Path != PathJSON && r.URL.Path != PathFeed {
		http.NotFound(w, r)
		return
	}
	var lang i18n.Lang
	if v := r.URL.Query().Get("lang"); v != "" {
		l, err := i18n.Parse(v)
		if err != nil {
			http.Error(w, "lang: "+err.Error(), http.StatusBadRequest)
			return
		}
		lang = l
	}
	page, err := h.page(r.Context(), Request{Mode: mode, Lang: lang, AcceptLanguage: r.Header.Get("Accept-Language")})
	if errors.Is(err, errNoPublicNode) {
		h.unauthorized(w, "unauthorized: give the status token as Authorization: Bearer TOKEN or ?token=TOKEN (no contract puts its nodes on the public page: terms status_page.public)")
		return
	}
	if err != nil {
		h.c.Log.Error("status page", "mode", mode, "err", err)
		msg := "status page: " + err.Error()
		if mode == Public {
			// An error names nodes and stores; the log has it.
			msg = "status page: internal error (see the server's log)"
		}
		http.Error(w, msg, http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if r.URL.Path == PathFeed {
		h.writeFeed(w, page)
		return
	}
	if r.URL.Path == PathJSON {
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(page); err != nil {
			h.c.Log.Error("status page json", "err", err)
			http.Error(w, "status page: encoding failed", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(buf.Bytes())
		return
	}
	if err := render(&buf, page); err != nil {
		h.c.Log.Error("status page template", "err", err)
		http.Error(w, "status page: render failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Language", string(page.Lang))
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'")
	_, _ = w.Write(buf.Bytes())
}

// writeFeed answers the page as its Atom feed (feed.go).
func (h *Handler) writeFeed(w http.ResponseWriter, page *Page) {
	out, err := feed(page, PathFeed+"?lang="+string(page.Lang))
	if err != nil {
		h.c.Log.Error("status page feed", "err", err)
		http.Error(w, "status page: feed failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	_, _ = w.Write(out)
}

func (h *Handler) unauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="gpusla status"`)
	http.Error(w, msg, http.StatusUnauthorized)
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
		".csv": "text/csv; charset=utf-8", ".pdf": "application/pdf", ".zip": "application/zip", ".txt": "text/plain; charset=utf-8"}[path.Ext(name)]
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

//go:embed page.html.tmpl
var pageHTML string

// pageTmpl is parsed once with a stand-in "t"; render binds the page's
// printer to a clone.
var pageTmpl = template.Must(template.New("status").Funcs(template.FuncMap{
	"t": func(key string, args ...any) string { return fmt.Sprintf(key, args...) },
}).Parse(pageHTML))

func render(buf *bytes.Buffer, p *Page) error { return renderWith(buf, p, i18n.New(p.Lang)) }

// renderWith renders with pr, whose Missing a test reads.
func renderWith(buf *bytes.Buffer, p *Page, pr *i18n.Printer) error {
	t, err := pageTmpl.Clone()
	if err != nil {
		return err
	}
	t.Funcs(template.FuncMap{"t": func(key string, args ...any) string { return pr.T(key, args...) }})
	return t.Execute(buf, p)
}

// publicTTL is how long a public page is reused: anyone may ask for it,
// and each build reads every node, incident and ticket.
const publicTTL = 20 * time.Second

// publicCache holds the last public page built per language asked for.
type publicCache struct {
	mu    sync.Mutex
	pages map[Request]cached
}

type cached struct {
	page *Page
	err  error
	at   time.Time
}

// page is Build, with public pages reused for publicTTL.
func (h *Handler) page(ctx context.Context, req Request) (*Page, error) {
	if req.Mode != Public {
		return h.Build(ctx, req)
	}
	if req.Lang == "" {
		// Only the language Accept-Language resolves to matters.
		req.AcceptLanguage = string(acceptLang(req.AcceptLanguage))
	}
	now := h.c.Now()
	h.cache.mu.Lock()
	defer h.cache.mu.Unlock()
	if c, ok := h.cache.pages[req]; ok && now.Sub(c.at) < publicTTL && !c.at.After(now) {
		return c.page, c.err
	}
	p, err := h.Build(ctx, req)
	if h.cache.pages == nil {
		h.cache.pages = map[Request]cached{}
	}
	h.cache.pages[req] = cached{page: p, err: err, at: now}
	return p, err
}
