// Package httpapi is the backend's HTTP layer, shared by `gpusla serve` and
// the Lambdas (through an API Gateway / Function URL adapter): POST
// /v1/batches (ingest, signed by the node), GET /healthz, and read-only
// views for people behind an API key with the read scope. Other parts add
// their routes to Mux.
//
// On the path of one observation (docs/architecture.md) this is step 6, accept: the signed batch
// arrives here and is handed to the application's ingest.
package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/refusal"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/incident"
)

// API serves the application over HTTP.
type API struct {
	svc     *app.Service
	log     *slog.Logger
	mux     *http.ServeMux
	refused *refusal.Log // ingest refusals: counted, logged once a minute per reason
}

// Every route and who may call it. Health and ingest are open (a batch
// carries its node's signature); everything else needs an API key.
//
//	POST /v1/batches       node signature (HMAC)      New, NewIngest
//	POST /v1/enrol         enrolment token            New, NewIngest (enrol.go)
//	GET  /healthz          anyone                     New, NewIngest
//	GET  /v1/nodes         API key, scope read        New
//	GET  /v1/incidents     API key, scope read        New
//	GET  /v1/maintenance   API key, scope read        New
//	POST /v1/nodes/{id}/release, POST /v1/maintenance
//	                       API key, scope admin       New (admin.go)
//	GET  /v1/enrol-tokens, /v1/enrolments
//	                       API key, scope read        New (enrol.go)
//	POST /v1/enrol-tokens, /v1/enrol-tokens/{id}/revoke
//	                       API key, scope admin       New (enrol.go)
//	/v1/tickets…           API key, scope tickets     RegisterTickets
//	/v1/claims…            API key, scope claims      RegisterClaims (claims.go)

// Routes.
const (
	PathBatches   = "/v1/batches"
	PathHealth    = "/healthz"
	PathNodes     = "/v1/nodes"
	PathIncidents = "/v1/incidents"
)

// New returns the API with every route registered, the read views behind
// an API key with the read scope (`gpusla serve`, the tickets function).
func New(svc *app.Service, log *slog.Logger) *API {
	a := NewIngest(svc, log)
	keys := newKeyGate(svc, "reads", a.log)
	a.mux.Handle("GET "+PathNodes, keys.require(app.ScopeRead, a.nodes))
	a.mux.Handle("GET "+PathIncidents, keys.require(app.ScopeRead, a.incidents))
	a.registerAdmin(keys)
	a.registerEnrol(keys)
	return a
}

// NewIngest returns the API of the probes' public URL: POST /v1/batches,
// POST /v1/enrol and GET /healthz alone; every other path is 404, so the URL in a probe's
// config reaches nothing else (the ingest Lambda).
func NewIngest(svc *app.Service, log *slog.Logger) *API {
	if log == nil {
		log = slog.Default()
	}
	a := &API{svc: svc, log: log, mux: http.NewServeMux(), refused: refusal.New("ingest", log, 0)}
	a.mux.HandleFunc("POST "+PathBatches, a.ingest)
	a.mux.HandleFunc("POST "+wire.PathEnrol, a.enrol)
	a.mux.HandleFunc("GET "+PathHealth, a.health)
	return a
}

// Refusals is the ingest refusal log (tests set its clock).
func (a *API) Refusals() *refusal.Log { return a.refused }

// Mux is where other parts register their routes (tickets, Slack, reports).
func (a *API) Mux() *http.ServeMux { return a.mux }

// ServeHTTP serves every route.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, status int, msg, field string) {
	writeJSON(w, status, wire.Error{Error: msg, Field: field})
}

