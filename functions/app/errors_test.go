package app_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
)

// ErrorCode, ErrorField and ErrorMessage see through the context an error
// is wrapped in on its way up, and treat what is not an *Error as internal.
func TestErrorKinds(t *testing.T) {
	bad := app.Errorf(app.EConflict, "type", "ticket %s was already %s", "T-1", "resolved")
	wrapped := fmt.Errorf("record event: %w", bad)
	for _, c := range []struct {
		err        error
		kind       app.ErrorKind
		field, msg string
	}{
		{bad, app.EConflict, "type", "type: ticket T-1 was already resolved"},
		{wrapped, app.EConflict, "type", "type: ticket T-1 was already resolved"},
		{app.Errorf(app.EInvalid, "", "no field"), app.EInvalid, "", "no field"},
		{fmt.Errorf("get T-9: %w", store.ErrNotFound), app.ENotFound, "", "get T-9: not found"},
		{errors.New("disk on fire"), app.EInternal, "", "disk on fire"},
	} {
		if got := app.ErrorCode(c.err); got != c.kind {
			t.Errorf("ErrorCode(%v) = %q, want %q", c.err, got, c.kind)
		}
		if got := app.ErrorField(c.err); got != c.field {
			t.Errorf("ErrorField(%v) = %q, want %q", c.err, got, c.field)
		}
		if got := app.ErrorMessage(c.err); got != c.msg {
			t.Errorf("ErrorMessage(%v) = %q, want %q", c.err, got, c.msg)
		}
	}
	if app.ErrorCode(nil) != "" {
		t.Error("ErrorCode(nil) is not empty")
	}
}
