package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/refusal"
	"github.com/gpusla/gpusla/infra/store"
)

// keyGate checks the API key ("Authorization: Bearer gsk_…") and its scope
// before anything else of the request is read: 401 without a key or with
// one that does not check out (the reason goes to the log only), 403 with a
// good key that lacks the scope.
type keyGate struct {
	svc     *app.Service
	log     *slog.Logger
	refused *refusal.Log
}

func newKeyGate(svc *app.Service, surface string, log *slog.Logger) *keyGate {
	return &keyGate{svc: svc, log: log, refused: refusal.New(surface, log, 0)}
}

func (g *keyGate) require(scope app.Scope, next func(http.ResponseWriter, *http.Request, store.APIKey)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || token == "" {
			g.refused.Refused(r.Context(), "no API key", http.StatusUnauthorized, "remote", r.RemoteAddr, "path", r.URL.Path)
			w.Header().Set("WWW-Authenticate", `Bearer realm="gpusla"`)
			writeErr(w, http.StatusUnauthorized, "unauthorized: an API key is required (Authorization: Bearer gsk_…; create one with `gpusla apikey create --scope "+string(scope)+"`)", "")
			return
		}
		k, err := g.svc.Authenticate(r.Context(), strings.TrimSpace(token), scope)
		switch {
		case err == nil:
			next(w, r, k)
		case errors.Is(err, app.ErrBadKey):
			// Which part was wrong (unknown, wrong, revoked) is for the log.
			// The counter's reason is the sentinel alone: the error's text
			// names the key id, one label value per key.
			g.refused.Refused(r.Context(), app.ErrBadKey.Error(), http.StatusUnauthorized, "why", err.Error(), "remote", r.RemoteAddr, "path", r.URL.Path)
			w.Header().Set("WWW-Authenticate", `Bearer realm="gpusla", error="invalid_token"`)
			writeErr(w, http.StatusUnauthorized, "unauthorized: invalid API key", "")
		case app.ErrorCode(err) == app.EForbidden:
			g.refused.Refused(r.Context(), app.ErrMissingScope.Error(), http.StatusForbidden, "key", k.ID, "scope", string(scope), "path", r.URL.Path)
			w.Header().Set("WWW-Authenticate", `Bearer realm="gpusla", error="insufficient_scope", scope="`+string(scope)+`"`)
			writeErr(w, StatusOf(err), app.ErrorMessage(err), app.ErrorField(err))
		default:
			g.log.Error("authenticate API key", "err", err)
			writeErr(w, http.StatusInternalServerError, "internal error", "")
		}
	})
}
