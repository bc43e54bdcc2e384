package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
)

// Every kind of application error has its one status, wrapped or not.
func TestStatusOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, http.StatusOK},
		{app.Errorf(app.EInvalid, "node", "missing"), http.StatusBadRequest},
		{fmt.Errorf("record: %w", app.Errorf(app.EConflict, "type", "already resolved")), http.StatusConflict},
		{fmt.Errorf("get: %w", store.ErrNotFound), http.StatusNotFound},
		{app.Errorf(app.ENotFound, "id", "no such ticket"), http.StatusNotFound},
		{fmt.Errorf("ingest: %w", app.Errorf(app.EUnauthorized, "", "unauthorized: replayed request")), http.StatusUnauthorized},
		{errors.New("boom"), http.StatusInternalServerError},
	} {
		if got := StatusOf(c.err); got != c.want {
			t.Errorf("StatusOf(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}
