package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/ticket"
)

// Ticket API routes (docs/tickets.md). Every one needs an API key with the
// tickets scope (`gpusla apikey create --scope tickets`) as
// "Authorization: Bearer gsk_…".
const (
	PathTickets      = "/v1/tickets"
	PathTicket       = "/v1/tickets/{id}"
	PathTicketEvents = "/v1/tickets/{id}/events"
)

// MaxTicketBody caps a ticket API request body.
const MaxTicketBody = 64 << 10

// notifyBudget bounds the wait for the ticket's Slack message after a
// write; what is not sent by then the watchdog sends.
const notifyBudget = 3 * time.Second

// Tickets serves the ticket API.
type Tickets struct {
	desk *app.TicketDesk
	log  *slog.Logger
	keys *keyGate
}

// RegisterTickets adds the ticket API's routes to mux.
func RegisterTickets(mux *http.ServeMux, desk *app.TicketDesk, log *slog.Logger) *Tickets {
	if log == nil {
		log = slog.Default()
	}
	t := &Tickets{desk: desk, log: log, keys: newKeyGate(desk.Service(), "tickets", log)}
	// The whole ticket API, reads included, is the tickets scope: what a
	// key could do before scopes existed.
	auth := func(h func(http.ResponseWriter, *http.Request, store.APIKey)) http.Handler {
		return t.keys.require(app.ScopeTickets, h)
	}
	mux.Handle("POST "+PathTickets, auth(t.open))
	mux.Handle("GET "+PathTickets, auth(t.list))
	mux.Handle("GET "+PathTicket, auth(t.get))
	mux.Handle("PATCH "+PathTicket, auth(t.describe))
	mux.Handle("POST "+PathTicketEvents, auth(t.event))
	return t
}

// decode reads a JSON body strictly (unknown fields are errors), within
// MaxTicketBody, naming the field that is wrong.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	return decodeMax(w, r, v, MaxTicketBody)
}

// decodeMax is decode within limit bytes.
func decodeMax(w http.ResponseWriter, r *http.Request, v any, limit int64) bool {
	body, ok := readMax(w, r, limit)
	return ok && decodeBody(w, body, v)
}

// readMax reads the body within limit bytes (413 past it), so a handler
// can check who sends it before it parses a byte.
func readMax(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		writeErr(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body over the limit of %d bytes", limit), "")
		return nil, false
	}
	return body, true
}

// decodeBody decodes body strictly into v, naming the field that is wrong.
func decodeBody(w http.ResponseWriter, body []byte, v any) bool {
	// encoding/json would store U+FFFD for text that is not text: refuse
	// it, naming the field, as ingest does.
	if err := wire.CheckText(body); err != nil {
		var fe *wire.FieldError
		errors.As(err, &fe)
		writeErr(w, http.StatusBadRequest, fe.Error(), fe.Field)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field == "":
			writeErr(w, http.StatusBadRequest, "body is not a JSON object", "body")
		case errors.As(err, &te):
			writeErr(w, http.StatusBadRequest, fmt.Sprintf("%s: want a %s", te.Field, te.Type), te.Field)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			writeErr(w, http.StatusBadRequest, "unknown field "+f, f)
		default:
			writeErr(w, http.StatusBadRequest, "body is not a JSON object: "+err.Error(), "body")
		}
		return false
	}
	if dec.More() {
		writeErr(w, http.StatusBadRequest, "body holds more than one JSON value", "body")
		return false
	}
	return true
}

