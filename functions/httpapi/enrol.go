package httpapi

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
)

// Enrolment over HTTP. POST /v1/enrol is the probes' (beside
// /v1/batches, on the ingest URL, behind the enrolment token itself); the
// tokens are made, listed and revoked behind an API key, as `gpusla token`
// does against a running backend.
const (
	PathEnrolTokens = "/v1/enrol-tokens"
	PathTokenRevoke = "/v1/enrol-tokens/{id}/revoke"
	PathEnrolments  = "/v1/enrolments"
)

// TokenRequest is the body of POST /v1/enrol-tokens: the order every node
// enrolled with the token is registered with, its lifetime and use limit;
// or, with reenrol, a one-use token for that existing node.
type TokenRequest struct {
	Name         string  `json:"name,omitempty"`
	Provider     string  `json:"provider,omitempty"`
	Contract     string  `json:"contract,omitempty"`
	OrderedAt    string  `json:"ordered_at,omitempty"`
	GPUModel     string  `json:"gpu_model,omitempty"`
	GPUs         int     `json:"gpus,omitempty"`
	GPUMemoryGB  float64 `json:"gpu_memory_gb,omitempty"`
	GPUDriver    string  `json:"gpu_driver,omitempty"`
	PricePerHour float64 `json:"price_per_hour,omitempty"`
	Currency     string  `json:"currency,omitempty"`
	Heartbeat    string  `json:"heartbeat,omitempty"`
	Push         string  `json:"push,omitempty"`
	Grace        string  `json:"grace,omitempty"`
	// ExpiresAt is RFC 3339; absent: app.DefaultEnrolLifetime from now.
	ExpiresAt string `json:"expires_at,omitempty"`
	Uses      int    `json:"uses,omitempty"`
	Reenrol   string `json:"reenrol,omitempty"`
}

// TokenView is a token as the API shows it (never its hash); Token, the
// text to give the probes, only in the answer that created it.
type TokenView struct {
	ID           string    `json:"id"`
	Name         string    `json:"name,omitempty"`
	Provider     string    `json:"provider"`
	Contract     string    `json:"contract"`
	OrderedAt    time.Time `json:"ordered_at"`
	GPUModel     string    `json:"gpu_model"`
	GPUs         int       `json:"gpus"`
	GPUMemoryMiB int       `json:"gpu_memory_mib,omitempty"`
	GPUDriver    string    `json:"gpu_driver,omitempty"`
	PricePerHour float64   `json:"price_per_hour,omitempty"`
	Currency     string    `json:"currency,omitempty"`
	Heartbeat    string    `json:"heartbeat"`
	Push         string    `json:"push"`
	Grace        string    `json:"grace"`
	Reenrol      string    `json:"reenrol,omitempty"`
	ExpiresAt    time.Time `json:"expires_at"`
	Uses         int       `json:"uses"`
	MaxUses      int       `json:"max_uses"`
	CreatedAt    time.Time `json:"created_at"`
	CreatedBy    string    `json:"created_by"`
	RevokedAt    time.Time `json:"revoked_at,omitzero"`
	RevokedBy    string    `json:"revoked_by,omitempty"`
	Token        string    `json:"token,omitempty"`
}

// NewTokenView is t as shown.
func NewTokenView(t store.EnrolToken) TokenView {
	return TokenView{ID: t.ID, Name: t.Name, Provider: t.Provider, Contract: t.Contract, OrderedAt: t.OrderedAt, GPUModel: t.GPUModel,
		GPUs: t.GPUCount, GPUMemoryMiB: t.GPUMemoryMiB, GPUDriver: t.GPUDriver, PricePerHour: t.PricePerHour, Currency: t.Currency,
		Heartbeat: t.HeartbeatInterval.String(), Push: t.PushInterval.String(), Grace: t.Grace.String(), Reenrol: t.Node,
		ExpiresAt: t.ExpiresAt, Uses: t.Uses, MaxUses: t.MaxUses, CreatedAt: t.CreatedAt, CreatedBy: t.CreatedBy,
		RevokedAt: t.RevokedAt, RevokedBy: t.RevokedBy}
}

// registerEnrol adds the token routes (New).
func (a *API) registerEnrol(keys *keyGate) {
	a.mux.Handle("POST "+PathEnrolTokens, keys.require(app.ScopeAdmin, a.createToken))
	a.mux.Handle("GET "+PathEnrolTokens, keys.require(app.ScopeRead, a.listTokens))
	a.mux.Handle("POST "+PathTokenRevoke, keys.require(app.ScopeAdmin, a.revokeToken))
	a.mux.Handle("GET "+PathEnrolments, keys.require(app.ScopeRead, a.listEnrolments))
}

