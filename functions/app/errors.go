package app

import (
	"errors"
	"fmt"

	"github.com/gpusla/gpusla/infra/store"
)

// ErrorKind says what sort of refusal an Error is; the HTTP API
// (functions/httpapi) maps each kind to one status, the CLI and Slack say
// the message. Errors that are not an *Error are internal.
type ErrorKind string

// The kinds of Error.
const (
	// EInvalid: the request is malformed or names something that does not
	// fit (HTTP 400).
	EInvalid ErrorKind = "invalid"
	// EConflict: the request is well formed but contradicts what is
	// recorded, such as a second resolution or a node id taken (HTTP 409).
	EConflict ErrorKind = "conflict"
	// EUnauthorized: the request's credentials do not check out — a
	// missing or wrong signature, a timestamp outside the window, an
	// unknown node, a replay (HTTP 401). The message says which check
	// failed and never more, so it tells an attacker nothing.
	EUnauthorized ErrorKind = "unauthorized"
	// ENotFound: what the request names does not exist (HTTP 404). Store
	// lookups say so with store.ErrNotFound, which ErrorCode maps here.
	ENotFound ErrorKind = "not_found"
	// EInternal: anything else, ours to fix (HTTP 500).
	EInternal ErrorKind = "internal"
)

// Error is a request the application refuses: its kind, the request field
// at fault and what is wrong with it, in words meant for whoever sent it.
type Error struct {
	Kind  ErrorKind
	Field string
	Msg   string
	// Err is the cause where it is one of a fixed set (a signature check's
	// sentinel error, say), so callers can test it with errors.Is and count
	// refusals by it.
	Err error
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// Errorf is an *Error of kind about field.
func Errorf(kind ErrorKind, field, format string, a ...any) *Error {
	return &Error{Kind: kind, Field: field, Msg: fmt.Sprintf(format, a...)}
}

// ErrorCode is the kind of err: that of the *Error it wraps, ENotFound for
// store.ErrNotFound, EInternal for anything else (and "" for nil).
func ErrorCode(err error) ErrorKind {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Kind
	case errors.Is(err, store.ErrNotFound):
		return ENotFound
	}
	return EInternal
}

// ErrorField is the request field err names, "" if none.
func ErrorField(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// ErrorMessage is what to tell the sender: the message of the *Error err
// wraps (without the context wrapped around it on the way up), else
// err's own text.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Error()
	}
	return err.Error()
}
