package actionlink

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/refusal"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/i18n"
)

// Requester opens a replacement request (functions/replacement.Requester):
// the hardware ticket, once per incident, and the ticket text. created is
// false when the incident had its ticket already.
type Requester interface {
	RequestReplacement(ctx context.Context, node, incidentID, by, thread string) (text, ticketID string, created bool, err error)
}

// MaxForm caps the confirmation form's body: five short fields.
const MaxForm = 4 << 10

// By is who the ticket's timeline says opened it.
const By = "alert link"

// Config wires a Handler.
type Config struct {
	Links     *Signer
	Desk      *app.TicketDesk
	Requester Requester
	Log       *slog.Logger
}

// Handler serves the replacement link: GET the confirmation page, POST the
// request.
type Handler struct {
	links   *Signer
	desk    *app.TicketDesk
	req     Requester
	log     *slog.Logger
	refused *refusal.Log
}

// New checks c and returns the handler.
func New(c Config) (*Handler, error) {
	if c.Links == nil || c.Desk == nil || c.Requester == nil {
		return nil, errors.New("actionlink: Links, Desk and Requester are required")
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	return &Handler{links: c.Links, desk: c.Desk, req: c.Requester, log: c.Log, refused: refusal.New("actions", c.Log, 0)}, nil
}

// Register adds the routes to mux.
func (h *Handler) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET "+PathReplacement, h.confirm)
	mux.HandleFunc("POST "+PathReplacement, h.request)
}

//go:embed page.html.tmpl
var pageSrc string

var pageTmpl = template.Must(template.New("page").Parse(pageSrc))

type fact struct{ Name, Value string }

type page struct {
	Lang, Title     string
	Messages        []string
	Bad, OK         bool
	Facts           []fact
	Explain, Button string
	Action          string
	Form            []fact
	Expires         string
	Text, PasteHint string
	status          int
	printers        []*i18n.Printer // every language on the page, to log untranslated sentences
}

// subject is what a verified link is about, read from the store.
type subject struct {
	link Link
	node store.Node
	inc  store.Incident
	p    *i18n.Printer
	loc  *time.Location
}

// both are the two languages, Chinese first, for answers given before the
// link names a contract (a link that is not ours has no language).
func both() []*i18n.Printer { return []*i18n.Printer{i18n.New(i18n.ZH), i18n.New(i18n.EN)} }

// fail answers before a contract is known: status and the sentence in both
// languages. Invalid links, unknown nodes and unknown incidents all come
// here with ErrInvalid, and read the same.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, key, args := http.StatusForbidden, "This link is not valid: it was changed, it is not from this backend, or the backend's link secret was rotated since.", []any(nil)
	switch {
	case errors.Is(err, ErrTooLarge):
		status, key, args = http.StatusRequestURITooLong, "This link is malformed: %s.", []any{err.Error()}
	case errors.Is(err, ErrMalformed):
		status, key, args = http.StatusBadRequest, "This link is malformed: %s.", []any{err.Error()}
	}
	reason := ErrInvalid.Error()
	for _, e := range []error{ErrTooLarge, ErrMalformed} {
		if errors.Is(err, e) {
			reason = e.Error()
		}
	}
	h.refused.Refused(r.Context(), reason, status, "remote", r.RemoteAddr, "why", err.Error())
	pg := &page{status: status, Bad: true, printers: both()}
	for _, p := range pg.printers {
		pg.Messages = append(pg.Messages, p.T(key, append([]any(nil), args...)...))
	}
	pg.Title = pg.printers[0].T("Request the replacement of the physical machine") + " / " + pg.printers[1].T("Request the replacement of the physical machine")
	pg.Lang = "zh"
	h.write(w, pg)
}

// verify checks a link (sizes, signature, expiry, in that order) and reads
// what it names; ok false means the answer was written.
func (h *Handler) verify(w http.ResponseWriter, r *http.Request, q url.Values) (subject, bool) {
	l, err := h.links.Verify(ActionReplacement, q)
	if err != nil && !errors.Is(err, ErrExpired) {
		h.fail(w, r, err)
		return subject{}, false
	}
	s, ok := h.subjectOf(r.Context(), l)
	if !ok {
		h.fail(w, r, ErrInvalid)
		return subject{}, false
	}
	if now := h.desk.Service().Now(); s.node.Released(now) {
		// Given back: whatever the link's age, nothing is requested.
		h.refused.Refused(r.Context(), "node released", http.StatusGone, "node", l.Node, "incident", l.IncidentID)
		pg := h.pageOf(s, http.StatusGone)
		pg.Bad = true
		pg.Messages = []string{s.p.T("This node is no longer rented: it was released (given back) at %s. No replacement is requested, and no ticket clock starts.",
			s.p.Time(s.node.ReleasedAt.In(s.loc)))}
		h.write(w, pg)
		return subject{}, false
	}
	if err != nil { // expired: a genuine link, answered in its contract's language
		h.refused.Refused(r.Context(), ErrExpired.Error(), http.StatusGone, "node", l.Node, "incident", l.IncidentID)
		pg := h.pageOf(s, http.StatusGone)
		pg.Bad = true
		pg.Messages = []string{s.p.T("This link has expired. Request the replacement from a newer alert, from Slack, or with `gpusla ticket request-replacement %s`.", s.node.ID)}
		h.write(w, pg)
		return subject{}, false
	}
	return s, true
}

