package main

// Exit statuses (docs/reports.md, "Exit status").
const (
	exitFailed = 1
	// exitPartial: the report (or bundle) was written, but leaves out
	// nodes it could not judge, named on standard error and in the
	// document; a scheduled run must not take it for the whole fleet.
	exitPartial = 3
)

// exitError is an error with its own exit status.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }
