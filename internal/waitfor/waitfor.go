// Package waitfor is how a test waits for what another goroutine or
// process does: it polls a condition until it holds and fails the test
// only after a limit generous enough for a loaded two-core CI machine. A
// test never sleeps a fixed time and then looks: on a busy machine the
// time is too short (a flaky failure), on an idle one it is wasted.
package waitfor

import (
	"testing"
	"time"
)

// Limit bounds a wait. Only a failing run waits this long; a loaded
// two-core machine has taken over 30 s for what takes milliseconds alone.
const Limit = 3 * time.Minute

// True polls cond until it holds; what names what was awaited, for the
// failure message.
func True(t testing.TB, what string, cond func() bool) {
	t.Helper()
	Within(t, Limit, what, cond)
}

// Within is True with its own limit, for a wait whose bound is part of
// what the test holds the code to.
func Within(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for pause := time.Millisecond; !cond(); pause = min(2*pause, 50*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", limit, what)
		}
		time.Sleep(pause)
	}
}