// subjectOf reads the node and incident a verified link names; false when
// either is unknown or the incident is not one a replacement is asked for.
func (h *Handler) subjectOf(ctx context.Context, l Link) (subject, bool) {
	svc := h.desk.Service()
	n, err := svc.Node(ctx, l.Node)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			h.log.Error("action link: read node", "node", l.Node, "err", err)
		}
		return subject{}, false
	}
	inc, err := svc.Incident(ctx, l.Node, l.IncidentID)
	if err != nil || !notify.WantsReplacement(inc.Kind) {
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			h.log.Error("action link: read incident", "node", l.Node, "incident", l.IncidentID, "err", err)
		}
		return subject{}, false
	}
	s := subject{link: l, node: n, inc: inc, p: i18n.New(i18n.EN), loc: time.UTC}
	if tm, ok := h.desk.Contract(n.Contract); ok && tm != nil {
		if lang, err := i18n.Parse(tm.Paperwork.Lang); err == nil {
			s.p = i18n.New(lang)
		}
		if loc, err := time.LoadLocation(tm.TimeZone); err == nil && tm.TimeZone != "" {
			s.loc = loc
		}
	}
	return s, true
}

// pageOf is the page about s: its title and the incident's facts.
func (h *Handler) pageOf(s subject, status int) *page {
	p := s.p
	kind := p.Word(s.inc.Kind)
	if p.Lang == i18n.EN {
		kind = chantext.KindName(s.inc.Kind) // the alert's own words
	}
	return &page{status: status, Lang: string(p.Lang), printers: []*i18n.Printer{p},
		Title: p.T("Request the replacement of the physical machine"),
		Facts: []fact{{p.T("Node"), s.node.ID}, {p.T("Provider"), s.node.Provider}, {p.T("Contract"), s.node.Contract},
			{p.T("Incident"), kind + " (" + s.inc.ID + ")"}, {p.T("Since"), p.Time(s.inc.Start.In(s.loc))}}}
}

// existing is the incident's ticket, if it has one.
func (h *Handler) existing(ctx context.Context, s subject) (store.Ticket, bool, error) {
	tk, err := h.desk.Get(ctx, app.TicketIDForKey(app.IncidentTicketKey(s.node.ID, s.inc.ID)))
	if errors.Is(err, store.ErrNotFound) || app.ErrorCode(err) == app.ENotFound {
		return store.Ticket{}, false, nil
	}
	return tk, err == nil, err
}

func (h *Handler) already(s subject, tk store.Ticket, status int) *page {
	pg := h.pageOf(s, status)
	pg.Messages = []string{s.p.T("Already requested: ticket %s is open for this incident (opened %s by %s).", tk.ID, s.p.Time(tk.Opened.In(s.loc)), tk.OpenedBy)}
	return pg
}

// confirm is the GET: it reads and never writes (chat apps fetch links to
// preview them). A link whose incident has its ticket says so instead of
// offering the form again.
func (h *Handler) confirm(w http.ResponseWriter, r *http.Request) {
	if len(r.URL.RawQuery) > MaxQuery {
		h.fail(w, r, ErrTooLarge)
		return
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		h.fail(w, r, ErrMalformed)
		return
	}
	s, ok := h.verify(w, r, q)
	if !ok {
		return
	}
	tk, found, err := h.existing(r.Context(), s)
	if err != nil {
		h.unavailable(w, s, err)
		return
	}
	if found {
		h.write(w, h.already(s, tk, http.StatusOK))
		return
	}
	p := s.p
	pg := h.pageOf(s, http.StatusOK)
	pg.Explain = p.T("Requesting opens a hardware ticket in gpusla with the contract's replacement clock running, writes the signed evidence pack (failing checks, kernel log, stress results, the snapshot), and gives you the ticket text to paste into the provider's ticket system.")
	pg.Button = p.T("Request replacement")
	pg.Expires = p.T("This link expires at %s.", p.Time(s.link.Expires.In(s.loc)))
	// Relative to this page, so a reverse proxy's path prefix is kept.
	pg.Action = PathReplacement[strings.LastIndexByte(PathReplacement, '/')+1:]
	v := s.link.Values()
	for _, k := range linkParams {
		pg.Form = append(pg.Form, fact{k, v.Get(k)})
	}
	pg.Form = append(pg.Form, fact{"token", h.links.Token(s.link)})
	h.write(w, pg)
}

