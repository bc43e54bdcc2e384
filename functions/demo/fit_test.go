package demo

import (
	"testing"
	"time"
)

// The demo promises an unreachable alert while its pushes fail; under a
// demo contract whose heartbeat_grace is 2m (cn-example's) the 50 s pause
// is lengthened so the alert comes: 5 s heartbeat + 2m grace + a 10 s
// watchdog tick = 2m15s, plus 20 s to see it = 2m35s; the GPU fault moves
// by the same 1m45s.
func TestFitPause(t *testing.T) {
	tl := fitPause(Default, 2*time.Minute)
	if tl.PauseFor != 2*time.Minute+35*time.Second {
		t.Errorf("pause %s, want 2m35s", tl.PauseFor)
	}
	if tl.FaultAt != Default.FaultAt+(2*time.Minute+35*time.Second-Default.PauseFor) {
		t.Errorf("fault at %s", tl.FaultAt)
	}
	if got := alertAfter(tl, 2*time.Minute); got >= tl.PauseFor {
		t.Errorf("alert after %s, not inside the %s pause", got, tl.PauseFor)
	}
	// The demo's own 15 s grace: 5 + 15 + 10 = 30 s, inside 50 s: unchanged.
	if fitPause(Default, Default.Grace) != Default {
		t.Errorf("the default timeline changed")
	}
}
