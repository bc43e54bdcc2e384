package waitfor

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// True returns as soon as the condition holds, and looks no more.
func TestTrueWaitsForTheEvent(t *testing.T) {
	var looks atomic.Int32
	True(t, "the fifth look", func() bool { return looks.Add(1) == 5 })
	if n := looks.Load(); n != 5 {
		t.Fatalf("looked %d times, want 5", n)
	}
}

// A condition that never holds fails the test after the limit, naming
// what was awaited.
func TestWithinFailsAfterTheLimit(t *testing.T) {
	ft := &fakeT{}
	start := time.Now()
	func() {
		defer func() { _ = recover() }()
		Within(ft, 20*time.Millisecond, "never", func() bool { return false })
	}()
	if ft.msg != "after 20ms: never" || time.Since(start) < 20*time.Millisecond {
		t.Fatalf("failed with %q after %v", ft.msg, time.Since(start))
	}
}

type fakeT struct {
	testing.TB
	msg string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.msg = sprintf(format, args...)
	panic("fatal")
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