// OpenTicketRequest is the body of POST /v1/tickets.
type OpenTicketRequest struct {
	Node        string     `json:"node"`
	Priority    string     `json:"priority"`
	Category    string     `json:"category,omitempty"`
	ProviderRef string     `json:"provider_ref,omitempty"`
	Summary     string     `json:"summary,omitempty"`
	OpenedAt    *time.Time `json:"opened_at,omitempty"` // absent: now; present, it must be a real instant
	IncidentID  string     `json:"incident_id,omitempty"`
	// IdempotencyKey (or the Idempotency-Key header): a retry with the same
	// key returns the ticket the first call opened.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// EventRequest is the body of POST /v1/tickets/{id}/events.
type EventRequest struct {
	// Type: provider_responded, customer_replied, resolved, hardware_replaced.
	Type             string     `json:"type"`
	At               *time.Time `json:"at,omitempty"` // absent: now; present, it must be a real instant
	AwaitingCustomer bool       `json:"awaiting_customer,omitempty"`
	IdempotencyKey   string     `json:"idempotency_key,omitempty"`
}

func idemKey(r *http.Request, body string, k store.APIKey) string {
	v := body
	if h := r.Header.Get("Idempotency-Key"); h != "" {
		v = h
	}
	if v == "" {
		return ""
	}
	// Scoped by API key, so two clients' keys never collide.
	return "api:" + k.ID + ":" + v
}

func (t *Tickets) open(w http.ResponseWriter, r *http.Request, k store.APIKey) {
	var req OpenTicketRequest
	if !decode(w, r, &req) {
		return
	}
	at, ok := presentTime(w, "opened_at", req.OpenedAt)
	if !ok {
		return
	}
	tk, created, err := t.desk.Open(r.Context(), app.OpenRequest{Node: req.Node, Priority: req.Priority, Category: req.Category,
		ProviderRef: req.ProviderRef, Summary: req.Summary, At: at, IncidentID: req.IncidentID,
		By: keyActor(k), Key: idemKey(r, req.IdempotencyKey, k)})
	if err != nil {
		t.fail(w, err)
		return
	}
	t.flush(r.Context(), tk.ID)
	status := http.StatusCreated
	if !created {
		status = http.StatusOK
	}
	t.reply(w, r, status, tk.ID)
}

func (t *Tickets) event(w http.ResponseWriter, r *http.Request, k store.APIKey) {
	id := r.PathValue("id")
	if !app.ValidTicketID(id) {
		writeErr(w, http.StatusNotFound, fmt.Sprintf("ticket %q: not a ticket id (T-xxxxxxxx)", id), "id")
		return
	}
	var req EventRequest
	if !decode(w, r, &req) {
		return
	}
	at, ok := presentTime(w, "at", req.At)
	if !ok {
		return
	}
	rec, err := t.desk.Record(r.Context(), id, app.EventRequest{Type: req.Type, At: at, AwaitingCustomer: req.AwaitingCustomer,
		Key: idemKey(r, req.IdempotencyKey, k), By: keyActor(k)})
	if err != nil {
		t.fail(w, err)
		return
	}
	t.flush(r.Context(), id)
	status := http.StatusCreated
	if rec.Repeat {
		status = http.StatusOK
	}
	t.reply(w, r, status, id)
}

// DescribeRequest is the body of PATCH /v1/tickets/{id}.
type DescribeRequest struct {
	ProviderRef string `json:"provider_ref,omitempty"`
	Summary     string `json:"summary,omitempty"`
}

func (t *Tickets) describe(w http.ResponseWriter, r *http.Request, _ store.APIKey) {
	id := r.PathValue("id")
	if !app.ValidTicketID(id) {
		writeErr(w, http.StatusNotFound, fmt.Sprintf("ticket %q: not a ticket id (T-xxxxxxxx)", id), "id")
		return
	}
	var req DescribeRequest
	if !decode(w, r, &req) {
		return
	}
	if _, err := t.desk.Describe(r.Context(), id, req.ProviderRef, req.Summary); err != nil {
		t.fail(w, err)
		return
	}
	t.reply(w, r, http.StatusOK, id)
}

func (t *Tickets) get(w http.ResponseWriter, r *http.Request, _ store.APIKey) {
	id := r.PathValue("id")
	if !app.ValidTicketID(id) {
		writeErr(w, http.StatusNotFound, fmt.Sprintf("ticket %q: not a ticket id (T-xxxxxxxx)", id), "id")
		return
	}
	t.reply(w, r, http.StatusOK, id)
}

func (t *Tickets) list(w http.ResponseWriter, r *http.Request, _ store.APIKey) {
	openOnly := false
	switch v := r.URL.Query().Get("open"); v {
	case "", "false", "0":
	case "true", "1":
		openOnly = true
	default:
		writeErr(w, http.StatusBadRequest, fmt.Sprintf("open: %q is not true or false", v), "open")
		return
	}
	list, err := t.desk.List(r.Context(), openOnly)
	if err != nil {
		t.fail(w, err)
		return
	}
	now := t.desk.Service().Now()
	out := make([]TicketView, 0, len(list))
	for i := range list {
		out = append(out, t.view(&list[i], now))
	}
	writeJSON(w, http.StatusOK, out)
}

// flush sends the ticket's queued Slack messages within notifyBudget;
// whatever is left is the watchdog's.
func (t *Tickets) flush(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), notifyBudget)
	defer cancel()
	if _, err := t.desk.Flush(ctx, id); err != nil {
		t.log.Warn("ticket notice not sent yet; the watchdog retries", "ticket", id, "err", err)
	}
}

func (t *Tickets) reply(w http.ResponseWriter, r *http.Request, status int, id string) {
	tk, err := t.desk.Get(r.Context(), id)
	if err != nil {
		t.fail(w, err)
		return
	}
	writeJSON(w, status, t.view(&tk, t.desk.Service().Now()))
}

// presentTime is an optional time field: absent means now (the zero time
// for the desk); present, the zero instant 0001-01-01T00:00:00Z is refused
// rather than silently taken for "now". The desk bounds the rest.
func presentTime(w http.ResponseWriter, field string, v *time.Time) (time.Time, bool) {
	if v == nil {
		return time.Time{}, true
	}
	if v.IsZero() {
		writeErr(w, http.StatusBadRequest, field+": 0001-01-01T00:00:00Z is not a time; leave the field out to mean now", field)
		return time.Time{}, false
	}
	return *v, true
}

func (t *Tickets) fail(w http.ResponseWriter, err error) {
	switch app.ErrorCode(err) {
	case app.EInvalid, app.EConflict, app.EUnauthorized:
		writeErr(w, StatusOf(err), app.ErrorMessage(err), app.ErrorField(err))
	case app.ENotFound:
		writeErr(w, StatusOf(err), err.Error(), "id")
	default:
		t.log.Error("ticket API", "err", err)
		writeErr(w, http.StatusInternalServerError, "internal error", "")
	}
}

