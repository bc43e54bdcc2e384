package notify

import (
	"context"
	"errors"
	"time"
)

// ErrNotSent marks the error of a delivery that reached nobody: the
// notifier gave up before its request left (waiting for its rate limit, for
// a retry after the channel said "slow down", or told to yield). The
// application keeps such a message pending without counting an attempt and
// may send it again at once, or after NotSentError.After; nothing is ever
// duplicated by that retry, since nothing was delivered.
var ErrNotSent = errors.New("not sent")

// NotSentError is an ErrNotSent with when to try again: After is how long
// the channel's own limit stays used up (zero: as soon as the caller likes).
type NotSentError struct {
	After time.Duration
	Err   error
}

func (e *NotSentError) Error() string        { return e.Err.Error() }
func (e *NotSentError) Unwrap() error        { return e.Err }
func (e *NotSentError) Is(target error) bool { return target == ErrNotSent }

// RetryAfter is how long a not-sent error asks to wait (zero when err is
// not a NotSentError or asks for no wait).
func RetryAfter(err error) time.Duration {
	var ns *NotSentError
	if errors.As(err, &ns) {
		return ns.After
	}
	return 0
}

type yieldKey struct{}

// WithYield returns ctx carrying yield: when yield is done, a notifier
// stops waiting (rate limit, backoff) and returns an ErrNotSent, but a
// request already under way is finished under ctx. The outbox uses it for
// shutdown (what is not sent yet stays pending, what is in flight is
// recorded) and to let an urgent alert pass a routine one still waiting
// for its channel's limit.
func WithYield(ctx, yield context.Context) context.Context {
	return context.WithValue(ctx, yieldKey{}, yield)
}

// WaitContext is the context a notifier's waits run under: done when ctx
// is, or when the yield ctx carries is; stop releases it.
func WaitContext(ctx context.Context) (wctx context.Context, stop func()) {
	y, _ := ctx.Value(yieldKey{}).(context.Context)
	if y == nil {
		return ctx, func() {}
	}
	wctx, cancel := context.WithCancel(ctx)
	if y.Err() != nil {
		cancel() // at once: AfterFunc would cancel from another goroutine, a moment later
		return wctx, cancel
	}
	unhook := context.AfterFunc(y, cancel)
	return wctx, func() { unhook(); cancel() }
}

type urgentKey struct{}

// AsUrgent marks ctx's send as an urgent alert's (Urgent): a robot books it
// ahead of routine messages still waiting for its quota, which book again
// after it, so an urgent alert is never queued behind a burst of ticket
// notices or routine alerts sent by other callers on the same robot.
func AsUrgent(ctx context.Context) context.Context { return context.WithValue(ctx, urgentKey{}, true) }

// IsUrgent says whether ctx's send is marked AsUrgent.
func IsUrgent(ctx context.Context) bool { v, _ := ctx.Value(urgentKey{}).(bool); return v }