// enrol: the token first (401 before the body is read), then the capped
// body, then the application.
func (a *API) enrol(w http.ResponseWriter, r *http.Request) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || strings.TrimSpace(token) == "" {
		a.refused.Refused(r.Context(), "no enrolment token", http.StatusUnauthorized, "remote", r.RemoteAddr)
		w.Header().Set("WWW-Authenticate", `Bearer realm="gpusla enrolment"`)
		writeErr(w, http.StatusUnauthorized, "unauthorized: an enrolment token is required (Authorization: Bearer gpe_…; the renter makes one with `gpusla token create`)", "")
		return
	}
	// The size, then the token, then the body's fields: nothing of a
	// request without a good token is parsed.
	body, ok := readMax(w, r, wire.MaxEnrolBody)
	if !ok {
		return
	}
	if err := a.svc.CheckEnrolToken(r.Context(), token); err != nil {
		a.enrolRefused(w, r, err)
		return
	}
	var req wire.EnrolRequest
	if err := wire.CheckKeys(body); err != nil {
		var fe *wire.FieldError
		errors.As(err, &fe)
		writeErr(w, http.StatusBadRequest, fe.Error(), fe.Field)
		return
	}
	if !decodeBody(w, body, &req) {
		return
	}
	got, err := a.svc.Enrol(r.Context(), app.EnrolRequest{Token: token, Node: req.Node, Key: req.Key, Hostname: req.Hostname,
		ProbeVersion: req.ProbeVersion, Remote: r.RemoteAddr})
	if err != nil {
		a.enrolRefused(w, r, err)
		return
	}
	n := got.Node
	writeJSON(w, http.StatusOK, wire.EnrolResponse{Node: n.ID, Secret: string(got.Secret), Provider: n.Provider, Contract: n.Contract,
		GPUModel: n.GPUModel, GPUs: n.GPUCount, GPUMemoryGB: float64(n.GPUMemoryMiB) / 1024, GPUDriver: n.GPUDriver, Heartbeat: n.HeartbeatInterval.String(),
		Push: n.PushInterval.String(), Reenrol: got.Reenrol})
}

// enrolRefused answers a refused enrolment and counts it.
func (a *API) enrolRefused(w http.ResponseWriter, r *http.Request, err error) {
	var ue *app.Error
	if errors.As(err, &ue) {
		reason, why := "enrolment "+string(ue.Kind), err.Error()
		if errors.Is(err, app.ErrBadEnrolToken) {
			// Which part was wrong is for the log alone.
			reason, why = app.ErrBadEnrolToken.Error(), ue.Err.Error()
		}
		a.refused.Refused(r.Context(), reason, StatusOf(err), "why", why, "remote", r.RemoteAddr)
	}
	a.appErr(w, "enrol", err)
}

// durationOr parses an optional Go duration field: absent is 0 (the
// application's default).
func durationOr(field, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, app.Errorf(app.EInvalid, field, "%q is not a duration such as 30s", v)
	}
	return d, nil
}

// TokenOrder is the application's request for a TokenRequest, made by
// key (the record's who).
func TokenOrder(req TokenRequest, by string) (app.NewEnrolToken, error) {
	in := app.NewEnrolToken{Name: req.Name, MaxUses: req.Uses, By: by, Reenrol: req.Reenrol,
		Order: app.NewNode{Provider: req.Provider, Contract: req.Contract, GPUModel: req.GPUModel, GPUCount: req.GPUs,
			GPUMemoryMiB: int(req.GPUMemoryGB * 1024), GPUDriver: strings.TrimSpace(req.GPUDriver), PricePerHour: req.PricePerHour, Currency: req.Currency}}
	var err error
	if in.Order.OrderedAt, err = timeOr("ordered_at", req.OrderedAt, time.Time{}); err != nil {
		return in, err
	}
	if in.ExpiresAt, err = timeOr("expires_at", req.ExpiresAt, time.Time{}); err != nil {
		return in, err
	}
	for _, d := range []struct {
		field, v string
		out      *time.Duration
	}{{"heartbeat", req.Heartbeat, &in.Order.HeartbeatInterval}, {"push", req.Push, &in.Order.PushInterval}, {"grace", req.Grace, &in.Order.Grace}} {
		if *d.out, err = durationOr(d.field, d.v); err != nil {
			return in, err
		}
	}
	if req.GPUMemoryGB < 0 {
		return in, app.Errorf(app.EInvalid, "gpu_memory_gb", "must not be negative")
	}
	return in, nil
}

func (a *API) createToken(w http.ResponseWriter, r *http.Request, k store.APIKey) {
	var req TokenRequest
	if !decodeMax(w, r, &req, MaxAdminBody) {
		return
	}
	in, err := TokenOrder(req, keyActor(k))
	if err != nil {
		a.appErr(w, "create enrolment token", err)
		return
	}
	t, text, err := a.svc.CreateEnrolToken(r.Context(), in)
	if err != nil {
		a.appErr(w, "create enrolment token", err)
		return
	}
	v := NewTokenView(t)
	v.Token = text
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, v)
}

func (a *API) listTokens(w http.ResponseWriter, r *http.Request, _ store.APIKey) {
	ts, err := a.svc.ListEnrolTokens(r.Context())
	if err != nil {
		a.appErr(w, "list enrolment tokens", err)
		return
	}
	out := make([]TokenView, 0, len(ts))
	for _, t := range ts {
		out = append(out, NewTokenView(t))
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *API) revokeToken(w http.ResponseWriter, r *http.Request, k store.APIKey) {
	t, err := a.svc.RevokeEnrolToken(r.Context(), r.PathValue("id"), keyActor(k))
	if err != nil {
		a.appErr(w, "revoke enrolment token", err)
		return
	}
	writeJSON(w, http.StatusOK, NewTokenView(t))
}

func (a *API) listEnrolments(w http.ResponseWriter, r *http.Request, _ store.APIKey) {
	es, err := a.svc.Enrolments(r.Context(), r.URL.Query().Get("node"))
	if err != nil {
		a.appErr(w, "list enrolments", err)
		return
	}
	if es == nil {
		es = []store.Enrolment{}
	}
	writeJSON(w, http.StatusOK, es)
}