// TicketView is a ticket as the API shows it: the record and its timing
// against the contract now.
type TicketView struct {
	ID          string    `json:"id"`
	Node        string    `json:"node"`
	Contract    string    `json:"contract"`
	Priority    string    `json:"priority"`
	Category    string    `json:"category,omitempty"`
	ProviderRef string    `json:"provider_ref,omitempty"`
	Summary     string    `json:"summary,omitempty"`
	OpenedAt    time.Time `json:"opened_at"`
	OpenedBy    string    `json:"opened_by,omitempty"`
	// RecordedAt is when the opening was recorded; RecordedLate: opened_at
	// lies more than events.RecordSlack before it, a retroactive claim the
	// report names.
	RecordedAt   time.Time     `json:"recorded_at"`
	RecordedLate bool          `json:"recorded_late,omitempty"`
	IncidentID   string        `json:"incident_id,omitempty"`
	Open         bool          `json:"open"`
	Events       []EventView   `json:"events"`
	Timing       *TimingView   `json:"timing,omitempty"`
	Notices      []NoticeState `json:"notices"`
}

// EventView is one recorded event.
type EventView struct {
	Type             string    `json:"type"`
	At               time.Time `json:"at"`
	AwaitingCustomer bool      `json:"awaiting_customer,omitempty"`
	By               string    `json:"by,omitempty"`
	RecordedAt       time.Time `json:"recorded_at"`
	RecordedLate     bool      `json:"recorded_late,omitempty"`
	Target           string    `json:"completed_target,omitempty"`
	LateSeconds      int64     `json:"late_seconds,omitempty"`
}

// TimingView is the ticket's timing as of AsOf.
type TimingView struct {
	AsOf        time.Time  `json:"as_of"`
	TimeZone    string     `json:"timezone"`
	OffHours    bool       `json:"off_hours"`
	OpenedOn    string     `json:"opened_on"`
	Response    *ClockView `json:"response,omitempty"`
	Resolution  *ClockView `json:"resolution,omitempty"`
	Replacement *ClockView `json:"replacement,omitempty"`
}

// ClockView is one target.
type ClockView struct {
	TargetSeconds  int64     `json:"target_seconds"`
	Clock          string    `json:"clock"`
	Deadline       time.Time `json:"deadline,omitzero"`
	Done           time.Time `json:"done,omitzero"`
	Status         string    `json:"status"`
	ElapsedSeconds int64     `json:"elapsed_seconds"`
	PausedSeconds  int64     `json:"paused_seconds"`
	LateSeconds    int64     `json:"late_seconds"`
}

// NoticeState says whether a Slack message about the ticket went out.
type NoticeState struct {
	Key    string    `json:"key"`
	SentAt time.Time `json:"sent_at,omitzero"`
	Error  string    `json:"last_error,omitempty"`
}

func clockView(c *ticket.Clock) *ClockView {
	if c == nil {
		return nil
	}
	return &ClockView{TargetSeconds: int64(c.Target / time.Second), Clock: string(c.Clock), Deadline: c.Deadline.UTC(), Done: c.Done.UTC(),
		Status: c.Status, ElapsedSeconds: int64(c.Elapsed / time.Second), PausedSeconds: int64(c.Paused / time.Second), LateSeconds: int64(c.Late / time.Second)}
}

func (t *Tickets) view(tk *store.Ticket, now time.Time) TicketView {
	v := TicketView{ID: tk.ID, Node: tk.Node, Contract: tk.Contract, Priority: tk.Priority, Category: tk.Category, ProviderRef: tk.ProviderRef,
		Summary: tk.Summary, OpenedAt: tk.Opened, OpenedBy: tk.OpenedBy, RecordedAt: tk.CreatedAt, RecordedLate: events.Retroactive(tk.Opened, tk.CreatedAt),
		IncidentID: tk.IncidentID, Open: tk.Open,
		Events: []EventView{}, Notices: []NoticeState{}}
	for _, e := range tk.Events {
		v.Events = append(v.Events, EventView{Type: e.Type, At: e.At, AwaitingCustomer: e.AwaitingCustomer, By: e.By, RecordedAt: e.RecordedAt,
			RecordedLate: events.Retroactive(e.At, e.RecordedAt),
			Target:       e.Target, LateSeconds: int64(e.Late / time.Second)})
	}
	for _, n := range tk.Notices {
		// Redacted again on the way out: a notice stored before channel
		// errors were redacted may still hold a webhook URL.
		v.Notices = append(v.Notices, NoticeState{Key: n.Key, SentAt: n.SentAt, Error: notify.RedactText(n.LastErr)})
	}
	if tim, tm, err := t.desk.Timing(tk, now); err == nil {
		v.Timing = &TimingView{AsOf: now, TimeZone: tm.TimeZone, OffHours: tim.OffHours, OpenedOn: string(tim.DayKind),
			Response: clockView(tim.Response), Resolution: clockView(tim.Resolution), Replacement: clockView(tim.Replacement)}
	}
	return v
}
