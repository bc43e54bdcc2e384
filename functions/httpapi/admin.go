package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
)

// Node administration over HTTP, behind an API key with the admin scope:
// what `gpusla node release` and `gpusla maintenance add` do, for a
// backend that is running (`serve` holds the embedded store's file; the
// Lambdas have no shell). Both go through the same application calls, so
// a refusal names the same field and value.
const (
	PathNodeRelease = "/v1/nodes/{id}/release"
	PathMaintenance = "/v1/maintenance"
)

// MaxAdminBody caps an admin request body.
const MaxAdminBody = 16 << 10

// ReleaseRequest is the body of POST /v1/nodes/{id}/release.
type ReleaseRequest struct {
	// At is when the node was given back (RFC 3339); absent: now.
	At string `json:"at,omitempty"`
	// Override is the documented reason for a release dated before
	// counted outage, refused without one (app.ReleaseNode).
	Override string `json:"override,omitempty"`
}

// MaintenanceRequest is the body of POST /v1/maintenance: exactly one of
// contract and node; times RFC 3339; announced_at absent: now; override:
// the documented reason a notice recorded after its start, or after an
// outage under way began, should still take out its whole window.
type MaintenanceRequest struct {
	Contract    string `json:"contract,omitempty"`
	Node        string `json:"node,omitempty"`
	Start       string `json:"start"`
	End         string `json:"end"`
	AnnouncedAt string `json:"announced_at,omitempty"`
	Summary     string `json:"summary,omitempty"`
	Override    string `json:"override,omitempty"`
}

// MaintenanceView is a notice as the API shows it: the record, and
// RecordedAt (its created_at, named as the export names it) and
// RecordedLate: it was recorded after its window began, so it takes out
// nothing before its recording unless it carries an override.
type MaintenanceView struct {
	store.Maintenance
	RecordedAt   time.Time `json:"recorded_at"`
	RecordedLate bool      `json:"recorded_after_start,omitempty"`
}

func maintenanceView(m store.Maintenance) MaintenanceView {
	return MaintenanceView{Maintenance: m, RecordedAt: m.CreatedAt, RecordedLate: m.CreatedAt.After(m.Start)}
}

// keyActor is who an API key is in the books' records: "api:ID (name)".
func keyActor(k store.APIKey) string { return "api:" + k.ID + " (" + k.Name + ")" }

// registerAdmin adds the admin routes (New).
func (a *API) registerAdmin(keys *keyGate) {
	a.mux.Handle("POST "+PathNodeRelease, keys.require(app.ScopeAdmin, a.release))
	a.mux.Handle("POST "+PathMaintenance, keys.require(app.ScopeAdmin, a.announce))
	a.mux.Handle("GET "+PathMaintenance, keys.require(app.ScopeRead, a.maintenance))
}

// appErr writes an application error: its status and message, naming the
// field; anything else is a logged 500.
func (a *API) appErr(w http.ResponseWriter, what string, err error) {
	var ue *app.Error
	if errors.As(err, &ue) {
		writeErr(w, StatusOf(err), ue.Error(), ue.Field)
		return
	}
	a.log.Error(what, "err", err)
	writeErr(w, http.StatusInternalServerError, "internal error", "")
}

// timeOr parses an optional RFC 3339 field: absent is def.
func timeOr(field, v string, def time.Time) (time.Time, error) {
	if v == "" {
		return def, nil
	}
	return app.ParseTime(field, v)
}

func (a *API) release(w http.ResponseWriter, r *http.Request, k store.APIKey) {
	var req ReleaseRequest
	if !decodeMax(w, r, &req, MaxAdminBody) {
		return
	}
	at, err := timeOr("at", req.At, a.svc.Now())
	if err != nil {
		a.appErr(w, "release", err)
		return
	}
	n, err := a.svc.ReleaseNode(r.Context(), app.NodeRelease{Node: r.PathValue("id"), At: at, By: keyActor(k), Override: req.Override})
	if err != nil {
		a.appErr(w, "release", err)
		return
	}
	a.log.Info("node released over the API", "node", n.ID, "at", n.ReleasedAt, "key", k.ID)
	v, err := a.nodeView(r, n)
	if err != nil {
		a.appErr(w, "release", err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (a *API) announce(w http.ResponseWriter, r *http.Request, k store.APIKey) {
	var req MaintenanceRequest
	if !decodeMax(w, r, &req, MaxAdminBody) {
		return
	}
	in := app.NewMaintenance{Contract: req.Contract, Node: req.Node, Summary: req.Summary, By: keyActor(k), Override: req.Override}
	var err error
	if in.Start, err = app.ParseTime("start", req.Start); err != nil {
		a.appErr(w, "maintenance", err)
		return
	}
	if in.End, err = app.ParseTime("end", req.End); err != nil {
		a.appErr(w, "maintenance", err)
		return
	}
	if in.AnnouncedAt, err = timeOr("announced_at", req.AnnouncedAt, a.svc.Now()); err != nil {
		a.appErr(w, "maintenance", err)
		return
	}
	m, err := a.svc.AnnounceMaintenance(r.Context(), in)
	if err != nil {
		a.appErr(w, "maintenance", err)
		return
	}
	a.log.Info("maintenance recorded over the API", "id", m.ID, "key", k.ID)
	writeJSON(w, http.StatusOK, maintenanceView(m))
}

// maintenance lists the notices overlapping [from, to) (default: the last
// 31 days to now).
func (a *API) maintenance(w http.ResponseWriter, r *http.Request, _ store.APIKey) {
	from, to, ok := window(w, r, a.svc.Now())
	if !ok {
		return
	}
	ms, err := a.svc.Maintenance(r.Context(), from, to)
	if err != nil {
		a.appErr(w, "list maintenance", err)
		return
	}
	out := make([]MaintenanceView, 0, len(ms))
	for _, m := range ms {
		out = append(out, maintenanceView(m))
	}
	writeJSON(w, http.StatusOK, out)
}
