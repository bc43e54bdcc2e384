// Package ctxsleep waits for a duration or a context, whichever ends first:
// the pause between retries (Slack's Retry-After, a refused ping) and
// between samples (CPU steal) that a shutdown must be able to cut short.
package ctxsleep

import (
	"context"
	"time"
)

// Sleep waits d, or returns ctx's error as soon as ctx is done.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