// ingest: signature headers first, then the capped body, then the
// application (which verifies the HMAC before it decodes anything).
func (a *API) ingest(w http.ResponseWriter, r *http.Request) {
	h := r.Header
	req := app.IngestRequest{Node: h.Get(wire.HeaderNode), Timestamp: h.Get(wire.HeaderTimestamp), Signature: h.Get(wire.HeaderSignature)}
	if req.Node == "" || req.Timestamp == "" || req.Signature == "" {
		a.refused.Refused(r.Context(), wire.ErrNoSignature.Error(), http.StatusUnauthorized, "remote", r.RemoteAddr)
		writeErr(w, http.StatusUnauthorized, "unauthorized: "+wire.ErrNoSignature.Error(), "")
		return
	}
	if status, msg, field := bodyForm(h); status != 0 {
		a.refused.Refused(r.Context(), "body form", status, "node", req.Node, "msg", msg, "remote", r.RemoteAddr)
		writeErr(w, status, msg, field)
		return
	}
	if r.ContentLength > wire.MaxBodyBytes {
		a.refused.Refused(r.Context(), "body over the limit", http.StatusRequestEntityTooLarge, "node", req.Node, "remote", r.RemoteAddr)
		writeErr(w, http.StatusRequestEntityTooLarge, "body over the limit of 1048576 bytes", "")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, wire.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			a.refused.Refused(r.Context(), "body over the limit", http.StatusRequestEntityTooLarge, "node", req.Node, "remote", r.RemoteAddr)
			writeErr(w, http.StatusRequestEntityTooLarge, "body over the limit of 1048576 bytes", "")
			return
		}
		writeErr(w, http.StatusBadRequest, "cannot read body: "+err.Error(), "body")
		return
	}
	req.Body = body
	ack, err := a.svc.Ingest(r.Context(), req)
	var ue *app.Error
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, ack)
	case errors.As(err, &ue):
		// Never log the signature or body; the node id is not secret.
		status := StatusOf(err)
		// Refusals are counted by a reason from a fixed set: the cause's
		// sentinel error, else the field at fault.
		reason := "field " + ue.Field
		if ue.Err != nil {
			reason = ue.Err.Error()
		} else if ue.Field == "" {
			reason = string(ue.Kind)
		}
		a.refused.Refused(r.Context(), reason, status, "node", req.Node, "msg", ue.Msg, "remote", r.RemoteAddr)
		writeErr(w, status, ue.Error(), ue.Field)
	default:
		a.log.Error("ingest failed", "node", req.Node, "err", err)
		writeErr(w, http.StatusInternalServerError, "internal error; the probe keeps the batch and retries", "")
	}
}

// bodyForm refuses a batch not sent as the probe sends it, before a byte
// of it is read: the signature and the hash chain are over the bytes as
// sent, so a compressed body (Content-Encoding) is not the batch the chain
// links, and a body declared as anything but JSON is not a batch. No
// Content-Type at all is taken (the body is judged as JSON either way).
// Status 0: the form is the probe's.
func bodyForm(h http.Header) (status int, msg, field string) {
	if ce := h.Values("Content-Encoding"); len(ce) > 0 && !(len(ce) == 1 && strings.EqualFold(strings.TrimSpace(ce[0]), "identity")) {
		return http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Encoding %q: a batch is sent as the bytes it is signed over, not encoded", strings.Join(ce, ", ")), "Content-Encoding"
	}
	if ct := h.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			return http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q: a batch is application/json", ct), "Content-Type"
		}
	}
	return 0, "", ""
}

func (a *API) health(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "time": a.svc.Now()})
}

// NodeView is one node as GET /v1/nodes shows it (no secret): its order,
// its delivery judged under its contract (the report's rule,
// sla/delivery), its release, and what the backend last heard.
type NodeView struct {
	ID       string `json:"id"`
	Provider string `json:"provider"`
	Contract string `json:"contract"`
	GPUModel string `json:"gpu_model,omitempty"`
	GPUCount int    `json:"gpu_count,omitempty"`
	Demo     bool   `json:"demo,omitempty"`
	// OrderedAt, ReleasedAt: the node's period; InService: released or not
	// as of now.
	OrderedAt  time.Time `json:"ordered_at,omitzero"`
	ReleasedAt time.Time `json:"released_at,omitzero"`
	InService  bool      `json:"in_service"`
	// ReleaseRecordedAt, ReleaseRecordedBy, ReleaseOverride: when and by
	// whom the release was recorded, and the override it was given
	// (docs/backend.md, "Administrative records").
	ReleaseRecordedAt time.Time `json:"release_recorded_at,omitzero"`
	ReleaseRecordedBy string    `json:"release_recorded_by,omitempty"`
	ReleaseOverride   string    `json:"release_override,omitempty"`
	// AcceptedAt is the probe time of the node's first passing acceptance
	// check (`gpuprobe check`); DeliveredAt the delivery instant under the
	// contract's delivery.counts_until (the first heartbeat or AcceptedAt).
	AcceptedAt  time.Time     `json:"accepted_at,omitzero"`
	DeliveredAt time.Time     `json:"delivered_at,omitzero"`
	Delivery    *DeliveryView `json:"delivery,omitempty"`

	LastSeq          uint64    `json:"last_seq"`
	LastReceivedAt   time.Time `json:"last_received_at,omitzero"`
	LastHeartbeatAt  time.Time `json:"last_heartbeat_at,omitzero"`
	FirstHeartbeatAt time.Time `json:"first_heartbeat_at,omitzero"`
	ClockSkewMS      int64     `json:"clock_skew_ms"`
	Unreachable      bool      `json:"unreachable"`
	OpenIncidents    []string  `json:"open_incidents,omitempty"`
}

// DeliveryView is a node's delivery verdict as of now, as the report
// states it: met, breached, pending or no_target; took (order to
// delivery, or to now while pending) and late (past the target).
type DeliveryView struct {
	Status      string    `json:"status"`
	CountsUntil string    `json:"counts_until"`
	Due         time.Time `json:"due,omitzero"`
	TookSeconds int64     `json:"took_seconds"`
	LateSeconds int64     `json:"late_seconds"`
}