// request is the POST from the confirmation page: the form's size and
// type, the link's signature and expiry, the form token, and then the
// request, whose once-only is the ticket store's conditional create.
func (h *Handler) request(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > MaxForm {
		h.fail(w, r, ErrTooLarge)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		h.fail(w, r, errors.Join(ErrMalformed, errors.New("want a form (application/x-www-form-urlencoded)")))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxForm))
	if err != nil {
		h.fail(w, r, ErrTooLarge)
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		h.fail(w, r, ErrMalformed)
		return
	}
	token := form["token"]
	delete(form, "token")
	if len(token) != 1 {
		h.fail(w, r, ErrInvalid)
		return
	}
	l, err := h.links.Verify(ActionReplacement, form)
	if err == nil && !h.links.CheckToken(l, token[0]) {
		err = ErrInvalid
	}
	if err != nil && !errors.Is(err, ErrExpired) {
		h.fail(w, r, err)
		return
	}
	s, ok := h.verify(w, r, form)
	if !ok {
		return
	}
	if tk, found, err := h.existing(r.Context(), s); err != nil {
		h.unavailable(w, s, err)
		return
	} else if found {
		h.refused.Refused(r.Context(), "already requested", http.StatusConflict, "node", s.node.ID, "ticket", tk.ID)
		h.write(w, h.already(s, tk, http.StatusConflict))
		return
	}
	text, id, created, err := h.req.RequestReplacement(r.Context(), s.node.ID, s.inc.ID, By, "")
	if err != nil {
		switch app.ErrorCode(err) {
		case app.ENotFound:
			h.fail(w, r, ErrInvalid)
		case app.EInvalid, app.EConflict:
			pg := h.pageOf(s, http.StatusBadRequest)
			pg.Bad = true
			pg.Messages = []string{s.p.T("The replacement could not be requested: %s", app.ErrorMessage(err))}
			h.write(w, pg)
		default:
			h.unavailable(w, s, err)
		}
		return
	}
	if !created { // another request won the conditional create
		tk, _, gerr := h.existing(r.Context(), s)
		if gerr != nil || tk.ID == "" {
			tk = store.Ticket{ID: id}
		}
		pg := h.already(s, tk, http.StatusConflict)
		h.write(w, pg)
		return
	}
	h.log.Info("replacement requested from an alert link", "node", s.node.ID, "incident", s.inc.ID, "ticket", id)
	pg := h.pageOf(s, http.StatusCreated)
	pg.OK = true
	pg.Messages = []string{s.p.T("Replacement requested: hardware ticket %s is open and its replacement clock runs.", id)}
	pg.PasteHint = s.p.T("Paste this into the provider's ticket system and attach the evidence pack:")
	pg.Text = text
	h.write(w, pg)
}

func (h *Handler) unavailable(w http.ResponseWriter, s subject, err error) {
	h.log.Error("action link", "node", s.node.ID, "incident", s.inc.ID, "err", err)
	pg := h.pageOf(s, http.StatusServiceUnavailable)
	pg.Bad = true
	pg.Messages = []string{s.p.T("The replacement could not be requested now; nothing was changed. Try again in a minute.")}
	h.write(w, pg)
}

// write renders pg with the headers every action page needs: never cached
// or indexed, never framed (a confirmation button must not be clickjacked),
// and no Referer, so the link does not leak to anything the page loads.
func (h *Handler) write(w http.ResponseWriter, pg *page) {
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, pg); err != nil {
		h.log.Error("action page", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	for _, p := range pg.printers {
		if miss := p.Missing(); len(miss) > 0 {
			h.log.Error("action page: untranslated sentences", "lang", p.Lang, "missing", miss)
		}
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Robots-Tag", "noindex, nofollow")
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	if pg.Lang != "" {
		hd.Set("Content-Language", pg.Lang)
	}
	w.WriteHeader(pg.status)
	_, _ = w.Write(buf.Bytes())
}