func (a *API) nodes(w http.ResponseWriter, r *http.Request, _ store.APIKey) {
	nodes, err := a.svc.Nodes(r.Context())
	if err != nil {
		a.log.Error("list nodes", "err", err)
		writeErr(w, http.StatusInternalServerError, "internal error", "")
		return
	}
	out := make([]NodeView, 0, len(nodes))
	for _, n := range nodes {
		v, err := a.nodeView(r, n)
		if err != nil {
			a.log.Error("list nodes", "node", n.ID, "err", err)
			writeErr(w, http.StatusInternalServerError, "internal error", "")
			return
		}
		out = append(out, v)
	}
	writeJSON(w, http.StatusOK, out)
}

// nodeView is n with its state (none yet: nothing heard).
func (a *API) nodeView(r *http.Request, n store.Node) (NodeView, error) {
	now := a.svc.Now()
	v := NodeView{ID: n.ID, Provider: n.Provider, Contract: n.Contract, GPUModel: n.GPUModel, GPUCount: n.GPUCount, Demo: n.Demo,
		OrderedAt: n.OrderedAt, ReleasedAt: n.ReleasedAt, InService: !n.Released(now),
		ReleaseRecordedAt: n.ReleaseRecordedAt, ReleaseRecordedBy: n.ReleaseRecordedBy, ReleaseOverride: n.ReleaseOverride}
	st, err := a.svc.NodeState(r.Context(), n.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		st = store.NodeState{AcceptanceKnown: true}
	case err != nil:
		return v, err
	default:
		v.LastSeq, v.LastReceivedAt, v.LastHeartbeatAt, v.FirstHeartbeatAt, v.ClockSkewMS =
			st.LastSeq, st.LastReceivedAt, st.LastHeartbeatAt, st.FirstHeartbeatAt, st.ClockSkewMS
		if st.AcceptanceHeld {
			// One recorded before acceptance was held to the
			// registration may be of cards never ordered: not shown
			// until the node's next batch judges it again.
			v.AcceptedAt = st.AcceptedAt
		}
		if g := st.Eval.Unreachable; g != nil {
			v.Unreachable = true
			v.OpenIncidents = append(v.OpenIncidents, store.IncidentID("unreachable", g.Since))
		}
		for key, h := range st.Eval.Checks {
			if h != nil && h.Open {
				kind, check := incident.SplitKey(key, h)
				v.OpenIncidents = append(v.OpenIncidents, store.CheckIncidentID(string(kind), h.Since, check))
			}
		}
		sort.Strings(v.OpenIncidents)
	}
	if d, ok := a.svc.Delivery(n, &st, now); ok {
		v.DeliveredAt = d.DeliveredAt
		v.Delivery = &DeliveryView{Status: d.Verdict.Status, CountsUntil: d.CountsUntil, Due: d.Verdict.Due,
			TookSeconds: int64(d.Verdict.Took / time.Second), LateSeconds: int64(d.Verdict.Late / time.Second)}
	}
	return v, nil
}

// window reads the optional from and to query parameters (RFC 3339;
// default the 31 days up to now), naming the one that is wrong.
func window(w http.ResponseWriter, r *http.Request, now time.Time) (from, to time.Time, ok bool) {
	q := r.URL.Query()
	to = now.Add(time.Second)
	from = to.Add(-31 * 24 * time.Hour)
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"from", &from}, {"to", &to}} {
		if v := q.Get(p.name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				writeErr(w, http.StatusBadRequest, p.name+": not an RFC 3339 time", p.name)
				return from, to, false
			}
			*p.dst = t
		}
	}
	if !from.Before(to) {
		writeErr(w, http.StatusBadRequest, "from: "+from.Format(time.RFC3339)+" is not before to "+to.Format(time.RFC3339), "from")
		return from, to, false
	}
	return from, to, true
}

func (a *API) incidents(w http.ResponseWriter, r *http.Request, _ store.APIKey) {
	from, to, ok := window(w, r, a.svc.Now())
	if !ok {
		return
	}
	q := r.URL.Query()
	// Each incident with its verdict over the window asked for: counted
	// or not, how many seconds, and why, as the report says it.
	incs, err := a.svc.JudgedIncidents(r.Context(), q.Get("node"), from, to)
	if err != nil {
		a.log.Error("list incidents", "err", err)
		writeErr(w, http.StatusInternalServerError, "internal error", "")
		return
	}
	writeJSON(w, http.StatusOK, incs)
}

// StatusOf is the HTTP status of an error from the application: the one
// place an app.ErrorKind becomes a status code.
func StatusOf(err error) int {
	switch app.ErrorCode(err) {
	case "":
		return http.StatusOK
	case app.EInvalid:
		return http.StatusBadRequest
	case app.EConflict:
		return http.StatusConflict
	case app.EUnauthorized:
		return http.StatusUnauthorized
	case app.EForbidden:
		return http.StatusForbidden
	case app.ENotFound:
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}
